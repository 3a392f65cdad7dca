//! `realm_emoji`: the organization's custom emoji (migration 0015).

use super::statement::{statement, Statement};
use crate::model::ids::RealmId;
use serde::Deserialize;
use worker::Result;

#[derive(Debug, Clone, Deserialize)]
pub struct RealmEmojiRow {
    pub id: i64,
    pub realm_id: i64,
    pub name: String,
    pub author_id: Option<i64>,
    pub file_name: String,
    pub still_file_name: Option<String>,
    pub deactivated: i64,
}

const COLUMNS: &str = "id, realm_id, name, author_id, file_name, still_file_name, deactivated";

/// Every custom emoji of the organization, deactivated ones included (Zulip lists them all).
pub fn in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM realm_emoji WHERE realm_id = ?1 ORDER BY id"), realm_id)
}

/// The active emoji with one of these names (a JSON list), for rendering `:name:`.
pub fn active_by_names_stmt(realm_id: i64, names_json: &str) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {COLUMNS} FROM realm_emoji WHERE realm_id = ?1 AND deactivated = 0 \
             AND name IN (SELECT value FROM json_each(?2))"
        ),
        realm_id,
        names_json
    )
}

/// The active emoji named `name`, if any.
pub fn active_by_name_stmt(realm_id: i64, name: &str) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM realm_emoji WHERE realm_id = ?1 AND deactivated = 0 AND name = ?2"), realm_id, name)
}

/// For a reaction: the active emoji named `name` and the emoji (active or not) with id `id`.
pub fn for_reaction_stmt(realm_id: RealmId, name: &str, id: Option<i64>) -> Result<Statement> {
    statement!(
        &format!("SELECT {COLUMNS} FROM realm_emoji WHERE realm_id = ?1 AND ((deactivated = 0 AND name = ?2) OR id = ?3)"),
        realm_id,
        name,
        id
    )
}

/// A new emoji's columns.
pub struct NewRealmEmoji<'a> {
    pub realm_id: i64,
    pub name: &'a str,
    pub author_id: i64,
    pub file_name: &'a str,
    pub still_file_name: Option<&'a str>,
    pub content_type: &'a str,
}

/// Adds an emoji; answers its id, or no row when an active emoji already has the name.
pub fn insert_stmt(new: &NewRealmEmoji) -> Result<Statement> {
    statement!(
        "INSERT INTO realm_emoji (realm_id, name, author_id, file_name, still_file_name, content_type) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (realm_id, name) WHERE deactivated = 0 DO NOTHING RETURNING id",
        new.realm_id,
        new.name,
        new.author_id,
        new.file_name,
        new.still_file_name,
        new.content_type
    )
}

/// Deactivates the active emoji named `name` (answers its id if there was one).
pub fn deactivate_stmt(realm_id: i64, name: &str) -> Result<Statement> {
    statement!("UPDATE realm_emoji SET deactivated = 1 WHERE realm_id = ?1 AND name = ?2 AND deactivated = 0 RETURNING id", realm_id, name)
}
