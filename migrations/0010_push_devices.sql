-- Mobile push: end-to-end encrypted push devices (Zulip's PushDevice) and the legacy
-- provider-token registrations (Zulip's PushDeviceToken) they replace.

CREATE TABLE push_devices (
    user_id INTEGER NOT NULL REFERENCES users(id),
    device_id INTEGER NOT NULL,              -- the client's device id (POST /mobile_push/register)
    push_key_id INTEGER NOT NULL,            -- client-chosen u32 naming push_key; sent with each payload
    push_key TEXT NOT NULL,                  -- standard Base64: 0x31 then the 32-byte secretbox key
    token_kind TEXT NOT NULL,                -- 'fcm' or 'apns'
    token_id TEXT NOT NULL,                  -- Base64 of the first 8 bytes of SHA-256(provider token); the relay's name for the device
    bouncer_public_key TEXT NOT NULL,        -- relay key the registration was encrypted with
    encrypted_push_registration TEXT NOT NULL, -- opaque to this server; the relay decrypts it
    last_updated INTEGER NOT NULL,           -- UNIX seconds
    PRIMARY KEY (user_id, device_id)
);

CREATE TABLE push_device_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id),
    kind TEXT NOT NULL,                      -- 'apns' or 'fcm'
    token TEXT NOT NULL,                     -- the provider token as the client sent it
    ios_app_id TEXT,                         -- APNs only
    last_updated INTEGER NOT NULL
);
CREATE UNIQUE INDEX push_device_tokens_user_token ON push_device_tokens(user_id, kind, token);

-- Messages whose notification is still shown on a user's phones (Zulip's
-- active_mobile_push_notification flag): reading or deleting them sends a removal.
CREATE TABLE push_notified (
    user_id INTEGER NOT NULL REFERENCES users(id),
    message_id INTEGER NOT NULL REFERENCES messages(id),
    PRIMARY KEY (user_id, message_id)
) WITHOUT ROWID;
CREATE INDEX push_notified_message ON push_notified(message_id);
