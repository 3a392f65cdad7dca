-- Where reports of messages go (Zulip's `moderation_request_channel`): a channel id, null
-- when message reporting is off.
ALTER TABLE realms ADD COLUMN moderation_request_channel_id INTEGER;
