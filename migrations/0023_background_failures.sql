-- Work after the response or on an alarm that failed (push notifications, scheduled
-- delivery, event hand-off), counted per organization and kind, where an operator reads
-- them (`GET /api/v1/server_admin/background_failures`) beside the logs. Kept in the first
-- database (`DB`) for every organization, like the directory.

CREATE TABLE background_failures (
    realm_id INTEGER NOT NULL,
    -- What failed: push, push_removal, scheduled_delivery, event_delivery.
    kind TEXT NOT NULL,
    failures INTEGER NOT NULL,
    -- The last failure's message and Unix time.
    last_error TEXT NOT NULL,
    last_at INTEGER NOT NULL,
    PRIMARY KEY (realm_id, kind)
);
