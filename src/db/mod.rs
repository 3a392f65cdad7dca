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
pub mod navigation_views;
pub mod organizations;
pub mod outgoing_webhook_deliveries;
pub mod password_resets;
pub mod presence;
pub mod profile_fields;
pub mod push_devices;
pub mod reactions;
pub mod read_guards;
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

use serde::de::DeserializeOwned;
use worker::{D1Database, D1PreparedStatement, D1Result, Result};

// Every statement reaches D1 through the four functions below, which count the request's
// round trips (`round_trips`); nothing else calls `batch`, `all`, `first` or `run`.

/// Runs statements as one atomic round trip. Every batch goes through here: a list built
/// from a client's JSON list may be empty, and D1 refuses an empty batch.
pub async fn run_batch(db: &D1Database, statements: Vec<D1PreparedStatement>) -> Result<Vec<D1Result>> {
    if statements.is_empty() {
        return Ok(Vec::new());
    }
    round_trips::note();
    db.batch(statements).await
}

/// All rows of a statement.
pub async fn all<T: DeserializeOwned>(stmt: D1PreparedStatement) -> Result<Vec<T>> {
    round_trips::note();
    stmt.all().await?.results()
}

/// The first row of a statement, if any.
pub async fn first<T: DeserializeOwned>(stmt: D1PreparedStatement) -> Result<Option<T>> {
    round_trips::note();
    stmt.first(None).await
}

/// Runs a statement for its effect.
pub async fn run(stmt: D1PreparedStatement) -> Result<D1Result> {
    round_trips::note();
    stmt.run().await
}

/// The current time in UNIX seconds.
pub fn now() -> i64 {
    (worker::Date::now().as_millis() / 1000) as i64
}
