-- Resumable (tus) uploads. The bytes go to an R2 multipart upload whose key is
-- the final path_id; this row is the only record of how far the client got, so a client
-- whose connection dropped asks HEAD for the offset and continues. The row stays once the
-- upload is finished (upload_offset = length; its `attachments` row is written in the same
-- batch), so HEAD still answers for it.

CREATE TABLE tus_uploads (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    token TEXT NOT NULL UNIQUE,          -- the upload's id in its URL, /api/v1/tus/<token>; random, from a CSPRNG
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    owner_id INTEGER NOT NULL REFERENCES users(id),  -- only the creator may see or continue it
    path_id TEXT NOT NULL,               -- where the finished file lands, as for POST /user_uploads
    file_name TEXT NOT NULL,             -- sanitized name, the last segment of path_id
    content_type TEXT NOT NULL,          -- from the `filetype` metadata, else guessed from the name
    length INTEGER NOT NULL,             -- Upload-Length: the whole file, in bytes
    upload_offset INTEGER NOT NULL DEFAULT 0,  -- bytes received and stored so far
    r2_upload_id TEXT NOT NULL,          -- the R2 multipart upload's id
    -- JSON list of the etags of the R2 parts uploaded so far (part n at index n - 1); the
    -- bytes past the last part, up to upload_offset, wait in the R2 object
    -- `tus/<token>/<upload_offset>` until they fill a part
    parts TEXT NOT NULL DEFAULT '[]',
    create_time INTEGER NOT NULL         -- UNIX seconds
);
