//! Small helpers over Durable Object SQLite storage and responses.

use serde::de::DeserializeOwned;
use serde::Serialize;
use worker::{Env, Response, Result, SqlStorage, SqlStorageValue};

/// All rows of a statement.
pub fn rows<T: DeserializeOwned>(sql: &SqlStorage, query: &str, binds: Vec<SqlStorageValue>) -> Result<Vec<T>> {
    sql.exec(query, binds)?.to_array()
}

/// A statement whose rows are not needed.
pub fn run(sql: &SqlStorage, query: &str, binds: Vec<SqlStorageValue>) -> Result<()> {
    sql.exec(query, binds)?.to_array::<serde_json::Value>().map(|_| ())
}

/// Milliseconds since the epoch.
pub fn now_ms() -> i64 {
    worker::Date::now().as_millis() as i64
}

/// Whether this is a development server (`DEVELOPMENT = "true"`): its test and bench
/// commands answer only there.
pub fn development(env: &Env) -> bool {
    env.var("DEVELOPMENT").is_ok_and(|v| v.to_string() == "true")
}

/// A numeric `[vars]` setting.
pub fn var_secs(env: &Env, name: &str, default: u64) -> u64 {
    env.var(name).ok().and_then(|v| v.to_string().trim().parse().ok()).unwrap_or(default)
}

pub fn json_response<T: Serialize>(body: &T, status: u16) -> Result<Response> {
    Ok(Response::from_json(body)?.with_status(status))
}
