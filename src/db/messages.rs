//! `messages`: channel and direct messages, with their recipient joined in.

use super::statement::{statement, Statement};
use serde::Deserialize;
use serde_json::Value;
use worker::Result;

use crate::db::subscriptions::{SendTopic, CHANNEL_BY_ID_OR_NAME};
use crate::db::users::COLUMNS as USER_COLUMNS;
use crate::model::ids::{ChannelId, MessageId, RealmId, UserId};
use crate::model::recipients::RecipientType;

const RECIPIENT_PERSONAL: i64 = RecipientType::Personal.code();
const RECIPIENT_CHANNEL: i64 = RecipientType::Channel.code();
const RECIPIENT_DIRECT_MESSAGE_GROUP: i64 = RecipientType::DirectMessageGroup.code();

#[derive(Debug, Clone, Deserialize)]
pub struct MessageRow {
    pub id: i64,
    pub realm_id: i64,
    pub sender_id: i64,
    pub recipient_id: i64,
    pub recipient_type: RecipientType,
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
        self.recipient_type == RecipientType::Channel
    }

    /// A channel message for unit tests (message 10 by user 1 in channel 7, topic "old");
    /// tests override what their rule depends on.
    #[cfg(test)]
    pub fn for_tests() -> MessageRow {
        MessageRow {
            id: 10,
            realm_id: 1,
            sender_id: 1,
            recipient_id: 5,
            recipient_type: RecipientType::Channel,
            recipient_type_id: 7,
            channel_id: Some(7),
            topic: "old".into(),
            content: "hi".into(),
            rendered_content: "<p>hi</p>".into(),
            date_sent: 0,
            client: "test".into(),
            is_me_message: 0,
            last_edit_timestamp: None,
            last_moved_timestamp: None,
            edit_history: None,
            has_attachment: 0,
            has_image: 0,
            has_link: 0,
        }
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
pub fn insert_stmt(m: &NewMessage<'_>) -> Result<Statement> {
    let (id, kind, type_id, key): (Option<i64>, RecipientType, Option<i64>, Option<&str>) = match &m.recipient {
        RecipientRef::Id(id) => (Some(*id), RecipientType::Channel, None, None),
        RecipientRef::User(user_id) => (None, RecipientType::Personal, Some(*user_id), None),
        RecipientRef::Group(key) => (None, RecipientType::DirectMessageGroup, None, Some(key.as_str())),
    };
    statement!(
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
pub fn by_ids_stmt(realm_id: i64, ids_json: &str) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {COLUMNS} FROM messages m JOIN recipients rc ON rc.id = m.recipient_id \
             WHERE m.realm_id = ?1 AND m.id IN (SELECT value FROM json_each(?2)) ORDER BY m.id"
        ),
        realm_id,
        ids_json
    )
}

/// The message `message_id` of the realm with the caller's flags (`um_flags`, null without
/// a row), its channel's name, privacy and history setting, and whether the caller is
/// subscribed: everything the access rule reads, in one statement.
pub fn access_stmt(message_id: MessageId, realm_id: RealmId, user_id: UserId) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {COLUMNS}, um.flags AS um_flags, c.name AS channel_name, c.invite_only, \
             c.history_public_to_subscribers, \
             EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ?3 AND s.channel_id = m.channel_id AND s.active = 1) AS subscribed \
             FROM messages m JOIN recipients rc ON rc.id = m.recipient_id \
             LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ?3 \
             LEFT JOIN channels c ON c.id = m.channel_id \
             WHERE m.id = ?1 AND m.realm_id = ?2"
        ),
        message_id,
        realm_id,
        user_id
    )
}

/// The SQL condition (over `messages m` with the caller's row `um` left-joined and
/// `channels c` left-joined on `m.channel_id`) under which a user may see a message: the
/// query form of `domain::messages::can_access`. Binds: `?1` realm id, `?2` user id, `?3` 1 if the user is a
/// guest.
pub const ACCESS_CONDITION: &str = "(um.user_id IS NOT NULL OR (c.id IS NOT NULL AND ( \
    (c.invite_only = 0 AND ?3 = 0) OR (c.history_public_to_subscribers = 1 AND EXISTS ( \
    SELECT 1 FROM subscriptions s WHERE s.user_id = ?2 AND s.channel_id = c.id AND s.active = 1)))))";

#[derive(Debug, Clone, Deserialize)]
pub struct ReactionRow {
    pub message_id: i64,
    pub user_id: i64,
    pub emoji_name: String,
    pub emoji_code: String,
    pub reaction_type: String,
}

#[derive(Deserialize)]
pub struct GroupMemberRow {
    pub group_id: i64,
    pub user_id: i64,
}

#[derive(Deserialize)]
pub struct ChannelNameRow {
    pub id: i64,
    pub name: String,
}

/// A set of messages named in SQL, so that what their Message objects show can be read in
/// the same batch as the messages themselves. `sql` selects `id`, `sender_id`,
/// `recipient_type`, `recipient_type_id` and `channel_id`, and binds the organization's id
/// as `?1`.
pub struct MessageSet {
    pub sql: String,
    pub params: Vec<Value>,
}

impl MessageSet {
    /// The organization's messages `ids`.
    pub fn ids(realm_id: i64, ids: &[i64]) -> Result<MessageSet> {
        Ok(MessageSet {
            sql: "SELECT m.id, m.sender_id, rc.type AS recipient_type, rc.type_id AS recipient_type_id, m.channel_id \
                  FROM messages m JOIN recipients rc ON rc.id = m.recipient_id \
                  WHERE m.realm_id = ?1 AND m.id IN (SELECT value FROM json_each(?2))"
                .to_string(),
            params: vec![Value::from(realm_id), Value::from(serde_json::to_string(ids)?)],
        })
    }

