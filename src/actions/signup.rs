//! Joining through a link (Zulip's `zerver/views/registration.py`): an email invitation or
//! a mailed confirmation makes an account with its terms; a reusable link, or an open
//! organization, first mails a confirmation to the address given (the address is proved
//! before an account uses it).

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::actions::channels::{check_subscribe, Principal, SubscribeRequest};
use crate::actions::email::{after_queue, queue_stmt};
use crate::actions::invites::notify_invites_changed;
use crate::actions::message_notifications::{announce_new_user, send_direct_notices};
use crate::actions::site::Site;
use crate::actions::users::notify_user_added;
use crate::db::batch::Batch;
use crate::db::invites::{self, InvitationRow, MultiuseRow, NewInvitation};
use crate::db::subscriptions::ChannelViewRow;
use crate::db::users::{self, NewUser, UserRow};
use crate::db::{self, read_guards};
use crate::domain::email as templates;
use crate::domain::invites::{email_error, join_url, referrer_notice, DEFAULT_EXPIRY_MINUTES, LINK_KEY_LENGTH};
use crate::domain::passwords::check_password_strength;
use crate::domain::users::check_full_name;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::model::Role;
use crate::secrets;

/// What a sign-up link opens.
pub enum Opened {
    /// An email invitation or a mailed confirmation: the account's address is known.
    Invitation(InvitationRow),
    /// A reusable link: the person gives their address first.
    Multiuse(MultiuseRow),
}

/// The link's key, if it has a key's shape (anything else is not found).
fn key_shape(key: &str) -> ApiResult<&str> {
    if key.len() == LINK_KEY_LENGTH && key.chars().all(|c| c.is_ascii_alphanumeric()) {
        Ok(key)
    } else {
        Err(ApiError::confirmation_link_not_found())
    }
}

/// The still-usable invitation or link behind `key`; Zulip-style errors for a forged,
/// expired, used or revoked one.
pub async fn open_link(db: &D1Database, realm_id: i64, key: &str) -> ApiResult<Opened> {
    let key = key_shape(key)?;
    let now = db::now();
    if let Some(link) = invites::multiuse_by_key(db, realm_id, key).await? {
        if link.revoked_at.is_some() {
            return Err(ApiError::invitation_revoked());
        }
        if link.expires_at.is_some_and(|at| at <= now) {
            return Err(ApiError::confirmation_link_expired());
        }
        return Ok(Opened::Multiuse(link));
    }
    let row = invites::invitation_by_key_hash(db, realm_id, &secrets::sha256_hex(key.as_bytes()))
        .await?
        .ok_or_else(ApiError::confirmation_link_not_found)?;
    check_usable(&row, now)?;
    Ok(Opened::Invitation(row))
}

fn check_usable(row: &InvitationRow, now: i64) -> ApiResult<()> {
    if row.revoked_at.is_some() {
        return Err(ApiError::invitation_revoked());
    }
    if row.used_at.is_some() {
        return Err(ApiError::confirmation_link_used());
    }
    if row.expires_at.is_some_and(|at| at <= now) {
        return Err(ApiError::confirmation_link_expired());
    }
    Ok(())
}

/// What the sign-up page shows for a link.
pub fn link_dict(opened: &Opened, realm_name: &str) -> Value {
    match opened {
        Opened::Invitation(row) => json!({
            "kind": "invitation", "email": row.email, "invited_as": row.invited_as, "realm_name": realm_name,
        }),
        Opened::Multiuse(link) => json!({ "kind": "multiuse", "invited_as": link.invited_as, "realm_name": realm_name }),
    }
}

/// `POST /accounts/home/`: mails a confirmation to `email`, through a reusable link
/// (`key`) or, in an organization that does not require invitations, directly. The
/// organization's address rules apply; an address with an account is refused.
pub async fn check_request_signup(
    db: &D1Database,
    site: &Site,
    realm_name: &str,
    realm_id: i64,
    email: &str,
    key: Option<&str>,
) -> ApiResult<()> {
    let rules = invites::join_rules(db, realm_id).await?.ok_or_else(ApiError::nonexistent_subdomain)?;
    let link = match key {
        Some(key) => match open_link(db, realm_id, key).await? {
            Opened::Multiuse(link) => Some(link),
            Opened::Invitation(_) => return Err(ApiError::confirmation_link_not_found()),
        },
        None if rules.invite_required != 0 => {
            return Err(ApiError::bad_request("Sign-up in this organization requires an invitation."));
        }
        None => None,
    };
    let email = email.trim();
    let domains = invites::realm_domains(db, realm_id).await?;
    if let Some(reason) = email_error(email, &rules, &domains) {
        return Err(ApiError::bad_request(reason));
    }
    if users::by_email(db, realm_id, email).await?.is_some_and(|u| !u.awaits_sign_up()) {
        return Err(ApiError::bad_request(format!("{email} already has an account")));
    }
    let now = db::now();
    let key = secrets::random_alphanumeric(LINK_KEY_LENGTH);
    let (invited_as, stream_ids, group_ids, defaults) = match &link {
        Some(l) => (l.invited_as, l.stream_ids.clone(), l.group_ids.clone(), l.include_realm_default_subscriptions != 0),
        None => (Role::Member.code(), "[]".to_string(), "[]".to_string(), true),
    };
    let confirmation = NewInvitation {
        realm_id,
        kind: "signup",
        email,
        referred_by: link.as_ref().map(|l| l.referred_by),
        multiuse_invite_id: link.as_ref().map(|l| l.id),
        invited_as,
        stream_ids: &stream_ids,
        group_ids: &group_ids,
        include_realm_default_subscriptions: defaults,
        notify_referrer_on_join: false,
        key_hash: &secrets::sha256_hex(key.as_bytes()),
        created_at: now,
        expires_at: Some(now + DEFAULT_EXPIRY_MINUTES * 60),
    };
    let mail = templates::signup_confirmation(email, realm_name, &join_url(&site.realm_url, &key));
    db::run_batch(db, vec![invites::insert_invitation_stmt(&confirmation)?, queue_stmt(&site.settings, realm_id, &mail)?]).await?;
    after_queue(&site.env, &site.settings, &site.database, realm_id, &site.realm_host).await;
    Ok(())
}

