-- The directory: which D1 database holds each organization (src/directory.rs). Only the
-- first database's copy (binding `DB`) is read or written; the migration runs on every
-- database because they share one `migrations_dir`, and the other copies stay empty.

CREATE TABLE realm_directory (
    realm_id INTEGER PRIMARY KEY AUTOINCREMENT, -- the organization's id in every database
                                                -- and Durable Object name: unique server-wide
    string_id TEXT NOT NULL UNIQUE,             -- the subdomain, as in realms.string_id
    database TEXT NOT NULL,                     -- the D1 binding holding its rows ('DB', 'DB_2')
    date_created INTEGER NOT NULL DEFAULT (unixepoch())
);

-- Organizations from before the directory live in the first database; recording them keeps
-- their ids and makes new ids start above them.
INSERT INTO realm_directory (realm_id, string_id, database, date_created)
    SELECT id, string_id, 'DB', date_created FROM realms;
