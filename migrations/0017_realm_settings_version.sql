-- The version of what an isolate may cache about an organization (src/realm_cache.rs): its
-- `realms` row (settings) and its linkifiers. Every request reads it together with its
-- authentication, and a cached copy is used only while the version is unchanged, so a
-- changed setting or permission is never served stale.

ALTER TABLE realms ADD COLUMN settings_version INTEGER NOT NULL DEFAULT 0; -- bumped by the triggers below

-- Any change to the organization's row bumps the version in the same statement, whichever
-- action made it (the guard stops the trigger's own update from counting twice).
CREATE TRIGGER realms_settings_version AFTER UPDATE ON realms
WHEN NEW.settings_version = OLD.settings_version
BEGIN
    UPDATE realms SET settings_version = settings_version + 1 WHERE id = NEW.id;
END;

-- Linkifiers shape every Message object's `topic_links`: adding, editing, reordering or
-- removing one bumps the organization's version too.
CREATE TRIGGER linkifiers_insert_settings_version AFTER INSERT ON linkifiers
BEGIN
    UPDATE realms SET settings_version = settings_version + 1 WHERE id = NEW.realm_id;
END;

CREATE TRIGGER linkifiers_update_settings_version AFTER UPDATE ON linkifiers
BEGIN
    UPDATE realms SET settings_version = settings_version + 1 WHERE id IN (OLD.realm_id, NEW.realm_id);
END;

CREATE TRIGGER linkifiers_delete_settings_version AFTER DELETE ON linkifiers
BEGIN
    UPDATE realms SET settings_version = settings_version + 1 WHERE id = OLD.realm_id;
END;
