-- Message retention (Zulip's `message_retention_days`): the organization's period in days,
-- -1 keeping messages forever (Zulip's default); a channel's own period overrides it (NULL:
-- the organization's, -1: forever). The organization's scheduler deletes what is past it
-- (src/actions/message_retention.rs).
ALTER TABLE realms ADD COLUMN message_retention_days INTEGER NOT NULL DEFAULT -1;
ALTER TABLE channels ADD COLUMN message_retention_days INTEGER;
