//! Queries of editing, moving and deleting messages. Writes over many messages name them in
//! a JSON array (`json_each`), a chunk of [`CHUNK`] ids per statement, all in one batch.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{ChannelId, MessageId, RealmId, UserId};
use crate::model::message_flags::{MENTIONED, READ, STREAM_WILDCARD_MENTIONED, TOPIC_WILDCARD_MENTIONED};
use crate::model::recipients::RecipientType;
use crate::model::{Role, TopicsPolicy};

/// Ids per statement in writes over many messages.
pub const CHUNK: usize = 500;

/// `messages.kind` of the notification bot's resolve/unresolve notices.
pub const KIND_NORMAL: i64 = 1;
pub const KIND_RESOLVE_TOPIC_NOTIFICATION: i64 = 2;
/// A deleted message's tombstone (see [`delete_messages_stmts`]).
pub const KIND_DELETED: i64 = 3;

pub fn chunks(ids: &[i64]) -> Vec<String> {
    ids.chunks(CHUNK).map(|c| serde_json::to_string(c).unwrap_or_else(|_| "[]".into())).collect()
}

/// One message of a topic as a move sees it.
#[derive(Debug, Clone, Deserialize)]
pub struct TopicMessageRow {
    pub id: i64,
    pub date_sent: i64,
    pub sender_id: i64,
    /// 1 if the mover has a `user_messages` row for it.
    pub has_row: i64,
    pub kind: i64,
}

/// Every message of the topic of message `message_id` (case-insensitive, like Zulip),
/// oldest first.
pub fn topic_messages_stmt(message_id: MessageId, user_id: UserId) -> Result<Statement> {
    statement!(
        "SELECT m.id, m.date_sent, m.sender_id, m.kind, \
         EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = ?2) AS has_row \
         FROM messages m WHERE m.recipient_id = (SELECT recipient_id FROM messages WHERE id = ?1) \
         AND m.topic = (SELECT topic FROM messages WHERE id = ?1) COLLATE NOCASE ORDER BY m.id",
        message_id,
        user_id
    )
}

/// The same for the topic a move of message `message_id` lands in: `topic` (the message's
/// own when `None`) of channel `channel_id` (the message's own when `None`).
pub fn target_topic_messages_stmt(
    realm_id: RealmId,
    message_id: MessageId,
    channel_id: Option<ChannelId>,
    topic: Option<&str>,
    user_id: UserId,
) -> Result<Statement> {
    statement!(
        "SELECT m.id, m.date_sent, m.sender_id, m.kind, \
         EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = ?5) AS has_row \
         FROM messages m WHERE m.recipient_id = (SELECT id FROM recipients WHERE realm_id = ?1 AND type = ?6 \
           AND type_id = COALESCE(?3, (SELECT channel_id FROM messages WHERE id = ?2))) \
         AND m.topic = COALESCE(?4, (SELECT topic FROM messages WHERE id = ?2)) COLLATE NOCASE ORDER BY m.id",
        realm_id,
        message_id,
        channel_id,
        topic,
        user_id,
        RecipientType::Channel
    )
}

/// A channel as a move sees it, with the mover's subscription.
#[derive(Debug, Clone, Deserialize)]
pub struct MoveChannelRow {
    pub id: i64,
    pub name: String,
    pub recipient_id: i64,
    pub invite_only: i64,
    pub history_public_to_subscribers: i64,
    pub is_web_public: i64,
    /// The channel's empty-topic policy (`inherit`: the organization's).
    pub topics_policy: TopicsPolicy,
    pub subscribed: i64,
}

/// [`MoveChannelRow`] of the channels matching a condition on `c` (binds from `?4`).
const MOVE_CHANNEL_SELECT: &str = "SELECT c.id, c.name, r.id AS recipient_id, c.invite_only, c.history_public_to_subscribers, \
     c.is_web_public, c.topics_policy, \
     EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.user_id = ?2 AND s.active = 1) AS subscribed \
     FROM channels c JOIN recipients r ON r.realm_id = c.realm_id AND r.type = ?3 AND r.type_id = c.id \
     WHERE c.realm_id = ?1 AND c.is_archived = 0";

pub fn channel_stmt(realm_id: RealmId, channel_id: ChannelId, user_id: UserId) -> Result<Statement> {
    statement!(&format!("{MOVE_CHANNEL_SELECT} AND c.id = ?4"), realm_id, user_id, RecipientType::Channel, channel_id)
}

/// The channel of message `message_id`.
pub fn message_channel_stmt(realm_id: RealmId, message_id: MessageId, user_id: UserId) -> Result<Statement> {
    statement!(
        &format!("{MOVE_CHANNEL_SELECT} AND c.id = (SELECT channel_id FROM messages WHERE id = ?4)"),
        realm_id,
        user_id,
        RecipientType::Channel,
        message_id
    )
}

