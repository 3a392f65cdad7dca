-- Browser sessions of the web client (src/db/sessions.rs). Signing in with a password or
-- a development login starts one; the `sessionid` cookie carries its random id, and the
-- page sends the CSRF token derived from that id (src/domain/sessions.rs) with every write.
-- Signing out deletes the row; a deactivated user's or organization's sessions stop
-- authenticating through the same checks as API keys.

CREATE TABLE sessions (
    -- SHA-256 (hex) of the session id; the id itself is never stored.
    session_hash TEXT PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    -- Unix seconds when it started.
    date_created INTEGER NOT NULL,
    -- Unix seconds from which it no longer authenticates (Zulip: two weeks).
    expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(realm_id, user_id);
