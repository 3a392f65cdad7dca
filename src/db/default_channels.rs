//! `default_channels`: the channels people who join an organization are subscribed to.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{ChannelId, RealmId};

#[derive(Debug, Clone, Deserialize)]
pub struct DefaultChannelRow {
    pub channel_id: i64,
}

/// The organization's default channels, by id.
pub fn in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT channel_id FROM default_channels WHERE realm_id = ?1 ORDER BY channel_id", realm_id)
}

pub fn add_stmt(realm_id: RealmId, channel_id: ChannelId) -> Result<Statement> {
    statement!("INSERT OR IGNORE INTO default_channels (realm_id, channel_id) VALUES (?1, ?2)", realm_id, channel_id)
}

pub fn remove_stmt(realm_id: RealmId, channel_id: ChannelId) -> Result<Statement> {
    statement!("DELETE FROM default_channels WHERE realm_id = ?1 AND channel_id = ?2", realm_id, channel_id)
}
