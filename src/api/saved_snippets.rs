//! Saved snippets: private to their owner; another user's id answers like a missing one.

use serde_json::json;

use crate::actions::saved_snippets::{do_create_saved_snippet, do_delete_saved_snippet, do_edit_saved_snippet};
use crate::context::RequestContext;
use crate::domain::saved_snippets::{snippet_not_found, snippets_of};
use crate::error::ApiResult;
use crate::params::parse_int;
use crate::response::Reply;

/// # `GET /saved_snippets`
/// Any user: their own snippets (`saved_snippets`), oldest first.
pub async fn get_saved_snippets(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "saved_snippets": snippets_of(&ctx.db, me.id).await? })))
}

/// # `POST /saved_snippets`
/// Any user. Answers `saved_snippet_id`; emits `saved_snippets` (`add`).
/// - `title` required, stripped, non-blank, at most 60 characters;
/// - `content` required, stripped, non-blank, at most 10000 characters.
pub async fn create_saved_snippet(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let title = ctx.params.required_str("title")?;
    let content = ctx.params.required_str("content")?;
    let id = do_create_saved_snippet(&ctx.db, &ctx.env, &me, &title, &content).await?;
    Ok(Reply::json(json!({ "saved_snippet_id": id })))
}

/// # `PATCH /saved_snippets/{saved_snippet_id}`
/// The owner: `title` and/or `content`, same rules as creation; emits `saved_snippets`
/// (`update`). Neither given: success, nothing changes.
pub async fn edit_saved_snippet(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let id = parse_int(id).ok_or_else(snippet_not_found)?;
    let title = ctx.params.str("title")?;
    let content = ctx.params.str("content")?;
    do_edit_saved_snippet(&ctx.db, &ctx.env, &me, id, title.as_deref(), content.as_deref()).await?;
    Ok(Reply::ok())
}

/// # `DELETE /saved_snippets/{saved_snippet_id}`
/// The owner; emits `saved_snippets` (`remove`).
pub async fn delete_saved_snippet(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let id = parse_int(id).ok_or_else(snippet_not_found)?;
    do_delete_saved_snippet(&ctx.db, &ctx.env, &me, id).await?;
    Ok(Reply::ok())
}
