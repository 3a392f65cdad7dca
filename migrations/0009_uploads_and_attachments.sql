-- Uploaded files (bytes in the UPLOADS R2 bucket under path_id) and the messages that link them.

CREATE TABLE attachments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    owner_id INTEGER NOT NULL REFERENCES users(id),  -- the uploader, who may always download it
    path_id TEXT NOT NULL UNIQUE,                    -- R2 key: <realm_id>/<2 chars>/<4 chars>/<file name>
    file_name TEXT NOT NULL,                         -- sanitized name, the last segment of path_id
    size INTEGER NOT NULL,                           -- bytes
    content_type TEXT NOT NULL,                      -- served as Content-Type
    create_time INTEGER NOT NULL                     -- UNIX seconds
);
CREATE INDEX attachments_owner ON attachments (owner_id);

-- Which messages link which upload (parsed from message content at send and edit time).
-- Anyone who may see one of these messages may download the file.
CREATE TABLE attachment_messages (
    attachment_id INTEGER NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
    message_id INTEGER NOT NULL,
    PRIMARY KEY (attachment_id, message_id)
);
CREATE INDEX attachment_messages_message ON attachment_messages (message_id);

-- Short-lived download links (GET /api/v1/user_uploads/<path_id> answers one): anyone
-- holding the token may download the file until it expires.
CREATE TABLE upload_tokens (
    token TEXT PRIMARY KEY,              -- random, from a CSPRNG
    attachment_id INTEGER NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
    expires INTEGER NOT NULL             -- UNIX seconds
);
