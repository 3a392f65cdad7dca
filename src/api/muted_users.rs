//! Muted users.

use serde_json::json;

use crate::actions::muted_users::{check_mute_user, check_unmute_user};
use crate::context::RequestContext;
use crate::domain::muted_users::{mute_target_id, muted_users_of};
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

/// # `GET /users/me/muted_users`
/// Any user: `muted_users`, `{id, timestamp}` of each user they muted, oldest first.
pub async fn get_muted_users(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "muted_users": muted_users_of(&ctx.db, me.id).await? })))
}

/// # `POST /users/me/muted_users/{muted_user_id}`
/// Any user: mutes another user of the organization (bots and deactivated users too).
/// - oneself: "Cannot mute self"; unknown: "No such user"; muted already: "User already muted";
/// - the muted user's messages are marked read; emits `update_message_flags` and `muted_users`.
pub async fn mute_user(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    if crate::params::parse_int(id) == Some(me.id) {
        return Err(ApiError::bad_request("Cannot mute self"));
    }
    check_mute_user(&ctx.db, &ctx.env, &me, mute_target_id(id)?).await?;
    Ok(Reply::ok())
}

/// # `DELETE /users/me/muted_users/{muted_user_id}`
/// Any user: unmutes a user they muted ("User is not muted" otherwise; unknown: "No such
/// user"); emits `muted_users`.
pub async fn unmute_user(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    check_unmute_user(&ctx.db, &ctx.env, &me, mute_target_id(id)?).await?;
    Ok(Reply::ok())
}
