//! `bot_services`: the service an outgoing-webhook bot calls (its URL, interface and token).

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct BotServiceRow {
    pub bot_id: i64,
    pub base_url: String,
    pub interface: i64,
    pub token: String,
}

const COLUMNS: &str = "bot_id, base_url, interface, token";

pub fn insert_stmt(realm_id: i64, service: &BotServiceRow) -> Result<Statement> {
    statement!(
        "INSERT INTO bot_services (realm_id, bot_id, base_url, interface, token) VALUES (?1, ?2, ?3, ?4, ?5)",
        realm_id,
        service.bot_id,
        &service.base_url,
        service.interface,
        &service.token
    )
}

/// The organization's services (`/register`'s `realm_bots`).
pub fn in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM bot_services WHERE realm_id = ?1"), realm_id)
}

/// One bot's service.
pub fn of_bot_stmt(realm_id: RealmId, bot_id: UserId) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM bot_services WHERE realm_id = ?1 AND bot_id = ?2"), realm_id, bot_id)
}

/// Changes the given fields of a bot's service; answers the row (none: the bot has none).
pub async fn update(
    db: &D1Database,
    realm_id: RealmId,
    bot_id: UserId,
    base_url: Option<&str>,
    interface: Option<i64>,
) -> Result<Option<BotServiceRow>> {
    super::first(
        db,
        statement!(
            &format!(
                "UPDATE bot_services SET base_url = COALESCE(?3, base_url), interface = COALESCE(?4, interface) \
             WHERE realm_id = ?1 AND bot_id = ?2 RETURNING {COLUMNS}"
            ),
            realm_id,
            bot_id,
            base_url,
            interface
        )?,
    )
    .await
}
