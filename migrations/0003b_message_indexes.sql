-- Indexes for reading a channel's or conversation's messages in id order without a topic
-- (channel narrows, first_message_id) and a user's unread messages.
-- Named 0003b so that it sorts after 0003_messages.sql (wrangler applies migrations in
-- lexicographic order of file names; "0003_1_..." would sort before "0003_messages").
CREATE INDEX messages_recipient_id ON messages(recipient_id, id);
CREATE INDEX user_messages_unread ON user_messages(user_id, message_id) WHERE (flags & 1) = 0;
