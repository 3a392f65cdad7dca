//! Invitations (Zulip's `zerver/views/invite.py`): `POST/GET /invites`,
//! `DELETE /invites/{id}`, `POST /invites/{id}/resend`, `POST /invites/multiuse`,
//! `DELETE /invites/multiuse/{id}`.

use serde_json::json;

use crate::actions::invites::{
    check_create_multiuse_invite, check_invite_users, check_resend_invite, check_revoke_invite, check_revoke_multiuse_invite, get_invites,
    InviteTerms,
};
use crate::actions::site::Site;
use crate::context::RequestContext;
use crate::domain::invites::parse_invite_as;
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int;
use crate::response::Reply;

/// The terms both kinds of invitation share; `stream_ids` required for email invitations.
fn read_terms(ctx: &RequestContext, stream_ids_required: bool) -> ApiResult<InviteTerms> {
    let stream_ids: Option<Vec<i64>> = ctx.params.json_as("stream_ids", "a list of integers")?;
    let stream_ids = match stream_ids {
        Some(ids) => ids,
        None if stream_ids_required => return Err(ApiError::missing_argument("stream_ids")),
        None => Vec::new(),
    };
    let group_ids: Option<Vec<i64>> = ctx.params.json_as("group_ids", "a list of integers")?;
    let invite_as = match ctx.params.json("invite_as")? {
        None => crate::model::Role::Member,
        Some(v) => parse_invite_as(v.as_i64().ok_or_else(|| ApiError::invalid_argument("invite_as", "an integer"))?)?,
    };
    let expires_in_minutes = match ctx.params.json("invite_expires_in_minutes")? {
        None => None,
        Some(serde_json::Value::Null) => Some(None),
        Some(v) => Some(Some(v.as_i64().ok_or_else(|| ApiError::invalid_argument("invite_expires_in_minutes", "an integer"))?)),
    };
    Ok(InviteTerms {
        invite_as,
        stream_ids,
        group_ids: group_ids.unwrap_or_default(),
        include_realm_default_subscriptions: ctx.params.bool_or("include_realm_default_subscriptions", false)?,
        expires_in_minutes,
    })
}

fn invite_id(raw: &str) -> ApiResult<i64> {
    parse_int(raw).ok_or_else(ApiError::no_such_invitation)
}

/// # `POST /invites`
/// Members of `can_invite_users_group` (default: members; never guests): `invitee_emails`
/// (comma- or newline-separated, `Name <address>` allowed), `stream_ids` (required),
/// `group_ids`, `invite_as` (administrators and moderators only by administrators, owners
/// only by owners), `include_realm_default_subscriptions`, `invite_expires_in_minutes`
/// (`null`: never), `notify_referrer_on_join`.
/// - an invalid or disallowed address: `INVITATION_FAILED`, nothing sent;
/// - addresses with accounts are skipped: `INVITATION_FAILED` with `sent_invitations`;
/// - more than 100 invitations in a day: `INVITATION_FAILED` with `daily_limit_reached`.
pub async fn send_invites(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let emails = ctx.params.required_str("invitee_emails")?;
    let terms = read_terms(ctx, true)?;
    let notify = ctx.params.bool_or("notify_referrer_on_join", true)?;
    let realm = ctx.realm().await?;
    check_invite_users(&ctx.db, &Site::of_request(ctx), &realm.name, &me, &emails, &terms, notify).await?;
    Ok(Reply::ok())
}

/// # `GET /invites`
/// Members: pending invitations they may manage (administrators: all), email invitations
/// then reusable links.
pub async fn list_invites(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "invites": get_invites(&ctx.db, &me, &ctx.base_url).await? })))
}

/// # `DELETE /invites/{invite_id}`
/// Its creator or an administrator (owners' invitations: owners).
pub async fn revoke_invite(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    check_revoke_invite(&ctx.db, &ctx.env, &me, invite_id(id)?).await?;
    Ok(Reply::ok())
}

/// # `POST /invites/{invite_id}/resend`
/// Its creator or an administrator: mails a new link; the old one stops working.
pub async fn resend_invite(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let realm = ctx.realm().await?;
    check_resend_invite(&ctx.db, &Site::of_request(ctx), &realm.name, &me, invite_id(id)?).await?;
    Ok(Reply::ok())
}

/// # `POST /invites/multiuse`
/// Members of `create_multiuse_invite_group` (default: administrators): a reusable link
/// (`invite_link`) with the same terms as an email invitation.
pub async fn create_multiuse_invite(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let terms = read_terms(ctx, false)?;
    let link = check_create_multiuse_invite(&ctx.db, &ctx.env, &ctx.base_url, &me, &terms).await?;
    Ok(Reply::json(json!({ "invite_link": link })))
}

/// # `DELETE /invites/multiuse/{invite_id}`
/// Its creator or an administrator; a revoked link answers "Invitation has already been
/// revoked".
pub async fn revoke_multiuse_invite(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    check_revoke_multiuse_invite(&ctx.db, &ctx.env, &me, invite_id(id)?).await?;
    Ok(Reply::ok())
}
