//! `subscriptions` with their per-user settings, as `POST /register` and the
//! subscription-property endpoints read and write them.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{ChannelId, RealmId, UserId};

/// One subscription row (active or not) with its channel.
#[derive(Debug, Clone, Deserialize)]
pub struct SubscriptionRow {
    pub user_id: i64,
    pub channel_id: i64,
    pub active: i64,
    pub color: String,
    pub is_muted: i64,
    pub pin_to_top: i64,
    pub desktop_notifications: Option<i64>,
    pub audible_notifications: Option<i64>,
    pub push_notifications: Option<i64>,
    pub email_notifications: Option<i64>,
    pub wildcard_mentions_notify: Option<i64>,
}

const COLUMNS: &str = "s.user_id, s.channel_id, s.active, s.color, s.is_muted, s.pin_to_top, s.desktop_notifications, \
    s.audible_notifications, s.push_notifications, s.email_notifications, s.wildcard_mentions_notify";

/// Every subscription row of the organization (subscriber lists and the caller's settings).
pub fn all_in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM subscriptions s WHERE s.realm_id = ?1 ORDER BY s.channel_id, s.user_id"), realm_id)
}

/// The user's subscription rows (active or not) to the given channels.
pub fn of_user_stmt(realm_id: RealmId, user_id: UserId, channel_ids_json: &str) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {COLUMNS} FROM subscriptions s WHERE s.realm_id = ?1 AND s.user_id = ?2 \
             AND s.channel_id IN (SELECT value FROM json_each(?3))"
        ),
        realm_id,
        user_id,
        channel_ids_json
    )
}

/// A typed value of one settings column.
#[derive(Debug, Clone, PartialEq)]
pub enum PropertyValue {
    Color(String),
    Flag(bool),
}

/// Sets one settings column of an active subscription. `column` comes from the fixed list
/// of properties in `domain::subscription_properties`, never from the client.
pub fn update_stmt(
    realm_id: RealmId,
    user_id: UserId,
    channel_id: ChannelId,
    column: &'static str,
    value: &PropertyValue,
) -> Result<Statement> {
    let sql = format!("UPDATE subscriptions SET {column} = ?4 WHERE realm_id = ?1 AND user_id = ?2 AND channel_id = ?3 AND active = 1");
    match value {
        PropertyValue::Color(c) => statement!(&sql, realm_id, user_id, channel_id, c),
        PropertyValue::Flag(b) => statement!(&sql, realm_id, user_id, channel_id, *b as i64),
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct ChannelAccessRow {
    pub id: i64,
    pub invite_only: i64,
}

/// The organization's channels among `channel_ids_json`.
pub fn channels_stmt(realm_id: i64, channel_ids_json: &str) -> Result<Statement> {
    statement!(
        "SELECT id, invite_only FROM channels WHERE realm_id = ?1 AND id IN (SELECT value FROM json_each(?2))",
        realm_id,
        channel_ids_json
    )
}
