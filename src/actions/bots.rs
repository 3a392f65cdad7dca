//! Bots: accounts owned by a user, authenticating with their own API key.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::actions::users::{do_create_user, do_create_user_with_key, do_issue_api_key, do_replace_api_key};
use crate::db::api_keys::{self, BotKeyVersionRow, KeyHashRow, KeyVersionRow};
use crate::db::batch::Batch;
use crate::db::bot_services::{self, BotServiceRow};
use crate::db::users::{self, NewUser, NextId, UserIdRow, UserRow};
use crate::domain::outgoing_webhooks::{services_dicts, INTERFACES};
use crate::domain::users::{avatar_url, check_full_name, user_dict, UserDictOptions};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, RealmBotEvent, RealmUserEvent};
use crate::model::ids::{RealmId, UserId};
use crate::model::Role;
use crate::secrets;

pub const GENERIC_BOT: i64 = 1;
pub const INCOMING_WEBHOOK_BOT: i64 = 2;
pub const OUTGOING_WEBHOOK_BOT: i64 = 3;
pub const EMBEDDED_BOT: i64 = 4;
pub const BOT_TYPES: &[i64] = &[GENERIC_BOT, INCOMING_WEBHOOK_BOT, OUTGOING_WEBHOOK_BOT, EMBEDDED_BOT];

pub struct NewBot<'a> {
    pub full_name: &'a str,
    pub short_name: &'a str,
    pub bot_type: i64,
    pub service_name: Option<&'a str>,
    pub payload_url: Option<&'a str>,
    /// Outgoing webhooks: 1 Zulip's format, 2 Slack-compatible (`interface_type`).
    pub interface: i64,
}

pub struct CreatedBot {
    pub user: UserRow,
    pub api_key: String,
}

/// `<short_name>-bot@<realm host>`, the host without its port.
pub fn bot_email(short_name: &str, realm_host: &str) -> String {
    let domain = realm_host.rsplit_once(':').map(|(h, _)| h).unwrap_or(realm_host);
    format!("{short_name}-bot@{}", domain.to_ascii_lowercase())
}

/// `POST /bots`: checks the names and type, creates the bot owned by `owner` with a
/// fresh API key, then tells everyone (`realm_user` add) and the owner and administrators
/// (`realm_bot` add).
pub async fn check_create_bot(db: &D1Database, env: &Env, owner: &UserRow, bot: &NewBot<'_>, realm_host: &str) -> ApiResult<CreatedBot> {
    if owner.is_guest() {
        return Err(ApiError::not_allowed_for_guests());
    }
    let short_name = bot.short_name.trim();
    if short_name.is_empty() {
        return Err(ApiError::bad_request("Bad name or username"));
    }
    let full_name = check_full_name(bot.full_name)?;
    if !BOT_TYPES.contains(&bot.bot_type) {
        return Err(ApiError::bad_request("Invalid bot type"));
    }
    // This server runs no embedded bots (`realm_embedded_bots` is empty): refused, as a
    // Zulip server without them refuses, rather than created to do nothing.
    if bot.bot_type == EMBEDDED_BOT {
        return Err(ApiError::bad_request("Embedded bots are not enabled."));
    }
    if !INTERFACES.contains(&bot.interface) {
        return Err(ApiError::bad_request("Invalid interface type"));
    }
    if bot.bot_type == OUTGOING_WEBHOOK_BOT {
        check_payload_url("payload_url", bot.payload_url)?;
    }
    let email = bot_email(short_name, realm_host);
    if !crate::actions::users::is_valid_email(&email) {
        return Err(ApiError::bad_request("Bad name or username"));
    }
    let new_user = NewUser {
        realm_id: owner.realm_id,
        email: &email,
        full_name: &full_name,
        role: Role::Member,
        password_hash: None,
        can_create_users: false,
        bot_type: Some(bot.bot_type),
        bot_owner_id: Some(owner.id),
        timezone: "",
    };
    // The realm_bot event's audience (administrators and the owner) and the bot's id-to-be
    // are read with the check.
    let mut batch = Batch::new();
    let taken = batch.add::<UserRow>(users::by_email_stmt(owner.realm_id, &email)?);
    let admins = batch.add::<UserIdRow>(users::active_admin_ids_stmt(owner.realm_id)?);
    let next_id = batch.add::<NextId>(users::next_id_stmt()?);
    let results = batch.run(db).await?;
    if results.first(taken)?.is_some() {
        return Err(ApiError::bad_request("Username already in use"));
    }
    let mut admins_and_owner: Vec<i64> = results.rows(admins)?.into_iter().map(|a| a.id).collect();
    if !admins_and_owner.contains(&owner.id) {
        admins_and_owner.push(owner.id);
    }
    let in_use = |err: ApiError| if err.msg.contains("already in use") { ApiError::bad_request("Username already in use") } else { err };
    let created = match results.first(next_id)?.and_then(|next| next.id) {
        Some(id) => do_create_user_with_key(db, env, &new_user, id).await.map_err(in_use)?,
        None => None,
    };
    let (user, api_key) = match created {
        Some(created) => created,
        // Another account took the id (or the database has none yet): insert, then key.
        None => {
            let created = do_create_user(db, &new_user, None).await.map_err(in_use)?;
            let api_key = do_issue_api_key(db, env, &created.user, created.api_key_version).await?;
            (created.user, api_key)
        }
    };
    let services = match bot.bot_type {
        OUTGOING_WEBHOOK_BOT => vec![add_service(db, &user, bot).await?],
        _ => Vec::new(),
    };
    let opts = UserDictOptions { realm_host, client_gravatar: false };
    let added = Event::RealmUser(RealmUserEvent::Add { person: user_dict(&user, &user, &opts) });
    crate::actions::notify_realm(env, owner.realm_id, &added).await;
    let event = Event::RealmBot(RealmBotEvent::Add { bot: bot_dict(&user, Some(&api_key), &services) });
    crate::actions::notify_users(env, owner.realm_id, &admins_and_owner, &event).await;
    Ok(CreatedBot { user, api_key })
}

