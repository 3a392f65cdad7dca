//! `realm_playgrounds`: the organization's code playgrounds.

use serde::Deserialize;
use worker::{query, D1Database, D1PreparedStatement, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct PlaygroundRow {
    pub id: i64,
    pub name: String,
    pub pygments_language: String,
    pub url_template: String,
}

pub fn in_realm_stmt(db: &D1Database, realm_id: i64) -> Result<D1PreparedStatement> {
    query!(db, "SELECT id, name, pygments_language, url_template FROM realm_playgrounds WHERE realm_id = ?1 ORDER BY id", realm_id)
}

/// Inserts a playground unless one with this language and name exists; answers its id.
pub fn insert_stmt(db: &D1Database, realm_id: i64, name: &str, language: &str, url_template: &str) -> Result<D1PreparedStatement> {
    query!(
        db,
        "INSERT OR IGNORE INTO realm_playgrounds (realm_id, name, pygments_language, url_template) VALUES (?1, ?2, ?3, ?4) RETURNING id",
        realm_id,
        name,
        language,
        url_template
    )
}

pub fn delete_stmt(db: &D1Database, realm_id: i64, id: i64) -> Result<D1PreparedStatement> {
    query!(db, "DELETE FROM realm_playgrounds WHERE realm_id = ?1 AND id = ?2 RETURNING id", realm_id, id)
}
