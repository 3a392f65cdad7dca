//! Users: reading them, creating, deactivating, reactivating and updating accounts.

use serde_json::{json, Value};

use crate::actions::profile_fields as profile_actions;
use crate::actions::site::Site;
use crate::actions::users as actions;
use crate::auth::Administrator;
use crate::context::RequestContext;
use crate::domain::users::{access_user_for_admin, check_full_name, members_of, named_user_object, user_object_of, UserDictOptions};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::model::Role;
use crate::response::Reply;

/// # `GET /users/me`
/// Any user: the caller's own User object, its fields at the top level (without the bot
/// fields, which Zulip leaves out of this answer).
/// - `include_custom_profile_fields` (default false): adds `profile_data`.
pub async fn get_own_user(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let include = ctx.params.bool_or("include_custom_profile_fields", false)?;
    let opts = UserDictOptions { realm_host: &ctx.realm_host, client_gravatar: false };
    let mut own = user_object_of(&ctx.db, &me, &me, &opts, include).await?;
    if let Some(fields) = own.as_object_mut() {
        fields.remove("bot_type");
        fields.remove("bot_owner_id");
    }
    Ok(Reply::json(own))
}

/// # `GET /users`
/// Any user: every user of the organization (bots and deactivated users included).
/// - `client_gravatar` (default true): `avatar_url` null where the client can compute it;
/// - `include_custom_profile_fields` (default false): adds each user's `profile_data`.
pub async fn get_users(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let client_gravatar = ctx.params.bool_or("client_gravatar", true)?;
    let include = ctx.params.bool_or("include_custom_profile_fields", false)?;
    let opts = UserDictOptions { realm_host: &ctx.realm_host, client_gravatar };
    Ok(Reply::json(json!({ "members": members_of(&ctx.db, &me, &opts, include).await? })))
}

/// # `GET /users/{user_id}` (also `GET /users/{email}`)
/// Any user: one user; `BAD_REQUEST` "No such user" for an unknown id or email.
/// - `include_custom_profile_fields` (default false): adds `profile_data`.
pub async fn get_user(ctx: &RequestContext, id_or_email: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let client_gravatar = ctx.params.bool_or("client_gravatar", true)?;
    let include = ctx.params.bool_or("include_custom_profile_fields", false)?;
    let opts = UserDictOptions { realm_host: &ctx.realm_host, client_gravatar };
    Ok(Reply::json(json!({ "user": named_user_object(&ctx.db, &me, id_or_email, &opts, include).await? })))
}

/// # `POST /users`
/// Administrators with `can_create_users`: `email`, `password`, `full_name`. Answers
/// `user_id`. Invalid email "Bad name or username"; email in use `BAD_REQUEST`.
pub async fn create_user(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let email = ctx.params.required_str("email")?;
    let password = ctx.params.required_str("password")?;
    let full_name = ctx.params.required_str("full_name")?;
    let user_id = actions::check_create_user_by_admin(&ctx.db, &Site::of_request(ctx), &admin, email.trim(), &password, &full_name).await?;
    Ok(Reply::json(json!({ "user_id": user_id })))
}

/// # `DELETE /users/me`
/// Deactivates the caller: `CANNOT_DEACTIVATE_LAST_USER` for the only user
/// (`is_last_owner` false) or the only owner (`is_last_owner` true).
pub async fn deactivate_own_user(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    actions::check_deactivate_own_user(&ctx.db, &ctx.env, &me).await?;
    Ok(Reply::ok())
}

/// # `DELETE /users/{user_id}`
/// Administrators: deactivates a user (owners only by owners; never the only owner).
pub async fn deactivate_user(ctx: &RequestContext, user_id: &str) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    ctx.params.accept("deactivation_notification_comment");
    let target = access_user_for_admin(&ctx.db, admin.realm_id, user_id, false).await?;
    if !target.is_active() {
        return Err(ApiError::bad_request("User is deactivated"));
    }
    actions::check_deactivate_user(&ctx.db, &ctx.env, &admin, &target).await?;
    Ok(Reply::ok())
}

/// # `POST /users/{user_id}/reactivate`
/// Administrators: reactivates a deactivated user or bot; its API keys work again.
pub async fn reactivate_user(ctx: &RequestContext, user_id: &str) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let target = access_user_for_admin(&ctx.db, admin.realm_id, user_id, true).await?;
    actions::check_reactivate_user(&ctx.db, &ctx.env, &target).await?;
    Ok(Reply::ok())
}

/// # `PATCH /users/{user_id}`
/// Administrators: `role` (JSON integer; owner changes need an owner; the only owner keeps
/// the role), `full_name`, `profile_data` (as `PATCH /users/me/profile_data`, any field).
pub async fn update_user(ctx: &RequestContext, user_id: &str) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let role = ctx.params.int("role")?;
    let full_name = ctx.params.str("full_name")?;
    let profile_data: Option<Vec<Value>> = ctx.params.json_as("profile_data", "a list")?;
    let target = access_user_for_admin(&ctx.db, admin.realm_id, user_id, true).await?;
    // Everything is checked before anything is written: a bad value changes nothing.
    let role = role.map(|code| Role::from_code(code).ok_or_else(|| ApiError::bad_request("Invalid role"))).transpose()?;
    let role_changes = match role {
        Some(role) => actions::check_role_change(&ctx.db, &admin, &target, role).await?,
        None => false,
    };
    let full_name = full_name.filter(|n| !n.trim().is_empty()).map(|n| check_full_name(&n)).transpose()?;
    let profile_changes = match &profile_data {
        Some(data) => Some(profile_actions::check_profile_data(&ctx.db, &admin, &target, data).await?),
        None => None,
    };
    let changes = actions::UserChanges { role: role.filter(|_| role_changes), full_name, profile: profile_changes };
    actions::do_update_user(&ctx.db, &ctx.env, &target, changes).await?;
    Ok(Reply::ok())
}

/// # `POST /users/me/api_key/regenerate`
/// Any user: replaces their API key; the old one stops working at once. Answers `api_key`.
pub async fn regenerate_own_api_key(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let api_key = actions::do_regenerate_api_key(&ctx.db, &ctx.env, RealmId(me.realm_id), UserId(me.id)).await?;
    Ok(Reply::json(json!({ "api_key": api_key })))
}
