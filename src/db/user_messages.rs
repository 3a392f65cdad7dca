//! `user_messages`: each user's copy of a message, with its flags as a bitmask.

use serde::Deserialize;
use worker::Result;

use crate::db::message_window::PendingWindow;
use crate::db::messages::ACCESS_CONDITION;
use crate::db::statement::{statement, Statement};
use crate::model::ids::{ChannelId, MessageId, RealmId, UserId};
use crate::model::message_flags::{NO_ROW, READ};
use crate::model::recipients::RecipientType;

/// Inserts the rows of a message inserted earlier in the same batch (`last_insert_rowid()`;
/// this table is WITHOUT ROWID, so its own inserts do not change it). `rows_json` is a JSON
/// array of `[user_id, flags]`. One statement whatever the number of recipients.
pub fn insert_for_new_message_stmt(rows_json: &str) -> Result<Statement> {
    statement!(
        "INSERT INTO user_messages (user_id, message_id, flags) \
         SELECT json_extract(value, '$[0]'), last_insert_rowid(), json_extract(value, '$[1]') FROM json_each(?1)",
        rows_json
    )
}

#[derive(Debug, Clone, Deserialize)]
pub struct UserMessageRow {
    pub user_id: i64,
    pub message_id: i64,
    pub flags: i64,
}

/// Sets (`add`) or clears a flag on the user's rows of the given messages. Messages the user
/// has no row for but may access get a historical row first (`historical_ids_json`).
pub fn update_flag_stmts(user_id: i64, ids_json: &str, historical_ids_json: &str, bit: i64, add: bool) -> Result<Vec<Statement>> {
    let mut stmts = Vec::new();
    if add {
        stmts.push(statement!(
            "INSERT OR IGNORE INTO user_messages (user_id, message_id, flags) \
             SELECT ?1, value, ?2 FROM json_each(?3)",
            user_id,
            NO_ROW,
            historical_ids_json
        )?);
        stmts.push(statement!(
            "UPDATE user_messages SET flags = flags | ?3 WHERE user_id = ?1 \
             AND message_id IN (SELECT value FROM json_each(?2))",
            user_id,
            ids_json,
            bit
        )?);
    } else {
        stmts.push(statement!(
            "UPDATE user_messages SET flags = flags & ~?3 WHERE user_id = ?1 \
             AND message_id IN (SELECT value FROM json_each(?2))",
            user_id,
            ids_json,
            bit
        )?);
    }
    Ok(stmts)
}

#[derive(Debug, Clone, Deserialize)]
pub struct MessageIdRow {
    pub message_id: i64,
}

/// Marks every unread message of the user read; answers nothing (the event lists none).
pub fn mark_all_read_stmt(user_id: i64) -> Result<Statement> {
    statement!("UPDATE user_messages SET flags = flags | ?2 WHERE user_id = ?1 AND (flags & ?2) = 0", user_id, READ)
}

/// Marks the user's unread messages of a channel (of one topic, case-insensitive, when
/// `topic` is given) read; answers the ids it changed.
pub fn mark_channel_read_stmt(user_id: UserId, channel_id: ChannelId, topic: Option<&str>) -> Result<Statement> {
    statement!(
        "UPDATE user_messages SET flags = flags | ?4 WHERE user_id = ?1 AND (flags & ?4) = 0 \
         AND message_id IN (SELECT id FROM messages WHERE channel_id = ?2 AND (?3 IS NULL OR topic = ?3 COLLATE NOCASE)) \
         RETURNING message_id",
        user_id,
        channel_id,
        topic,
        READ
    )
}

/// Marks the user's unread messages from `sender_id` read; answers the ids it changed.
pub fn mark_sender_read_stmt(user_id: UserId, sender_id: UserId) -> Result<Statement> {
    statement!(
        "UPDATE user_messages SET flags = flags | ?3 WHERE user_id = ?1 AND (flags & ?3) = 0 \
         AND message_id IN (SELECT id FROM messages WHERE sender_id = ?2) RETURNING message_id",
        user_id,
        sender_id,
        READ
    )
}

