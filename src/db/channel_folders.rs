//! `channel_folders`: the organization's folders of channels.

use crate::db::statement::{statement, Statement};
use crate::model::ids::RealmId;
use serde::Deserialize;
use worker::{D1Database, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct ChannelFolderRow {
    pub id: i64,
    pub name: String,
    pub description: String,
    pub rendered_description: String,
    pub creator_id: Option<i64>,
    pub date_created: i64,
    pub is_archived: i64,
    pub sort_order: i64,
}

const COLUMNS: &str = "id, name, description, rendered_description, creator_id, date_created, is_archived, sort_order";

/// The organization's folders in display order (archived ones too).
pub fn in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM channel_folders WHERE realm_id = ?1 ORDER BY sort_order, id"), realm_id)
}

pub async fn in_realm(db: &D1Database, realm_id: i64) -> Result<Vec<ChannelFolderRow>> {
    super::all(db, in_realm_stmt(realm_id)?).await
}

pub fn by_id_stmt(realm_id: RealmId, id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM channel_folders WHERE realm_id = ?1 AND id = ?2"), realm_id, id)
}

/// Whether another folder of the organization has this name (case-insensitive).
#[derive(Debug, Clone, Deserialize)]
pub struct Taken {
    pub taken: i64,
}

pub fn name_taken_stmt(realm_id: RealmId, name: &str, except_id: i64) -> Result<Statement> {
    statement!(
        "SELECT EXISTS (SELECT 1 FROM channel_folders WHERE realm_id = ?1 AND name = ?2 COLLATE NOCASE AND id != ?3) AS taken",
        realm_id,
        name,
        except_id
    )
}

/// How many channels (archived ones aside) are in the folder.
#[derive(Debug, Clone, Deserialize)]
pub struct InUse {
    pub channels: i64,
}

pub fn channels_in_folder_stmt(realm_id: RealmId, id: i64) -> Result<Statement> {
    statement!("SELECT COUNT(*) AS channels FROM channels WHERE realm_id = ?1 AND folder_id = ?2 AND is_archived = 0", realm_id, id)
}

pub struct NewChannelFolder<'a> {
    pub realm_id: i64,
    pub name: &'a str,
    pub description: &'a str,
    pub rendered_description: &'a str,
    pub creator_id: i64,
    pub now: i64,
}

/// Inserts a folder, last in the order, unless the name is taken (answers none then).
pub async fn insert(db: &D1Database, folder: &NewChannelFolder<'_>) -> Result<Option<ChannelFolderRow>> {
    super::first(
        db,
        statement!(
            &format!(
                "INSERT INTO channel_folders (realm_id, name, description, rendered_description, creator_id, date_created, sort_order) \
             SELECT ?1, ?2, ?3, ?4, ?5, ?6, (SELECT COALESCE(MAX(sort_order) + 1, 0) FROM channel_folders WHERE realm_id = ?1) \
             WHERE NOT EXISTS (SELECT 1 FROM channel_folders WHERE realm_id = ?1 AND name = ?2 COLLATE NOCASE) \
             RETURNING {COLUMNS}"
            ),
            folder.realm_id,
            folder.name,
            folder.description,
            folder.rendered_description,
            folder.creator_id,
            folder.now
        )?,
    )
    .await
}

/// Writes a folder's name, description and archived flag.
pub fn update_stmt(row: &ChannelFolderRow) -> Result<Statement> {
    statement!(
        "UPDATE channel_folders SET name = ?2, description = ?3, rendered_description = ?4, is_archived = ?5 WHERE id = ?1",
        row.id,
        &row.name,
        &row.description,
        &row.rendered_description,
        row.is_archived
    )
}

/// Sets every folder's position from a JSON array of ids (position = index).
pub fn reorder_stmt(realm_id: i64, order_json: &str) -> Result<Statement> {
    statement!(
        "UPDATE channel_folders SET sort_order = (SELECT CAST(o.key AS INTEGER) FROM json_each(?2) o WHERE o.value = channel_folders.id) \
         WHERE realm_id = ?1 AND id IN (SELECT value FROM json_each(?2))",
        realm_id,
        order_json
    )
}
