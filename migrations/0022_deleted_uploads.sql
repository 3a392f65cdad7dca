-- Uploads deleted through the API whose bytes R2 still keeps: R2 has no history, so an
-- object is removed only after a grace period (src/actions/uploads.rs), and restoring the
-- databases to a point inside it (D1 Time Travel, `make restore`) finds every file its
-- messages link.

CREATE TABLE deleted_uploads (
    path_id TEXT PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    -- Unix seconds when its attachment was deleted.
    deleted_at INTEGER NOT NULL
);
CREATE INDEX deleted_uploads_due ON deleted_uploads(deleted_at);
