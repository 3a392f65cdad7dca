//! `muted_users`: whom each user muted, and when.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::UserId;

#[derive(Debug, Clone, Deserialize)]
pub struct MutedUserRow {
    pub id: i64,
    pub timestamp: i64,
}

/// The users `user_id` muted, oldest first, as the API lists them.
pub fn for_user_stmt(user_id: i64) -> Result<Statement> {
    statement!(
        "SELECT muted_user_id AS id, date_muted AS timestamp FROM muted_users WHERE user_id = ?1 ORDER BY date_muted, muted_user_id",
        user_id
    )
}

/// Whether `user_id` muted `muted_user_id` (a row, or none).
pub fn get_stmt(user_id: UserId, muted_user_id: UserId) -> Result<Statement> {
    statement!(
        "SELECT muted_user_id AS id, date_muted AS timestamp FROM muted_users WHERE user_id = ?1 AND muted_user_id = ?2",
        user_id,
        muted_user_id
    )
}

pub fn add_stmt(user_id: UserId, muted_user_id: UserId, now: i64) -> Result<Statement> {
    statement!("INSERT INTO muted_users (user_id, muted_user_id, date_muted) VALUES (?1, ?2, ?3)", user_id, muted_user_id, now)
}

pub fn remove_stmt(user_id: UserId, muted_user_id: UserId) -> Result<Statement> {
    statement!("DELETE FROM muted_users WHERE user_id = ?1 AND muted_user_id = ?2", user_id, muted_user_id)
}
