//! Accounts and their API keys.

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::actions::profile_fields::{self, ProfileChange};
use crate::actions::site::Site;
use crate::db::batch::Batch;
use crate::db::default_channels::DefaultChannelRow;
use crate::db::statement::Statement;
use crate::db::{
    self, api_keys,
    users::{self, NewUser, UserRow},
};
use crate::domain::passwords::check_password_strength;
use crate::domain::users::{check_full_name, sees_delivery_email, user_dict_seen, UserDictOptions, VISIBLE_TO_EVERYONE};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, RealmBotEvent, RealmUserEvent};
use crate::model::ids::{RealmId, UserId};
use crate::model::Role;
use crate::secrets;

/// The user's current API key (`key_version`, read with the user), its hash stored if
/// missing. Keys derive from the user's id and key version, so every sign-in answers the
/// same key until it is regenerated.
pub async fn do_issue_api_key(db: &D1Database, env: &Env, user: &UserRow, key_version: i64) -> ApiResult<String> {
    let (key, store) = issued_key(env, RealmId(user.realm_id), UserId(user.id), key_version)?;
    crate::db::run(db, store).await?;
    Ok(key)
}

/// The user's API key of `key_version`, and the statement that stores its hash unless it
/// is stored already.
fn issued_key(env: &Env, realm_id: RealmId, user_id: UserId, key_version: i64) -> ApiResult<(String, Statement)> {
    let key = secrets::derive_api_key(secrets::api_key_secret(env)?.as_bytes(), user_id.0, key_version);
    let store = api_keys::insert_if_missing_stmt(realm_id, user_id, &secrets::api_key_hash(&key), db::now())?;
    Ok((key, store))
}

/// Replaces the user's API key: the next key version; every older key stops working at
/// once. One read, one atomic batch.
pub async fn do_regenerate_api_key(db: &D1Database, env: &Env, realm_id: RealmId, user_id: UserId) -> ApiResult<String> {
    let secret = secrets::api_key_secret(env)?;
    let version: Option<api_keys::KeyVersionRow> = crate::db::first(db, api_keys::version_stmt(realm_id, user_id)?).await?;
    let old = version.ok_or_else(|| ApiError::internal("API key for a missing user"))?.api_key_version;
    do_replace_api_key(db, &secret, realm_id, user_id, old).await
}

/// Moves the user from key version `old` to the next in one atomic batch.
pub async fn do_replace_api_key(db: &D1Database, secret: &str, realm_id: RealmId, user_id: UserId, old: i64) -> ApiResult<String> {
    let key = secrets::derive_api_key(secret.as_bytes(), user_id.0, old + 1);
    crate::db::run_batch(
        db,
        vec![
            api_keys::bump_version_stmt(user_id.0, old, old + 1)?,
            api_keys::delete_for_user_stmt(realm_id, user_id)?,
            api_keys::insert_stmt(realm_id, user_id, &secrets::api_key_hash(&key), db::now())?,
        ],
    )
    .await?;
    Ok(key)
}

pub use crate::domain::users::is_valid_email;

/// Creates an account whose email was checked (one batch, which reads the new row back).
pub async fn do_create_user(db: &D1Database, new_user: &NewUser<'_>, password: Option<&str>) -> ApiResult<users::InsertedUser> {
    let hash = match password {
        Some(password) => Some(secrets::hash_password(password).await?),
        None => None,
    };
    let user = NewUser { password_hash: hash.as_deref(), ..*new_user };
    users::insert(db, &user, db::now()).await.map_err(|err| insert_refused(err, new_user))
}

/// Why an account's insert failed: two concurrent creations of one address (the unique
/// index decides), or the database's own error.
fn insert_refused(err: worker::Error, new_user: &NewUser<'_>) -> ApiError {
    if err.to_string().contains("UNIQUE") {
        ApiError::bad_request(format!("Email '{}' already in use", new_user.email))
    } else {
        ApiError::from(err)
    }
}

/// Creates a passwordless account (a bot) as `id`, read by [`users::next_id_stmt`], with
/// its first API key, in one batch: a key derives from the account's id, so the id is
/// chosen before the write. `None` when another account took that id in between (nothing
/// was written); the caller then creates it with [`do_create_user`] and
/// [`do_issue_api_key`].
pub async fn do_create_user_with_key(db: &D1Database, env: &Env, new_user: &NewUser<'_>, id: i64) -> ApiResult<Option<(UserRow, String)>> {
    let (key, store_key) = issued_key(env, RealmId(new_user.realm_id), UserId(id), users::FIRST_API_KEY_VERSION)?;
    let mut batch = crate::db::batch::Batch::new();
    let inserting = users::add_insert(&mut batch, new_user, Some(id), db::now())?;
    batch.add::<Value>(store_key);
    let results = match batch.run(db).await {
        Ok(results) => results,
        Err(err) if err.to_string().contains("users.id") => return Ok(None),
        Err(err) => return Err(insert_refused(err, new_user)),
    };
    Ok(Some((inserting.take(&results)?.user, key)))
}