/// A user's row of a message (for event recipients and their flags).
#[derive(Debug, Clone, Deserialize)]
pub struct RecipientRow {
    pub user_id: i64,
    pub flags: i64,
}

pub fn message_user_rows_stmt(message_id: i64) -> Result<Statement> {
    statement!("SELECT user_id, flags FROM user_messages WHERE message_id = ?1 ORDER BY user_id", message_id)
}

#[derive(Debug, Clone, Deserialize)]
pub struct SubscriberRow {
    pub user_id: i64,
    pub channel_id: i64,
    pub active: i64,
    pub role: Role,
    pub is_bot: i64,
}

/// [`SubscriberRow`] of the subscriptions matching a condition on `s` (binds from `?1`).
const SUBSCRIBER_SELECT: &str = "SELECT s.user_id, s.channel_id, s.active, u.role, u.is_bot FROM subscriptions s \
     JOIN users u ON u.id = s.user_id WHERE u.is_active = 1";

/// Every subscription (active or not) to the given channels, of active users.
pub fn subscribers_stmt(channel_ids: &[i64]) -> Result<Statement> {
    statement!(
        &format!("{SUBSCRIBER_SELECT} AND s.channel_id IN (SELECT value FROM json_each(?1)) ORDER BY s.user_id"),
        serde_json::to_string(channel_ids).unwrap_or_else(|_| "[]".into())
    )
}

/// The same for the channel of message `message_id` and the channel a move takes it to.
pub fn move_subscribers_stmt(message_id: MessageId, target_channel_id: Option<ChannelId>) -> Result<Statement> {
    statement!(
        &format!(
            "{SUBSCRIBER_SELECT} AND (s.channel_id = (SELECT channel_id FROM messages WHERE id = ?1) OR s.channel_id = ?2) \
             ORDER BY s.user_id"
        ),
        message_id,
        target_channel_id
    )
}

/// The distinct senders of the topic of message `message_id` (Zulip's topic participants,
/// for topic wildcard flags and the wildcard mention rule).
pub fn topic_sender_ids_stmt(message_id: i64) -> Result<Statement> {
    statement!(
        "SELECT DISTINCT sender_id AS user_id, 0 AS flags FROM messages \
         WHERE recipient_id = (SELECT recipient_id FROM messages WHERE id = ?1) \
         AND topic = (SELECT topic FROM messages WHERE id = ?1) COLLATE NOCASE",
        message_id
    )
}

/// What changes on the edited message itself (its values computed by the action).
pub struct TargetUpdate<'a> {
    pub id: i64,
    pub content: &'a str,
    pub rendered_content: &'a str,
    pub is_me_message: bool,
    pub topic: &'a str,
    pub recipient_id: i64,
    pub channel_id: Option<i64>,
    pub last_edit_timestamp: Option<i64>,
    pub last_moved_timestamp: Option<i64>,
    pub edit_history: &'a str,
}

pub fn update_target_stmt(u: &TargetUpdate<'_>) -> Result<Statement> {
    statement!(
        "UPDATE messages SET content = ?2, rendered_content = ?3, is_me_message = ?4, topic = ?5, recipient_id = ?6, \
         channel_id = ?7, last_edit_timestamp = ?8, last_moved_timestamp = ?9, edit_history = ?10 WHERE id = ?1",
        u.id,
        u.content,
        u.rendered_content,
        u.is_me_message as i64,
        u.topic,
        u.recipient_id,
        u.channel_id,
        u.last_edit_timestamp,
        u.last_moved_timestamp,
        u.edit_history
    )
}

/// Moves the messages of `ids_json` to a topic and channel, putting `entry_json` first in
/// their edit history; `moved_at` (when the move counts as one) becomes their
/// `last_moved_timestamp`.
pub fn move_messages_stmt(
    ids_json: &str,
    topic: &str,
    recipient_id: i64,
    channel_id: ChannelId,
    entry_json: &str,
    moved_at: Option<i64>,
) -> Result<Statement> {
    statement!(
        "UPDATE messages SET topic = ?2, recipient_id = ?3, channel_id = ?4, \
         edit_history = CASE WHEN edit_history IS NULL OR edit_history = '[]' THEN '[' || ?5 || ']' \
                        ELSE '[' || ?5 || ',' || substr(edit_history, 2) END, \
         last_moved_timestamp = COALESCE(?6, last_moved_timestamp) \
         WHERE id IN (SELECT value FROM json_each(?1))",
        ids_json,
        topic,
        recipient_id,
        channel_id,
        entry_json,
        moved_at
    )
}

