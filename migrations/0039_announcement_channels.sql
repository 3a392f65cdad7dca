-- Where the notification bot announces new channels (`announce` on creation), new users
-- ("joined this organization") and Zulip's own updates: a channel id each, NULL for
-- nowhere (Zulip's -1). New organizations point all three at their first channel.
ALTER TABLE realms ADD COLUMN new_stream_announcements_stream_id INTEGER;
ALTER TABLE realms ADD COLUMN signup_announcements_stream_id INTEGER;
ALTER TABLE realms ADD COLUMN zulip_update_announcements_stream_id INTEGER;
