//! `api_keys`: hashes of the keys that authenticate users and bots.

use worker::{query, D1Database, D1PreparedStatement, Result};

pub fn insert_stmt(db: &D1Database, realm_id: i64, user_id: i64, key_hash: &str, now: i64) -> Result<D1PreparedStatement> {
    query!(db, "INSERT INTO api_keys (key_hash, realm_id, user_id, date_created) VALUES (?1, ?2, ?3, ?4)", key_hash, realm_id, user_id, now)
}

pub async fn insert(db: &D1Database, realm_id: i64, user_id: i64, key_hash: &str, now: i64) -> Result<()> {
    insert_stmt(db, realm_id, user_id, key_hash, now)?.run().await?;
    Ok(())
}

/// Revokes every key of a user (deactivation, key regeneration).
pub fn delete_for_user_stmt(db: &D1Database, realm_id: i64, user_id: i64) -> Result<D1PreparedStatement> {
    query!(db, "DELETE FROM api_keys WHERE realm_id = ?1 AND user_id = ?2", realm_id, user_id)
}
