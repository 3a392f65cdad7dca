//! The organization's linkifiers.

use serde_json::json;

use crate::actions::linkifiers::{check_add_linkifier, check_reorder_linkifiers, check_update_linkifier, do_remove_linkifier};
use crate::auth::Administrator;
use crate::context::RequestContext;
use crate::domain::linkifiers::linkifiers_of;
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

/// # `GET /realm/linkifiers`
/// Any user: the linkifiers in the order they apply (`linkifiers`).
pub async fn get_linkifiers(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "linkifiers": linkifiers_of(&ctx.db, me.realm_id, false).await? })))
}

/// # `GET /realm/filters`
/// Any user: the legacy shape, `filters` as `[pattern, url_template, id]` tuples.
pub async fn get_filters_legacy(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "filters": linkifiers_of(&ctx.db, me.realm_id, true).await? })))
}

/// # `POST /realm/filters`
/// Administrators: `pattern` (a regular expression; named groups are the template's
/// variables) and `url_template` (RFC 6570), both required.
/// - Both are trimmed; the pattern must compile and be new in the organization.
/// - The template's variables must be exactly the pattern's named groups.
/// - Answers `id`; everyone gets `realm_linkifiers`.
pub async fn create_linkifier(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let pattern = ctx.params.required_str("pattern")?;
    let url_template = ctx.params.required_str("url_template")?;
    let id = check_add_linkifier(&ctx.db, &ctx.env, &admin, &pattern, &url_template).await?;
    Ok(Reply::json(json!({ "id": id })))
}

/// # `PATCH /realm/filters/{filter_id}`
/// Administrators: replaces `pattern` and `url_template` (both required, checked as when
/// adding). An unknown id: "Linkifier not found.". Everyone gets `realm_linkifiers`.
pub async fn update_linkifier(ctx: &RequestContext, raw_id: &str) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let id = filter_id(raw_id)?;
    let pattern = ctx.params.required_str("pattern")?;
    let url_template = ctx.params.required_str("url_template")?;
    check_update_linkifier(&ctx.db, &ctx.env, &admin, id, &pattern, &url_template).await?;
    Ok(Reply::ok())
}

/// # `DELETE /realm/filters/{filter_id}`
/// Administrators. An unknown id: "Linkifier not found.". Everyone gets `realm_linkifiers`.
pub async fn delete_linkifier(ctx: &RequestContext, raw_id: &str) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let id = filter_id(raw_id)?;
    do_remove_linkifier(&ctx.db, &ctx.env, &admin, id).await?;
    Ok(Reply::ok())
}

/// # `PATCH /realm/linkifiers`
/// Administrators: `ordered_linkifier_ids`, a JSON list naming every linkifier exactly
/// once, first applied first. Everyone gets `realm_linkifiers`.
pub async fn reorder_linkifiers(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let ordered: Vec<i64> = ctx.params.required_json_as("ordered_linkifier_ids", "a list")?;
    check_reorder_linkifiers(&ctx.db, &ctx.env, &admin, &ordered).await?;
    Ok(Reply::ok())
}

/// Zulip's route only matches digits; anything else is an unknown URL.
fn filter_id(raw: &str) -> ApiResult<i64> {
    crate::params::parse_int(raw).ok_or_else(ApiError::not_found)
}
