//! Presence: who is active, idle or away.

use serde_json::json;

use crate::actions::presence::{do_update_presence, PresenceQuery};
use crate::context::RequestContext;
use crate::domain::presence::{named_user_presence, realm_presence, PRESENCE_HISTORY_LIMIT_DAYS};
use crate::domain::users::{access_user, named_user};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::RealmId;
use crate::response::Reply;

/// The widest `history_limit_days` that means anything: a century.
const MAX_HISTORY_LIMIT_DAYS: i64 = 36_500;

/// # `POST /users/me/presence`
/// Any user: reports `status` (`active` or `idle`, else "Invalid status: …") and, unless
/// `ping_only`, answers the organization's presence: modern format keyed by user id with
/// `last_update_id` (only newer changes) or `slim_presence`, else legacy keyed by email;
/// `history_limit_days` bounds how old (default 14). `new_user_input` is accepted.
pub async fn update_presence(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let status = ctx.params.required_str("status")?;
    let ping_only = ctx.params.bool_or("ping_only", false)?;
    let _new_user_input = ctx.params.bool_or("new_user_input", false)?;
    let slim_presence = ctx.params.bool_or("slim_presence", false)?;
    let last_update_id = ctx.params.int("last_update_id")?;
    // Any integer is accepted: a negative window reads as none, and none reaches past a century.
    let days = ctx.params.int("history_limit_days")?.unwrap_or(PRESENCE_HISTORY_LIMIT_DAYS).clamp(0, MAX_HISTORY_LIMIT_DAYS);
    let active = match status.as_str() {
        "active" => true,
        "idle" => false,
        _ => return Err(ApiError::bad_request(format!("Invalid status: {status}"))),
    };
    if me.is_bot() {
        return Err(ApiError::bad_request("Presence is not supported for bot users."));
    }
    let answer = (!ping_only).then_some(PresenceQuery { modern: slim_presence || last_update_id.is_some(), last_update_id, days });
    let presence = do_update_presence(&ctx.db, &ctx.env, &me, active, answer).await?;
    Ok(Reply::json(presence.unwrap_or_else(|| json!({}))))
}

/// # `GET /users/{user_id_or_email}/presence`
/// Any user: `presence` of one user (`aggregated` and `website`, each `status` and `timestamp`). Unknown user "No such user"; a
/// bot "Presence is not supported for bot users."; none yet "No presence data for …".
pub async fn get_user_presence(ctx: &RequestContext, who: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let (user, presence) = named_user_presence(&ctx.db, me.realm_id, named_user(who)).await?;
    if access_user(user)?.is_bot() {
        return Err(ApiError::bad_request("Presence is not supported for bot users."));
    }
    let presence = presence.ok_or_else(|| ApiError::bad_request(format!("No presence data for {who}")))?;
    Ok(Reply::json(json!({ "presence": presence })))
}

/// # `GET /realm/presence`
/// Any user: the organization's presence in the legacy format keyed by email, with
/// `server_timestamp`.
pub async fn get_realm_presence(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let mut body = realm_presence(&ctx.db, RealmId(me.realm_id), false, None, PRESENCE_HISTORY_LIMIT_DAYS).await?;
    body.as_object_mut().map(|b| b.remove("presence_last_update_id"));
    Ok(Reply::json(body))
}
