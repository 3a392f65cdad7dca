//! `reactions`: users' emoji reactions to messages (migration 0003).

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{MessageId, UserId};

/// One distinct emoji reacted to a message.
#[derive(Debug, Clone, Deserialize)]
pub struct ReactionEmojiRow {
    pub emoji_name: String,
    pub emoji_code: String,
    pub reaction_type: String,
}

/// The emoji already reacted to a message (each once, the earliest reaction's name).
pub fn emoji_on_message_stmt(message_id: i64) -> Result<Statement> {
    statement!(
        "SELECT emoji_name, emoji_code, reaction_type FROM reactions r WHERE message_id = ?1 \
         AND id = (SELECT MIN(o.id) FROM reactions o WHERE o.message_id = ?1 AND o.emoji_code = r.emoji_code \
         AND o.reaction_type = r.reaction_type)",
        message_id
    )
}

pub fn insert_stmt(message_id: MessageId, user_id: UserId, emoji_name: &str, emoji_code: &str, reaction_type: &str) -> Result<Statement> {
    statement!(
        "INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type) VALUES (?1, ?2, ?3, ?4, ?5)",
        message_id,
        user_id,
        emoji_name,
        emoji_code,
        reaction_type
    )
}

/// Removes a user's reaction, named by code when given, else by name; answers the removed
/// reaction's `emoji_name`, `emoji_code` and `reaction_type`.
pub fn delete_stmt(
    message_id: MessageId,
    user_id: UserId,
    reaction_type: &str,
    code: Option<&str>,
    name: Option<&str>,
) -> Result<Statement> {
    statement!(
        "DELETE FROM reactions WHERE message_id = ?1 AND user_id = ?2 AND reaction_type = ?3 \
         AND ((?4 IS NOT NULL AND emoji_code = ?4) OR (?4 IS NULL AND emoji_name = ?5)) \
         RETURNING emoji_name, emoji_code, reaction_type",
        message_id,
        user_id,
        reaction_type,
        code,
        name
    )
}
