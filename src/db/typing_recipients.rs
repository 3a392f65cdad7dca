//! The channel a typing notice is about, and its subscribers.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{ChannelId, MessageId, RealmId};

/// The active subscribers of the channel message `message_id` went to (none for a direct
/// message).
pub fn subscribers_of_message_channel_stmt(realm_id: RealmId, message_id: MessageId) -> Result<Statement> {
    statement!(
        "SELECT u.id, u.settings FROM subscriptions s JOIN users u ON u.id = s.user_id \
         WHERE s.realm_id = ?1 AND s.active = 1 AND u.is_active = 1 \
         AND s.channel_id = (SELECT channel_id FROM messages WHERE id = ?2 AND realm_id = ?1) ORDER BY u.id",
        realm_id,
        message_id
    )
}

/// A user a typing notice may reach, with their settings (`receives_typing_notifications`
/// lives there).
#[derive(Debug, Clone, Deserialize)]
pub struct Recipient {
    pub id: i64,
    pub settings: String,
}

/// The active users with a row for direct message `message_id` (its conversation).
pub fn conversation_of_message_stmt(realm_id: RealmId, message_id: MessageId) -> Result<Statement> {
    statement!(
        "SELECT u.id, u.settings FROM user_messages um JOIN users u ON u.id = um.user_id \
         WHERE um.message_id = ?2 AND u.realm_id = ?1 AND u.is_active = 1 ORDER BY u.id",
        realm_id,
        message_id
    )
}

#[derive(Debug, Clone, Deserialize)]
pub struct TypingChannel {
    pub id: i64,
    pub invite_only: i64,
    pub is_archived: i64,
}

pub fn channel_stmt(realm_id: RealmId, channel_id: ChannelId) -> Result<Statement> {
    statement!("SELECT id, invite_only, is_archived FROM channels WHERE realm_id = ?1 AND id = ?2", realm_id, channel_id)
}

/// Active subscribers of a channel who are active users.
pub fn subscribers_stmt(realm_id: RealmId, channel_id: ChannelId) -> Result<Statement> {
    statement!(
        "SELECT u.id, u.settings FROM subscriptions s JOIN users u ON u.id = s.user_id \
         WHERE s.realm_id = ?1 AND s.channel_id = ?2 AND s.active = 1 AND u.is_active = 1 ORDER BY u.id",
        realm_id,
        channel_id
    )
}
