-- Messages, their per-user rows, reactions, direct-message groups, per-user topic
-- visibility, and the organization settings that govern sending, editing and moving.

-- Organization settings (Zulip's defaults). Group-valued settings hold a user_groups id;
-- null means Zulip's default system group (resolved by name when read, see
-- domain::realm_settings), so organizations created before their groups still work.
ALTER TABLE realms ADD COLUMN allow_message_editing INTEGER NOT NULL DEFAULT 1;
-- null: no limit (Zulip's "any time")
ALTER TABLE realms ADD COLUMN message_content_edit_limit_seconds INTEGER DEFAULT 600;
ALTER TABLE realms ADD COLUMN move_messages_within_stream_limit_seconds INTEGER DEFAULT 604800;
ALTER TABLE realms ADD COLUMN move_messages_between_streams_limit_seconds INTEGER DEFAULT 604800;
ALTER TABLE realms ADD COLUMN can_resolve_topics_group INTEGER;                 -- default role:everyone
ALTER TABLE realms ADD COLUMN can_move_messages_between_channels_group INTEGER; -- default role:members
ALTER TABLE realms ADD COLUMN can_move_messages_between_topics_group INTEGER;   -- default role:everyone
ALTER TABLE realms ADD COLUMN can_mention_many_users_group INTEGER;             -- default role:administrators
ALTER TABLE realms ADD COLUMN empty_topic_display_name TEXT NOT NULL DEFAULT 'general chat';
-- 'allow_empty_topic' or 'disable_empty_topic' (Zulip's realm topics_policy, FL 392)
ALTER TABLE realms ADD COLUMN topics_policy TEXT NOT NULL DEFAULT 'allow_empty_topic';
-- 'all', 'moves' or 'none' (Zulip's message_edit_history_visibility_policy, FL 358)
ALTER TABLE realms ADD COLUMN message_edit_history_visibility_policy TEXT NOT NULL DEFAULT 'all';
ALTER TABLE realms ADD COLUMN max_message_length INTEGER NOT NULL DEFAULT 10000;
ALTER TABLE realms ADD COLUMN max_topic_length INTEGER NOT NULL DEFAULT 60;

-- Per-user settings for automatic topic visibility (Zulip's values: 1 topics the user
-- participates in, 2 topics the user sends a message to, 3 topics the user starts, 4 never).
ALTER TABLE users ADD COLUMN automatically_follow_topics_policy INTEGER NOT NULL DEFAULT 3;
ALTER TABLE users ADD COLUMN automatically_unmute_topics_in_muted_streams_policy INTEGER NOT NULL DEFAULT 2;
ALTER TABLE users ADD COLUMN automatically_follow_topics_where_mentioned INTEGER NOT NULL DEFAULT 1;

-- Per-channel empty-topic policy: 'inherit' (the organization's topics_policy),
-- 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'.
ALTER TABLE channels ADD COLUMN topics_policy TEXT NOT NULL DEFAULT 'inherit';

-- A group of users exchanging direct messages (Zulip's DirectMessageGroup, recipient type
-- 3); used for conversations of three or more people. A conversation of two goes to the
-- other user's personal recipient (type 1), one with oneself to one's own.
CREATE TABLE direct_message_groups (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    member_key TEXT NOT NULL,                -- the members' ids ascending, joined by ','
    group_size INTEGER NOT NULL
);
CREATE UNIQUE INDEX direct_message_groups_key ON direct_message_groups(realm_id, member_key);

CREATE TABLE direct_message_group_members (
    group_id INTEGER NOT NULL REFERENCES direct_message_groups(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    PRIMARY KEY (group_id, user_id)
);

CREATE TABLE messages (
    id INTEGER PRIMARY KEY,                  -- the message id clients sort by
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    sender_id INTEGER NOT NULL REFERENCES users(id),
    recipient_id INTEGER NOT NULL REFERENCES recipients(id),
    channel_id INTEGER REFERENCES channels(id), -- null for direct messages
    topic TEXT NOT NULL DEFAULT '',          -- '' for direct messages and the empty ("general chat") topic
    content TEXT NOT NULL,                   -- raw Markdown as sent (or last edited)
    rendered_content TEXT NOT NULL,          -- HTML of content
    date_sent INTEGER NOT NULL,              -- UNIX seconds
    client TEXT NOT NULL,                    -- sending client's name
    is_me_message INTEGER NOT NULL DEFAULT 0,
    last_edit_timestamp INTEGER,             -- null: content never edited
    last_moved_timestamp INTEGER,            -- null: never moved (resolve/unresolve does not count)
    -- JSON array of edit-history entries (spec "Edit-history entry"), most recent first;
    -- null: never edited or moved.
    edit_history TEXT,
    has_attachment INTEGER NOT NULL DEFAULT 0,
    has_image INTEGER NOT NULL DEFAULT 0,
    has_link INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX messages_recipient_topic ON messages(recipient_id, topic COLLATE NOCASE, id);
CREATE INDEX messages_realm ON messages(realm_id, id);
CREATE INDEX messages_sender ON messages(sender_id, id);

-- One row per user who received (or, for "historical" rows, interacted with) a message.
-- flags is a bitmask (src/db/user_messages.rs): 1 read, 2 starred, 4 collapsed,
-- 8 mentioned, 16 stream_wildcard_mentioned, 32 topic_wildcard_mentioned,
-- 64 has_alert_word, 128 historical (the user was not a recipient), 256 is_private.
CREATE TABLE user_messages (
    user_id INTEGER NOT NULL REFERENCES users(id),
    message_id INTEGER NOT NULL REFERENCES messages(id),
    flags INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, message_id)
) WITHOUT ROWID;
CREATE INDEX user_messages_message ON user_messages(message_id);

-- Emoji reactions; ordered oldest first by id.
CREATE TABLE reactions (
    id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    emoji_name TEXT NOT NULL,
    emoji_code TEXT NOT NULL,                -- unicode_emoji: dash-separated hex code points
    reaction_type TEXT NOT NULL DEFAULT 'unicode_emoji' -- or realm_emoji, zulip_extra_emoji
);
CREATE UNIQUE INDEX reactions_unique ON reactions(message_id, user_id, reaction_type, emoji_code);

-- A user's visibility policy for one topic of a channel: 0 none (inherit), 1 muted,
-- 2 unmuted, 3 followed. Topic matching is case-insensitive like Zulip's.
CREATE TABLE user_topics (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    channel_id INTEGER NOT NULL REFERENCES channels(id),
    topic TEXT NOT NULL,
    visibility_policy INTEGER NOT NULL,
    last_updated INTEGER NOT NULL            -- UNIX seconds
);
CREATE UNIQUE INDEX user_topics_key ON user_topics(user_id, channel_id, topic COLLATE NOCASE);
