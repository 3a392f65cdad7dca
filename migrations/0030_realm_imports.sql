-- Organization imports (issue 32). An organization being imported is deactivated (every
-- sign-in answers REALM_DEACTIVATED) while it has a `realm_imports` row; only the import's
-- last step removes the row and opens it. `realm_import_ids` maps each id of the archive
-- to this server's id, so every chunk resolves its references here and a chunk sent twice
-- finds its rows already mapped and changes nothing.
CREATE TABLE realm_imports (
    realm_id INTEGER PRIMARY KEY REFERENCES realms(id),
    old_realm_id INTEGER NOT NULL,           -- the organization's id in the archive
    date_started INTEGER NOT NULL            -- UNIX seconds
);

CREATE TABLE realm_import_ids (
    realm_id INTEGER NOT NULL,
    kind TEXT NOT NULL,                      -- 'user', 'channel', 'recipient', 'message', ...
    old_id INTEGER NOT NULL,                 -- the id in the archive
    new_id INTEGER NOT NULL,                 -- this server's id
    PRIMARY KEY (realm_id, kind, old_id)
) WITHOUT ROWID;
