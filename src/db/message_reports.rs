//! What a report of a message names besides the message: the people of its conversation.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{MessageId, RealmId};

/// Someone with a row for the message: its sender and, for a direct message, everyone in
/// the conversation.
#[derive(Debug, Deserialize)]
pub struct PersonRow {
    pub id: i64,
    pub full_name: String,
}

/// The message's sender and the holders of its rows (for a direct message: its
/// conversation), by id; the sender may appear twice.
pub fn people_of_message_stmt(realm_id: RealmId, message_id: MessageId) -> Result<Statement> {
    statement!(
        "SELECT u.id, u.full_name FROM messages m JOIN users u ON u.id = m.sender_id WHERE m.id = ?2 AND m.realm_id = ?1 \
         UNION ALL SELECT u.id, u.full_name FROM user_messages um JOIN users u ON u.id = um.user_id \
         JOIN messages m ON m.id = um.message_id AND m.realm_id = ?1 AND m.channel_id IS NULL WHERE um.message_id = ?2",
        realm_id,
        message_id
    )
}
