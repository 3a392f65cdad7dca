-- Custom emoji: images an organization's users upload and use as `:name:` in messages and
-- as reactions (`reaction_type` `realm_emoji`, `emoji_code` the id).

CREATE TABLE realm_emoji (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    -- lowercase letters, digits, `-` and `_`, ending with a letter or digit
    name TEXT NOT NULL,
    -- the uploader; null when unknown (Zulip's author_id)
    author_id INTEGER REFERENCES users(id),
    -- the image's name in R2 under `<realm_id>/emoji/images/`: random hex and an extension
    file_name TEXT NOT NULL,
    -- one of the accepted image types (png, gif, jpeg, webp, avif)
    content_type TEXT NOT NULL,
    -- an animated image's still version (its first frame) under `<realm_id>/emoji/images/still/`;
    -- null for a still image
    still_file_name TEXT,
    -- 1 once deleted: the name is free again, reactions keep showing the image
    deactivated INTEGER NOT NULL DEFAULT 0
);
-- Zulip's constraint: one active emoji per name (deactivated ones may share it).
CREATE UNIQUE INDEX realm_emoji_active_name ON realm_emoji (realm_id, name) WHERE deactivated = 0;

-- Who may add custom emoji (a user group id; null = the `role:members` system group).
ALTER TABLE realms ADD COLUMN can_add_custom_emoji_group INTEGER;
