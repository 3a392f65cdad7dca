-- Per-user state that clients read at start and keep in sync through events: alert words,
-- user status, muted users and presence.

-- Words that flag a message `has_alert_word` for the user when it contains one
-- (case-insensitive, at word boundaries). Listed in the order they were added.
CREATE TABLE alert_words (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    word TEXT NOT NULL            -- as the user typed it; unique per user ignoring case
);
CREATE UNIQUE INDEX alert_words_user_word ON alert_words (user_id, word COLLATE NOCASE);
CREATE INDEX alert_words_realm ON alert_words (realm_id);
