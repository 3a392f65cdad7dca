-- Data exports of an organization (Zulip's RealmExport): requested by an administrator
-- (`POST /export/realm`), built in the background by the organization's MessageScheduler
-- alarm, stored as a `.tar.gz` in R2. The row is the truth: an export still `requested`
-- or `started` after a restart is built again by the next alarm.

CREATE TABLE realm_exports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    acting_user_id INTEGER NOT NULL REFERENCES users(id),
    export_type INTEGER NOT NULL,            -- 1 public data, 2 full with members' consent
    status INTEGER NOT NULL DEFAULT 0,       -- Zulip's: 0 requested, 1 started, 2 succeeded, 3 failed, 4 deleted
    date_requested INTEGER NOT NULL,         -- UNIX seconds; the rate limit counts these
    date_succeeded INTEGER,
    date_failed INTEGER,
    date_deleted INTEGER,
    base_url TEXT NOT NULL,                  -- scheme://host of the request, for the download URL
    export_path TEXT                         -- R2 key of the archive once built
);
CREATE INDEX realm_exports_realm ON realm_exports(realm_id, date_requested);
