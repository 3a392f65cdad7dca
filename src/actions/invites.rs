//! Invitations (Zulip's `zerver/actions/invites.py`): email invitations, reusable links,
//! revoking and resending them; each change tells administrators and the invitation's
//! creator with `invites_changed`. An invitation's email is queued in the batch that
//! stores it (`crate::actions::email`).

use serde::Deserialize;
use serde_json::Value;
use worker::{D1Database, Env};

use crate::actions::email::{after_queue, queue_stmt};
use crate::actions::site::Site;
use crate::db::invites::{self, NewInvitation, NewMultiuse};
use crate::db::subscriptions::ChannelViewRow;
use crate::db::users::UserRow;
use crate::db::{self, user_groups::GroupNameRow};
use crate::domain::channels::can_access_channel_content;
use crate::domain::email as templates;
use crate::domain::invites::{
    check_may_invite_as, check_may_manage, email_error, existing_user_error, invitation_dict, join_url, multiuse_dict,
    parse_invitee_emails, DAILY_INVITE_LIMIT, LINK_KEY_LENGTH,
};
use crate::error::{ApiError, ApiResult};
use crate::event_types::Event;
use crate::model::ids::{GroupId, RealmId, UserId};
use crate::model::Role;
use crate::secrets;

/// What an invitation (email or link) gives the person who joins through it.
pub struct InviteTerms {
    pub invite_as: Role,
    pub stream_ids: Vec<i64>,
    pub group_ids: Vec<i64>,
    pub include_realm_default_subscriptions: bool,
    /// `invite_expires_in_minutes`: absent (default), `null` (never) or minutes.
    pub expires_in_minutes: Option<Option<i64>>,
}

/// Zulip's `can_invite_users_by_email` / `can_create_multiuse_invite_to_realm`: never a
/// guest; otherwise membership of the organization's group setting.
async fn check_in_group(db: &D1Database, me: &UserRow, group_id: i64) -> ApiResult<()> {
    if me.is_guest()
        || !crate::domain::user_groups::is_group_member(db, RealmId(me.realm_id), GroupId(group_id), UserId(me.id), false).await?
    {
        return Err(ApiError::insufficient_permission());
    }
    Ok(())
}

/// The invitation's channels (each one the inviter may access, Zulip's "Invalid channel
/// ID {id}. No invites were sent.") and groups (active groups of the organization).
async fn check_terms(db: &D1Database, me: &UserRow, terms: &InviteTerms) -> ApiResult<()> {
    check_may_invite_as(me, terms.invite_as)?;
    if !terms.stream_ids.is_empty() {
        let ids = serde_json::to_string(&terms.stream_ids)?;
        let channels: Vec<ChannelViewRow> =
            db::all(db, db::subscriptions::by_ids_for_user_stmt(RealmId(me.realm_id), UserId(me.id), &ids)?).await?;
        for id in &terms.stream_ids {
            let visible = channels.iter().find(|c| c.id == *id).is_some_and(|c| can_access_channel_content(me, c) && c.is_archived == 0);
            if !visible {
                return Err(ApiError::bad_request(format!("Invalid channel ID {id}. No invites were sent.")));
            }
        }
    }
    if !terms.group_ids.is_empty() {
        let found: Vec<GroupNameRow> = db::all(db, db::user_groups::active_names_stmt(me.realm_id, &terms.group_ids)?).await?;
        if terms
            .group_ids
            .iter()
            .any(|id| !found.iter().any(|g| g.id == *id) || found.iter().any(|g| g.id == *id && g.name.starts_with("role:")))
        {
            return Err(ApiError::invalid_user_group());
        }
    }
    Ok(())
}

