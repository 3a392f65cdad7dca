//! Obtaining an API key with a password.

use serde_json::json;

use crate::actions::users::do_issue_api_key;
use crate::context::RequestContext;
use crate::domain::users::password_owner;
use crate::error::{ApiError, ApiResult};
use crate::rate_limits::{self, Bucket};
use crate::response::Reply;

/// # `POST /fetch_api_key`
/// Open. `username` (the email) and `password`; answers a fresh `api_key`.
/// - wrong email or password: 401 `AUTHENTICATION_FAILED`, the same for both so the answer
///   does not reveal which accounts exist;
/// - deactivated user or organization: 401 `USER_DEACTIVATED` / `REALM_DEACTIVATED`;
/// - after `RATE_LIMIT_LOGIN_FAILURES` failures of one account: 429 `RATE_LIMIT_HIT`.
pub async fn fetch_api_key(ctx: &RequestContext) -> ApiResult<Reply> {
    let username = ctx.params.required_str("username")?;
    let password = ctx.params.required_str("password")?;
    let (realm, candidate) = ctx.realm_and_signing_in(&username).await?;
    if realm.deactivated != 0 {
        return Err(ApiError::realm_deactivated());
    }
    let attempt = Bucket::LoginFailures { realm_id: realm.id, username: &username };
    rate_limits::before_login(&ctx.env, &attempt).await?;
    let Some(signing_in) = password_owner(candidate, &password).await? else {
        let failed = ApiError::authentication_failed("Your username or password is incorrect");
        return Err(rate_limits::login_failed(&ctx.env, &attempt, failed).await);
    };
    let user = &signing_in.user;
    if !user.is_active() {
        return Err(ApiError::user_deactivated());
    }
    let api_key = do_issue_api_key(&ctx.db, &ctx.env, user, signing_in.api_key_version).await?;
    Ok(Reply::json(json!({ "api_key": api_key, "email": user.email, "user_id": user.id })))
}
