//! `push_devices` (E2EE push registrations) and `push_device_tokens` (legacy ones).

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{MessageId, UserId};
use crate::model::message_flags::{HISTORICAL, READ};
use crate::model::VisibilityPolicy;

#[derive(Debug, Clone, Deserialize)]
pub struct PushDeviceRow {
    pub user_id: i64,
    pub device_id: i64,
    pub push_key_id: i64,
    pub push_key: String,
    pub token_kind: String,
    pub token_id: String,
}

pub fn device_stmt(user_id: UserId, device_id: i64) -> Result<Statement> {
    statement!(
        "SELECT user_id, device_id, push_key_id, push_key, token_kind, token_id \
         FROM push_devices WHERE user_id = ?1 AND device_id = ?2",
        user_id,
        device_id
    )
}

pub fn user_devices_stmt(user_id: i64) -> Result<Statement> {
    statement!(
        "SELECT user_id, device_id, push_key_id, push_key, token_kind, token_id \
         FROM push_devices WHERE user_id = ?1 ORDER BY device_id",
        user_id
    )
}

/// Devices of the users among `user_ids_json` (a JSON list of ids).
pub fn devices_of_users_stmt(user_ids_json: &str) -> Result<Statement> {
    statement!(
        "SELECT user_id, device_id, push_key_id, push_key, token_kind, token_id \
         FROM push_devices WHERE user_id IN (SELECT value FROM json_each(?1)) ORDER BY user_id, device_id",
        user_ids_json
    )
}