/// Whether the user has a copy of any message of the topic (Zulip's
/// `user_message_exists_for_topic`).
pub fn topic_exists_for_user_stmt(user_id: UserId, channel_id: ChannelId, topic: &str) -> Result<Statement> {
    statement!(
        "SELECT m.id AS message_id FROM user_messages um JOIN messages m ON m.id = um.message_id \
         WHERE um.user_id = ?1 AND m.channel_id = ?2 AND m.topic = ?3 COLLATE NOCASE LIMIT 1",
        user_id,
        channel_id,
        topic
    )
}

/// Everyone with a row for any of the messages in `ids_json` (`user_id`, `flags` 0).
pub fn holders_stmt(ids_json: &str) -> Result<Statement> {
    statement!("SELECT DISTINCT user_id, 0 AS flags FROM user_messages WHERE message_id IN (SELECT value FROM json_each(?1))", ids_json)
}

/// A user with a row for a message.
#[derive(Debug, Deserialize)]
pub struct HolderRow {
    pub user_id: i64,
}

/// Everyone with a row for the message ([`HolderRow`]).
pub fn holder_ids_stmt(message_id: i64) -> Result<Statement> {
    statement!("SELECT user_id FROM user_messages WHERE message_id = ?1", message_id)
}

/// Gives a user a row for a message seen through the channel's history (read, historical).
pub fn insert_historical_stmt(user_id: UserId, message_id: MessageId, flags: i64) -> Result<Statement> {
    statement!("INSERT OR IGNORE INTO user_messages (user_id, message_id, flags) VALUES (?1, ?2, ?3)", user_id, message_id, flags)
}

/// What changing a flag on a message needs to know about it, for the user: their row's
/// flags, whether they may see it (`accessible`, the access rule), the channel, whether
/// they subscribe to and muted it, the topic, sender and recipient, and a group's members.
/// Binds `?1` realm, `?2` user, `?3` 1 for a guest; the caller adds the `WHERE`.
fn flag_targets_select() -> String {
    format!(
        "SELECT m.id, um.flags, {ACCESS_CONDITION} AS accessible, m.channel_id, \
         EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ?2 AND s.channel_id = m.channel_id AND s.active = 1) AS subscribed, \
         m.topic, m.sender_id, rc.type AS recipient_type, rc.type_id AS recipient_type_id, \
         CASE WHEN rc.type = {group} THEN (SELECT json_group_array(gm.user_id) FROM direct_message_group_members gm \
             WHERE gm.group_id = rc.type_id) END AS group_members, \
         (SELECT s.is_muted FROM subscriptions s WHERE s.user_id = ?2 AND s.channel_id = m.channel_id) AS channel_muted \
         FROM messages m JOIN recipients rc ON rc.id = m.recipient_id \
         LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ?2 \
         LEFT JOIN channels c ON c.id = m.channel_id",
        group = RecipientType::DirectMessageGroup.code()
    )
}

/// [`flag_targets_select`] of the messages of `ids_json` (`?4`), by id.
pub fn flag_targets_stmt(realm_id: RealmId, user_id: UserId, is_guest: bool, ids_json: &str) -> Result<Statement> {
    statement!(
        &format!("{} WHERE m.realm_id = ?1 AND m.id IN (SELECT value FROM json_each(?4)) ORDER BY m.id", flag_targets_select()),
        realm_id,
        user_id,
        is_guest as i64,
        ids_json
    )
}

/// [`flag_targets_select`] of the messages a narrow's window may show (those it selects
/// and a few neighbours), by id, so that it runs in the window's own batch. The window's
/// statements bind `?1` realm, `?2` user and `?3` guest, as this one reads them.
pub fn flag_targets_in_window_stmt(window: &PendingWindow) -> Statement {
    let set = window.message_set();
    let sql =
        format!("WITH ms AS ({}) {} WHERE m.realm_id = ?1 AND m.id IN (SELECT id FROM ms) ORDER BY m.id", set.sql, flag_targets_select());
    Statement::new(sql, set.params.clone())
}
