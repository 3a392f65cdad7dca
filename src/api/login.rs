//! Obtaining an API key with a password.

use serde_json::json;

use crate::actions::login_notices::notify_new_login;
use crate::actions::users::do_issue_api_key;
use crate::auth::password_sign_in;
use crate::context::RequestContext;
use crate::error::ApiResult;
use crate::response::Reply;

/// # `POST /fetch_api_key`
/// Open. `username` (the email) and `password`; answers a fresh `api_key`. The rules of a
/// password sign-in are [`password_sign_in`]'s.
pub async fn fetch_api_key(ctx: &RequestContext) -> ApiResult<Reply> {
    let username = ctx.params.required_str("username")?;
    let password = ctx.params.required_str("password")?;
    let signing_in = password_sign_in(&ctx.db, &ctx.env, &ctx.settings.rate_limits, &ctx.realm_string_id, &username, &password).await?;
    let user = &signing_in.user;
    let api_key = do_issue_api_key(&ctx.db, &ctx.env, user, signing_in.api_key_version).await?;
    notify_new_login(ctx, user).await;
    Ok(Reply::json(json!({ "api_key": api_key, "email": user.email, "user_id": user.id })))
}
