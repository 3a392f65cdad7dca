-- Linkifiers: organization-defined patterns that message rendering and topic links turn
-- into links.

CREATE TABLE linkifiers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    -- a regular expression with named groups, e.g. `#(?P<id>[0-9]+)`
    pattern TEXT NOT NULL,
    -- an RFC 6570 URL template using exactly the pattern's group names, e.g. `https://x.test/{id}`
    url_template TEXT NOT NULL,
    -- linkifiers apply in this order (ties by id); PATCH /realm/linkifiers rewrites it
    sort_order INTEGER NOT NULL DEFAULT 0,
    -- Zulip's unique_together (realm, pattern)
    UNIQUE (realm_id, pattern)
);
CREATE INDEX linkifiers_realm ON linkifiers (realm_id, sort_order, id);
