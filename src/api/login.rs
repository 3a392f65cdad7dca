//! Obtaining an API key with a password.

use serde_json::json;

use crate::actions::users::do_issue_api_key;
use crate::context::RequestContext;
use crate::db::users;
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;
use crate::secrets;

/// # `POST /fetch_api_key`
/// Open. `username` (the email) and `password`; answers a fresh `api_key`.
/// - wrong email or password: 401 `AUTHENTICATION_FAILED`, the same for both so the answer
///   does not reveal which accounts exist;
/// - deactivated user or organization: 401 `USER_DEACTIVATED` / `REALM_DEACTIVATED`.
pub async fn fetch_api_key(ctx: &RequestContext) -> ApiResult<Reply> {
    let username = ctx.params.required_str("username")?;
    let password = ctx.params.required_str("password")?;
    let realm = ctx.realm().await?;
    if realm.deactivated != 0 {
        return Err(ApiError::realm_deactivated());
    }
    let failed = || ApiError::authentication_failed("Your username or password is incorrect");
    let user = users::by_email(&ctx.db, realm.id, &username).await?.ok_or_else(failed)?;
    let stored = users::password_hash(&ctx.db, realm.id, user.id).await?.ok_or_else(failed)?;
    if !secrets::verify_password(&password, &stored).await? {
        return Err(failed());
    }
    if !user.is_active() {
        return Err(ApiError::user_deactivated());
    }
    let api_key = do_issue_api_key(&ctx.db, &ctx.env, realm.id, user.id).await?;
    Ok(Reply::json(json!({ "api_key": api_key, "email": user.email, "user_id": user.id })))
}
