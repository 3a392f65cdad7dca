//! `scheduled_messages`: messages waiting for their delivery time.

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::statement::{statement, Statement};
use crate::model::ids::{MessageId, RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct ScheduledMessageRow {
    pub id: i64,
    pub realm_id: i64,
    pub sender_id: i64,
    pub channel_id: Option<i64>,
    /// Direct messages: JSON list of recipient user ids.
    pub to_user_ids: Option<String>,
    pub topic: String,
    pub content: String,
    pub rendered_content: String,
    pub scheduled_timestamp: i64,
    pub read_by_sender: i64,
    pub client: String,
    pub failed: i64,
    /// Bumped by every edit.
    pub revision: i64,
    /// [`SEND_LATER`] or [`REMIND`].
    pub delivery_type: i64,
    /// Reminders: the message reminded of.
    pub reminder_target_message_id: Option<i64>,
}

/// A message its sender scheduled (Zulip's `ScheduledMessage.SEND_LATER`).
pub const SEND_LATER: i64 = 1;
/// A reminder: sent by the notification bot to its owner (Zulip's `ScheduledMessage.REMIND`).
pub const REMIND: i64 = 2;

const COLUMNS: &str = "id, realm_id, sender_id, channel_id, to_user_ids, topic, content, rendered_content, \
    scheduled_timestamp, read_by_sender, client, failed, revision, delivery_type, reminder_target_message_id";

/// What a new or edited scheduled message holds.
pub struct ScheduledFields<'a> {
    pub channel_id: Option<i64>,
    pub to_user_ids: Option<&'a str>,
    pub topic: &'a str,
    pub content: &'a str,
    pub rendered_content: &'a str,
    pub scheduled_timestamp: i64,
    pub read_by_sender: bool,
}

#[derive(Deserialize)]
pub struct NewId {
    pub id: i64,
}

#[derive(Deserialize)]
pub struct Revision {
    pub revision: i64,
}

pub fn insert_stmt(realm_id: RealmId, sender_id: UserId, client: &str, f: &ScheduledFields<'_>) -> Result<Statement> {
    statement!(
        "INSERT INTO scheduled_messages (realm_id, sender_id, channel_id, to_user_ids, topic, content, rendered_content, \
         scheduled_timestamp, read_by_sender, client, request_timestamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, unixepoch()) \
         RETURNING id",
        realm_id,
        sender_id,
        f.channel_id,
        f.to_user_ids,
        f.topic,
        f.content,
        f.rendered_content,
        f.scheduled_timestamp,
        f.read_by_sender as i64,
        client
    )
}

/// A reminder of message `target_id` for `owner_id` (a direct message to themselves).
pub fn insert_reminder_stmt(realm_id: RealmId, owner_id: UserId, target_id: MessageId, f: &ScheduledFields<'_>) -> Result<Statement> {
    statement!(
        "INSERT INTO scheduled_messages (realm_id, sender_id, to_user_ids, content, rendered_content, scheduled_timestamp, \
         read_by_sender, client, delivery_type, reminder_target_message_id, request_timestamp) \
         VALUES (?1, ?2, ?8, ?3, ?4, ?5, 0, 'Internal', ?6, ?7, unixepoch()) RETURNING id",
        realm_id,
        owner_id,
        f.content,
        f.rendered_content,
        f.scheduled_timestamp,
        REMIND,
        target_id,
        // Built here: D1 binds a number as a real, which `json_array` would keep as `5.0`.
        format!("[{owner_id}]")
    )
}

/// Rewrites a pending scheduled message of its owner; clears `failed`.
pub fn update_stmt(id: i64, sender_id: UserId, f: &ScheduledFields<'_>) -> Result<Statement> {
    statement!(
        "UPDATE scheduled_messages SET channel_id = ?3, to_user_ids = ?4, topic = ?5, content = ?6, rendered_content = ?7, \
         scheduled_timestamp = ?8, read_by_sender = ?9, failed = 0, failure_message = NULL, revision = revision + 1 \
         WHERE id = ?1 AND sender_id = ?2 AND delivered = 0 AND deleted = 0 AND delivery_type = 1 RETURNING revision",
        id,
        sender_id,
        f.channel_id,
        f.to_user_ids,
        f.topic,
        f.content,
        f.rendered_content,
        f.scheduled_timestamp,
        f.read_by_sender as i64
    )
}