pub fn insert_stmt(
    user_id: UserId,
    device_id: i64,
    (push_key_id, push_key): (i64, &str),
    token: &TokenFields,
    now: i64,
) -> Result<Statement> {
    statement!(
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

pub fn update_key_stmt(user_id: UserId, device_id: i64, (push_key_id, push_key): (i64, &str), now: i64) -> Result<Statement> {
    statement!(
        "UPDATE push_devices SET push_key_id = ?3, push_key = ?4, last_updated = ?5 WHERE user_id = ?1 AND device_id = ?2",
        user_id,
        device_id,
        push_key_id,
        push_key,
        now
    )
}

pub fn update_token_stmt(user_id: UserId, device_id: i64, token: &TokenFields, now: i64) -> Result<Statement> {
    statement!(
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

pub fn legacy_tokens_stmt(user_id: i64) -> Result<Statement> {
    statement!("SELECT id, kind, token FROM push_device_tokens WHERE user_id = ?1 ORDER BY id", user_id)
}

pub fn insert_legacy_stmt(user_id: i64, kind: &str, token: &str, ios_app_id: Option<&str>, now: i64) -> Result<Statement> {
    statement!(
        "INSERT INTO push_device_tokens (user_id, kind, token, ios_app_id, last_updated) VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (user_id, kind, token) DO UPDATE SET last_updated = excluded.last_updated",
        user_id,
        kind,
        token,
        ios_app_id,
        now
    )
}

/// Removes a user's registration of `token` with `kind` (`apns` or `fcm`); answers the
/// removed row ([`LegacyTokenRow`]), if any.
pub fn delete_legacy_token_stmt(user_id: i64, kind: &str, token: &str) -> Result<Statement> {
    statement!(
        "DELETE FROM push_device_tokens WHERE user_id = ?1 AND kind = ?2 AND token = ?3 RETURNING id, kind, token",
        user_id,
        kind,
        token
    )
}

/// Removes the rows among `ids_json` (a JSON list of ids) of one user.
pub fn delete_legacy_stmt(user_id: i64, ids_json: &str) -> Result<Statement> {
    statement!("DELETE FROM push_device_tokens WHERE user_id = ?1 AND id IN (SELECT value FROM json_each(?2))", user_id, ids_json)
}

/// A recipient of a new message who may be pushed it (unread, not the sender, an active
/// human with a push device), with what `domain::push::push_trigger` decides on.
#[derive(Debug, Clone, Deserialize)]
pub struct PushCandidateRow {
    pub user_id: i64,
    pub flags: i64,
    /// The user's changed settings (JSON object).
    pub settings: String,
    pub direct: i64,
    pub channel_muted: Option<i64>,
    pub push_notifications: Option<i64>,
    pub wildcard_mentions_notify: Option<i64>,
    pub visibility_policy: VisibilityPolicy,
    pub sender_muted: i64,
    pub last_active_time: Option<i64>,
}

pub fn push_candidates_stmt(message_id: MessageId, sender_id: UserId) -> Result<Statement> {
    statement!(
        "SELECT um.user_id, um.flags, u.settings, m.channel_id IS NULL AS direct, s.is_muted AS channel_muted, \
         s.push_notifications, s.wildcard_mentions_notify, \
         COALESCE((SELECT ut.visibility_policy FROM user_topics ut WHERE ut.user_id = um.user_id AND ut.channel_id = m.channel_id \
                   AND ut.topic = m.topic COLLATE NOCASE), ?3) AS visibility_policy, \
         EXISTS (SELECT 1 FROM muted_users mu WHERE mu.user_id = um.user_id AND mu.muted_user_id = m.sender_id) AS sender_muted, \
         (SELECT p.last_active_time FROM presence p WHERE p.user_id = um.user_id) AS last_active_time \
         FROM user_messages um JOIN messages m ON m.id = um.message_id JOIN users u ON u.id = um.user_id \
         LEFT JOIN subscriptions s ON s.user_id = um.user_id AND s.channel_id = m.channel_id AND s.active = 1 \
         WHERE um.message_id = ?1 AND um.user_id != ?2 AND (um.flags & ?4) = 0 AND u.is_active = 1 AND u.is_bot = 0 \
         AND EXISTS (SELECT 1 FROM push_devices pd WHERE pd.user_id = um.user_id)",
        message_id,
        sender_id,
        VisibilityPolicy::Inherit,
        READ | HISTORICAL
    )
}

/// The shown notifications of one user, newest first (at most 10,000: Zulip's bound when
/// everything is marked read).
pub fn notified_of_user_stmt(user_id: i64) -> Result<Statement> {
    statement!("SELECT user_id, message_id FROM push_notified WHERE user_id = ?1 ORDER BY message_id DESC LIMIT 10000", user_id)
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

pub fn notice_message_stmt(message_id: i64) -> Result<Statement> {
    statement!(
        "SELECT m.id, m.content, m.date_sent, m.topic, m.channel_id, c.name AS channel_name \
         FROM messages m LEFT JOIN channels c ON c.id = m.channel_id WHERE m.id = ?1",
        message_id
    )
}

/// Records that the users among `user_ids_json` were notified of a message.
pub fn insert_notified_stmt(user_ids_json: &str, message_id: i64) -> Result<Statement> {
    statement!("INSERT OR IGNORE INTO push_notified (user_id, message_id) SELECT value, ?2 FROM json_each(?1)", user_ids_json, message_id)
}

#[derive(Debug, Clone, Deserialize)]
pub struct NotifiedRow {
    pub user_id: i64,
    pub message_id: i64,
}

/// Shown notifications of the messages among `ids_json`: of one user, or of everyone
/// (`user_id` null).
pub fn notified_stmt(user_id: Option<i64>, ids_json: &str) -> Result<Statement> {
    statement!(
        "SELECT user_id, message_id FROM push_notified \
         WHERE message_id IN (SELECT value FROM json_each(?2)) AND (?1 IS NULL OR user_id = ?1) ORDER BY user_id, message_id",
        user_id,
        ids_json
    )
}

/// Forgets shown notifications: `pairs_json` is a JSON list of `[user_id, message_id]`.
pub fn delete_notified_pairs_stmt(pairs_json: &str) -> Result<Statement> {
    statement!(
        "DELETE FROM push_notified WHERE (user_id, message_id) IN \
         (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?1))",
        pairs_json
    )
}
