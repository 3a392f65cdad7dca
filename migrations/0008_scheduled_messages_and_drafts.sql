-- Scheduled messages and drafts.

-- A message its sender asked to be sent later. The organization's MessageScheduler Durable
-- Object sends it at scheduled_timestamp through the ordinary send path.
CREATE TABLE scheduled_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    sender_id INTEGER NOT NULL REFERENCES users(id),
    channel_id INTEGER,                  -- channel messages; null for direct messages
    to_user_ids TEXT,                    -- direct messages: JSON list of recipient user ids
    topic TEXT NOT NULL DEFAULT '',      -- channel messages
    content TEXT NOT NULL,
    rendered_content TEXT NOT NULL,
    scheduled_timestamp INTEGER NOT NULL, -- unix seconds
    read_by_sender INTEGER NOT NULL DEFAULT 0,
    client TEXT NOT NULL DEFAULT '',
    -- 0 pending, 1 delivered. Delivery sets it in the batch that writes the message, and sets
    -- 2 when the row is no longer pending: the CHECK then fails the whole batch, so a
    -- message is written at most once.
    delivered INTEGER NOT NULL DEFAULT 0 CHECK (delivered IN (0, 1)),
    -- 1: deleted by its owner. Kept (and hidden) so that a delivery already under way sees
    -- the deletion in its guard instead of a missing row.
    deleted INTEGER NOT NULL DEFAULT 0,
    -- Bumped by every edit: a delivery sends only the revision it read.
    revision INTEGER NOT NULL DEFAULT 0,
    delivered_message_id INTEGER,
    -- 1: sending failed at the scheduled time (channel gone, no access, ...); kept so the
    -- owner can fix and reschedule it.
    failed INTEGER NOT NULL DEFAULT 0,
    failure_message TEXT
);
CREATE INDEX scheduled_messages_due ON scheduled_messages (realm_id, delivered, deleted, failed, scheduled_timestamp);
CREATE INDEX scheduled_messages_sender ON scheduled_messages (sender_id, delivered);

-- Zulip's drafts, synchronised between a user's clients.
CREATE TABLE drafts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id),
    kind TEXT NOT NULL DEFAULT '',       -- '', 'stream' or 'private'
    to_ids TEXT NOT NULL DEFAULT '[]',   -- JSON list: the channel id, or the recipients' user ids
    topic TEXT NOT NULL DEFAULT '',
    content TEXT NOT NULL,
    last_edit_time INTEGER NOT NULL      -- unix seconds
);
CREATE INDEX drafts_user ON drafts (user_id);
