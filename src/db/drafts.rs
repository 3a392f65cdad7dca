//! `drafts`: each user's synchronised message drafts.

use crate::db::statement::{statement, Statement};
use crate::model::ids::UserId;
use serde::Deserialize;
use worker::Result;

#[derive(Debug, Clone, Deserialize)]
pub struct DraftRow {
    pub id: i64,
    pub kind: String,
    /// JSON list of ids.
    pub to_ids: String,
    pub topic: String,
    pub content: String,
    pub last_edit_time: i64,
}

const COLUMNS: &str = "id, kind, to_ids, topic, content, last_edit_time";

pub fn of_user_stmt(user_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM drafts WHERE user_id = ?1 ORDER BY last_edit_time, id"), user_id)
}

/// What a draft is made of, checked (`to_ids` is the JSON list of recipients).
pub struct DraftFields {
    pub kind: String,
    pub to_ids: String,
    pub topic: String,
    pub content: String,
    pub last_edit_time: i64,
}

/// Inserts one draft; answers its row.
pub fn insert_stmt(user_id: i64, d: &DraftFields) -> Result<Statement> {
    statement!(
        &format!(
            "INSERT INTO drafts (user_id, kind, to_ids, topic, content, last_edit_time) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING {COLUMNS}"
        ),
        user_id,
        &d.kind,
        &d.to_ids,
        &d.topic,
        &d.content,
        d.last_edit_time
    )
}

/// Rewrites one of the user's drafts; answers its row (none when it is not theirs).
pub fn update_stmt(id: i64, user_id: UserId, d: &DraftFields) -> Result<Statement> {
    statement!(
        &format!(
            "UPDATE drafts SET kind = ?3, to_ids = ?4, topic = ?5, content = ?6, last_edit_time = ?7 \
             WHERE id = ?1 AND user_id = ?2 RETURNING {COLUMNS}"
        ),
        id,
        user_id,
        &d.kind,
        &d.to_ids,
        &d.topic,
        &d.content,
        d.last_edit_time
    )
}

/// Deletes one of the user's drafts; answers its id (none when it is not theirs).
pub fn delete_stmt(id: i64, user_id: UserId) -> Result<Statement> {
    statement!("DELETE FROM drafts WHERE id = ?1 AND user_id = ?2 RETURNING id", id, user_id)
}