/// `POST /invites`: checks the inviter, the terms and every address, then stores one
/// invitation per good address with its email, in one batch. Addresses that already have
/// an account are skipped (an `INVITATION_FAILED` that says the others were sent); an
/// invalid or disallowed address sends nothing.
pub async fn check_invite_users(
    db: &D1Database,
    site: &Site,
    realm_name: &str,
    me: &UserRow,
    invitee_emails: &str,
    terms: &InviteTerms,
    notify_referrer_on_join: bool,
) -> ApiResult<()> {
    let rules = invites::join_rules(db, me.realm_id).await?.ok_or_else(ApiError::nonexistent_subdomain)?;
    check_in_group(db, me, rules.can_invite_users_group).await?;
    check_may_invite_as(me, terms.invite_as)?;
    if invitee_emails.trim().is_empty() {
        return Err(ApiError::bad_request("You must specify at least one email address."));
    }
    let emails = parse_invitee_emails(invitee_emails);
    check_terms(db, me, terms).await?;
    let now = db::now();
    let sent_today = invites::invitations_sent_since(db, me.realm_id, now - 86400).await?;
    if sent_today + emails.len() as i64 > DAILY_INVITE_LIMIT {
        return Err(ApiError::invitation_failed(
            "To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.",
            &[],
            false,
            true,
        ));
    }
    let skipped = check_invitees(db, me, &rules, &emails).await?;
    let expires_at = crate::domain::invites::expiry(now, terms.expires_in_minutes)?;
    let stream_ids = serde_json::to_string(&terms.stream_ids)?;
    let group_ids = serde_json::to_string(&terms.group_ids)?;
    let mut statements = Vec::new();
    for email in emails.iter().filter(|e| !skipped.iter().any(|(s, _, _)| s == *e)) {
        let key = secrets::random_alphanumeric(LINK_KEY_LENGTH);
        let key_hash = secrets::sha256_hex(key.as_bytes());
        statements.push(invites::insert_invitation_stmt(&NewInvitation {
            realm_id: me.realm_id,
            kind: "invite",
            email,
            referred_by: Some(me.id),
            multiuse_invite_id: None,
            invited_as: terms.invite_as.code(),
            stream_ids: &stream_ids,
            group_ids: &group_ids,
            include_realm_default_subscriptions: terms.include_realm_default_subscriptions,
            notify_referrer_on_join,
            key_hash: &key_hash,
            created_at: now,
            expires_at,
        })?);
        let days = expires_at.map(|at| (at - now + 86399) / 86400);
        let mail = templates::invitation(email, &me.full_name, realm_name, &join_url(&site.realm_url, &key), days);
        statements.push(queue_stmt(&site.settings, me.realm_id, &mail)?);
    }
    db::run_batch(db, statements).await?;
    after_queue(&site.env, &site.settings, &site.database, me.realm_id, &site.realm_host).await;
    notify_invites_changed(db, &site.env, RealmId(me.realm_id), UserId(me.id)).await;
    if !skipped.is_empty() {
        return Err(ApiError::invitation_failed(
            "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
            &skipped,
            true,
            false,
        ));
    }
    Ok(())
}

/// Every address of an invitation checked: any invalid or disallowed address refuses them
/// all; the addresses that already have an account are answered, to be skipped (all of
/// them skipped refuses too).
async fn check_invitees(
    db: &D1Database,
    me: &UserRow,
    rules: &invites::JoinRulesRow,
    emails: &[String],
) -> ApiResult<Vec<(String, String, bool)>> {
    let domains = invites::realm_domains(db, me.realm_id).await?;
    let mut errors = Vec::new();
    for email in emails {
        if let Some(reason) = email_error(email, rules, &domains) {
            errors.push((email.clone(), reason.to_string(), false));
        }
    }
    let existing = invites::users_with_emails(db, me.realm_id, &serde_json::to_string(&emails)?).await?;
    let mut skipped = Vec::new();
    for email in emails {
        if let Some(user) = existing.iter().find(|u| u.delivery_email.eq_ignore_ascii_case(email) && !u.awaits_sign_up()) {
            let (reason, deactivated) = existing_user_error(user);
            skipped.push((email.clone(), reason.to_string(), deactivated));
        }
    }
    if !errors.is_empty() {
        errors.extend(skipped);
        return Err(ApiError::invitation_failed("Some emails did not validate, so we didn't send any invitations.", &errors, false, false));
    }
    if skipped.len() == emails.len() {
        return Err(ApiError::invitation_failed("We weren't able to invite anyone.", &skipped, false, false));
    }
    Ok(skipped)
}

/// `GET /invites`: administrators see every pending invitation, others their own.
pub async fn get_invites(db: &D1Database, me: &UserRow, base_url: &str) -> ApiResult<Vec<Value>> {
    if me.is_guest() {
        return Err(ApiError::insufficient_permission());
    }
    let mine = (!me.is_realm_admin()).then_some(UserId(me.id));
    let now = db::now();
    let mut out: Vec<Value> =
        invites::pending_invitations(db, RealmId(me.realm_id), mine, now).await?.iter().map(invitation_dict).collect();
    out.extend(invites::pending_multiuse(db, RealmId(me.realm_id), mine, now).await?.iter().map(|m| multiuse_dict(m, base_url)));
    Ok(out)
}

/// `DELETE /invites/{id}`: its creator or an administrator.
pub async fn check_revoke_invite(db: &D1Database, env: &Env, me: &UserRow, id: i64) -> ApiResult<()> {
    let row = invites::pending_invitation(db, RealmId(me.realm_id), id).await?.ok_or_else(ApiError::no_such_invitation)?;
    check_may_manage(me, row.referred_by, Role::from_code(row.invited_as).unwrap_or_default())?;
    db::run(db, invites::revoke_invitation_stmt(id, db::now())?).await?;
    notify_invites_changed(db, env, RealmId(me.realm_id), UserId(row.referred_by.unwrap_or(me.id))).await;
    Ok(())
}

