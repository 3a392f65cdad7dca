//! Navigation views: private to their owner. The path's `{fragment}` may contain slashes
//! (`narrow/is/starred`), sent as is or percent-encoded.

use serde_json::json;

use crate::actions::navigation_views::{do_add_navigation_view, do_remove_navigation_view, do_update_navigation_view};
use crate::context::RequestContext;
use crate::domain::navigation_views::{non_blank, views_of};
use crate::error::ApiResult;
use crate::response::Reply;

/// # `GET /navigation_views`
/// Any user: their own views (`navigation_views`).
pub async fn get_navigation_views(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "navigation_views": views_of(&ctx.db, me.id).await? })))
}

/// # `POST /navigation_views`
/// Any user; emits `navigation_view` (`add`).
/// - `fragment` required, stripped, non-blank, unique among the user's views;
/// - `is_pinned` required boolean;
/// - `name`: none for built-in fragments (`inbox`, `recent`, `feed`, ...), required
///   (non-blank, unique among the user's views) for custom ones.
pub async fn add_navigation_view(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let fragment = non_blank("fragment", &ctx.params.required_str("fragment")?)?;
    let is_pinned = ctx.params.required_bool("is_pinned")?;
    let name = ctx.params.str("name")?.map(|n| non_blank("name", &n)).transpose()?;
    do_add_navigation_view(&ctx.db, &ctx.env, &me, &fragment, is_pinned, name.as_deref()).await?;
    Ok(Reply::ok())
}

/// # `PATCH /navigation_views/{fragment}`
/// The owner: `is_pinned` and/or `name` (custom views only, non-blank, unique); emits
/// `navigation_view` (`update`). Unknown fragment: 404.
pub async fn update_navigation_view(ctx: &RequestContext, fragment: &[&str]) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let fragment = non_blank("fragment", &fragment.join("/"))?;
    let is_pinned = ctx.params.bool("is_pinned")?;
    let name = ctx.params.str("name")?.map(|n| non_blank("name", &n)).transpose()?;
    do_update_navigation_view(&ctx.db, &ctx.env, &me, &fragment, is_pinned, name.as_deref()).await?;
    Ok(Reply::ok())
}

/// # `DELETE /navigation_views/{fragment}`
/// The owner; emits `navigation_view` (`remove`). Unknown fragment: 404.
pub async fn remove_navigation_view(ctx: &RequestContext, fragment: &[&str]) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let fragment = non_blank("fragment", &fragment.join("/"))?;
    do_remove_navigation_view(&ctx.db, &ctx.env, &me, &fragment).await?;
    Ok(Reply::ok())
}
