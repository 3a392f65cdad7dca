//! `realm_playgrounds`: the organization's code playgrounds.

use crate::db::statement::{statement, Statement};
use crate::model::ids::RealmId;
use serde::Deserialize;
use worker::Result;

#[derive(Debug, Clone, Deserialize)]
pub struct PlaygroundRow {
    pub id: i64,
    pub name: String,
    pub pygments_language: String,
    pub url_template: String,
}

pub fn in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT id, name, pygments_language, url_template FROM realm_playgrounds WHERE realm_id = ?1 ORDER BY id", realm_id)
}

/// Inserts a playground unless one with this language and name exists; answers its id.
pub fn insert_stmt(realm_id: i64, name: &str, language: &str, url_template: &str) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO realm_playgrounds (realm_id, name, pygments_language, url_template) VALUES (?1, ?2, ?3, ?4) RETURNING id",
        realm_id,
        name,
        language,
        url_template
    )
}

pub fn delete_stmt(realm_id: RealmId, id: i64) -> Result<Statement> {
    statement!("DELETE FROM realm_playgrounds WHERE realm_id = ?1 AND id = ?2 RETURNING id", realm_id, id)
}
