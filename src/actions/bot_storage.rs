//! A bot's key-value storage, with Zulip's size limit.

use std::collections::BTreeMap;

use worker::D1Database;

use crate::auth::require_bot;
use crate::db::bot_storage;
use crate::db::users::UserRow;
use crate::error::{ApiError, ApiResult};

/// Zulip's USER_STATE_SIZE_LIMIT: characters of keys and values over a bot's whole store.
pub const STORAGE_SIZE_LIMIT: i64 = 10_000_000;
/// D1 cannot store a value larger than 2 MB, so one entry (key and value, UTF-8) is capped
/// below that; Zulip has no per-entry limit of its own.
pub const ENTRY_SIZE_LIMIT: usize = 1_000_000;

fn key_missing() -> ApiError {
    ApiError::bad_request("Key does not exist.")
}

fn keys_json(keys: &[String]) -> String {
    serde_json::to_string(keys).unwrap_or_else(|_| "[]".into())
}

/// `PUT /bot_storage`: sets every entry or none (size checked first, writes in one batch).
pub async fn check_set_storage(db: &D1Database, bot: &UserRow, entries: &BTreeMap<String, String>) -> ApiResult<()> {
    require_bot(bot)?;
    if entries.is_empty() {
        return Ok(());
    }
    for (key, value) in entries {
        if key.len() + value.len() > ENTRY_SIZE_LIMIT {
            return Err(ApiError::bad_request(format!(
                "Storage entry '{key}' is too large. The limit is {ENTRY_SIZE_LIMIT} bytes per entry."
            )));
        }
    }
    let keys: Vec<String> = entries.keys().cloned().collect();
    let sizes = bot_storage::sizes(db, bot.id, &keys_json(&keys)).await?;
    let added: i64 = entries.iter().map(|(k, v)| (k.chars().count() + v.chars().count()) as i64).sum();
    let new_size = sizes.total - sizes.replaced + added;
    if new_size > STORAGE_SIZE_LIMIT {
        return Err(ApiError::bad_request(format!(
            "Request exceeds storage limit by {} characters. The limit is {} characters.",
            new_size - STORAGE_SIZE_LIMIT,
            STORAGE_SIZE_LIMIT
        )));
    }
    let mut stmts = Vec::new();
    for (key, value) in entries {
        stmts.push(bot_storage::upsert_stmt(bot.id, key, value)?);
    }
    crate::db::run_batch(db, stmts).await?;
    Ok(())
}

/// `GET /bot_storage`: the listed keys (each must exist), or everything.
pub async fn get_storage(db: &D1Database, bot: &UserRow, keys: Option<&[String]>) -> ApiResult<BTreeMap<String, String>> {
    require_bot(bot)?;
    let rows = match keys {
        Some(keys) if !keys.is_empty() => {
            let rows = bot_storage::entries_among(db, bot.id, &keys_json(keys)).await?;
            if keys.iter().any(|k| !rows.iter().any(|r| &r.key == k)) {
                return Err(key_missing());
            }
            rows
        }
        _ => bot_storage::entries(db, bot.id).await?,
    };
    Ok(rows.into_iter().map(|r| (r.key, r.value)).collect())
}

/// `DELETE /bot_storage`: the listed keys if every one exists (else nothing is removed),
/// or everything.
pub async fn check_remove_storage(db: &D1Database, bot: &UserRow, keys: Option<&[String]>) -> ApiResult<()> {
    require_bot(bot)?;
    match keys {
        Some(keys) if !keys.is_empty() => {
            let mut unique: Vec<String> = keys.to_vec();
            unique.sort();
            unique.dedup();
            let removed = bot_storage::delete_all_of(db, bot.id, &keys_json(&unique), unique.len() as i64).await?;
            if removed == 0 {
                return Err(key_missing());
            }
            Ok(())
        }
        _ => Ok(bot_storage::delete_everything(db, bot.id).await?),
    }
}