/// `POST /users`: an administrator with `can_create_users` creates an account with a
/// password; everyone is told with a `realm_user` add event.
pub async fn check_create_user_by_admin(
    db: &D1Database,
    site: &Site,
    admin: &UserRow,
    email: &str,
    password: &str,
    full_name_raw: &str,
) -> ApiResult<i64> {
    if admin.can_create_users == 0 {
        return Err(ApiError::bad_request("User not authorized to create users"));
    }
    let full_name = check_full_name(full_name_raw)?;
    if !is_valid_email(email) {
        return Err(ApiError::bad_request("Bad name or username"));
    }
    // The default channels the account will join are read with the address check.
    let mut batch = Batch::new();
    let existing = batch.add::<UserRow>(users::by_email_stmt(admin.realm_id, email)?);
    let defaults = batch.add::<DefaultChannelRow>(crate::db::default_channels::in_realm_stmt(admin.realm_id)?);
    let results = batch.run(db).await?;
    if results.first(existing)?.is_some() {
        return Err(ApiError::bad_request(format!("Email '{email}' already in use")));
    }
    let default_channels: Vec<i64> = results.rows(defaults)?.into_iter().map(|r| r.channel_id).collect();
    check_password_strength(password)?;
    let new_user = NewUser {
        realm_id: admin.realm_id,
        email,
        full_name: &full_name,
        role: Role::Member,
        password_hash: None,
        can_create_users: false,
        bot_type: None,
        bot_owner_id: None,
        timezone: "",
    };
    let created = do_create_user(db, &new_user, Some(password)).await?;
    notify_user_added(db, &site.env, &created.user, &site.realm_host).await;
    crate::actions::message_notifications::announce_new_user(site, &created.user).await;
    // Like Zulip, an account made by an administrator joins the default channels.
    crate::actions::default_channels::join_default_channels(db, &site.env, &created.user, &default_channels).await;
    Ok(created.user.id)
}

/// The `realm_user` add event of a new account, to every queue of the organization: its
/// real address only to those who may see it (one more read when not everyone may).
pub async fn notify_user_added(db: &D1Database, env: &worker::Env, user: &UserRow, realm_host: &str) {
    let opts = UserDictOptions { realm_host, client_gravatar: false };
    let event = |sees_email| Event::RealmUser(RealmUserEvent::Add { person: user_dict_seen(user, sees_email, &opts) });
    if user.is_bot() || user.email_address_visibility == VISIBLE_TO_EVERYONE {
        return crate::actions::notify_realm(env, user.realm_id, &event(true)).await;
    }
    let viewers = match users::active_viewers(db, user.realm_id).await {
        Ok(viewers) => viewers,
        Err(err) => {
            // Everyone still learns of the account, without the address.
            worker::console_error!("the viewers of new user {}: {err}", user.id);
            return crate::actions::notify_realm(env, user.realm_id, &event(false)).await;
        }
    };
    let (mut sees, mut does_not) = (Vec::new(), Vec::new());
    for viewer in &viewers {
        let list = if sees_delivery_email(viewer, user, user.email_address_visibility) { &mut sees } else { &mut does_not };
        list.push(viewer.id);
    }
    crate::actions::notify_users(env, user.realm_id, &sees, &event(true)).await;
    crate::actions::notify_users(env, user.realm_id, &does_not, &event(false)).await;
}

/// A `realm_user` update event carrying the changed fields of one user.
async fn notify_user_updated(env: &worker::Env, realm_id: i64, person: Value) {
    let event = Event::RealmUser(RealmUserEvent::Update { person });
    crate::actions::notify_realm(env, realm_id, &event).await;
}

/// `DELETE /users/me`: never the organization's only active user nor its only owner.
pub async fn check_deactivate_own_user(db: &D1Database, env: &worker::Env, user: &UserRow) -> ApiResult<()> {
    let counts = users::active_counts(db, user.realm_id).await?;
    if counts.active_users <= 1 {
        return Err(ApiError::cannot_deactivate_last_user(false));
    }
    if user.is_realm_owner() && !user.is_bot() && counts.human_owners <= 1 {
        return Err(ApiError::cannot_deactivate_last_user(true));
    }
    do_set_active(db, env, user, false).await
}

/// `DELETE /users/{user_id}` by an administrator: owners only by owners, never the only owner.
pub async fn check_deactivate_user(db: &D1Database, env: &worker::Env, admin: &UserRow, target: &UserRow) -> ApiResult<()> {
    if target.is_realm_owner() && !admin.is_realm_owner() {
        return Err(ApiError::must_be_owner());
    }
    if target.is_realm_owner() && !target.is_bot() {
        let counts = users::active_counts(db, target.realm_id).await?;
        if counts.human_owners <= 1 {
            return Err(ApiError::bad_request("Cannot deactivate the only organization owner"));
        }
    }
    do_set_active(db, env, target, false).await
}

