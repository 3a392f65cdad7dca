//! Typed queries against D1: one module per table, a `Deserialize` row struct and one
//! function per query with its SQL beside it. Rows never go on the wire; `domain/` builds
//! the API objects from them.
//!
//! D1 has no interactive transactions: a multi-row write is one atomic `db.batch(...)`.

pub mod api_keys;
pub mod batch;
pub mod bot_storage;
pub mod channel_folders;
pub mod direct_message_groups;
pub mod message_edits;
pub mod messages;
pub mod navigation_views;
pub mod profile_fields;
pub mod realm_playgrounds;
pub mod realm_settings;
pub mod realms;
pub mod register_state;
pub mod saved_snippets;
pub mod subscription_settings;
pub mod subscriptions;
pub mod typing_recipients;
pub mod user_groups;
pub mod user_messages;
pub mod user_topics;
pub mod users;

use serde::de::DeserializeOwned;
use worker::{D1PreparedStatement, Result};

/// All rows of a statement.
pub async fn all<T: DeserializeOwned>(stmt: D1PreparedStatement) -> Result<Vec<T>> {
    stmt.all().await?.results()
}

/// The first row of a statement, if any.
pub async fn first<T: DeserializeOwned>(stmt: D1PreparedStatement) -> Result<Option<T>> {
    stmt.first(None).await
}

/// The current time in UNIX seconds.
pub fn now() -> i64 {
    (worker::Date::now().as_millis() / 1000) as i64
}
