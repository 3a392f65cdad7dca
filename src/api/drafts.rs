//! Drafts, synchronised between a user's clients.

use serde_json::json;

use crate::actions::drafts::{self as actions, draft_not_found};
use crate::context::RequestContext;
use crate::domain::drafts::{drafts_of, DraftData};
use crate::error::ApiResult;
use crate::response::Reply;

fn draft_id(raw: &str) -> ApiResult<i64> {
    crate::params::parse_int(raw).filter(|id| *id >= 0).ok_or_else(draft_not_found)
}

/// # `GET /drafts`
/// Any user: their drafts, oldest first, and their `count`.
pub async fn get_drafts(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let drafts = drafts_of(&ctx.db, me.id).await?;
    Ok(Reply::json(json!({ "count": drafts.len(), "drafts": drafts })))
}

/// # `POST /drafts`
/// Any user: creates the drafts of `drafts` (a JSON list of Draft objects without `id`),
/// all or none; answers their `ids` in order.
/// - `type` is `""`, `stream` or `private`; a channel draft names exactly one channel the
///   user may access (`to`), a direct one existing users;
/// - content follows the message content rules; `timestamp` (default now) is not negative.
pub async fn create_drafts(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let list: Vec<DraftData> = ctx.params.required_json_as("drafts", "a list of drafts")?;
    let ids = actions::create_drafts(&ctx.db, &ctx.env, &me, &list).await?;
    Ok(Reply::json(json!({ "ids": ids })))
}

/// # `PATCH /drafts/{draft_id}`
/// The draft's owner (anyone else: 404 "Draft does not exist"): replaces it with `draft`,
/// checked as for `POST /drafts`.
pub async fn edit_draft(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let id = draft_id(id)?;
    let draft: DraftData = ctx.params.required_json_as("draft", "a draft")?;
    actions::edit_draft(&ctx.db, &ctx.env, &me, id, &draft).await?;
    Ok(Reply::json(json!({})))
}

/// # `DELETE /drafts/{draft_id}`
/// The draft's owner (anyone else: 404 "Draft does not exist"): deletes it.
pub async fn delete_draft(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let id = draft_id(id)?;
    actions::delete_draft(&ctx.db, &ctx.env, &me, id).await?;
    Ok(Reply::json(json!({})))
}
