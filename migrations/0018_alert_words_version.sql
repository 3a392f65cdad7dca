-- Alert words flag every new message, so each isolate keeps the organization's words with
-- its settings (src/realm_cache.rs), as Zulip keeps them in its realm-wide cache. Adding
-- or removing a word bumps the organization's version in the same statement, so a cached
-- copy is never used after a change.

CREATE TRIGGER alert_words_insert_settings_version AFTER INSERT ON alert_words
BEGIN
    UPDATE realms SET settings_version = settings_version + 1 WHERE id = NEW.realm_id;
END;

CREATE TRIGGER alert_words_update_settings_version AFTER UPDATE ON alert_words
BEGIN
    UPDATE realms SET settings_version = settings_version + 1 WHERE id IN (OLD.realm_id, NEW.realm_id);
END;

CREATE TRIGGER alert_words_delete_settings_version AFTER DELETE ON alert_words
BEGIN
    UPDATE realms SET settings_version = settings_version + 1 WHERE id = OLD.realm_id;
END;
