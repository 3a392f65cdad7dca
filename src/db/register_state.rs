//! The queries of `POST /register`'s initial state that no other table module owns: a
//! user's unread messages, starred messages, topic visibility, direct-message
//! conversations, user settings, and the organization's groups.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::message_flags::{
    HAS_ALERT_WORD, IS_PRIVATE, MENTIONED, READ, STARRED, STREAM_WILDCARD_MENTIONED, TOPIC_WILDCARD_MENTIONED,
};
use crate::model::recipients::RecipientType;
use crate::model::VisibilityPolicy;

/// Zulip's cap on the unread messages `POST /register` reports.
pub const MAX_UNREAD_MESSAGES: i64 = 50_000;

#[derive(Debug, Deserialize)]
pub struct UnreadRow {
    pub id: i64,
    pub sender_id: i64,
    pub channel_id: Option<i64>,
    pub topic: String,
    pub recipient_type: RecipientType,
    pub recipient_type_id: i64,
    pub flags: i64,
}

/// The user's unread messages, newest first, one more than the cap (to detect truncation).
pub fn unread_stmt(user_id: i64) -> Result<Statement> {
    statement!(
        "SELECT m.id, m.sender_id, m.channel_id, m.topic, r.type AS recipient_type, r.type_id AS recipient_type_id, um.flags \
         FROM user_messages um JOIN messages m ON m.id = um.message_id JOIN recipients r ON r.id = m.recipient_id \
         WHERE um.user_id = ?1 AND (um.flags & ?2) = 0 ORDER BY m.id DESC LIMIT ?3",
        user_id,
        READ,
        MAX_UNREAD_MESSAGES + 1
    )
}

pub const MENTION_BITS: i64 = MENTIONED | STREAM_WILDCARD_MENTIONED | TOPIC_WILDCARD_MENTIONED | HAS_ALERT_WORD;

#[derive(Debug, Deserialize)]
pub struct MaxId {
    pub max_id: Option<i64>,
}

pub fn max_message_id_stmt(user_id: i64) -> Result<Statement> {
    statement!("SELECT MAX(message_id) AS max_id FROM user_messages WHERE user_id = ?1", user_id)
}

#[derive(Debug, Deserialize)]
pub struct IdRow {
    pub id: i64,
}

pub fn starred_stmt(user_id: i64) -> Result<Statement> {
    statement!("SELECT message_id AS id FROM user_messages WHERE user_id = ?1 AND (flags & ?2) != 0 ORDER BY message_id", user_id, STARRED)
}

#[derive(Debug, Deserialize)]
pub struct UserTopicRow {
    pub channel_id: i64,
    pub channel_name: String,
    pub topic: String,
    pub visibility_policy: VisibilityPolicy,
    pub last_updated: i64,
}

pub fn user_topics_stmt(user_id: i64) -> Result<Statement> {
    statement!(
        "SELECT t.channel_id, c.name AS channel_name, t.topic, t.visibility_policy, t.last_updated \
         FROM user_topics t JOIN channels c ON c.id = t.channel_id \
         WHERE t.user_id = ?1 AND t.visibility_policy != ?2 ORDER BY t.last_updated",
        user_id,
        VisibilityPolicy::Inherit
    )
}

/// One direct-message conversation of the user: the other user (1:1, or the user alone for
/// messages to oneself) or a group, with its newest message.
#[derive(Debug, Deserialize)]
pub struct ConversationRow {
    pub peer: i64,
    pub recipient_type: RecipientType,
    pub recipient_type_id: i64,
    pub max_message_id: i64,
}

pub fn private_conversations_stmt(user_id: i64) -> Result<Statement> {
    statement!(
        "SELECT CASE WHEN r.type = ?3 THEN (CASE WHEN r.type_id = ?1 THEN m.sender_id ELSE r.type_id END) ELSE -r.id END AS peer, \
         r.type AS recipient_type, r.type_id AS recipient_type_id, MAX(m.id) AS max_message_id \
         FROM user_messages um JOIN messages m ON m.id = um.message_id JOIN recipients r ON r.id = m.recipient_id \
         WHERE um.user_id = ?1 AND (um.flags & ?2) != 0 GROUP BY peer ORDER BY max_message_id DESC LIMIT 1000",
        user_id,
        IS_PRIVATE,
        RecipientType::Personal
    )
}

/// Members of every direct-message group the user belongs to (`user_groups::MemberRow`s).
pub fn direct_group_members_stmt(user_id: i64) -> Result<Statement> {
    statement!(
        "SELECT group_id, user_id FROM direct_message_group_members WHERE group_id IN \
         (SELECT group_id FROM direct_message_group_members WHERE user_id = ?1) ORDER BY group_id, user_id",
        user_id
    )
}

/// Explicit members of the groups (`user_groups::MemberRow`s; system groups derive theirs from roles).
pub fn group_members_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        "SELECT m.group_id, m.user_id FROM user_group_members m JOIN user_groups g ON g.id = m.group_id \
         WHERE g.realm_id = ?1 ORDER BY m.group_id, m.user_id",
        realm_id
    )
}

/// Every custom profile value of the organization's users (`realm_users[].profile_data`).
pub fn profile_values_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        "SELECT v.user_id, v.field_id, v.value, v.rendered_value FROM custom_profile_field_values v \
         JOIN custom_profile_fields f ON f.id = v.field_id AND f.realm_id = ?1 ORDER BY v.user_id, f.sort_order, f.id",
        realm_id
    )
}
