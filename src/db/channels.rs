//! `channels` (Zulip's streams), their recipients and `subscriptions`.

use serde::Deserialize;
use worker::{query, D1Database, D1PreparedStatement, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct ChannelRow {
    pub id: i64,
    pub realm_id: i64,
    pub name: String,
    pub description: String,
    pub invite_only: i64,
    pub history_public_to_subscribers: i64,
    pub is_web_public: i64,
    pub is_archived: i64,
    pub creator_id: Option<i64>,
    pub date_created: i64,
}

pub struct NewChannel<'a> {
    pub realm_id: i64,
    pub name: &'a str,
    pub description: &'a str,
    pub invite_only: bool,
    pub history_public_to_subscribers: bool,
    pub creator_id: Option<i64>,
}

/// Inserts the channel and its recipient in one atomic batch; answers the channel's id.
pub async fn insert(db: &D1Database, channel: &NewChannel<'_>, now: i64) -> Result<i64> {
    let insert_channel = query!(
        db,
        "INSERT INTO channels (realm_id, name, description, invite_only, history_public_to_subscribers, creator_id, date_created) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
        channel.realm_id,
        channel.name,
        channel.description,
        channel.invite_only as i64,
        channel.history_public_to_subscribers as i64,
        channel.creator_id,
        now
    )?;
    let insert_recipient = query!(
        db,
        "INSERT INTO recipients (realm_id, type, type_id) VALUES (?1, 2, last_insert_rowid())",
        channel.realm_id
    )?;
    let results = db.batch(vec![insert_channel, insert_recipient]).await?;
    #[derive(Deserialize)]
    struct Id {
        id: i64,
    }
    let ids: Vec<Id> = results[0].results()?;
    ids.first().map(|r| r.id).ok_or_else(|| worker::Error::RustError("channel insert returned no id".into()))
}

/// Subscribes a user (or re-activates an old subscription, keeping its settings).
pub fn subscribe_stmt(db: &D1Database, realm_id: i64, user_id: i64, channel_id: i64, color: &str) -> Result<D1PreparedStatement> {
    query!(
        db,
        "INSERT INTO subscriptions (realm_id, user_id, channel_id, color) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (user_id, channel_id) DO UPDATE SET active = 1",
        realm_id,
        user_id,
        channel_id,
        color
    )
}
