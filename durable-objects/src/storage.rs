//! Small helpers over Durable Object SQLite storage and requests.

use serde::de::DeserializeOwned;
use serde::Serialize;
use worker::{Env, Method, Request, RequestInit, Response, Result, SqlStorage, SqlStorageValue};

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

/// A numeric `[vars]` setting.
pub fn var_secs(env: &Env, name: &str, default: u64) -> u64 {
    env.var(name).ok().and_then(|v| v.to_string().trim().parse().ok()).unwrap_or(default)
}

/// A JSON request to another Durable Object.
pub fn json_request<T: Serialize>(method: Method, path: &str, body: &T) -> Result<Request> {
    let mut init = RequestInit::new();
    init.with_method(method).with_body(Some(serde_json::to_string(body)?.into()));
    Request::new_with_init(&format!("https://do{path}"), &init)
}

pub fn json_response<T: Serialize>(body: &T, status: u16) -> Result<Response> {
    Ok(Response::from_json(body)?.with_status(status))
}

/// A query-string parameter of a request URL.
pub fn query_param(req: &Request, name: &str) -> Result<Option<String>> {
    Ok(req.url()?.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned()))
}
