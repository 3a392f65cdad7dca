-- Each organization's UUID, as Zulip's `Realm.uuid`: the name a push relay (Zulip's push
-- bouncer) knows the organization by, so that the official mobile apps get notifications
-- from a self-hosted server. `uuid_owner_secret` proves ownership of the UUID to the relay.
-- Both are made once, for existing organizations here and for new ones by the trigger,
-- and never change.

ALTER TABLE realms ADD COLUMN uuid TEXT;
ALTER TABLE realms ADD COLUMN uuid_owner_secret TEXT;

-- A random (version 4) UUID, and Zulip's `zuliprealm_` + 48 hex characters secret.
UPDATE realms SET
    uuid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
        || substr('89ab', 1 + abs(random()) % 4, 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
    uuid_owner_secret = 'zuliprealm_' || lower(hex(randomblob(24)))
WHERE uuid IS NULL;

CREATE TRIGGER realms_uuid AFTER INSERT ON realms WHEN NEW.uuid IS NULL
BEGIN
    UPDATE realms SET
        uuid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
            || substr('89ab', 1 + abs(random()) % 4, 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
        uuid_owner_secret = 'zuliprealm_' || lower(hex(randomblob(24)))
    WHERE id = NEW.id;
END;

CREATE UNIQUE INDEX realms_uuid ON realms(uuid);
