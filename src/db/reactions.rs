//! `reactions`: users' emoji reactions to messages (migration 0003).

use serde::Deserialize;
use worker::{query, D1Database, D1PreparedStatement, Result};

/// One distinct emoji reacted to a message.
#[derive(Debug, Clone, Deserialize)]
pub struct ReactionEmojiRow {
    pub emoji_name: String,
    pub emoji_code: String,
    pub reaction_type: String,
}

/// The emoji already reacted to a message (each once, the earliest reaction's name).
pub fn emoji_on_message_stmt(db: &D1Database, message_id: i64) -> Result<D1PreparedStatement> {
    query!(
        db,
        "SELECT emoji_name, emoji_code, reaction_type FROM reactions r WHERE message_id = ?1 \
         AND id = (SELECT MIN(o.id) FROM reactions o WHERE o.message_id = ?1 AND o.emoji_code = r.emoji_code \
         AND o.reaction_type = r.reaction_type)",
        message_id
    )
}
