//! The success and error envelopes: the only place JSON responses are built.

use serde_json::{Map, Value};
use worker::Response;

use crate::error::ApiError;

/// What a handler answers on success.
pub enum Reply {
    /// Endpoint fields, wrapped in `{"result":"success","msg":""}`.
    Json(Map<String, Value>),
    /// A non-JSON response (file downloads, redirects).
    Raw(Response),
}

impl Reply {
    /// The bare envelope.
    pub fn ok() -> Self {
        Reply::Json(Map::new())
    }

    /// The envelope plus the fields of `fields` (a JSON object).
    pub fn json(fields: Value) -> Self {
        match fields {
            Value::Object(map) => Reply::Json(map),
            other => panic!("Reply::json takes an object, got {other}"),
        }
    }

    /// A public file whose bytes never change at its URL (its name is random and never
    /// reused: custom emoji, avatars), so browsers and caches may keep it for a year.
    pub fn immutable_file(bytes: Vec<u8>, content_type: Option<&str>) -> worker::Result<Self> {
        let mut resp = Response::from_bytes(bytes)?;
        let headers = resp.headers_mut();
        headers.set("Content-Type", content_type.unwrap_or("application/octet-stream"))?;
        headers.set("Cache-Control", "public, max-age=31536000, immutable")?;
        headers.set("X-Content-Type-Options", "nosniff")?;
        Ok(Reply::Raw(resp))
    }
}

pub fn success_response(mut fields: Map<String, Value>, ignored: Vec<String>) -> Response {
    fields.insert("result".into(), Value::from("success"));
    fields.insert("msg".into(), Value::from(""));
    if !ignored.is_empty() {
        fields.insert("ignored_parameters_unsupported".into(), Value::from(ignored));
    }
    json_response(&Value::Object(fields), 200)
}

pub fn error_response(err: &ApiError) -> Response {
    let mut resp = json_response(&err.to_json(), err.status);
    if err.status == 401 {
        // Zulip's API answers 401s with a Basic challenge so HTTP clients retry with credentials.
        let _ = resp.headers_mut().set("WWW-Authenticate", "Basic realm=\"zulip\"");
    }
    for (name, value) in &err.headers {
        let _ = resp.headers_mut().set(name, value);
    }
    if let Some(secs) = err.extra.get("retry-after").and_then(serde_json::Value::as_f64) {
        let _ = resp.headers_mut().set("Retry-After", &(secs.ceil() as i64).to_string());
    }
    resp
}

pub fn json_response(body: &Value, status: u16) -> Response {
    let text = body.to_string();
    let mut resp = Response::ok(text).expect("a string body is always a valid response");
    let _ = resp.headers_mut().set("Content-Type", "application/json");
    resp.with_status(status)
}

/// Methods and request headers a web client hosted on another origin may use with the API.
const CORS_METHODS: &str = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";
const CORS_REQUEST_HEADERS: &str = "Authorization, Content-Type, Tus-Resumable, Upload-Length, Upload-Metadata, Upload-Offset";
const CORS_EXPOSED_HEADERS: &str =
    "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, Tus-Resumable, Upload-Offset";

/// `/api/v1` answers browsers of every origin, so web clients hosted elsewhere work. Any
/// origin is safe because such a client authenticates with its own `Authorization`
/// header: `*` never lets a browser send the session cookie across origins.
pub fn add_cors_headers(resp: &mut Response) {
    let headers = resp.headers_mut();
    let _ = headers.set("Access-Control-Allow-Origin", "*");
    let _ = headers.set("Access-Control-Expose-Headers", CORS_EXPOSED_HEADERS);
}

/// The answer to a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`).
pub fn cors_preflight() -> Response {
    let mut resp = Response::empty().expect("an empty response is always valid").with_status(204);
    let headers = resp.headers_mut();
    let _ = headers.set("Access-Control-Allow-Methods", CORS_METHODS);
    let _ = headers.set("Access-Control-Allow-Headers", CORS_REQUEST_HEADERS);
    let _ = headers.set("Access-Control-Max-Age", "86400");
    let _ = headers.set("Allow", CORS_METHODS);
    add_cors_headers(&mut resp);
    resp
}
