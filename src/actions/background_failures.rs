//! Background work that failed (after the response, or on an alarm) is logged and
//! counted per organization and kind, so an operator finds it without searching the logs
//! (`GET /api/v1/server_admin/background_failures`).

use worker::Env;

use crate::db::background_failures;

/// What failed.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Push,
    PushRemoval,
    ScheduledDelivery,
    EventDelivery,
    OutgoingWebhook,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Push => "push",
            Kind::PushRemoval => "push_removal",
            Kind::ScheduledDelivery => "scheduled_delivery",
            Kind::EventDelivery => "event_delivery",
            Kind::OutgoingWebhook => "outgoing_webhook",
        }
    }
}

/// Logs the failure and counts it; a count that cannot be written is logged too.
pub async fn record(env: &Env, realm_id: i64, kind: Kind, error: &str) {
    worker::console_error!("organization {realm_id}: {} failed: {error}", kind.as_str());
    let counted = match crate::platform::directory::database(env, crate::platform::directory::DIRECTORY_DATABASE) {
        Ok(db) => background_failures::record(&db, realm_id, kind.as_str(), error, crate::db::now()).await.map_err(|e| e.to_string()),
        Err(err) => Err(err.msg),
    };
    if let Err(err) = counted {
        worker::console_error!("organization {realm_id}: {} failure not counted: {err}", kind.as_str());
    }
}

/// Every count, as the server-admin route answers them.
pub async fn all(env: &Env) -> crate::error::ApiResult<Vec<serde_json::Value>> {
    let db = crate::platform::directory::database(env, crate::platform::directory::DIRECTORY_DATABASE)?;
    let rows = background_failures::all(&db).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            serde_json::json!({
                "realm_id": r.realm_id, "kind": r.kind, "failures": r.failures, "last_error": r.last_error, "last_at": r.last_at,
            })
        })
        .collect())
}
