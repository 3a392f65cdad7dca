//! Message retention (migration 0037): the organization's and the channels' periods, and
//! the messages past them.

use serde::Deserialize;
use worker::Result;

use super::message_edits::KIND_DELETED;
use crate::db::statement::{statement, Statement};
use crate::model::ids::{ChannelId, RealmId};

/// Whether anything of the organization has a retention period: its own (days, -1 for
/// forever) and how many channels have one of their own.
#[derive(Debug, Clone, Deserialize)]
pub struct PolicyRow {
    pub realm_days: i64,
    pub channel_policies: i64,
}

pub fn policy_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        "SELECT r.message_retention_days AS realm_days, \
         (SELECT COUNT(*) FROM channels c WHERE c.realm_id = r.id AND c.message_retention_days > 0) AS channel_policies \
         FROM realms r WHERE r.id = ?1",
        realm_id
    )
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExpiredRow {
    pub id: i64,
}

/// The oldest `limit` messages sent before `now` minus their period: a channel message's
/// channel period, or the organization's when the channel has none; a direct message's the
/// organization's. Deleted messages (tombstones) are not counted again.
pub fn expired_stmt(realm_id: i64, now: i64, limit: i64) -> Result<Statement> {
    statement!(
        "SELECT m.id FROM messages m JOIN realms r ON r.id = m.realm_id \
         LEFT JOIN channels c ON c.id = m.channel_id \
         WHERE m.realm_id = ?1 AND m.kind != ?4 \
         AND COALESCE(c.message_retention_days, r.message_retention_days) > 0 \
         AND m.date_sent < ?2 - 86400 * COALESCE(c.message_retention_days, r.message_retention_days) \
         ORDER BY m.id LIMIT ?3",
        realm_id,
        now,
        limit,
        KIND_DELETED
    )
}

/// A channel's own period: `None` for the organization's.
pub fn set_channel_days_stmt(realm_id: RealmId, channel_id: ChannelId, days: Option<i64>) -> Result<Statement> {
    statement!("UPDATE channels SET message_retention_days = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, channel_id, days)
}