/// `POST /accounts/register/`: the account an invitation or confirmation makes, with its
/// role, channels and groups; the link works once (checked again inside the write batch,
/// so two racing sign-ups make one account). Everyone gets `realm_user` add, the
/// subscribers the subscription events, administrators and the referrer `invites_changed`.
pub async fn check_register(db: &D1Database, site: &Site, realm_id: i64, key: &str, full_name: &str, password: &str) -> ApiResult<UserRow> {
    let row = match open_link(db, realm_id, key).await? {
        Opened::Invitation(row) => row,
        // A reusable link needs the address first (`POST /accounts/home/`).
        Opened::Multiuse(_) => return Err(ApiError::missing_argument("email")),
    };
    let full_name = check_full_name(full_name)?;
    check_password_strength(password)?;
    if let Some(link_id) = row.multiuse_invite_id {
        if invites::multiuse_by_id(db, RealmId(realm_id), link_id).await?.is_some_and(|l| l.revoked_at.is_some()) {
            return Err(ApiError::invitation_revoked());
        }
    }
    let existing = users::by_email(db, realm_id, &row.email).await?;
    if existing.as_ref().is_some_and(|u| !u.awaits_sign_up()) {
        return Err(ApiError::bad_request(format!("{} already has an account", row.email)));
    }
    let hash = secrets::hash_password(password).await?;
    let role = Role::from_code(row.invited_as).unwrap_or_default();
    if let Some(imported) = existing {
        return activate_imported(db, site, &row, &imported, SignedUp { full_name: &full_name, role, password_hash: &hash, key }).await;
    }
    let new_user = NewUser {
        realm_id,
        email: &row.email,
        full_name: &full_name,
        role,
        password_hash: Some(&hash),
        can_create_users: false,
        bot_type: None,
        bot_owner_id: None,
        timezone: "",
    };
    let now = db::now();
    let mut batch = Batch::new();
    batch.add::<Value>(invites::still_usable_guard_stmt(row.id, now)?);
    let inserting = users::add_insert(&mut batch, &new_user, None, now)?;
    batch.add::<Value>(invites::mark_used_stmt(row.id, RealmId(realm_id), &row.email, now)?);
    let results = match batch.run(db).await {
        Ok(results) => results,
        Err(err) if read_guards::failed(&err) => return Err(used_link_error(db, realm_id, key).await),
        Err(err) if err.to_string().contains("UNIQUE") => {
            return Err(ApiError::bad_request(format!("{} already has an account", row.email)));
        }
        Err(err) => return Err(err.into()),
    };
    let user = inserting.take(&results)?.user;
    let env = &site.env;
    notify_user_added(db, env, &user, &site.realm_host).await;
    announce_new_user(site, &user).await;
    join_channels_and_groups(db, env, &row, &user).await;
    if row.include_realm_default_subscriptions != 0 {
        let ids = crate::actions::default_channels::default_channel_ids(db, realm_id).await.unwrap_or_default();
        crate::actions::default_channels::join_default_channels(db, env, &user, &ids).await;
    }
    if row.kind == "invite" {
        notify_invites_changed(db, env, RealmId(realm_id), UserId(row.referred_by.unwrap_or(user.id))).await;
    }
    if row.notify_referrer_on_join != 0 {
        if let Some(referrer_id) = row.referred_by {
            if let Err(err) = tell_referrer(db, site, referrer_id, &user).await {
                worker::console_error!("referrer {referrer_id} not told that user {} joined: {}", user.id, err.msg);
            }
        }
    }
    Ok(user)
}

