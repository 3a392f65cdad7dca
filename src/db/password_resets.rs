//! `password_resets`: the single-use links of "forgot password" (migration 0024).

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct ResetRow {
    pub user_id: i64,
    pub expires_at: i64,
    pub used_at: Option<i64>,
}

pub fn insert_stmt(token_hash: &str, realm_id: RealmId, user_id: UserId, now: i64, expires_at: i64) -> Result<Statement> {
    statement!(
        "INSERT INTO password_resets (token_hash, realm_id, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        token_hash,
        realm_id,
        user_id,
        now,
        expires_at
    )
}

pub async fn by_token_hash(db: &D1Database, realm_id: i64, token_hash: &str) -> Result<Option<ResetRow>> {
    super::first(
        db,
        statement!(
            "SELECT user_id, expires_at, used_at FROM password_resets WHERE realm_id = ?1 AND token_hash = ?2",
            realm_id,
            token_hash
        )?,
    )
    .await
}

/// Fails its batch (the `read_guards` CHECK) unless the link is still unused and unexpired.
pub fn still_usable_guard_stmt(token_hash: &str, now: i64) -> Result<Statement> {
    statement!(
        "UPDATE read_guards SET current = (SELECT COUNT(*) FROM password_resets WHERE token_hash = ?1 AND used_at IS NULL \
         AND expires_at > ?2) WHERE id = 1",
        token_hash,
        now
    )
}

/// Uses the link, and every other open link of the same user (a new password ends them).
pub fn use_all_stmt(realm_id: RealmId, user_id: UserId, now: i64) -> Result<Statement> {
    statement!("UPDATE password_resets SET used_at = ?3 WHERE realm_id = ?1 AND user_id = ?2 AND used_at IS NULL", realm_id, user_id, now)
}

/// Sets the user's password hash.
pub fn set_password_stmt(realm_id: RealmId, user_id: UserId, hash: &str) -> Result<Statement> {
    statement!("UPDATE users SET password_hash = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, user_id, hash)
}
