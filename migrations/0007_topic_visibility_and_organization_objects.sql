-- Organization objects (channel folders, code playgrounds) and personal ones (saved
-- snippets, navigation views). Topic visibility reuses user_topics (0003).

-- A user's reusable message texts; private to their owner.
CREATE TABLE saved_snippets (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    title TEXT NOT NULL,                     -- non-empty, at most 60 characters
    content TEXT NOT NULL,                   -- Markdown source, non-empty
    date_created INTEGER NOT NULL            -- UNIX seconds
);
CREATE INDEX saved_snippets_user ON saved_snippets(user_id, id);

-- A user's views of the left sidebar: built-in ones (`inbox`, `recent`, ...) or custom ones
-- (any other URL fragment, with a name); private to their owner.
CREATE TABLE navigation_views (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    fragment TEXT NOT NULL,                  -- the URL hash target; unique per user
    is_pinned INTEGER NOT NULL,              -- 1: in the sidebar; 0: in the "more views" menu
    name TEXT                                -- custom views only; null for built-in ones
);
CREATE UNIQUE INDEX navigation_views_user_fragment ON navigation_views(user_id, fragment);

-- Folders grouping the organization's channels in the sidebar.
CREATE TABLE channel_folders (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    name TEXT NOT NULL,                      -- unique in the organization, case-insensitively
    description TEXT NOT NULL DEFAULT '',    -- Markdown source
    rendered_description TEXT NOT NULL DEFAULT '',
    creator_id INTEGER REFERENCES users(id),
    date_created INTEGER NOT NULL,           -- UNIX seconds
    is_archived INTEGER NOT NULL DEFAULT 0,
    sort_order INTEGER NOT NULL DEFAULT 0    -- position set by PATCH /channel_folders (`order`)
);
CREATE UNIQUE INDEX channel_folders_realm_name ON channel_folders(realm_id, name COLLATE NOCASE);

-- null: the channel is in no folder
ALTER TABLE channels ADD COLUMN folder_id INTEGER REFERENCES channel_folders(id);

-- Links from code blocks to external playgrounds, per language.
CREATE TABLE realm_playgrounds (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    name TEXT NOT NULL,                      -- display name; unique per language in the organization
    pygments_language TEXT NOT NULL,         -- the code block's language (a Pygments lexer name)
    url_template TEXT NOT NULL               -- RFC 6570 template with the one variable `code`
);
CREATE UNIQUE INDEX realm_playgrounds_key ON realm_playgrounds(realm_id, pygments_language, name);
