//! The new-login email (`domain::login_notices`), queued after a password sign-in: through
//! the API (`POST /fetch_api_key`, as Zulip's `api_fetch_api_key` does) or the web client.

use crate::actions::email::{after_queue, queue_stmt};
use crate::context::RequestContext;
use crate::db::{self, users::UserRow};
use crate::domain::email_unsubscribe::{unsubscribe_url, EmailKind};
use crate::domain::login_notices::{new_login_email, wants_notice, SignIn};
use crate::error::ApiResult;
use crate::model::ids::{RealmId, UserId};

/// Mails `user` that they signed in, unless they just joined or turned it off. A failure
/// is logged: the sign-in stands.
pub async fn notify_new_login(ctx: &RequestContext, user: &UserRow) {
    let now = db::now();
    if !wants_notice(user, now) {
        return;
    }
    if let Err(err) = queue_notice(ctx, user, now).await {
        worker::console_error!("new-login email to user {} not queued: {}", user.id, err.msg);
    }
}

async fn queue_notice(ctx: &RequestContext, user: &UserRow, now: i64) -> ApiResult<()> {
    let secret = crate::secrets::api_key_secret(&ctx.env)?;
    let unsubscribe = unsubscribe_url(EmailKind::Login, &ctx.base_url, secret.as_bytes(), RealmId(user.realm_id), UserId(user.id));
    let user_agent = ctx.header("User-Agent").unwrap_or_default();
    let ip = ctx.header("CF-Connecting-IP");
    let email = new_login_email(&SignIn {
        to: &user.delivery_email,
        realm_url: &ctx.base_url,
        user_agent: &user_agent,
        ip: ip.as_deref(),
        at: now,
        unsubscribe_url: &unsubscribe,
    });
    db::run(&ctx.db, queue_stmt(&ctx.settings, user.realm_id, &email)?).await?;
    after_queue(&ctx.env, &ctx.settings, &ctx.database, user.realm_id, &ctx.realm_host).await;
    Ok(())
}
