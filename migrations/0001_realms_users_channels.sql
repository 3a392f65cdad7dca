-- Organizations, their users and API keys, channels and subscriptions.
-- Every table is keyed by realm_id; every query is scoped by it.

CREATE TABLE realms (
    id INTEGER PRIMARY KEY,
    string_id TEXT NOT NULL UNIQUE,          -- subdomain; the default organization's is DEFAULT_REALM
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    deactivated INTEGER NOT NULL DEFAULT 0,  -- 1: every login and API call answers REALM_DEACTIVATED
    date_created INTEGER NOT NULL            -- UNIX seconds
);

CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    email TEXT NOT NULL,                     -- API email (the login name of Basic auth)
    delivery_email TEXT NOT NULL,            -- real address
    full_name TEXT NOT NULL,
    role INTEGER NOT NULL DEFAULT 400,       -- 100 owner, 200 administrator, 300 moderator, 400 member, 600 guest
    is_active INTEGER NOT NULL DEFAULT 1,
    is_bot INTEGER NOT NULL DEFAULT 0,
    bot_type INTEGER,                        -- null for humans; 1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded
    bot_owner_id INTEGER REFERENCES users(id),
    password_hash TEXT,                      -- pbkdf2_sha256$<iterations>$<salt>$<hash>; null: no password login
    can_create_users INTEGER NOT NULL DEFAULT 0,
    timezone TEXT NOT NULL DEFAULT '',
    date_joined INTEGER NOT NULL,            -- UNIX seconds
    avatar_version INTEGER NOT NULL DEFAULT 1,
    email_address_visibility INTEGER NOT NULL DEFAULT 1, -- Zulip's values: 1 everyone, 2 members, 3 admins, 4 nobody, 5 moderators
    is_imported_stub INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX users_realm_delivery_email ON users(realm_id, delivery_email COLLATE NOCASE);
CREATE INDEX users_realm_email ON users(realm_id, email COLLATE NOCASE);

-- A user may hold several keys (one per login); each authenticates until the user is
-- deactivated. Only the SHA-256 of a key is stored.
CREATE TABLE api_keys (
    key_hash TEXT PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    date_created INTEGER NOT NULL
);
CREATE INDEX api_keys_user ON api_keys(user_id);

-- Zulip's recipient: what a message is addressed to. type 1 = a user (direct messages to
-- one person), 2 = a channel, 3 = a group of users (group direct messages).
CREATE TABLE recipients (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    type INTEGER NOT NULL,
    type_id INTEGER NOT NULL                 -- user id, channel id or direct group id
);
CREATE UNIQUE INDEX recipients_type ON recipients(realm_id, type, type_id);

CREATE TABLE channels (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    invite_only INTEGER NOT NULL DEFAULT 0,
    history_public_to_subscribers INTEGER NOT NULL DEFAULT 1, -- 0: subscribers see only messages sent after they joined
    is_web_public INTEGER NOT NULL DEFAULT 0,
    is_archived INTEGER NOT NULL DEFAULT 0,
    creator_id INTEGER REFERENCES users(id),
    date_created INTEGER NOT NULL
);
CREATE UNIQUE INDEX channels_realm_name ON channels(realm_id, name COLLATE NOCASE);

CREATE TABLE subscriptions (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    channel_id INTEGER NOT NULL REFERENCES channels(id),
    active INTEGER NOT NULL DEFAULT 1,       -- 0 after unsubscribing; the row keeps the settings
    color TEXT NOT NULL DEFAULT '#c2c2c2',
    is_muted INTEGER NOT NULL DEFAULT 0,
    pin_to_top INTEGER NOT NULL DEFAULT 0,
    -- null: follow the user's global notification settings
    desktop_notifications INTEGER,
    audible_notifications INTEGER,
    push_notifications INTEGER,
    email_notifications INTEGER,
    wildcard_mentions_notify INTEGER
);
CREATE UNIQUE INDEX subscriptions_user_channel ON subscriptions(user_id, channel_id);
CREATE INDEX subscriptions_channel ON subscriptions(channel_id, active);
