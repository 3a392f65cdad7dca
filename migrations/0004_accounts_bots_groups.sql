-- Custom profile fields and their per-user values, bot storage. (Issue 4: accounts, bots
-- and groups. User groups use the tables of 0002.)

-- An organization's custom profile fields (Zulip's CustomProfileField).
CREATE TABLE custom_profile_fields (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    name TEXT NOT NULL,
    hint TEXT NOT NULL DEFAULT '',
    -- 1 short text, 2 long text, 3 choice (select), 4 date, 5 link, 6 users,
    -- 7 external account, 8 pronouns
    field_type INTEGER NOT NULL,
    -- JSON text: choices {"<key>": {"text":..,"order":..}} for type 3, {"subtype":..,
    -- "url_pattern":..} for type 7, '' otherwise
    field_data TEXT NOT NULL DEFAULT '',
    sort_order INTEGER NOT NULL,             -- Zulip's `order`: display position
    display_in_profile_summary INTEGER NOT NULL DEFAULT 0,
    required INTEGER NOT NULL DEFAULT 0,
    editable_by_user INTEGER NOT NULL DEFAULT 1 -- 0: only administrators may set the value
);
CREATE UNIQUE INDEX custom_profile_fields_realm_name ON custom_profile_fields(realm_id, name COLLATE NOCASE);

-- One user's value of one field. Users fields hold a JSON list of user ids as text.
CREATE TABLE custom_profile_field_values (
    user_id INTEGER NOT NULL REFERENCES users(id),
    field_id INTEGER NOT NULL REFERENCES custom_profile_fields(id),
    value TEXT NOT NULL,
    rendered_value TEXT,                     -- HTML of long text fields; null for other types
    PRIMARY KEY (user_id, field_id)
);
CREATE INDEX custom_profile_field_values_field ON custom_profile_field_values(field_id);

-- A bot's key-value store (Zulip's BotStorageData): string keys and values.
CREATE TABLE bot_storage (
    bot_id INTEGER NOT NULL REFERENCES users(id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (bot_id, key)
);