/// Why a link checked usable failed its guard: another sign-up used it, or it was revoked,
/// between the check and the write.
async fn used_link_error(db: &D1Database, realm_id: i64, key: &str) -> ApiError {
    match invites::invitation_by_key_hash(db, realm_id, &secrets::sha256_hex(key.as_bytes())).await {
        Ok(now_row) => now_row.and_then(|r| check_usable(&r, db::now()).err()).unwrap_or_else(ApiError::confirmation_link_used),
        Err(err) => err.into(),
    }
}

/// What a person signing up gave.
struct SignedUp<'a> {
    full_name: &'a str,
    role: Role,
    password_hash: &'a str,
    key: &'a str,
}

/// Zulip's sign-up of a mirror dummy: the imported account of someone whose data the
/// export did not carry becomes theirs, with the name, role and password they signed up
/// with, and everyone is told of it as of a new account (`realm_user` add). It keeps its
/// messages and subscriptions.
async fn activate_imported(
    db: &D1Database,
    site: &Site,
    row: &InvitationRow,
    imported: &UserRow,
    signed_up: SignedUp<'_>,
) -> ApiResult<UserRow> {
    let now = db::now();
    let mut batch = Batch::new();
    batch.add::<Value>(invites::still_usable_guard_stmt(row.id, now)?);
    batch.add::<Value>(users::still_awaits_sign_up_guard_stmt(imported)?);
    batch.add::<Value>(users::activate_imported_stmt(imported, signed_up.full_name, signed_up.role, signed_up.password_hash, now)?);
    batch.add::<Value>(invites::mark_used_stmt(row.id, RealmId(imported.realm_id), &row.email, now)?);
    let activated = batch.add::<UserRow>(users::by_id_stmt(RealmId(imported.realm_id), UserId(imported.id))?);
    let results = match batch.run(db).await {
        Ok(results) => results,
        Err(err) if read_guards::failed(&err) => {
            // The link was used or revoked, or another sign-up took the account, meanwhile.
            let now_active = users::by_id(db, RealmId(imported.realm_id), UserId(imported.id)).await?.is_some_and(|u| u.is_active());
            if now_active {
                return Err(ApiError::bad_request(format!("{} already has an account", row.email)));
            }
            return Err(used_link_error(db, imported.realm_id, signed_up.key).await);
        }
        Err(err) => return Err(err.into()),
    };
    let user = results.first(activated)?.ok_or_else(|| ApiError::internal("imported account not read back"))?;
    notify_user_added(db, &site.env, &user, &site.realm_host).await;
    if row.kind == "invite" {
        notify_invites_changed(db, &site.env, RealmId(user.realm_id), UserId(row.referred_by.unwrap_or(user.id))).await;
    }
    Ok(user)
}

/// Zulip's notice to a referrer who asked for one (`notify_referrer_on_join`): a direct
/// message from the notification bot. Nobody is told when the referrer has left.
async fn tell_referrer(db: &D1Database, site: &Site, referrer_id: i64, user: &UserRow) -> ApiResult<()> {
    let referrer = users::by_id(db, RealmId(user.realm_id), UserId(referrer_id)).await?;
    if !referrer.is_some_and(|r| r.is_active()) {
        return Ok(());
    }
    send_direct_notices(site, user.realm_id, vec![(referrer_id, referrer_notice(user))]).await
}

/// Subscribes the new account to the invitation's channels and adds it to its groups, as
/// its referrer would (whose access the invitation was checked against); a channel the
/// referrer can no longer reach is skipped. Failures are logged: the account exists.
async fn join_channels_and_groups(db: &D1Database, env: &Env, row: &InvitationRow, user: &UserRow) {
    let referrer = match row.referred_by {
        Some(id) => users::by_id(db, RealmId(user.realm_id), UserId(id)).await.ok().flatten().filter(|u| u.is_active()),
        None => None,
    };
    let actor = referrer.clone().unwrap_or_else(|| user.clone());
    let stream_ids: Vec<i64> = serde_json::from_str(&row.stream_ids).unwrap_or_default();
    if !stream_ids.is_empty() {
        let ids = serde_json::to_string(&stream_ids).unwrap_or_default();
        let channels: Vec<ChannelViewRow> = match db::subscriptions::by_ids_for_user_stmt(RealmId(user.realm_id), UserId(actor.id), &ids) {
            Ok(stmt) => db::all(db, stmt).await.unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        let request = SubscribeRequest {
            authorization_errors_fatal: false,
            ..SubscribeRequest::new(channels.iter().map(|c| (c.name.clone(), String::new())).collect(), Some(vec![Principal::Id(user.id)]))
        };
        if !request.channels.is_empty() {
            if let Err(err) = check_subscribe(db, env, &actor, &request).await {
                worker::console_error!("new user {} not subscribed to the invitation's channels: {}", user.id, err.msg);
            }
        }
    }
    let group_ids: Vec<i64> = serde_json::from_str(&row.group_ids).unwrap_or_default();
    for group_id in group_ids {
        if let Err(err) = crate::actions::user_groups::check_update_members(db, env, &actor, group_id, &[UserId(user.id)], &[]).await {
            worker::console_error!("new user {} not added to group {group_id}: {}", user.id, err.msg);
        }
    }
}
