-- When a scheduled message or reminder was made (UNIX seconds), which Zulip's export
-- carries as `request_timestamp`. Rows from before this migration have none.
ALTER TABLE scheduled_messages ADD COLUMN request_timestamp INTEGER;