/// `POST /invites/{id}/resend`: a new link (the old one stops working) mailed again.
pub async fn check_resend_invite(db: &D1Database, site: &Site, realm_name: &str, me: &UserRow, id: i64) -> ApiResult<()> {
    let row = invites::pending_invitation(db, RealmId(me.realm_id), id).await?.ok_or_else(ApiError::no_such_invitation)?;
    check_may_manage(me, row.referred_by, Role::from_code(row.invited_as).unwrap_or_default())?;
    let now = db::now();
    let key = secrets::random_alphanumeric(LINK_KEY_LENGTH);
    let referrer = match row.referred_by {
        Some(id) if id != me.id => db::users::by_id(db, RealmId(me.realm_id), UserId(id)).await?.map(|u| u.full_name),
        _ => None,
    }
    .unwrap_or_else(|| me.full_name.clone());
    let days = row.expires_at.map(|at| ((at - now).max(0) + 86399) / 86400);
    let mail = templates::invitation(&row.email, &referrer, realm_name, &join_url(&site.realm_url, &key), days);
    db::run_batch(
        db,
        vec![
            invites::rekey_invitation_stmt(id, &secrets::sha256_hex(key.as_bytes()), now)?,
            queue_stmt(&site.settings, me.realm_id, &mail)?,
        ],
    )
    .await?;
    after_queue(&site.env, &site.settings, &site.database, me.realm_id, &site.realm_host).await;
    notify_invites_changed(db, &site.env, RealmId(me.realm_id), UserId(row.referred_by.unwrap_or(me.id))).await;
    Ok(())
}

/// `POST /invites/multiuse`: members of `create_multiuse_invite_group`; answers the link.
pub async fn check_create_multiuse_invite(
    db: &D1Database,
    env: &Env,
    base_url: &str,
    me: &UserRow,
    terms: &InviteTerms,
) -> ApiResult<String> {
    let rules = invites::join_rules(db, me.realm_id).await?.ok_or_else(ApiError::nonexistent_subdomain)?;
    check_in_group(db, me, rules.create_multiuse_invite_group).await?;
    check_terms(db, me, terms).await?;
    let now = db::now();
    let key = secrets::random_alphanumeric(LINK_KEY_LENGTH);
    invites::insert_multiuse(
        db,
        &NewMultiuse {
            realm_id: me.realm_id,
            referred_by: me.id,
            invited_as: terms.invite_as.code(),
            stream_ids: &serde_json::to_string(&terms.stream_ids)?,
            group_ids: &serde_json::to_string(&terms.group_ids)?,
            include_realm_default_subscriptions: terms.include_realm_default_subscriptions,
            link_key: &key,
            created_at: now,
            expires_at: crate::domain::invites::expiry(now, terms.expires_in_minutes)?,
        },
    )
    .await?;
    notify_invites_changed(db, env, RealmId(me.realm_id), UserId(me.id)).await;
    Ok(join_url(base_url, &key))
}

/// `DELETE /invites/multiuse/{id}`: its creator or an administrator.
pub async fn check_revoke_multiuse_invite(db: &D1Database, env: &Env, me: &UserRow, id: i64) -> ApiResult<()> {
    let row = invites::multiuse_by_id(db, RealmId(me.realm_id), id).await?.ok_or_else(ApiError::no_such_invitation)?;
    check_may_manage(me, Some(row.referred_by), Role::from_code(row.invited_as).unwrap_or_default())?;
    if row.revoked_at.is_some() {
        return Err(ApiError::bad_request("Invitation has already been revoked"));
    }
    invites::revoke_multiuse(db, id, db::now()).await?;
    notify_invites_changed(db, env, RealmId(me.realm_id), UserId(row.referred_by)).await;
    Ok(())
}

/// `invites_changed` to the organization's administrators and the invitation's creator.
pub async fn notify_invites_changed(db: &D1Database, env: &Env, realm_id: RealmId, referrer_id: UserId) {
    #[derive(Deserialize)]
    struct Id {
        id: i64,
    }
    let admins: Vec<Id> = match db::users::active_admin_ids_stmt(realm_id.0) {
        Ok(stmt) => db::all(db, stmt).await.unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let mut ids: Vec<i64> = admins.into_iter().map(|a| a.id).collect();
    if !ids.contains(&referrer_id.0) {
        ids.push(referrer_id.0);
    }
    crate::actions::notify_users(env, realm_id.0, &ids, &Event::InvitesChanged).await;
}
