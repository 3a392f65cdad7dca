//! `realms`: organizations.

use super::statement::{statement, Statement};
use serde::Deserialize;
use worker::{query, D1Database, D1PreparedStatement, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct RealmRow {
    pub id: i64,
    pub string_id: String,
    pub name: String,
    pub description: String,
    pub deactivated: i64,
    pub date_created: i64,
    /// Bumped by every change to the row or the linkifiers (`crate::platform::realm_cache`).
    pub settings_version: i64,
    /// What the push relay knows the organization by (migration 0021).
    pub uuid: String,
}

/// The columns of [`RealmRow`].
pub const SELECT: &str = "SELECT id, string_id, name, description, deactivated, date_created, settings_version, uuid FROM realms";

pub fn by_string_id_stmt(string_id: &str) -> Result<Statement> {
    statement!(&format!("{SELECT} WHERE string_id = ?1"), string_id)
}

pub async fn by_string_id(db: &D1Database, string_id: &str) -> Result<Option<RealmRow>> {
    super::first(by_string_id_stmt(string_id)?.prepare(db)?).await
}

/// The organization's row, under the id the directory gave it (unique across databases).
pub fn insert_stmt(db: &D1Database, realm_id: i64, string_id: &str, name: &str, now: i64) -> Result<D1PreparedStatement> {
    query!(
        db,
        "INSERT INTO realms (id, string_id, name, date_created) VALUES (?4, ?1, ?2, ?3) ON CONFLICT DO NOTHING",
        string_id,
        name,
        now,
        realm_id
    )
}

/// Deactivates (1) or reactivates (0) an organization; answers its id, none if unknown.
pub fn set_deactivated_stmt(db: &D1Database, string_id: &str, deactivated: bool) -> Result<D1PreparedStatement> {
    query!(
        db,
        "UPDATE realms SET deactivated = ?2 WHERE string_id = ?1 \
         AND (?2 = 1 OR id NOT IN (SELECT realm_id FROM realm_imports)) RETURNING id",
        string_id,
        deactivated as i64
    )
}

pub async fn by_id(db: &D1Database, realm_id: i64) -> Result<Option<RealmRow>> {
    super::first(query!(db, &format!("{SELECT} WHERE id = ?1"), realm_id)?).await
}

/// What the push relay is told of an organization (Zulip's realm data for the bouncer).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct RelayRealmRow {
    pub id: i64,
    pub string_id: String,
    pub name: String,
    pub deactivated: i64,
    pub date_created: i64,
    pub uuid: String,
    pub uuid_owner_secret: String,
}

/// Every organization of one database, for the push relay.
pub async fn all_for_relay(db: &D1Database) -> Result<Vec<RelayRealmRow>> {
    super::all(query!(db, "SELECT id, string_id, name, deactivated, date_created, uuid, uuid_owner_secret FROM realms ORDER BY id")).await
}
