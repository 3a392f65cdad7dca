//! Who read a message.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{MessageId, UserId};
use crate::model::message_flags::READ;

/// An active user who marked a message read, with their settings (`send_read_receipts`
/// lives there).
#[derive(Debug, Deserialize)]
pub struct ReaderRow {
    pub user_id: i64,
    pub settings: String,
}

/// The active users other than its sender who marked `message_id` read, leaving out those
/// who muted `viewer_id` and those `viewer_id` muted; by id.
pub fn readers_stmt(message_id: MessageId, viewer_id: UserId) -> Result<Statement> {
    statement!(
        "SELECT um.user_id, u.settings FROM user_messages um JOIN users u ON u.id = um.user_id \
         JOIN messages m ON m.id = um.message_id \
         WHERE um.message_id = ?1 AND (um.flags & ?3) != 0 AND u.is_active = 1 AND um.user_id != m.sender_id \
         AND NOT EXISTS (SELECT 1 FROM muted_users mu WHERE mu.user_id = um.user_id AND mu.muted_user_id = ?2) \
         AND NOT EXISTS (SELECT 1 FROM muted_users mu WHERE mu.user_id = ?2 AND mu.muted_user_id = um.user_id) \
         ORDER BY um.user_id",
        message_id,
        viewer_id,
        READ
    )
}
