//! `messages`: channel and direct messages, with their recipient joined in.

use serde::Deserialize;
use worker::{query, D1Database, D1PreparedStatement, Result};

pub const RECIPIENT_PERSONAL: i64 = 1;
pub const RECIPIENT_CHANNEL: i64 = 2;
pub const RECIPIENT_DIRECT_MESSAGE_GROUP: i64 = 3;

#[derive(Debug, Clone, Deserialize)]
pub struct MessageRow {
    pub id: i64,
    pub realm_id: i64,
    pub sender_id: i64,
    pub recipient_id: i64,
    /// `recipients.type`: 1 personal, 2 channel, 3 direct-message group.
    pub recipient_type: i64,
    /// `recipients.type_id`: the user, channel or group id.
    pub recipient_type_id: i64,
    pub channel_id: Option<i64>,
    pub topic: String,
    pub content: String,
    pub rendered_content: String,
    pub date_sent: i64,
    pub client: String,
    pub is_me_message: i64,
    pub last_edit_timestamp: Option<i64>,
    pub last_moved_timestamp: Option<i64>,
    /// JSON array, most recent first.
    pub edit_history: Option<String>,
    pub has_attachment: i64,
    pub has_image: i64,
    pub has_link: i64,
}

impl MessageRow {
    pub fn is_channel_message(&self) -> bool {
        self.recipient_type == RECIPIENT_CHANNEL
    }
}

/// The columns of [`MessageRow`] for a query aliasing `messages m` and `recipients rc`.
pub const COLUMNS: &str = "m.id, m.realm_id, m.sender_id, m.recipient_id, rc.type AS recipient_type, \
    rc.type_id AS recipient_type_id, m.channel_id, m.topic, m.content, m.rendered_content, m.date_sent, m.client, \
    m.is_me_message, m.last_edit_timestamp, m.last_moved_timestamp, m.edit_history, m.has_attachment, \
    m.has_image, m.has_link";

/// Where a new message goes.
#[derive(Debug, Clone)]
pub enum RecipientRef {
    /// A known recipient id (channels).
    Id(i64),
    /// The personal recipient of a user (two-person and self conversations).
    User(i64),
    /// The group of these members, created earlier in the same batch if new.
    Group(String),
}

/// What a new message is made of (the id is assigned by the insert).
pub struct NewMessage<'a> {
    pub realm_id: i64,
    pub sender_id: i64,
    pub recipient: RecipientRef,
    pub channel_id: Option<i64>,
    pub topic: &'a str,
    pub content: &'a str,
    pub rendered_content: &'a str,
    pub date_sent: i64,
    pub client: &'a str,
    pub is_me_message: bool,
    pub has_image: bool,
    pub has_link: bool,
}

/// Inserts the message; `RETURNING id, recipient_id`. Its `user_messages` rows follow in
/// the same batch and refer to it as `last_insert_rowid()` (see
/// `user_messages::insert_for_new_message_stmt`).
pub fn insert_stmt(db: &D1Database, m: &NewMessage<'_>) -> Result<D1PreparedStatement> {
    let (id, kind, type_id, key): (Option<i64>, i64, Option<i64>, Option<&str>) = match &m.recipient {
        RecipientRef::Id(id) => (Some(*id), RECIPIENT_CHANNEL, None, None),
        RecipientRef::User(user_id) => (None, RECIPIENT_PERSONAL, Some(*user_id), None),
        RecipientRef::Group(key) => (None, RECIPIENT_DIRECT_MESSAGE_GROUP, None, Some(key.as_str())),
    };
    query!(
        db,
        "INSERT INTO messages (realm_id, sender_id, recipient_id, channel_id, topic, content, rendered_content, \
         date_sent, client, is_me_message, has_image, has_link) \
         VALUES (?1, ?2, COALESCE(?3, (SELECT id FROM recipients WHERE realm_id = ?1 AND type = ?13 AND type_id = \
         COALESCE(?14, (SELECT id FROM direct_message_groups WHERE realm_id = ?1 AND member_key = ?15)))), \
         ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING id, recipient_id",
        m.realm_id,
        m.sender_id,
        id,
        m.channel_id,
        m.topic,
        m.content,
        m.rendered_content,
        m.date_sent,
        m.client,
        m.is_me_message as i64,
        m.has_image as i64,
        m.has_link as i64,
        kind,
        type_id,
        key
    )
}

/// Messages by id (in the organization), id order.
pub fn by_ids_stmt(db: &D1Database, realm_id: i64, ids_json: &str) -> Result<D1PreparedStatement> {
    query!(
        db,
        &format!(
            "SELECT {COLUMNS} FROM messages m JOIN recipients rc ON rc.id = m.recipient_id \
             WHERE m.realm_id = ?1 AND m.id IN (SELECT value FROM json_each(?2)) ORDER BY m.id"
        ),
        realm_id,
        ids_json
    )
}

/// The number of distinct senders of a topic (Zulip's "participants" for topic wildcards).
pub fn topic_participant_count_stmt(db: &D1Database, recipient_id: i64, topic: &str) -> Result<D1PreparedStatement> {
    query!(
        db,
        "SELECT COUNT(DISTINCT sender_id) AS n FROM messages WHERE recipient_id = ?1 AND topic = ?2 COLLATE NOCASE",
        recipient_id,
        topic
    )
}