/// A user's undelivered (pending or failed) scheduled messages of `delivery_type`
/// ([`SEND_LATER`] or [`REMIND`]), soonest first.
pub fn pending_of_sender_stmt(sender_id: UserId, delivery_type: i64) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {COLUMNS} FROM scheduled_messages WHERE sender_id = ?1 AND delivered = 0 AND deleted = 0 \
             AND delivery_type = ?2 ORDER BY scheduled_timestamp, id"
        ),
        sender_id,
        delivery_type
    )
}

/// One undelivered scheduled message (not a reminder), only if `sender_id` owns it.
pub fn pending_by_id_stmt(id: i64, sender_id: UserId) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {COLUMNS} FROM scheduled_messages WHERE id = ?1 AND sender_id = ?2 AND delivered = 0 AND deleted = 0 \
             AND delivery_type = 1"
        ),
        id,
        sender_id
    )
}

/// Deletes (hides) an undelivered scheduled message or reminder (`delivery_type`) of its
/// owner.
pub fn delete_stmt(id: i64, sender_id: UserId, delivery_type: i64) -> Result<Statement> {
    statement!(
        "UPDATE scheduled_messages SET deleted = 1 WHERE id = ?1 AND sender_id = ?2 AND delivered = 0 AND deleted = 0 \
         AND delivery_type = ?3",
        id,
        sender_id,
        delivery_type
    )
}

/// The organization's pending messages due at `now`, oldest first (a bounded number per run).
pub async fn due_in_realm(db: &D1Database, realm_id: i64, now: i64, limit: i64) -> Result<Vec<ScheduledMessageRow>> {
    super::all(
        db,
        statement!(
            &format!(
                "SELECT {COLUMNS} FROM scheduled_messages WHERE realm_id = ?1 AND delivered = 0 AND deleted = 0 AND failed = 0 \
             AND scheduled_timestamp <= ?2 ORDER BY scheduled_timestamp, id LIMIT ?3"
            ),
            realm_id,
            now,
            limit
        )?,
    )
    .await
}

#[derive(Deserialize)]
pub struct NextDue {
    pub next: Option<i64>,
}

/// When the organization's next pending message is due.
pub async fn next_due_in_realm(db: &D1Database, realm_id: i64) -> Result<Option<i64>> {
    let row: Option<NextDue> = super::first(db, statement!(
        "SELECT MIN(scheduled_timestamp) AS next FROM scheduled_messages WHERE realm_id = ?1 AND delivered = 0 AND deleted = 0 AND failed = 0",
        realm_id
    )?)
    .await?;
    Ok(row.and_then(|r| r.next))
}

/// The delivery guard, run in the message's write batch right after the message insert
/// (`last_insert_rowid()` is the message's id there): marks the row delivered when it is
/// still pending at the revision that was read, and otherwise (delivered meanwhile, deleted,
/// failed or edited) sets `delivered = 2`, which violates the CHECK and so rolls back the
/// whole batch. A scheduled message is written at most once, and only as last read.
pub fn mark_delivered_stmt(id: i64, revision: i64) -> Result<Statement> {
    statement!(
        "UPDATE scheduled_messages SET delivered = CASE WHEN delivered = 0 AND deleted = 0 AND failed = 0 AND revision = ?2 \
         THEN 1 ELSE 2 END, delivered_message_id = last_insert_rowid() WHERE id = ?1",
        id,
        revision
    )
}

/// Marks a still-pending message failed (unless it was edited or deleted meanwhile).
pub fn mark_failed_stmt(id: i64, revision: i64, reason: &str) -> Result<Statement> {
    statement!(
        "UPDATE scheduled_messages SET failed = 1, failure_message = ?3 \
         WHERE id = ?1 AND delivered = 0 AND deleted = 0 AND revision = ?2 RETURNING id",
        id,
        revision,
        reason
    )
}
