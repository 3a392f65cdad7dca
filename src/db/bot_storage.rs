//! `bot_storage`: each bot's string key-value entries.

use crate::db::statement::{statement, Statement};
use serde::Deserialize;
use worker::{D1Database, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct EntryRow {
    pub key: String,
    pub value: String,
}

/// Every entry of a bot, in key order.
pub async fn entries(db: &D1Database, bot_id: i64) -> Result<Vec<EntryRow>> {
    super::all(db, statement!("SELECT key, value FROM bot_storage WHERE bot_id = ?1 ORDER BY key", bot_id)?).await
}

/// The entries of a bot among `keys` (a JSON list of strings).
pub async fn entries_among(db: &D1Database, bot_id: i64, keys_json: &str) -> Result<Vec<EntryRow>> {
    super::all(
        db,
        statement!(
            "SELECT key, value FROM bot_storage WHERE bot_id = ?1 AND key IN (SELECT value FROM json_each(?2)) ORDER BY key",
            bot_id,
            keys_json
        )?,
    )
    .await
}

/// Storage size as Zulip counts it: characters of keys and values, for the whole store
/// (`total`) and for the entries whose keys are in `keys_json` (`replaced`).
#[derive(Debug, Deserialize)]
pub struct Sizes {
    pub total: i64,
    pub replaced: i64,
}

pub async fn sizes(db: &D1Database, bot_id: i64, keys_json: &str) -> Result<Sizes> {
    let row: Option<Sizes> = super::first(
        db,
        statement!(
            "SELECT COALESCE(SUM(length(key) + length(value)), 0) AS total, \
         COALESCE(SUM(CASE WHEN key IN (SELECT value FROM json_each(?2)) THEN length(key) + length(value) ELSE 0 END), 0) AS replaced \
         FROM bot_storage WHERE bot_id = ?1",
            bot_id,
            keys_json
        )?,
    )
    .await?;
    Ok(row.unwrap_or(Sizes { total: 0, replaced: 0 }))
}

pub fn upsert_stmt(bot_id: i64, key: &str, value: &str) -> Result<Statement> {
    statement!(
        "INSERT INTO bot_storage (bot_id, key, value) VALUES (?1, ?2, ?3) \
         ON CONFLICT (bot_id, key) DO UPDATE SET value = excluded.value",
        bot_id,
        key,
        value
    )
}

/// Removes the listed keys, only if every one of them exists (one statement, so a missing
/// key leaves the store untouched). Answers how many rows were removed.
pub async fn delete_all_of(db: &D1Database, bot_id: i64, keys_json: &str, expected: i64) -> Result<i64> {
    let statement = statement!(
        "DELETE FROM bot_storage WHERE bot_id = ?1 AND key IN (SELECT value FROM json_each(?2)) \
         AND (SELECT COUNT(*) FROM bot_storage WHERE bot_id = ?1 AND key IN (SELECT value FROM json_each(?2))) = ?3",
        bot_id,
        keys_json,
        expected
    )?;
    super::run(db, statement).await?.changes()
}

pub async fn delete_everything(db: &D1Database, bot_id: i64) -> Result<()> {
    super::run(db, statement!("DELETE FROM bot_storage WHERE bot_id = ?1", bot_id)?).await?;
    Ok(())
}
