//! A bot's key-value storage. Bots only: other callers get `PERMISSION_DENIED` "Must be a
//! bot user" (400, as Zulip's BotRequiredError).

use std::collections::BTreeMap;

use serde_json::json;

use crate::actions::bot_storage::{check_remove_storage, check_set_storage, get_storage as read_storage};
use crate::auth::Bot;
use crate::context::RequestContext;
use crate::error::ApiResult;
use crate::response::Reply;

/// # `PUT /bot_storage`
/// `storage`: a JSON object of string keys and string values; all set or none. The whole
/// store is limited to 10,000,000 characters (keys and values), as Zulip's.
pub async fn update_storage(ctx: &RequestContext) -> ApiResult<Reply> {
    let bot = ctx.user_as::<Bot>().await?;
    let storage: BTreeMap<String, String> = ctx.params.required_json_as("storage", "a dict")?;
    check_set_storage(&ctx.db, &bot, &storage).await?;
    Ok(Reply::ok())
}

/// # `GET /bot_storage`
/// `keys` (JSON list, optional): the entries asked for, each of which must exist
/// ("Key does not exist."); without it every entry. Answers `storage`.
pub async fn get_storage(ctx: &RequestContext) -> ApiResult<Reply> {
    let bot = ctx.user_as::<Bot>().await?;
    let keys: Option<Vec<String>> = ctx.params.json_as("keys", "a list")?;
    let storage = read_storage(&ctx.db, &bot, keys.as_deref()).await?;
    Ok(Reply::json(json!({ "storage": storage })))
}

/// # `DELETE /bot_storage`
/// `keys` (JSON list, optional): removes those entries, only if every one exists (else
/// `BAD_REQUEST` and nothing removed); without it removes everything.
pub async fn remove_storage(ctx: &RequestContext) -> ApiResult<Reply> {
    let bot = ctx.user_as::<Bot>().await?;
    let keys: Option<Vec<String>> = ctx.params.json_as("keys", "a list")?;
    check_remove_storage(&ctx.db, &bot, keys.as_deref()).await?;
    Ok(Reply::ok())
}
