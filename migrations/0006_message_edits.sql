-- Editing, moving and deleting messages.

-- Zulip's message type: 1 a normal message, 2 the notification bot's "has marked this topic
-- as resolved/unresolved" message (undoing a resolve within a minute deletes it instead of
-- sending a second notification); and 3 the tombstone of a deleted message: emptied, moved
-- to its sender's personal recipient, without user_messages rows, so invisible. The row
-- stays because messages.id has no AUTOINCREMENT and ids must never be reused.
ALTER TABLE messages ADD COLUMN kind INTEGER NOT NULL DEFAULT 1;

-- Who may delete messages (Zulip's defaults). Group-valued settings hold a user_groups id;
-- null means the default system group.
ALTER TABLE realms ADD COLUMN can_delete_any_message_group INTEGER;  -- default role:administrators
ALTER TABLE realms ADD COLUMN can_delete_own_message_group INTEGER;  -- default role:everyone
-- null: no limit; senders may delete their own messages this long after sending
ALTER TABLE realms ADD COLUMN message_content_delete_limit_seconds INTEGER DEFAULT 600;
