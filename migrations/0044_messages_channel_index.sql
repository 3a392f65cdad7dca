-- A channel narrow filters on messages.channel_id; without this index its window and its
-- first unread message were read in the organization's id order (messages_realm), row by
-- row through every other channel's messages.
CREATE INDEX messages_channel_id ON messages(channel_id, id);
