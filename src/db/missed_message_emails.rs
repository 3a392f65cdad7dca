//! `missed_message_emails`: recipients to mail about a message once their batching period
//! is over (migration 0024).

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::push_devices::PushCandidateRow;
use crate::db::statement::{statement, Statement};
use crate::model::ids::{MessageId, RealmId, UserId};
use crate::model::message_flags::{HISTORICAL, READ};
use crate::model::VisibilityPolicy;

/// The unread recipients of a message with what the email rules read, in the shape of the
/// push rules' rows: the subscription's `email_notifications` in place of
/// `push_notifications`.
pub fn candidates_stmt(message_id: MessageId, sender_id: UserId) -> Result<Statement> {
    statement!(
        "SELECT um.user_id, um.flags, u.settings, m.channel_id IS NULL AS direct, s.is_muted AS channel_muted, \
         s.email_notifications AS push_notifications, s.wildcard_mentions_notify, \
         COALESCE((SELECT ut.visibility_policy FROM user_topics ut WHERE ut.user_id = um.user_id AND ut.channel_id = m.channel_id \
                   AND ut.topic = m.topic COLLATE NOCASE), ?3) AS visibility_policy, \
         EXISTS (SELECT 1 FROM muted_users mu WHERE mu.user_id = um.user_id AND mu.muted_user_id = m.sender_id) AS sender_muted, \
         (SELECT p.last_active_time FROM presence p WHERE p.user_id = um.user_id) AS last_active_time \
         FROM user_messages um JOIN messages m ON m.id = um.message_id JOIN users u ON u.id = um.user_id \
         LEFT JOIN subscriptions s ON s.user_id = um.user_id AND s.channel_id = m.channel_id AND s.active = 1 \
         WHERE um.message_id = ?1 AND um.user_id != ?2 AND (um.flags & ?4) = 0 AND u.is_active = 1 AND u.is_bot = 0",
        message_id,
        sender_id,
        VisibilityPolicy::Inherit,
        READ | HISTORICAL
    )
}

pub async fn candidates(db: &D1Database, message_id: MessageId, sender_id: UserId) -> Result<Vec<PushCandidateRow>> {
    super::all(db, candidates_stmt(message_id, sender_id)?).await
}

/// Queues `(user_id, reason, scheduled_at)` rows for one message.
pub fn insert_stmt(realm_id: RealmId, message_id: MessageId, rows_json: &str) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO missed_message_emails (realm_id, user_id, message_id, reason, scheduled_at) \
         SELECT ?1, value ->> 0, ?2, value ->> 1, value ->> 2 FROM json_each(?3)",
        realm_id,
        message_id,
        rows_json
    )
}

#[derive(Debug, Deserialize)]
pub struct DueUser {
    pub user_id: i64,
}

/// Recipients with a row due at `now`.
pub async fn due_users(db: &D1Database, realm_id: i64, now: i64) -> Result<Vec<DueUser>> {
    super::all(
        db,
        statement!(
            "SELECT DISTINCT user_id FROM missed_message_emails WHERE realm_id = ?1 AND scheduled_at <= ?2 LIMIT 50",
            realm_id,
            now
        )?,
    )
    .await
}

/// A message to mail to a recipient: its rows still unread, with what the email shows.
#[derive(Debug, Clone, Deserialize)]
pub struct MissedRow {
    pub message_id: i64,
    pub reason: String,
    pub content: String,
    pub rendered_content: String,
    pub topic: String,
    pub channel_id: Option<i64>,
    pub channel_name: Option<String>,
    pub recipient_id: i64,
    /// 1: one-to-one, 2: channel, 3: group direct message.
    pub recipient_type: i64,
    pub sender_id: i64,
    pub sender_name: String,
    pub date_sent: i64,
}

/// The recipient's queued messages (all of them, once one is due: Zulip mails what is
/// pending together), still unread, oldest first.
pub async fn unread_rows_of_user(db: &D1Database, realm_id: RealmId, user_id: UserId) -> Result<Vec<MissedRow>> {
    super::all(
        db,
        statement!(
            "SELECT e.message_id, e.reason, m.content, m.rendered_content, m.topic, m.channel_id, c.name AS channel_name, \
         m.recipient_id, r.type AS recipient_type, m.sender_id, s.full_name AS sender_name, m.date_sent \
         FROM missed_message_emails e JOIN messages m ON m.id = e.message_id JOIN users s ON s.id = m.sender_id \
         JOIN recipients r ON r.id = m.recipient_id \
         JOIN user_messages um ON um.message_id = e.message_id AND um.user_id = e.user_id \
         LEFT JOIN channels c ON c.id = m.channel_id \
         WHERE e.realm_id = ?1 AND e.user_id = ?2 AND (um.flags & ?3) = 0 ORDER BY m.id",
            realm_id,
            user_id,
            READ
        )?,
    )
    .await
}

/// Removes the recipient's queued rows up to `max_message_id` (mailed, read or cancelled).
pub fn delete_for_user_stmt(realm_id: RealmId, user_id: UserId, max_message_id: MessageId) -> Result<Statement> {
    statement!(
        "DELETE FROM missed_message_emails WHERE realm_id = ?1 AND user_id = ?2 AND message_id <= ?3",
        realm_id,
        user_id,
        max_message_id
    )
}

/// Moves the recipient's due rows to `at` (their mailing failed; the alarm tries again then).
pub fn postpone_stmt(realm_id: RealmId, user_id: UserId, now: i64, at: i64) -> Result<Statement> {
    statement!(
        "UPDATE missed_message_emails SET scheduled_at = ?4 WHERE realm_id = ?1 AND user_id = ?2 AND scheduled_at <= ?3",
        realm_id,
        user_id,
        now,
        at
    )
}

/// When the organization's next row is due, if any.
pub async fn next_due(db: &D1Database, realm_id: i64) -> Result<Option<i64>> {
    #[derive(Deserialize)]
    struct Due {
        due: Option<i64>,
    }
    let row: Option<Due> =
        super::first(db, statement!("SELECT MIN(scheduled_at) AS due FROM missed_message_emails WHERE realm_id = ?1", realm_id)?).await?;
    Ok(row.and_then(|r| r.due))
}

/// The recipient of a direct message's users (for its `#narrow/dm/...` link and subject).
#[derive(Debug, Deserialize)]
pub struct DmMember {
    pub id: i64,
    pub full_name: String,
}

pub async fn dm_members(db: &D1Database, recipient_id: i64) -> Result<Vec<DmMember>> {
    super::all(
        db,
        statement!(
            "SELECT u.id, u.full_name FROM recipients r JOIN users u ON u.id = r.type_id WHERE r.id = ?1 AND r.type = 1 \
         UNION SELECT u.id, u.full_name FROM recipients r JOIN direct_message_group_members g ON g.group_id = r.type_id \
         JOIN users u ON u.id = g.user_id WHERE r.id = ?1 AND r.type = 3 ORDER BY 1",
            recipient_id
        )?,
    )
    .await
}
