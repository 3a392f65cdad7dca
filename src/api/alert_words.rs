//! The caller's alert words.

use serde_json::json;

use crate::actions::alert_words::do_update_alert_words;
use crate::context::RequestContext;
use crate::domain::alert_words::{alert_words_of, clean_alert_words};
use crate::error::ApiResult;
use crate::response::Reply;

/// # `GET /users/me/alert_words`
/// Any user: `alert_words`, the caller's words in the order they were added.
pub async fn list_alert_words(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "alert_words": alert_words_of(&ctx.db, me.id).await? })))
}

/// # `POST /users/me/alert_words`
/// Any user: adds `alert_words` (JSON list of strings, each at most 100 characters; trimmed,
/// empty ones dropped, a word already there ignoring case skipped). Answers the new list;
/// emits `alert_words`.
pub async fn add_alert_words(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let words: Vec<String> = ctx.params.required_json_as("alert_words", "a list")?;
    let words = clean_alert_words(&words)?;
    let list = do_update_alert_words(&ctx.db, &ctx.env, &me, &words, true).await?;
    Ok(Reply::json(json!({ "alert_words": list })))
}

/// # `DELETE /users/me/alert_words`
/// Any user: removes `alert_words` (JSON list of strings, matched ignoring case). Answers
/// the new list; emits `alert_words`.
pub async fn remove_alert_words(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let words: Vec<String> = ctx.params.required_json_as("alert_words", "a list")?;
    let list = do_update_alert_words(&ctx.db, &ctx.env, &me, &words, false).await?;
    Ok(Reply::json(json!({ "alert_words": list })))
}
