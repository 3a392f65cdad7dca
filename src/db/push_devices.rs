//! `push_devices` (E2EE push registrations) and `push_device_tokens` (legacy ones).

use serde::Deserialize;
use worker::{query, D1Database, D1PreparedStatement, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct PushDeviceRow {
    pub user_id: i64,
    pub device_id: i64,
    pub push_key_id: i64,
    pub push_key: String,
    pub token_kind: String,
    pub token_id: String,
}

pub fn device_stmt(db: &D1Database, user_id: i64, device_id: i64) -> Result<D1PreparedStatement> {
    query!(
        db,
        "SELECT user_id, device_id, push_key_id, push_key, token_kind, token_id \
         FROM push_devices WHERE user_id = ?1 AND device_id = ?2",
        user_id,
        device_id
    )
}

pub fn user_devices_stmt(db: &D1Database, user_id: i64) -> Result<D1PreparedStatement> {
    query!(
        db,
        "SELECT user_id, device_id, push_key_id, push_key, token_kind, token_id \
         FROM push_devices WHERE user_id = ?1 ORDER BY device_id",
        user_id
    )
}

/// Devices of the users among `user_ids_json` (a JSON list of ids).
pub fn devices_of_users_stmt(db: &D1Database, user_ids_json: &str) -> Result<D1PreparedStatement> {
    query!(
        db,
        "SELECT user_id, device_id, push_key_id, push_key, token_kind, token_id \
         FROM push_devices WHERE user_id IN (SELECT value FROM json_each(?1)) ORDER BY user_id, device_id",
        user_ids_json
    )
}

#[allow(clippy::too_many_arguments)]
pub fn insert_stmt(
    db: &D1Database,
    user_id: i64,
    device_id: i64,
    push_key_id: i64,
    push_key: &str,
    token: &TokenFields,
    now: i64,
) -> Result<D1PreparedStatement> {
    query!(
        db,
        "INSERT INTO push_devices (user_id, device_id, push_key_id, push_key, token_kind, token_id, bouncer_public_key, \
         encrypted_push_registration, last_updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        user_id,
        device_id,
        push_key_id,
        push_key,
        &token.token_kind,
        &token.token_id,
        &token.bouncer_public_key,
        &token.encrypted_push_registration,
        now
    )
}

pub fn update_key_stmt(
    db: &D1Database,
    user_id: i64,
    device_id: i64,
    push_key_id: i64,
    push_key: &str,
    now: i64,
) -> Result<D1PreparedStatement> {
    query!(
        db,
        "UPDATE push_devices SET push_key_id = ?3, push_key = ?4, last_updated = ?5 WHERE user_id = ?1 AND device_id = ?2",
        user_id,
        device_id,
        push_key_id,
        push_key,
        now
    )
}

pub fn update_token_stmt(db: &D1Database, user_id: i64, device_id: i64, token: &TokenFields, now: i64) -> Result<D1PreparedStatement> {
    query!(
        db,
        "UPDATE push_devices SET token_kind = ?3, token_id = ?4, bouncer_public_key = ?5, encrypted_push_registration = ?6, \
         last_updated = ?7 WHERE user_id = ?1 AND device_id = ?2",
        user_id,
        device_id,
        &token.token_kind,
        &token.token_id,
        &token.bouncer_public_key,
        &token.encrypted_push_registration,
        now
    )
}

/// The token fields of a registration, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenFields {
    pub token_kind: String,
    pub token_id: String,
    pub bouncer_public_key: String,
    pub encrypted_push_registration: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct LegacyTokenRow {
    pub id: i64,
    pub kind: String,
    pub token: String,
}

pub fn legacy_tokens_stmt(db: &D1Database, user_id: i64) -> Result<D1PreparedStatement> {
    query!(db, "SELECT id, kind, token FROM push_device_tokens WHERE user_id = ?1 ORDER BY id", user_id)
}

pub fn insert_legacy_stmt(
    db: &D1Database,
    user_id: i64,
    kind: &str,
    token: &str,
    ios_app_id: Option<&str>,
    now: i64,
) -> Result<D1PreparedStatement> {
    query!(
        db,
        "INSERT INTO push_device_tokens (user_id, kind, token, ios_app_id, last_updated) VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (user_id, kind, token) DO UPDATE SET last_updated = excluded.last_updated",
        user_id,
        kind,
        token,
        ios_app_id,
        now
    )
}

/// Removes the rows among `ids_json` (a JSON list of ids) of one user.
pub fn delete_legacy_stmt(db: &D1Database, user_id: i64, ids_json: &str) -> Result<D1PreparedStatement> {
    query!(db, "DELETE FROM push_device_tokens WHERE user_id = ?1 AND id IN (SELECT value FROM json_each(?2))", user_id, ids_json)
}

/// Recipients of a message to notify on their phones, per Zulip's rules with the users'
/// default settings (unread, not the sender, with a push device): a direct message; a
/// personal or group mention (flag 8); a wildcard mention (16/32) unless the channel's
/// `wildcard_mentions_notify` is off; a channel whose `push_notifications` is on; a topic
/// the user follows (`enable_followed_topic_push_notifications`, on by default).
#[derive(Debug, Clone, Deserialize)]
pub struct NotifiableRecipient {
    pub user_id: i64,
    pub flags: i64,
}

pub fn notifiable_recipients_stmt(db: &D1Database, message_id: i64, sender_id: i64) -> Result<D1PreparedStatement> {
    query!(
        db,
        "SELECT um.user_id, um.flags FROM user_messages um JOIN messages m ON m.id = um.message_id \
         LEFT JOIN subscriptions s ON s.user_id = um.user_id AND s.channel_id = m.channel_id AND s.active = 1 \
         WHERE um.message_id = ?1 AND um.user_id != ?2 AND (um.flags & (1 | 128)) = 0 \
         AND EXISTS (SELECT 1 FROM push_devices pd WHERE pd.user_id = um.user_id) \
         AND ((um.flags & (8 | 256)) != 0 \
           OR ((um.flags & (16 | 32)) != 0 AND COALESCE(s.wildcard_mentions_notify, 1) = 1) \
           OR s.push_notifications = 1 \
           OR EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = um.user_id AND ut.channel_id = m.channel_id \
                      AND ut.topic = m.topic COLLATE NOCASE AND ut.visibility_policy = 3))",
        message_id,
        sender_id
    )
}

/// What a notification says about a message.
#[derive(Debug, Clone, Deserialize)]
pub struct NoticeMessage {
    pub id: i64,
    pub content: String,
    pub date_sent: i64,
    pub topic: String,
    pub channel_id: Option<i64>,
    pub channel_name: Option<String>,
}

pub fn notice_message_stmt(db: &D1Database, message_id: i64) -> Result<D1PreparedStatement> {
    query!(
        db,
        "SELECT m.id, m.content, m.date_sent, m.topic, m.channel_id, c.name AS channel_name \
         FROM messages m LEFT JOIN channels c ON c.id = m.channel_id WHERE m.id = ?1",
        message_id
    )
}

/// Records that the users among `user_ids_json` were notified of a message.
pub fn insert_notified_stmt(db: &D1Database, user_ids_json: &str, message_id: i64) -> Result<D1PreparedStatement> {
    query!(db, "INSERT OR IGNORE INTO push_notified (user_id, message_id) SELECT value, ?2 FROM json_each(?1)", user_ids_json, message_id)
}

#[derive(Debug, Clone, Deserialize)]
pub struct NotifiedRow {
    pub user_id: i64,
    pub message_id: i64,
}

/// Shown notifications of the messages among `ids_json`: of one user, or of everyone
/// (`user_id` null).
pub fn notified_stmt(db: &D1Database, user_id: Option<i64>, ids_json: &str) -> Result<D1PreparedStatement> {
    query!(
        db,
        "SELECT user_id, message_id FROM push_notified \
         WHERE message_id IN (SELECT value FROM json_each(?2)) AND (?1 IS NULL OR user_id = ?1) ORDER BY user_id, message_id",
        user_id,
        ids_json
    )
}

pub fn delete_notified_stmt(db: &D1Database, user_id: Option<i64>, ids_json: &str) -> Result<D1PreparedStatement> {
    query!(
        db,
        "DELETE FROM push_notified WHERE message_id IN (SELECT value FROM json_each(?2)) AND (?1 IS NULL OR user_id = ?1)",
        user_id,
        ids_json
    )
}
