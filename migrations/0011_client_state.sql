-- Per-user state that clients read at start and keep in sync through events: alert words,
-- user status, muted users and presence.

-- Words that flag a message `has_alert_word` for the user when it contains one
-- (case-insensitive, at word boundaries). Listed in the order they were added.
CREATE TABLE alert_words (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    word TEXT NOT NULL            -- as the user typed it; unique per user ignoring case
);
CREATE UNIQUE INDEX alert_words_user_word ON alert_words (user_id, word COLLATE NOCASE);
CREATE INDEX alert_words_realm ON alert_words (realm_id);

-- A user's status as others see it; no row (or all defaults) means no status.
CREATE TABLE user_status (
    user_id INTEGER PRIMARY KEY REFERENCES users(id),
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    status_text TEXT NOT NULL DEFAULT '',          -- at most 60 characters
    emoji_name TEXT NOT NULL DEFAULT '',           -- '' means no emoji
    emoji_code TEXT NOT NULL DEFAULT '',
    reaction_type TEXT NOT NULL DEFAULT 'unicode_emoji',
    away INTEGER NOT NULL DEFAULT 0,               -- deprecated `away` (Zulip: not presence_enabled)
    updated_at INTEGER NOT NULL                    -- UNIX seconds
);
CREATE INDEX user_status_realm ON user_status (realm_id);

-- Users a user muted: their messages arrive already read and clients hide them.
CREATE TABLE muted_users (
    user_id INTEGER NOT NULL REFERENCES users(id),        -- who muted
    muted_user_id INTEGER NOT NULL REFERENCES users(id),
    date_muted INTEGER NOT NULL,                          -- UNIX seconds
    PRIMARY KEY (user_id, muted_user_id)
) WITHOUT ROWID;
CREATE INDEX muted_users_muted ON muted_users (muted_user_id);

-- Presence: when each user was last active and last connected. Written at most once a
-- minute per user (pings in between change nothing and are not written).
CREATE TABLE presence (
    user_id INTEGER PRIMARY KEY REFERENCES users(id),
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    last_active_time INTEGER NOT NULL,      -- UNIX seconds of the last "active" ping
    last_connected_time INTEGER NOT NULL,   -- UNIX seconds of the last ping of any status
    last_update_id INTEGER NOT NULL         -- organization-wide sequence of presence changes
);
CREATE INDEX presence_realm_update ON presence (realm_id, last_update_id);

-- API keys: a user's key is derived from the Worker secret API_KEY_SECRET, the user and
-- this version; regenerating the key moves to the next version (api_keys keeps only the
-- hash of the current key, for lookup).
ALTER TABLE users ADD COLUMN api_key_version INTEGER NOT NULL DEFAULT 0;