/// `POST /users/{user_id}/reactivate` by an administrator.
pub async fn check_reactivate_user(db: &D1Database, env: &worker::Env, target: &UserRow) -> ApiResult<()> {
    if target.is_active() {
        return Err(ApiError::bad_request("User is already active"));
    }
    if target.awaits_sign_up() {
        return Err(ApiError::bad_request("Cannot activate a placeholder account; ask the user to sign up, instead."));
    }
    do_set_active(db, env, target, true).await
}

/// Deactivation keeps the user's API keys: authentication refuses them while the account
/// is deactivated (`USER_DEACTIVATED`), and they work again after reactivation, as in Zulip.
/// Deactivating a human also deactivates the bots it owns (reactivation does not bring
/// them back, as in Zulip).
async fn do_set_active(db: &D1Database, env: &worker::Env, user: &UserRow, active: bool) -> ApiResult<()> {
    let mut bot_ids = Vec::new();
    if active {
        users::set_active(db, RealmId(user.realm_id), UserId(user.id), true).await?;
    } else {
        let deactivated = users::deactivate_with_bots(db, RealmId(user.realm_id), UserId(user.id)).await?;
        bot_ids = deactivated.into_iter().filter(|id| *id != user.id).collect();
    }
    if user.is_bot() {
        bot_ids.push(user.id);
    }
    let mut changed = vec![user.id];
    changed.extend(bot_ids.iter().filter(|id| **id != user.id));
    for id in changed {
        let event = Event::RealmUser(RealmUserEvent::Update { person: json!({ "user_id": id, "is_active": active }) });
        crate::actions::notify_realm(env, user.realm_id, &event).await;
    }
    for id in bot_ids {
        let event = Event::RealmBot(RealmBotEvent::Update { bot: json!({ "user_id": id, "is_active": active }) });
        crate::actions::notify_realm(env, user.realm_id, &event).await;
    }
    Ok(())
}

/// `PATCH /users/{user_id}` `role`, checked without writing: only owners grant or remove
/// the owner role; the only owner keeps it. Answers whether the role changes at all.
pub async fn check_role_change(db: &D1Database, admin: &UserRow, target: &UserRow, role: Role) -> ApiResult<bool> {
    if role == target.role {
        return Ok(false);
    }
    if (role == Role::Owner || target.role == Role::Owner) && !admin.is_realm_owner() {
        return Err(ApiError::must_be_owner());
    }
    if target.role == Role::Owner && !target.is_bot() {
        let counts = users::active_counts(db, target.realm_id).await?;
        if target.is_active() && counts.human_owners <= 1 {
            return Err(ApiError::bad_request("The owner permission cannot be removed from the only organization owner."));
        }
    }
    Ok(true)
}

/// `PATCH /users/{user_id}`'s checked changes (the name checked with `check_full_name`).
pub struct UserChanges {
    /// A role that differs from the current one.
    pub role: Option<Role>,
    pub full_name: Option<String>,
    pub profile: Option<Vec<ProfileChange>>,
}

/// Writes an administrator's changes to a user in one batch, then sends their events.
pub async fn do_update_user(db: &D1Database, env: &worker::Env, target: &UserRow, changes: UserChanges) -> ApiResult<()> {
    let full_name = changes.full_name.filter(|name| *name != target.full_name);
    let mut stmts = Vec::new();
    if let Some(role) = changes.role {
        stmts.push(users::set_role_stmt(RealmId(target.realm_id), UserId(target.id), role)?);
    }
    if let Some(name) = &full_name {
        stmts.push(users::set_full_name_stmt(RealmId(target.realm_id), UserId(target.id), name)?);
    }
    if let Some(profile) = &changes.profile {
        stmts.extend(profile_fields::profile_data_stmts(target, profile)?);
    }
    if stmts.is_empty() {
        return Ok(());
    }
    crate::db::run_batch(db, stmts).await?;
    if let Some(role) = changes.role {
        notify_user_updated(env, target.realm_id, json!({ "user_id": target.id, "role": role })).await;
    }
    if let Some(name) = full_name {
        notify_user_updated(env, target.realm_id, json!({ "user_id": target.id, "full_name": name })).await;
    }
    if let Some(profile) = &changes.profile {
        profile_fields::notify_profile_data(env, target, profile).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_valid_email;

    #[test]
    fn emails_need_a_local_part_and_a_dotted_domain() {
        assert!(is_valid_email("hamlet@zulip.com"));
        assert!(!is_valid_email("hamlet"));
        assert!(!is_valid_email("@zulip.com"));
        assert!(!is_valid_email("hamlet@localhost"));
        assert!(!is_valid_email("ham let@zulip.com"));
        assert!(!is_valid_email("a@b@zulip.com"));
    }
}