/// Recomputes the mention flags of every row of a message after a content edit.
pub fn update_mention_flags_stmt(
    message_id: i64,
    mentioned_json: &str,
    stream_wildcard: bool,
    topic_wildcard_json: &str,
) -> Result<Statement> {
    statement!(
        "UPDATE user_messages SET flags = (flags & ~?2) \
         | CASE WHEN user_id IN (SELECT value FROM json_each(?3)) THEN ?4 ELSE 0 END \
         | ?5 \
         | CASE WHEN user_id IN (SELECT value FROM json_each(?6)) THEN ?7 ELSE 0 END \
         WHERE message_id = ?1",
        message_id,
        MENTIONED | STREAM_WILDCARD_MENTIONED | TOPIC_WILDCARD_MENTIONED,
        mentioned_json,
        MENTIONED,
        if stream_wildcard { STREAM_WILDCARD_MENTIONED } else { 0 },
        topic_wildcard_json,
        TOPIC_WILDCARD_MENTIONED
    )
}

/// Removes the rows of users who lose the moved messages (`users_json`).
pub fn delete_user_rows_stmt(ids_json: &str, users_json: &str) -> Result<Statement> {
    statement!(
        "DELETE FROM user_messages WHERE message_id IN (SELECT value FROM json_each(?1)) \
         AND user_id IN (SELECT value FROM json_each(?2))",
        ids_json,
        users_json
    )
}

/// Gives every active subscriber of a channel (with protected history) a read row of the
/// moved messages, keeping existing rows.
pub fn add_subscriber_rows_stmt(ids_json: &str, channel_id: i64) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO user_messages (user_id, message_id, flags) \
         SELECT s.user_id, j.value, ?3 FROM subscriptions s, json_each(?1) j WHERE s.channel_id = ?2 AND s.active = 1",
        ids_json,
        channel_id,
        READ
    )
}

/// Deletes messages (one chunk): their rows and reactions go, and each message becomes an
/// empty tombstone (kind [`KIND_DELETED`]) addressed to its sender's personal recipient
/// without any `user_messages` row, so nobody can see or find it. The row stays because
/// `messages.id` has no AUTOINCREMENT: removing the newest row would let SQLite give its id
/// to the next message, and Zulip's message ids are never reused.
pub fn delete_messages_stmts(ids_json: &str) -> Result<Vec<Statement>> {
    Ok(vec![
        statement!("DELETE FROM reactions WHERE message_id IN (SELECT value FROM json_each(?1))", ids_json)?,
        statement!("DELETE FROM user_messages WHERE message_id IN (SELECT value FROM json_each(?1))", ids_json)?,
        statement!(
            "INSERT OR IGNORE INTO recipients (realm_id, type, type_id) \
             SELECT DISTINCT realm_id, ?2, sender_id FROM messages WHERE id IN (SELECT value FROM json_each(?1))",
            ids_json,
            RecipientType::Personal
        )?,
        statement!(
            "UPDATE messages SET recipient_id = (SELECT r.id FROM recipients r WHERE r.realm_id = messages.realm_id \
               AND r.type = ?3 AND r.type_id = messages.sender_id), \
             channel_id = NULL, topic = '', content = '', rendered_content = '', is_me_message = 0, \
             last_edit_timestamp = NULL, last_moved_timestamp = NULL, edit_history = NULL, \
             has_attachment = 0, has_image = 0, has_link = 0, kind = ?2 \
             WHERE id IN (SELECT value FROM json_each(?1))",
            ids_json,
            KIND_DELETED,
            RecipientType::Personal
        )?,
    ])
}

/// Zulip's notification bot of an organization, created on first use.
pub const NOTIFICATION_BOT_EMAIL: &str = "notification-bot@zulip.com";
pub const NOTIFICATION_BOT_NAME: &str = "Notification Bot";

pub fn ensure_notification_bot_stmt(realm_id: i64, now: i64) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO users (realm_id, email, delivery_email, full_name, role, is_bot, bot_type, timezone, date_joined) \
         VALUES (?1, ?2, ?2, ?3, ?5, 1, 1, 'UTC', ?4)",
        realm_id,
        NOTIFICATION_BOT_EMAIL,
        NOTIFICATION_BOT_NAME,
        now,
        Role::Member
    )
}

/// Marks the message inserted just before, in the same batch, with its kind (a resolve
/// notice, ...).
pub fn set_kind_of_inserted_stmt(kind: i64) -> Result<Statement> {
    statement!("UPDATE messages SET kind = ?1 WHERE id = last_insert_rowid()", kind)
}
