//! Changing a password (`PATCH /settings`) and "forgot password" (a mailed single-use
//! link). A new password leaves the API key and every session valid, as the issue asks;
//! a reset link is used up by the password it sets, and so are the user's other links.

use serde_json::Value;
use worker::D1Database;

use crate::actions::email::{after_queue, queue_stmt};
use crate::actions::site::Site;
use crate::db::batch::Batch;
use crate::db::users::{self, UserRow};
use crate::db::{self, password_resets, read_guards};
use crate::domain::email as templates;
use crate::domain::passwords::{check_password_strength, is_strong_enough, reset_url, RESET_LINK_VALID_MINUTES, RESET_TOKEN_LENGTH};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::platform::rate_limits::{self, Bucket, Rules};
use crate::secrets;

/// `PATCH /settings` with `new_password`: the current password must match (Zulip's
/// "Wrong password!"), the new one must be strong enough ("New password is too weak!").
pub async fn check_change_password(db: &D1Database, me: &UserRow, old_password: &str, new_password: &str) -> ApiResult<()> {
    let stored = users::password_hash(db, RealmId(me.realm_id), UserId(me.id)).await?;
    let matches = match &stored {
        Some(hash) if !old_password.is_empty() => secrets::verify_password(old_password, hash).await?,
        _ => false,
    };
    if !matches {
        return Err(ApiError::bad_request("Wrong password!"));
    }
    if !is_strong_enough(new_password) {
        return Err(ApiError::bad_request("New password is too weak!"));
    }
    let hash = secrets::hash_password(new_password).await?;
    db::run(db, password_resets::set_password_stmt(RealmId(me.realm_id), UserId(me.id), &hash)?).await?;
    Ok(())
}

/// "Forgot password": mails a reset link when `email` names an active human account of
/// the organization; answers the same whether or not it does (no account discovery).
/// Per IP address over the limit: `RATE_LIMIT_HIT` (which says nothing about accounts);
/// per address over the limit: the same answer, nothing mailed.
pub async fn request_password_reset(
    db: &D1Database,
    rules: &Rules,
    site: &Site,
    realm_name: &str,
    realm_id: i64,
    email: &str,
    ip: &str,
) -> ApiResult<()> {
    let env = &site.env;
    rate_limits::refuse_over_limit(rate_limits::check(env, rules, &Bucket::PasswordResetIp(ip), true).await?.as_ref())?;
    let email = email.trim();
    let by_address = rate_limits::check(env, rules, &Bucket::PasswordResetEmail { realm_id, email }, true).await?;
    if rate_limits::refuse_over_limit(by_address.as_ref()).is_err() {
        return Ok(());
    }
    let Some(user) = users::by_email(db, realm_id, email).await?.filter(|u| u.is_active() && !u.is_bot()) else {
        return Ok(());
    };
    let token = secrets::random_alphanumeric(RESET_TOKEN_LENGTH);
    let now = db::now();
    let mail = templates::password_reset(&user.delivery_email, realm_name, &reset_url(&site.realm_url, &token), RESET_LINK_VALID_MINUTES);
    db::run_batch(
        db,
        vec![
            password_resets::insert_stmt(
                &secrets::sha256_hex(token.as_bytes()),
                RealmId(realm_id),
                UserId(user.id),
                now,
                now + RESET_LINK_VALID_MINUTES * 60,
            )?,
            queue_stmt(&site.settings, realm_id, &mail)?,
        ],
    )
    .await?;
    after_queue(env, &site.settings, &site.database, realm_id, &site.realm_host).await;
    Ok(())
}

/// The account a reset link opens, while it works.
pub async fn open_reset_link(db: &D1Database, realm_id: i64, token: &str) -> ApiResult<UserRow> {
    if token.len() != RESET_TOKEN_LENGTH || !token.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(ApiError::confirmation_link_not_found());
    }
    let row = password_resets::by_token_hash(db, realm_id, &secrets::sha256_hex(token.as_bytes()))
        .await?
        .ok_or_else(ApiError::confirmation_link_not_found)?;
    if row.used_at.is_some() {
        return Err(ApiError::confirmation_link_used());
    }
    if row.expires_at <= db::now() {
        return Err(ApiError::confirmation_link_expired());
    }
    users::by_id(db, RealmId(realm_id), UserId(row.user_id))
        .await?
        .filter(|u| u.is_active())
        .ok_or_else(ApiError::confirmation_link_not_found)
}

/// Sets the password a reset link allows, once (checked again inside the write batch).
pub async fn complete_password_reset(db: &D1Database, realm_id: i64, token: &str, new_password: &str) -> ApiResult<UserRow> {
    let user = open_reset_link(db, realm_id, token).await?;
    check_password_strength(new_password)?;
    let hash = secrets::hash_password(new_password).await?;
    let token_hash = secrets::sha256_hex(token.as_bytes());
    let now = db::now();
    let mut batch = Batch::new();
    batch.add::<Value>(password_resets::still_usable_guard_stmt(&token_hash, now)?);
    batch.add::<Value>(password_resets::set_password_stmt(RealmId(realm_id), UserId(user.id), &hash)?);
    batch.add::<Value>(password_resets::use_all_stmt(RealmId(realm_id), UserId(user.id), now)?);
    match batch.run(db).await {
        Ok(_) => Ok(user),
        Err(err) if read_guards::failed(&err) => Err(ApiError::confirmation_link_used()),
        Err(err) => Err(err.into()),
    }
}