/// An outgoing-webhook bot's URL: a URL when given (Zulip's `check_url`).
fn check_payload_url(name: &str, url: Option<&str>) -> ApiResult<()> {
    match url {
        Some(url) if !crate::domain::profile_fields::is_url(url) => Err(ApiError::invalid_argument(name, "a URL")),
        _ => Ok(()),
    }
}

/// Stores a new outgoing-webhook bot's service with a fresh token (Zulip's `Service`).
async fn add_service(db: &D1Database, user: &UserRow, bot: &NewBot<'_>) -> ApiResult<BotServiceRow> {
    let service = BotServiceRow {
        bot_id: user.id,
        base_url: bot.payload_url.unwrap_or_default().to_string(),
        interface: bot.interface,
        token: secrets::random_alphanumeric(32),
    };
    crate::db::run(db, bot_services::insert_stmt(user.realm_id, &service)?).await?;
    Ok(service)
}

/// The bot as the `realm_bot` event describes it.
pub fn bot_dict(bot: &UserRow, api_key: Option<&str>, services: &[BotServiceRow]) -> Value {
    json!({
        "user_id": bot.id,
        "email": bot.email,
        "full_name": bot.full_name,
        "bot_type": bot.bot_type,
        "is_active": bot.is_active(),
        "api_key": api_key,
        "default_sending_stream": null,
        "default_events_register_stream": null,
        "default_all_public_streams": false,
        "avatar_url": avatar_url(bot),
        "services": services_dicts(services),
        "owner_id": bot.bot_owner_id,
    })
}

/// `PATCH /bots/{bot_id}`'s changes, as the handler parsed them.
pub struct BotChanges {
    pub full_name: Option<String>,
    /// A new URL replaces the service's URL and interface (`interface`), as in Zulip.
    pub payload_url: Option<String>,
    pub interface: i64,
}

/// `PATCH /bots/{bot_id}`: the owner or an administrator (Zulip's `access_bot_by_id`)
/// renames the bot or changes its service; the owner and administrators get `realm_bot`
/// update events (the service's with its `services`). Answers the bot and its owner.
pub async fn check_update_bot(
    db: &D1Database,
    env: &Env,
    acting: &UserRow,
    bot_id: i64,
    changes: BotChanges,
) -> ApiResult<(UserRow, Option<UserRow>)> {
    let mut batch = Batch::new();
    let bot = batch.add::<UserRow>(users::by_id_stmt(RealmId(acting.realm_id), UserId(bot_id))?);
    let owner = batch.add::<UserRow>(users::bot_owner_stmt(RealmId(acting.realm_id), UserId(bot_id))?);
    let admins = batch.add::<UserIdRow>(users::active_admin_ids_stmt(acting.realm_id)?);
    let results = batch.run(db).await?;
    let bot = results.first(bot)?.filter(UserRow::is_bot).ok_or_else(ApiError::no_such_bot)?;
    if !(acting.is_realm_admin() || bot.bot_owner_id == Some(acting.id)) {
        return Err(ApiError::insufficient_permission());
    }
    let mut audience: Vec<i64> = results.rows(admins)?.into_iter().map(|a| a.id).collect();
    audience.extend(bot.bot_owner_id.filter(|id| !audience.contains(id)));
    let full_name = changes.full_name.as_deref().map(check_full_name).transpose()?;
    if changes.payload_url.is_some() {
        check_payload_url("service_payload_url", changes.payload_url.as_deref())?;
        if !INTERFACES.contains(&changes.interface) {
            return Err(ApiError::bad_request("Invalid interface type"));
        }
    }
    let mut updated = bot.clone();
    if let Some(name) = full_name {
        let changes = crate::actions::users::UserChanges { role: None, full_name: Some(name.clone()), profile: None };
        crate::actions::users::do_update_user(db, env, &bot, changes).await?;
        let event = Event::RealmBot(RealmBotEvent::Update { bot: json!({ "user_id": bot.id, "full_name": name }) });
        crate::actions::notify_users(env, bot.realm_id, &audience, &event).await;
        updated.full_name = name;
    }
    if let Some(url) = &changes.payload_url {
        // A bot made with another type has no service to change, as in Zulip.
        if let Some(service) = bot_services::update(db, RealmId(bot.realm_id), UserId(bot.id), Some(url), Some(changes.interface)).await? {
            let services = services_dicts(&[service]);
            let event = Event::RealmBot(RealmBotEvent::Update { bot: json!({ "user_id": bot.id, "services": services }) });
            crate::actions::notify_users(env, bot.realm_id, &audience, &event).await;
        }
    }
    Ok((updated, results.first(owner)?))
}

