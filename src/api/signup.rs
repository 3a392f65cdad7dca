//! Joining and coming back, for the web client's pages (outside the API prefix, beside
//! `/accounts/login/`): the sign-up link's details, asking to join with an address,
//! completing a sign-up, and "forgot password". They answer JSON envelopes; the two that
//! end with a new account or a new password sign the person in (session cookies, as
//! `POST /accounts/login/`).

use serde_json::json;

use crate::actions::passwords::{complete_password_reset, open_reset_link, request_password_reset};
use crate::actions::signup::{check_register, check_request_signup, link_dict, open_link};
use crate::actions::site::Site;
use crate::api::params::signed_in;
use crate::context::RequestContext;
use crate::domain::email_unsubscribe::{check_unsubscribe, EmailKind};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::response::Reply;

/// # `GET /accounts/register/{key}/`
/// Open: what the link opens (`kind` `invitation` with its `email`, or `multiuse`),
/// `invited_as` and `realm_name`; a forged, expired, used or revoked link says so.
pub async fn get_signup_link(ctx: &RequestContext, key: &str) -> ApiResult<Reply> {
    let realm = ctx.realm().await?;
    let opened = open_link(&ctx.db, realm.id, key).await?;
    Ok(Reply::json(link_dict(&opened, &realm.name)))
}

/// # `POST /accounts/home/`
/// Open: `email`, and `key` of a reusable link unless the organization lets anyone join;
/// mails the address a confirmation link that leads to the sign-up form.
pub async fn request_signup(ctx: &RequestContext) -> ApiResult<Reply> {
    let email = ctx.params.required_str("email")?;
    let key = ctx.params.str("key")?;
    let realm = ctx.realm().await?;
    check_request_signup(&ctx.db, &Site::of_request(ctx), &realm.name, realm.id, &email, key.as_deref()).await?;
    Ok(Reply::ok())
}

/// # `POST /accounts/register/`
/// Open: `key` (an email invitation's or a mailed confirmation's), `full_name`,
/// `password` (Zulip's strength rule): makes the account and signs it in; answers
/// `user_id` and `email`.
pub async fn register(ctx: &RequestContext) -> ApiResult<Reply> {
    let key = ctx.params.required_str("key")?;
    let full_name = ctx.params.required_str("full_name")?;
    let password = ctx.params.required_str("password")?;
    let realm = ctx.realm().await?;
    let user = check_register(&ctx.db, &Site::of_request(ctx), realm.id, &key, &full_name, &password).await?;
    signed_in(ctx, &user).await
}

/// # `POST /accounts/password/reset/`
/// Open: `email`. Always the same success (no account discovery); an active account with
/// that address is mailed a single-use link valid for a day. Rate-limited per address
/// (silently) and per IP address (`RATE_LIMIT_HIT`).
pub async fn forgot_password(ctx: &RequestContext) -> ApiResult<Reply> {
    let email = ctx.params.required_str("email")?;
    let realm = ctx.realm().await?;
    request_password_reset(&ctx.db, &ctx.settings.rate_limits, &Site::of_request(ctx), &realm.name, realm.id, &email, &ctx.client_ip())
        .await?;
    Ok(Reply::ok())
}

/// # `GET /accounts/password/reset/{token}/`
/// Open: whether the link still works (`email` of its account), for the page to say so
/// before asking for a password.
pub async fn get_reset_link(ctx: &RequestContext, token: &str) -> ApiResult<Reply> {
    let realm = ctx.realm().await?;
    let user = open_reset_link(&ctx.db, realm.id, token).await?;
    Ok(Reply::json(json!({ "email": user.delivery_email })))
}

/// # `POST /accounts/password/reset/{token}/`
/// Open: `new_password` (Zulip's strength rule) becomes the account's password, the link
/// and the account's other reset links stop working, and the person is signed in.
pub async fn reset_password(ctx: &RequestContext, token: &str) -> ApiResult<Reply> {
    let new_password = ctx.params.required_str("new_password")?;
    let realm = ctx.realm().await?;
    let user = complete_password_reset(&ctx.db, realm.id, token, &new_password).await?;
    signed_in(ctx, &user).await
}

/// # `GET /accounts/unsubscribe/{kind}/{user_id}-{token}/`
/// Open (the link in every missed-message and new-login email): turns off the setting of
/// that kind of email (`domain::email_unsubscribe`) and answers a short page. A forged
/// link, or an unknown kind, answers 404.
pub async fn unsubscribe(ctx: &RequestContext, kind: &str, raw: &str) -> ApiResult<Reply> {
    let kind = EmailKind::from_path(kind).ok_or_else(ApiError::not_found)?;
    let realm = ctx.realm().await?;
    let secret = crate::secrets::api_key_secret(&ctx.env)?;
    let user_id = check_unsubscribe(kind, secret.as_bytes(), realm.id, raw).ok_or_else(ApiError::confirmation_link_not_found)?;
    let user =
        crate::db::users::by_id(&ctx.db, RealmId(realm.id), UserId(user_id)).await?.ok_or_else(ApiError::confirmation_link_not_found)?;
    let setting = crate::domain::user_settings::setting(kind.setting())
        .ok_or_else(|| ApiError::internal(format!("no {} setting", kind.setting())))?;
    crate::actions::user_settings::do_change_user_settings(&ctx.db, &ctx.env, &ctx.realm_host, &user, vec![(setting, json!(false))])
        .await?;
    let page = format!(
        "<!doctype html><meta charset=\"utf-8\"><title>Unsubscribed</title><p>{} You can turn them on again in your settings.</p>",
        kind.confirmation()
    );
    let mut response = worker::Response::from_html(page)?;
    response.headers_mut().set("Cache-Control", "no-store")?;
    Ok(Reply::Raw(response))
}
