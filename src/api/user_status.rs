//! User status: a short text and an emoji others see beside one's name.

use serde_json::json;

use crate::actions::user_status::{check_status_emoji, do_update_user_status};
use crate::context::RequestContext;
use crate::db::user_status::StatusChange;
use crate::domain::user_status::{clean_status_text, status_of_user_in};
use crate::domain::users::access_user_for_admin;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::response::Reply;

/// # `POST /users/me/status`
/// Any user: changes the given parts of their status. Rules:
/// - at least one parameter ("Client did not pass any new values.");
/// - `status_text` is trimmed, at most 60 characters; "" clears it;
/// - `emoji_name` "" clears the emoji; otherwise the emoji must exist (`emoji_code` and
///   `reaction_type` checked as for reactions); `emoji_code`/`reaction_type` need `emoji_name`;
/// - emits `user_status` with the parts sent, to the whole organization.
pub async fn update_user_status(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let away = ctx.params.bool("away")?;
    let requested = requested_status(ctx, me.realm_id, away).await?;
    do_update_user_status(&ctx.db, &ctx.env, &me, &requested.change()).await?;
    Ok(Reply::ok())
}

/// # `POST /users/{user_id}/status`
/// Administrators ("Insufficient permission" for others): changes another user's status
/// (a bot's too), with the parameters and rules of `POST /users/me/status` but `away`.
pub async fn update_status_for_user(ctx: &RequestContext, user: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    if !me.is_realm_admin() {
        return Err(ApiError::insufficient_permission());
    }
    let target = access_user_for_admin(&ctx.db, me.realm_id, user, true).await?;
    let requested = requested_status(ctx, me.realm_id, None).await?;
    do_update_user_status(&ctx.db, &ctx.env, &target, &requested.change()).await?;
    Ok(Reply::ok())
}

/// The parts of a status a request changes, checked.
struct RequestedStatus {
    status_text: Option<String>,
    away: Option<bool>,
    /// (name, code, reaction type); an empty name clears the emoji.
    emoji: Option<(String, String, String)>,
}

impl RequestedStatus {
    fn change(&self) -> StatusChange<'_> {
        StatusChange {
            status_text: self.status_text.as_deref(),
            emoji: self.emoji.as_ref().map(|(n, c, k)| (n.as_str(), c.as_str(), k.as_str())),
            away: self.away,
        }
    }
}

async fn requested_status(ctx: &RequestContext, realm_id: i64, away: Option<bool>) -> ApiResult<RequestedStatus> {
    let status_text = ctx.params.str("status_text")?.map(|t| clean_status_text(&t)).transpose()?;
    let emoji_name = ctx.params.str("emoji_name")?;
    let emoji_code = ctx.params.str("emoji_code")?;
    let reaction_type = ctx.params.str("reaction_type")?;
    if status_text.is_none() && away.is_none() && emoji_name.is_none() && emoji_code.is_none() && reaction_type.is_none() {
        return Err(ApiError::bad_request("Client did not pass any new values."));
    }
    let emoji = match emoji_name {
        None if emoji_code.is_some() || reaction_type.is_some() => {
            return Err(ApiError::bad_request("Client must pass emoji_name if they pass either emoji_code or reaction_type."));
        }
        None => None,
        Some(name) if name.is_empty() => Some((String::new(), String::new(), "unicode_emoji".to_string())),
        Some(name) => {
            let e = check_status_emoji(&ctx.db, realm_id, name, emoji_code, reaction_type).await?;
            Some((e.name, e.code, e.reaction_type))
        }
    };
    Ok(RequestedStatus { status_text, away, emoji })
}

/// # `GET /users/{user_id}/status`
/// Any user: `status`, the user's status (only the parts set; `{}` for none). Unknown user:
/// "No such user".
pub async fn get_user_status(ctx: &RequestContext, user: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let Some(user_id) = crate::params::parse_int(user) else { return Err(ApiError::no_such_user()) };
    Ok(Reply::json(json!({ "status": status_of_user_in(&ctx.db, RealmId(me.realm_id), UserId(user_id)).await? })))
}
