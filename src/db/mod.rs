//! Typed queries against D1: one module per table, a `Deserialize` row struct and one
//! function per query with its SQL beside it. Rows never go on the wire; `domain/` builds
//! the API objects from them.
//!
//! D1 has no interactive transactions: a multi-row write is one atomic `db.batch(...)`.

pub mod alert_words;
pub mod api_keys;
pub mod attachments;
pub mod background_failures;
pub mod batch;
pub mod bench;
pub mod bot_services;
pub mod bot_storage;
pub mod channel_folders;
pub mod channels;
pub mod default_channels;
pub mod direct_message_groups;
pub mod drafts;
pub mod email_outbox;
pub mod id_floors;
pub mod invites;
pub mod linkifiers;
pub mod mentions;
pub mod message_edits;
pub mod message_retention;
pub mod message_window;
pub mod messages;
pub mod missed_message_emails;
pub mod muted_users;
pub mod narrow;
pub mod narrow_matches;
pub mod navigation_views;
pub mod organizations;
pub mod outgoing_webhook_deliveries;
pub mod password_resets;
pub mod presence;
pub mod profile_fields;
pub mod push_devices;
pub mod reactions;
pub mod read_guards;
pub mod read_receipts;
pub mod realm_directory;
pub mod realm_emoji;
pub mod realm_export_data;
pub mod realm_exports;
pub mod realm_imports;
pub mod realm_playgrounds;
pub mod realm_settings;
pub mod realms;
pub mod register_state;
pub mod round_trips;
pub mod saved_snippets;
pub mod scheduled_messages;
pub mod sessions;
pub mod statement;
pub mod subscription_settings;
pub mod subscriptions;
pub mod tus_uploads;
pub mod typing_recipients;
pub mod user_groups;
pub mod user_messages;
pub mod user_status;
pub mod user_topics;
pub mod users;

use js_sys::{Array, Reflect};
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use worker::{D1Database, Result};

use statement::Statement;

// Every statement reaches D1 through the four functions below, which count the request's
// round trips (`round_trips`); nothing else calls `batch`, `all`, `first` or `run`.

/// One statement's answer from D1. Its rows cross from JavaScript as one JSON text
/// (`JSON.stringify` is native) and are decoded only when read: field by field through
/// `serde_wasm_bindgen` costs a call into JavaScript per value, and a copy of that decoder
/// for every row type in the bundle.
pub struct Answer(JsValue);

impl Answer {
    /// Every row, as JSON objects (column name to value).
    pub fn json_rows(&self) -> Result<Vec<Value>> {
        let rows = Reflect::get(&self.0, &JsValue::from_str("results"))?;
        if rows.is_undefined() || rows.is_null() {
            return Ok(Vec::new());
        }
        let text: String = js_sys::JSON::stringify(&rows)?.into();
        Ok(serde_json::from_str(&text)?)
    }

    /// Every row, read as `T`.
    pub fn rows<T: DeserializeOwned>(&self) -> Result<Vec<T>> {
        rows_as(&self.json_rows()?)
    }

    /// How many rows the statement changed.
    pub fn changes(&self) -> Result<i64> {
        let meta = Reflect::get(&self.0, &JsValue::from_str("meta"))?;
        if meta.is_undefined() || meta.is_null() {
            return Ok(0);
        }
        Ok(Reflect::get(&meta, &JsValue::from_str("changes"))?.as_f64().unwrap_or(0.0) as i64)
    }
}

/// Rows read as `T`; every reader of rows, answered or remembered, decodes through here.
pub fn rows_as<T: DeserializeOwned>(rows: &[Value]) -> Result<Vec<T>> {
    Ok(rows.iter().map(T::deserialize).collect::<serde_json::Result<_>>()?)
}

/// Runs statements as one atomic round trip. Every batch goes through here: a list built
/// from a client's JSON list may be empty, and D1 refuses an empty batch.
pub async fn run_batch(db: &D1Database, statements: Vec<Statement>) -> Result<Vec<Answer>> {
    if statements.is_empty() {
        return Ok(Vec::new());
    }
    round_trips::note();
    let database: &worker::worker_sys::D1Database = db.as_ref().unchecked_ref();
    let statements: Array = statements.iter().map(|statement| statement.prepare(database)).collect::<Result<_>>()?;
    let answers = settle(database.batch(statements)).await?;
    Ok(answers.dyn_into::<Array>()?.iter().map(Answer).collect())
}

/// All rows of a statement.
pub async fn all<T: DeserializeOwned>(db: &D1Database, stmt: Statement) -> Result<Vec<T>> {
    run(db, stmt).await?.rows()
}

/// The first row of a statement, if any.
pub async fn first<T: DeserializeOwned>(db: &D1Database, stmt: Statement) -> Result<Option<T>> {
    Ok(all(db, stmt).await?.into_iter().next())
}

/// Runs a statement; its answer holds the rows and how many it changed.
pub async fn run(db: &D1Database, stmt: Statement) -> Result<Answer> {
    round_trips::note();
    let database: &worker::worker_sys::D1Database = db.as_ref().unchecked_ref();
    Ok(Answer(settle(stmt.prepare(database)?.all()).await?))
}

/// Awaits a D1 promise. A failure keeps D1's text (`D1_ERROR: UNIQUE constraint failed: …`)
/// with its cause, which is what callers look for.
async fn settle(promise: std::result::Result<js_sys::Promise, JsValue>) -> Result<JsValue> {
    let outcome = match promise {
        Ok(promise) => JsFuture::from(promise).await,
        Err(err) => Err(err),
    };
    outcome.map_err(|err| match err.dyn_ref::<js_sys::Error>() {
        Some(error) => {
            let message: String = error.message().into();
            match error.cause().dyn_ref::<js_sys::Error>() {
                Some(cause) => worker::Error::RustError(format!("{message} ({})", String::from(cause.message()))),
                None => worker::Error::RustError(message),
            }
        }
        None => worker::Error::from(err),
    })
}

/// The current time in UNIX seconds.
pub fn now() -> i64 {
    (worker::Date::now().as_millis() / 1000) as i64
}