    /// A statement over the set (`ms`).
    fn stmt(&self, select: &str) -> Statement {
        Statement::new(format!("WITH ms AS ({}) {select}", self.sql), self.params.clone())
    }
}

/// What Message objects of a [`MessageSet`] show besides the rows: the members of their
/// direct-message groups, their reactions, their channels' names, and the users they name
/// (senders, personal recipients, group members and whoever reacted; reactions carry the
/// legacy `user` object).
pub struct ContextStmts {
    pub group_members: Statement,
    pub reactions: Statement,
    pub channel_names: Statement,
    pub users: Statement,
}

pub fn context_stmts(set: &MessageSet) -> Result<ContextStmts> {
    let groups = format!("SELECT recipient_type_id FROM ms WHERE recipient_type = {RECIPIENT_DIRECT_MESSAGE_GROUP}");
    Ok(ContextStmts {
        group_members: set.stmt(&format!(
            "SELECT group_id, user_id FROM direct_message_group_members WHERE group_id IN ({groups}) ORDER BY group_id, user_id"
        )),
        reactions: set.stmt(
            "SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions \
             WHERE message_id IN (SELECT id FROM ms) ORDER BY id",
        ),
        channel_names: set.stmt(&format!(
            "SELECT id, name FROM channels WHERE realm_id = ?1 AND id IN (SELECT channel_id FROM ms \
                 WHERE recipient_type NOT IN ({RECIPIENT_PERSONAL}, {RECIPIENT_DIRECT_MESSAGE_GROUP}))"
        )),
        users: set.stmt(&format!(
            "SELECT {USER_COLUMNS} FROM users u WHERE u.realm_id = ?1 AND (u.id IN (SELECT sender_id FROM ms) \
                 OR u.id IN (SELECT recipient_type_id FROM ms WHERE recipient_type = {RECIPIENT_PERSONAL}) \
                 OR u.id IN (SELECT user_id FROM direct_message_group_members WHERE group_id IN ({groups})) \
                 OR u.id IN (SELECT user_id FROM reactions WHERE message_id IN (SELECT id FROM ms)))"
        )),
    })
}

#[derive(Deserialize)]
pub struct TopicRow {
    pub name: String,
    pub max_id: i64,
}

/// The topics of channel `channel_id` with their latest message id, newest first, counting
/// the messages the user may access ([`ACCESS_CONDITION`]: the channel's whole history
/// where the history rule allows, else the messages the user received), so that no earlier
/// read of the channel is needed. Binds `?1` realm, `?2` user, `?3` 1 for a guest.
pub fn channel_topics_stmt(realm_id: RealmId, user_id: UserId, is_guest: bool, channel_id: ChannelId) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT m.topic AS name, MAX(m.id) AS max_id FROM messages m \
             LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ?2 \
             LEFT JOIN channels c ON c.id = m.channel_id \
             WHERE m.recipient_id = (SELECT rc.id FROM recipients rc WHERE rc.realm_id = ?1 AND rc.type = {channel} AND rc.type_id = ?4) \
             AND {ACCESS_CONDITION} \
             GROUP BY lower(m.topic) ORDER BY max_id DESC",
            channel = RecipientType::Channel.code()
        ),
        realm_id,
        user_id,
        is_guest as i64,
        channel_id
    )
}

/// Everyone who has sent to the topic a message is sent to (`to`), as `sender_id`.
pub fn topic_senders_stmt(to: &SendTopic<'_>) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT DISTINCT m.sender_id FROM messages m WHERE m.topic = ?4 COLLATE NOCASE AND m.recipient_id = ( \
             SELECT rc.id FROM channels c JOIN recipients rc ON rc.realm_id = c.realm_id AND rc.type = {RECIPIENT_CHANNEL} \
             AND rc.type_id = c.id WHERE {CHANNEL_BY_ID_OR_NAME})"
        ),
        to.realm_id,
        to.channel_id,
        to.channel_name,
        to.topic
    )
}

/// The destination topic (`to`) as its sender `user_id` sees it, in one row: `first_sender`, any
/// one sender of the topic so far (null for a new topic), and the sender's
/// `visibility_policy` for it (0 when none).
pub fn topic_for_sender_stmt(to: &SendTopic<'_>, user_id: i64) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT (SELECT m.sender_id FROM messages m WHERE m.topic = ?4 COLLATE NOCASE AND m.recipient_id = ( \
             SELECT rc.id FROM channels c JOIN recipients rc ON rc.realm_id = c.realm_id AND rc.type = {RECIPIENT_CHANNEL} \
             AND rc.type_id = c.id WHERE {CHANNEL_BY_ID_OR_NAME}) LIMIT 1) AS first_sender, \
             COALESCE((SELECT ut.visibility_policy FROM user_topics ut WHERE ut.user_id = ?5 AND ut.topic = ?4 COLLATE NOCASE \
             AND ut.channel_id = (SELECT c.id FROM channels c WHERE {CHANNEL_BY_ID_OR_NAME})), 0) AS visibility_policy"
        ),
        to.realm_id,
        to.channel_id,
        to.channel_name,
        to.topic,
        user_id
    )
}

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