/// `POST /bots/{bot_id}/api_key/regenerate`: the owner or an administrator replaces the
/// bot's key with the next one; the old key stops working at once. The bot and its key
/// version are read together.
pub async fn check_regenerate_bot_api_key(db: &D1Database, env: &Env, acting: &UserRow, bot_id: i64) -> ApiResult<String> {
    let mut batch = Batch::new();
    let bot = batch.add::<UserRow>(users::by_id_stmt(RealmId(acting.realm_id), UserId(bot_id))?);
    let version = batch.add::<KeyVersionRow>(api_keys::version_stmt(RealmId(acting.realm_id), UserId(bot_id))?);
    let results = batch.run(db).await?;
    let bot = results.first(bot)?.ok_or_else(ApiError::no_such_bot)?;
    if !bot.is_bot() || !(acting.is_realm_admin() || bot.bot_owner_id == Some(acting.id)) {
        return Err(ApiError::no_such_bot());
    }
    let old = results.first(version)?.ok_or_else(ApiError::no_such_bot)?.api_key_version;
    do_replace_api_key(db, &secrets::api_key_secret(env)?, RealmId(bot.realm_id), UserId(bot.id), old).await
}

/// The owner's active bots as `GET /bots` lists them, oldest first, each with its current
/// `api_key`: the bots, their key versions and the key hashes stored, read together. A
/// missing hash (a bot from before keys were derived) is stored, so the key shown works.
pub async fn bots_of(db: &D1Database, env: &Env, owner: &UserRow) -> ApiResult<Vec<Value>> {
    let mut batch = Batch::new();
    let bots = batch.add::<UserRow>(users::bots_of_owner_stmt(RealmId(owner.realm_id), UserId(owner.id))?);
    let versions = batch.add::<BotKeyVersionRow>(api_keys::owner_bot_versions_stmt(RealmId(owner.realm_id), UserId(owner.id))?);
    let stored = batch.add::<KeyHashRow>(api_keys::owner_bot_key_hashes_stmt(RealmId(owner.realm_id), UserId(owner.id))?);
    let results = batch.run(db).await?;
    let stored: HashSet<String> = results.rows(stored)?.into_iter().map(|k| k.key_hash).collect();
    let secret = secrets::api_key_secret(env)?;
    let keys: HashMap<i64, String> =
        results.rows(versions)?.iter().map(|r| (r.id, secrets::derive_api_key(secret.as_bytes(), r.id, r.api_key_version))).collect();
    let now = crate::db::now();
    let missing = keys
        .iter()
        .map(|(id, key)| (id, secrets::api_key_hash(key)))
        .filter(|(_, hash)| !stored.contains(hash))
        .map(|(id, hash)| api_keys::insert_if_missing_stmt(RealmId(owner.realm_id), UserId(*id), &hash, now))
        .collect::<worker::Result<Vec<_>>>()?;
    if !missing.is_empty() {
        crate::db::run_batch(db, missing).await?;
    }
    Ok(results
        .rows(bots)?
        .iter()
        .map(|bot| {
            json!({
                "user_id": bot.id,
                "username": bot.email,
                "full_name": bot.full_name,
                "bot_type": bot.bot_type,
                "avatar_url": avatar_url(bot),
                "default_sending_stream": null,
                "default_events_register_stream": null,
                "default_all_public_streams": false,
                "api_key": keys.get(&bot.id),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::bot_email;

    #[test]
    fn bot_email_uses_the_realm_host_without_its_port() {
        assert_eq!(bot_email("helper", "127.0.0.1:8787"), "helper-bot@127.0.0.1");
        assert_eq!(bot_email("helper", "Lear.chat.example.com"), "helper-bot@lear.chat.example.com");
    }
}
