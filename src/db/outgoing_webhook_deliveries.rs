//! `outgoing_webhook_deliveries`: messages waiting to be POSTed to an outgoing-webhook
//! bot's service (`crate::actions::outgoing_webhooks`).

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct DeliveryRow {
    pub id: i64,
    pub bot_id: i64,
    pub trigger: String,
    /// The message dict, JSON.
    pub message: String,
    pub attempts: i64,
}

const COLUMNS: &str = "id, bot_id, trigger, message, attempts";

/// Queues one delivery, due now.
pub fn insert_stmt(realm_id: RealmId, bot_id: UserId, trigger: &str, message: &str, now: i64) -> Result<Statement> {
    statement!(
        "INSERT INTO outgoing_webhook_deliveries (realm_id, bot_id, trigger, message, next_attempt_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        realm_id,
        bot_id,
        trigger,
        message,
        now
    )
}

/// Deliveries due at `now`, oldest first.
pub async fn due(db: &D1Database, realm_id: i64, now: i64, limit: i64) -> Result<Vec<DeliveryRow>> {
    super::all(
        db,
        statement!(
            &format!(
                "SELECT {COLUMNS} FROM outgoing_webhook_deliveries WHERE realm_id = ?1 AND next_attempt_at <= ?2 ORDER BY id LIMIT ?3"
            ),
            realm_id,
            now,
            limit
        )?,
    )
    .await
}

/// When the organization's next delivery is due, if any.
pub async fn next_due(db: &D1Database, realm_id: i64) -> Result<Option<i64>> {
    #[derive(Deserialize)]
    struct Due {
        due: Option<i64>,
    }
    let row: Option<Due> =
        super::first(db, statement!("SELECT MIN(next_attempt_at) AS due FROM outgoing_webhook_deliveries WHERE realm_id = ?1", realm_id)?)
            .await?;
    Ok(row.and_then(|r| r.due))
}

/// A delivery answered or given up.
pub async fn delete(db: &D1Database, id: i64) -> Result<()> {
    super::run(db, statement!("DELETE FROM outgoing_webhook_deliveries WHERE id = ?1", id)?).await?;
    Ok(())
}

/// Records a failed attempt and when to try again.
pub async fn retry_later(db: &D1Database, id: i64, next_attempt_at: i64, error: &str) -> Result<()> {
    super::run(
        db,
        statement!(
            "UPDATE outgoing_webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?2, last_error = ?3 WHERE id = ?1",
            id,
            next_attempt_at,
            error
        )?,
    )
    .await?;
    Ok(())
}
