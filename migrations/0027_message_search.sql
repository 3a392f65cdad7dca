-- Full-text search over messages (issue 32): an FTS5 index of each message's content and
-- topic, English-stemmed (porter: "run" finds "running", as Zulip's PostgreSQL English
-- configuration does). It is an external-content index (the text stays only in
-- `messages`), kept in step by triggers: every write to `messages` (send, scheduled
-- delivery, edit, move, deletion, an organization's removal) updates it in the same
-- statement, so the index never disagrees with the messages whatever path wrote them.
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content,
    topic,
    content = 'messages',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content, topic) VALUES (new.id, new.content, new.topic);
END;

CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, topic) VALUES ('delete', old.id, old.content, old.topic);
END;

-- Only a change of the indexed text re-indexes (flags, reactions and edit history do not).
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, topic ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, topic) VALUES ('delete', old.id, old.content, old.topic);
    INSERT INTO messages_fts(rowid, content, topic) VALUES (new.id, new.content, new.topic);
END;

-- Messages sent before this migration.
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
