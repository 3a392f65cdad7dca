//! `sessions`: the web client's browser sessions, by the hash of their id.

use worker::{D1Database, Result};

use super::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

/// Starts a session of `user_id` that authenticates until `expires_at`, and drops the
/// user's sessions that have expired, in one batch.
pub async fn start(db: &D1Database, realm_id: RealmId, user_id: UserId, session_hash: &str, now: i64, expires_at: i64) -> Result<()> {
    super::run_batch(
        db,
        vec![
            statement!("DELETE FROM sessions WHERE realm_id = ?1 AND user_id = ?2 AND expires_at <= ?3", realm_id, user_id, now)?,
            statement!(
                "INSERT INTO sessions (session_hash, realm_id, user_id, date_created, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                session_hash,
                realm_id,
                user_id,
                now,
                expires_at
            )?,
        ],
    )
    .await?;
    Ok(())
}

/// Ends a session (signing out); ending one that is gone is not an error.
pub async fn end(db: &D1Database, realm_id: i64, session_hash: &str) -> Result<()> {
    super::run(db, statement!("DELETE FROM sessions WHERE realm_id = ?1 AND session_hash = ?2", realm_id, session_hash)?).await?;
    Ok(())
}

/// The user of the unexpired session `session_hash` in the organization `realm_string_id`,
/// for the batch that authenticates a request (`crate::auth`).
pub fn user_stmt(realm_string_id: &str, session_hash: &str, now: i64) -> Result<Statement> {
    statement!(
        format!(
            "SELECT {} FROM sessions s JOIN users u ON u.id = s.user_id \
             JOIN realms r ON r.id = u.realm_id AND r.id = s.realm_id \
             WHERE s.session_hash = ?1 AND r.string_id = ?2 AND s.expires_at > ?3",
            super::users::COLUMNS
        ),
        session_hash,
        realm_string_id,
        now
    )
}
