//! Development-only login helpers (`DEVELOPMENT = "true"`); production answers 404.

use serde_json::json;

use crate::actions::users::do_issue_api_key;
use crate::auth::development_sign_in;
use crate::context::RequestContext;
use crate::db::users;
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

fn require_development(ctx: &RequestContext) -> ApiResult<()> {
    if ctx.settings.development {
        Ok(())
    } else {
        Err(ApiError::not_found())
    }
}

/// # `POST /dev_fetch_api_key`
/// Development only, open: an API key for `username` (an email) without a password.
pub async fn dev_fetch_api_key(ctx: &RequestContext) -> ApiResult<Reply> {
    require_development(ctx)?;
    let username = ctx.params.required_str("username")?;
    let signing_in = development_sign_in(&ctx.db, &ctx.realm_string_id, &username).await?;
    let user = &signing_in.user;
    let api_key = do_issue_api_key(&ctx.db, &ctx.env, user, signing_in.api_key_version).await?;
    Ok(Reply::json(json!({ "api_key": api_key, "email": user.email, "user_id": user.id })))
}

/// # `GET /dev_list_users`
/// Development only, open: the active human users, administrators apart.
pub async fn dev_list_users(ctx: &RequestContext) -> ApiResult<Reply> {
    require_development(ctx)?;
    let realm = ctx.realm().await?;
    let all = users::all_in_realm(&ctx.db, realm.id).await?;
    let entry = |u: &users::UserRow| json!({ "email": u.email, "realm_uri": ctx.base_url, "realm_url": ctx.base_url });
    let humans = all.iter().filter(|u| u.is_active() && !u.is_bot());
    let admins: Vec<_> = humans.clone().filter(|u| u.is_realm_admin()).map(entry).collect();
    let members: Vec<_> = humans.filter(|u| !u.is_realm_admin()).map(entry).collect();
    Ok(Reply::json(json!({ "direct_admins": admins, "direct_users": members })))
}

/// # `GET /dev_emails`
/// Development only, open: the emails the server would have sent in this organization
/// (development never sends), newest first: `to`, `subject`, `text`, `html`, `sent_at`.
pub async fn dev_emails(ctx: &RequestContext) -> ApiResult<Reply> {
    require_development(ctx)?;
    let realm = ctx.realm().await?;
    let rows = crate::db::email_outbox::recent(&ctx.db, realm.id, 200).await?;
    let emails: Vec<_> = rows
        .iter()
        .map(|r| json!({ "to": r.to_address, "subject": r.subject, "text": r.text_body, "html": r.html_body, "sent_at": r.sent_at }))
        .collect();
    Ok(Reply::json(json!({ "emails": emails })))
}
