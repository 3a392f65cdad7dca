//! `api_keys`: hashes of the keys that authenticate users and bots.

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct KeyVersionRow {
    pub api_key_version: i64,
}

/// The user's current key version (`users.api_key_version`).
pub fn version_stmt(realm_id: RealmId, user_id: UserId) -> Result<Statement> {
    statement!("SELECT api_key_version FROM users WHERE realm_id = ?1 AND id = ?2", realm_id, user_id)
}

#[derive(Debug, Clone, Deserialize)]
pub struct BotKeyVersionRow {
    pub id: i64,
    pub api_key_version: i64,
}

/// The key versions of an owner's active bots.
pub fn owner_bot_versions_stmt(realm_id: RealmId, owner_id: UserId) -> Result<Statement> {
    statement!(
        "SELECT id, api_key_version FROM users WHERE realm_id = ?1 AND bot_owner_id = ?2 AND is_bot = 1 AND is_active = 1",
        realm_id,
        owner_id
    )
}

#[derive(Debug, Deserialize)]
pub struct KeyHashRow {
    pub key_hash: String,
}

/// The stored key hashes of an owner's active bots.
pub fn owner_bot_key_hashes_stmt(realm_id: RealmId, owner_id: UserId) -> Result<Statement> {
    statement!(
        "SELECT k.key_hash FROM api_keys k JOIN users u ON u.id = k.user_id \
         WHERE u.realm_id = ?1 AND u.bot_owner_id = ?2 AND u.is_bot = 1 AND u.is_active = 1",
        realm_id,
        owner_id
    )
}

/// Moves the user to key version `new` if still at `old` (a concurrent regeneration wins
/// once).
pub fn bump_version_stmt(user_id: i64, old: i64, new: i64) -> Result<Statement> {
    statement!("UPDATE users SET api_key_version = ?3 WHERE id = ?1 AND api_key_version = ?2", user_id, old, new)
}

/// Stores the hash of the user's current key; a hash stored already is kept.
pub fn insert_if_missing_stmt(realm_id: RealmId, user_id: UserId, key_hash: &str, now: i64) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO api_keys (key_hash, realm_id, user_id, date_created) VALUES (?1, ?2, ?3, ?4)",
        key_hash,
        realm_id,
        user_id,
        now
    )
}

pub fn insert_stmt(realm_id: RealmId, user_id: UserId, key_hash: &str, now: i64) -> Result<Statement> {
    statement!("INSERT INTO api_keys (key_hash, realm_id, user_id, date_created) VALUES (?1, ?2, ?3, ?4)", key_hash, realm_id, user_id, now)
}

pub async fn insert(db: &D1Database, realm_id: RealmId, user_id: UserId, key_hash: &str, now: i64) -> Result<()> {
    super::run(db, insert_stmt(realm_id, user_id, key_hash, now)?).await?;
    Ok(())
}

/// Revokes every key of a user (deactivation, key regeneration).
pub fn delete_for_user_stmt(realm_id: RealmId, user_id: UserId) -> Result<Statement> {
    statement!("DELETE FROM api_keys WHERE realm_id = ?1 AND user_id = ?2", realm_id, user_id)
}
