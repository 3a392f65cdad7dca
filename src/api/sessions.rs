//! The web client's sign-in and sign-out, outside the API prefix as in Zulip
//! (`/accounts/login/`, `/accounts/login/local/`, `/accounts/logout/`). They answer JSON
//! envelopes, for the page's own fetch, and set or clear the session cookies
//! (`crate::domain::sessions`); every other request from the page then authenticates
//! with the cookie and the CSRF header.

use serde_json::json;
use worker::Response;

use crate::actions::login_notices::notify_new_login;
use crate::actions::sessions::do_end_session;
use crate::api::params::{secure_cookies, signed_in, with_cookies};
use crate::auth::{development_sign_in, password_sign_in, Credentials};
use crate::context::RequestContext;
use crate::domain::sessions::cleared_cookies;
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

/// Where a browser that navigates to one of these routes is sent: the client's sign-in page.
const SIGN_IN_PAGE: &str = "/login/";

/// # `POST /accounts/login/`
/// Open. `username` (the email) and `password`, with the rules and errors of
/// `POST /fetch_api_key`; starts a session and answers `user_id` and `email`.
pub async fn log_in(ctx: &RequestContext) -> ApiResult<Reply> {
    let username = ctx.params.required_str("username")?;
    let password = ctx.params.required_str("password")?;
    let signing_in = password_sign_in(&ctx.db, &ctx.env, &ctx.settings.rate_limits, &ctx.realm_string_id, &username, &password).await?;
    let reply = signed_in(ctx, &signing_in.user).await?;
    notify_new_login(ctx, &signing_in.user).await;
    Ok(reply)
}

/// # `POST /accounts/login/local/`
/// Development only (404 otherwise), open: `direct_email` names a user, who is signed in
/// without a password, like Zulip's development login page.
pub async fn log_in_development_user(ctx: &RequestContext) -> ApiResult<Reply> {
    if !ctx.settings.development {
        return Err(ApiError::not_found());
    }
    let email = ctx.params.required_str("direct_email")?;
    let signing_in = development_sign_in(&ctx.db, &ctx.realm_string_id, &email).await?;
    signed_in(ctx, &signing_in.user).await
}

/// # `POST /accounts/logout/`
/// The signed-in browser (session cookie and CSRF header): ends the session on the server
/// and clears both cookies.
pub async fn log_out(ctx: &RequestContext) -> ApiResult<Reply> {
    let Some(Credentials::Session { id, .. }) = ctx.auth.credentials.as_ref() else { return Err(ApiError::not_logged_in()) };
    let user = ctx.user().await?;
    do_end_session(&ctx.db, user.realm_id, id).await?;
    with_cookies(ctx, json!({}), cleared_cookies(secure_cookies(ctx)))
}

/// # `GET /accounts/...`
/// A browser that navigates here goes to the client's sign-in page.
pub fn to_sign_in_page() -> ApiResult<Reply> {
    let mut response = Response::empty()?.with_status(302);
    response.headers_mut().set("Location", SIGN_IN_PAGE)?;
    Ok(Reply::Raw(response))
}
