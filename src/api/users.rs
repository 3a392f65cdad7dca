//! Reading users.

use serde_json::{json, Value};

use crate::context::RequestContext;
use crate::db::users::{self, UserRow};
use crate::domain::users::{user_dict, UserDictOptions};
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

fn realm_host(ctx: &RequestContext) -> &str {
    ctx.base_url.split_once("://").map(|(_, host)| host).unwrap_or(&ctx.base_url)
}

/// # `GET /users/me`
/// Any user: the caller's own User object, its fields at the top level (without the bot
/// fields, which Zulip leaves out of this answer).
pub async fn get_own_user(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let opts = UserDictOptions { realm_host: realm_host(ctx), client_gravatar: false };
    let mut own = user_dict(&me, &me, &opts);
    if let Some(fields) = own.as_object_mut() {
        fields.remove("bot_type");
        fields.remove("bot_owner_id");
    }
    Ok(Reply::json(own))
}

/// # `GET /users`
/// Any user: every user of the organization (bots and deactivated users included).
/// - `client_gravatar` (default true): `avatar_url` null where the client can compute it.
pub async fn get_users(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let client_gravatar = ctx.params.bool_or("client_gravatar", true)?;
    ctx.params.accept("include_custom_profile_fields");
    let opts = UserDictOptions { realm_host: realm_host(ctx), client_gravatar };
    let members: Vec<Value> = users::all_in_realm(&ctx.db, me.realm_id)
        .await?
        .iter()
        .map(|user| user_dict(&me, user, &opts))
        .collect();
    Ok(Reply::json(json!({ "members": members })))
}

/// # `GET /users/{user_id}` (also `GET /users/{email}`)
/// Any user: one user; `BAD_REQUEST` "No such user" for an unknown id or email.
pub async fn get_user(ctx: &RequestContext, id_or_email: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let client_gravatar = ctx.params.bool_or("client_gravatar", true)?;
    ctx.params.accept("include_custom_profile_fields");
    let user = access_user(ctx, &me, id_or_email).await?;
    let opts = UserDictOptions { realm_host: realm_host(ctx), client_gravatar };
    Ok(Reply::json(json!({ "user": user_dict(&me, &user, &opts) })))
}

/// A user of the caller's organization by id or email.
pub async fn access_user(ctx: &RequestContext, me: &UserRow, id_or_email: &str) -> ApiResult<UserRow> {
    let user = match id_or_email.parse::<i64>() {
        Ok(id) => users::by_id(&ctx.db, me.realm_id, id).await?,
        Err(_) => users::by_email(&ctx.db, me.realm_id, id_or_email).await?,
    };
    user.ok_or_else(|| ApiError::bad_request("No such user"))
}
