//! # `GET /health`
//! Open, as Zulip's: whether this deployment can serve the organization the host names.
//! Checks each part a request depends on: its D1 database (the organization's row), the R2
//! bucket of uploads, and the organization's `RealmHub` Durable Object. 200 when all
//! answer; otherwise 500 naming the parts that failed, so a monitor's alert says where to look.

use serde_json::{json, Map, Value};
use worker::{Env, Request, Response};

use crate::error::{ApiError, ErrorCode};
use crate::response::{error_response, success_response};
use crate::settings::Settings;

pub const PATH: &str = "/health";

pub async fn health(req: &Request, env: &Env, settings: &Settings) -> Response {
    let host = req.headers().get("Host").ok().flatten().unwrap_or_default();
    let string_id = crate::context::realm_string_id_for_host(&host, settings);
    let mut checks = Map::new();
    let realm_id = match database_check(env, &string_id).await {
        Ok(realm_id) => {
            checks.insert("database".into(), json!("ok"));
            realm_id
        }
        Err(problem) => {
            checks.insert("database".into(), json!(problem));
            None
        }
    };
    let uploads = match env.bucket("UPLOADS") {
        Ok(bucket) => bucket.head("health-check").await.map(|_| ()).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    checks.insert("uploads".into(), outcome(uploads));
    // A host without an organization still proves the class answers, under id 0.
    let hub = crate::platform::event_queues::ping_hub(env, realm_id.unwrap_or(0)).await.map_err(|e| e.msg);
    checks.insert("realm_hub".into(), outcome(hub));
    let failed: Vec<&str> = checks.iter().filter(|(_, v)| *v != "ok").map(|(k, _)| k.as_str()).collect();
    if failed.is_empty() {
        return success_response(Map::from_iter([("checks".to_string(), Value::Object(checks.clone()))]), Vec::new());
    }
    worker::console_error!("health check failed: {}", Value::Object(checks.clone()));
    let err = ApiError::new(ErrorCode::InternalServerError, format!("Unhealthy: {}", failed.join(", ")))
        .with_status(500)
        .with_extra("checks", Value::Object(checks));
    error_response(&err)
}

/// The organization's id from its database (`None` when the host names none).
async fn database_check(env: &Env, string_id: &str) -> Result<Option<i64>, String> {
    let binding = crate::platform::directory::resolve(env, string_id).await.map_err(|e| e.msg)?;
    let db = crate::platform::directory::database(env, &binding).map_err(|e| e.msg)?;
    let realm = crate::db::realms::by_string_id(&db, string_id).await.map_err(|e| e.to_string())?;
    Ok(realm.map(|r| r.id))
}

fn outcome(result: Result<(), String>) -> Value {
    match result {
        Ok(()) => json!("ok"),
        Err(problem) => json!(problem),
    }
}
