//! Mobile push: device registrations (E2EE and legacy), forwarded to the push relay
//! (Zulip's bouncer protocol), and the notifications sent through it.
//!
//! Notifications for new messages are sent after the response, through the Workers
//! runtime's `wait_until` (`RequestContext::defer`), so the relay never slows down or
//! fails `POST /messages`; relay errors are retried a few times.

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::actions::background_failures::{record, Kind};
use crate::actions::push_relay::relay_post;
use crate::context::RequestContext;
use crate::db::batch::Batch;
use crate::db::push_devices::{self as q, PushDeviceRow};
use crate::db::realms::RealmRow;
use crate::db::users::UserRow;
use crate::db::{self, now};
use crate::domain::push::{self, PayloadBase, RawRegistration};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{MessageId, UserId};
use crate::settings::PushRelay;

fn relay_of(ctx: &RequestContext) -> ApiResult<&PushRelay> {
    ctx.settings.push_relay.as_ref().ok_or_else(ApiError::push_service_not_configured)
}

/// Registers, or rotates the key or token of, one of the user's E2EE push devices; then
/// removes the user's legacy registrations of the same token, here and at the relay.
pub async fn register_push_device(ctx: &RequestContext, user: &UserRow, raw: RawRegistration) -> ApiResult<()> {
    let relay = relay_of(ctx)?;
    let mut batch = Batch::new();
    let device_slot = batch.add::<PushDeviceRow>(q::device_stmt(UserId(user.id), raw.device_id)?);
    let legacy_slot = batch.add::<q::LegacyTokenRow>(q::legacy_tokens_stmt(user.id)?);
    let results = batch.run(&ctx.db).await?;
    let existing = results.first(device_slot)?;
    let legacy = results.rows(legacy_slot)?;
    let reg = push::validate_registration(raw, existing.is_some())?;
    let realm = ctx.realm().await?;

    if let Some(token) = &reg.token {
        let body = json!({
            "realm_uuid": realm.uuid,
            "token_id": token.token_id,
            "token_kind": token.token_kind,
            "bouncer_public_key": token.bouncer_public_key,
            "encrypted_push_registration": token.encrypted_push_registration,
        });
        let answer = relay_post(&ctx.env, relay, "remotes/push/e2ee/register", &body).await?;
        if answer.status != 200 {
            let msg = answer.body["msg"].as_str().unwrap_or("The push relay rejected the registration").to_string();
            return Err(ApiError::bad_request(msg));
        }
    }

    let token_id = reg.token.as_ref().map(|t| t.token_id.clone()).or(existing.as_ref().map(|d| d.token_id.clone()));
    let matching: Vec<&q::LegacyTokenRow> = legacy.iter().filter(|l| Some(push::token_id_of(&l.token)) == token_id).collect();

    let t = now();
    let mut stmts = Vec::new();
    match (&existing, &reg.push_key, &reg.token) {
        (None, Some((key_id, key)), Some(token)) => stmts.push(q::insert_stmt(UserId(user.id), reg.device_id, (*key_id, key), token, t)?),
        (Some(_), key, token) => {
            if let Some((key_id, key)) = key {
                stmts.push(q::update_key_stmt(UserId(user.id), reg.device_id, (*key_id, key), t)?);
            }
            if let Some(token) = token {
                stmts.push(q::update_token_stmt(UserId(user.id), reg.device_id, token, t)?);
            }
        }
        _ => return Err(ApiError::internal("unvalidated registration")),
    }
    if !matching.is_empty() {
        let ids: Vec<i64> = matching.iter().map(|l| l.id).collect();
        stmts.push(q::delete_legacy_stmt(user.id, &json!(ids).to_string())?);
    }
    crate::db::run_batch(&ctx.db, stmts).await?;

    // Removal at the relay is best effort, after the response: the local removal stands
    // either way, as Zulip's does.
    let unregister: Vec<Value> =
        matching.iter().map(|l| json!({"user_id": user.id, "realm_uuid": realm.uuid, "token": l.token, "token_kind": l.kind})).collect();
    if !unregister.is_empty() {
        let relay = relay.clone();
        let env = ctx.env.clone();
        ctx.defer(async move {
            for body in unregister {
                if let Err(err) = relay_post(&env, &relay, "remotes/push/unregister", &body).await {
                    worker::console_warn!("push relay unregister failed: {}", err.msg);
                }
            }
        });
    }
    Ok(())
}

/// Adds a legacy (unencrypted) provider-token registration, as Zulip's
/// `/users/me/apns_device_token` and `/users/me/android_gcm_reg_id` do.
pub async fn add_legacy_token(ctx: &RequestContext, user: &UserRow, kind: &str, token: &str, ios_app_id: Option<&str>) -> ApiResult<()> {
    let relay = relay_of(ctx)?;
    let realm = ctx.realm().await?;
    let body = json!({"user_id": user.id, "realm_uuid": realm.uuid, "token": token, "token_kind": kind, "ios_app_id": ios_app_id});
    let answer = relay_post(&ctx.env, relay, "remotes/push/register", &body).await?;
    if answer.status != 200 {
        return Err(ApiError::bad_request(answer.body["msg"].as_str().unwrap_or("The push relay rejected the token").to_string()));
    }
    crate::db::run(&ctx.db, q::insert_legacy_stmt(user.id, kind, token, ios_app_id, now())?).await?;
    Ok(())
}

/// Removes a legacy registration, as Zulip's `remove_push_device_token` does: the local row
/// in one write, then the relay's after the response (best effort, as when a registration
/// replaces it).
pub async fn remove_legacy_token(ctx: &RequestContext, user: &UserRow, kind: &str, token: &str) -> ApiResult<()> {
    let removed: Option<q::LegacyTokenRow> = crate::db::first(&ctx.db, q::delete_legacy_token_stmt(user.id, kind, token)?).await?;
    if removed.is_none() {
        return Err(ApiError::bad_request("Token does not exist"));
    }
    if let Some(relay) = ctx.settings.push_relay.clone() {
        let realm = ctx.realm().await?;
        let body = json!({"user_id": user.id, "realm_uuid": realm.uuid, "token": token, "token_kind": kind});
        let env = ctx.env.clone();
        ctx.defer(async move {
            if let Err(err) = relay_post(&env, &relay, "remotes/push/unregister", &body).await {
                worker::console_warn!("push relay unregister failed: {}", err.msg);
            }
        });
    }
    Ok(())
}

/// How urgently the providers should deliver a notification.
#[derive(Clone, Copy, PartialEq)]
enum Priority {
    /// A new message or a test: shown to the user.
    High,
    /// A removal: handled in the background.
    Normal,
}

/// One push request of Zulip's bouncer API: the device by `token_id`, the provider's
/// delivery options, and the payload encrypted with the device's push key.
fn push_request(device: &PushDeviceRow, payload: &Value, priority: Priority) -> ApiResult<Value> {
    let encrypted = json!({"push_key_id": device.push_key_id, "encrypted_data": push::encrypt_payload(&device.push_key, payload)?});
    let high = priority == Priority::High;
    Ok(if device.token_kind == "apns" {
        let headers = json!({"apns_priority": if high { 10 } else { 5 }, "apns_push_type": if high { "alert" } else { "background" }});
        json!({"token_id": device.token_id, "http_headers": headers, "payload": encrypted})
    } else {
        json!({"token_id": device.token_id, "fcm_priority": if high { "high" } else { "normal" }, "payload": encrypted})
    })
}

/// Encrypted notifications to E2EE devices, one relay request; returns the relay's
/// `delete_token_ids` (devices it does not know, or whose token expired).
async fn notify_devices(
    env: &Env,
    relay: &PushRelay,
    realm_uuid: &str,
    devices: &[(PushDeviceRow, Value)],
    priority: Priority,
) -> ApiResult<Vec<String>> {
    let push_requests = devices.iter().map(|(device, payload)| push_request(device, payload, priority)).collect::<ApiResult<Vec<_>>>()?;
    if push_requests.is_empty() {
        return Ok(Vec::new());
    }
    let answer =
        relay_post(env, relay, "remotes/push/e2ee/notify", &json!({"realm_uuid": realm_uuid, "push_requests": push_requests})).await?;
    if answer.status != 200 {
        return Err(ApiError::push_relay_unavailable());
    }
    Ok(answer.body["delete_token_ids"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t.as_str().map(String::from)).collect())
        .unwrap_or_default())
}

/// The test notification (`event: "test"`): with `token`, to that legacy registration;
/// otherwise to every registration of the user, legacy and E2EE.
pub async fn send_test_notification(ctx: &RequestContext, user: &UserRow, token: Option<&str>) -> ApiResult<()> {
    let realm = ctx.realm().await?;
    let mut batch = Batch::new();
    let legacy_slot = batch.add::<q::LegacyTokenRow>(q::legacy_tokens_stmt(user.id)?);
    let devices_slot = batch.add::<PushDeviceRow>(q::user_devices_stmt(user.id)?);
    let results = batch.run(&ctx.db).await?;
    let legacy = results.rows(legacy_slot)?;
    let targets: Vec<&q::LegacyTokenRow> = match token {
        Some(token) => {
            let found: Vec<_> = legacy.iter().filter(|l| l.token == token).collect();
            if found.is_empty() {
                return Err(ApiError::invalid_push_device_token());
            }
            found
        }
        None => legacy.iter().collect(),
    };
    // An unknown token is this server's answer, with or without a relay configured.
    let relay = relay_of(ctx)?;
    let base = PayloadBase { realm_url: &ctx.base_url, realm_name: &realm.name, user_id: user.id };
    let payload = push::test_payload(&base, now());
    for l in &targets {
        let body = json!({
            "user_id": user.id, "realm_uuid": realm.uuid, "token": l.token, "token_kind": l.kind, "base_payload": payload,
        });
        let answer = relay_post(&ctx.env, relay, "remotes/push/test_notification", &body).await?;
        if answer.status != 200 {
            return Err(match answer.body["code"].as_str() {
                Some("INVALID_REMOTE_PUSH_DEVICE_TOKEN") => ApiError::invalid_remote_push_device_token(),
                _ => ApiError::push_relay_unavailable(),
            });
        }
    }
    if token.is_none() {
        let devices = results.rows(devices_slot)?;
        let with_payload: Vec<(PushDeviceRow, Value)> = devices.into_iter().map(|d| (d, payload.clone())).collect();
        let unknown = notify_devices(&ctx.env, relay, &realm.uuid, &with_payload, Priority::High).await?;
        if !unknown.is_empty() && unknown.len() == with_payload.len() && targets.is_empty() {
            return Err(ApiError::invalid_remote_push_device_token());
        }
    }
    Ok(())
}

/// Everything a background notification needs, owned (it outlives the request).
pub struct MessageNoticeJob {
    pub env: Env,
    pub db: D1Database,
    pub relay: PushRelay,
    pub realm_url: String,
    pub sender: UserRow,
    pub message_id: i64,
    /// Users the send itself made follow the topic: Zulip decides on the policies from
    /// before the send, so theirs counts as not followed.
    pub followed_by_send: Vec<i64>,
    /// An edit notifies only the users it newly mentions; a send, everyone (`None`).
    pub only_users: Option<Vec<i64>>,
}

/// Notifies the recipients of a new message on their E2EE devices, those Zulip's rules
/// (`domain::push::push_trigger`) say to, with the settings of the moment. Runs after the
/// response.
pub async fn notify_new_message(job: MessageNoticeJob) {
    if let Err(err) = try_notify_new_message(&job).await {
        let error = format!("notification of message {}: {}", job.message_id, err.msg);
        record(&job.env, job.sender.realm_id, Kind::Push, &error).await;
    }
}

async fn try_notify_new_message(job: &MessageNoticeJob) -> ApiResult<()> {
    let candidates: Vec<q::PushCandidateRow> =
        db::all(&job.db, q::push_candidates_stmt(MessageId(job.message_id), UserId(job.sender.id))?).await?;
    let t = now();
    let ids: Vec<i64> = candidates
        .iter()
        .filter(|row| job.only_users.as_ref().is_none_or(|only| only.contains(&row.user_id)))
        .filter(|row| {
            let candidate = push::PushCandidate::from_row(row, job.followed_by_send.contains(&row.user_id), t);
            push::push_trigger(&candidate).is_some()
        })
        .map(|row| row.user_id)
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    let mut batch = Batch::new();
    let message = batch.add::<q::NoticeMessage>(q::notice_message_stmt(job.message_id)?);
    let realm = batch.add::<RealmRow>(crate::db::realms::by_id_stmt(job.sender.realm_id)?);
    let results = batch.run(&job.db).await?;
    let (Some(message), Some(realm)) = (results.first(message)?, results.first(realm)?) else { return Ok(()) };
    let devices: Vec<PushDeviceRow> = db::all(&job.db, q::devices_of_users_stmt(&json!(ids).to_string())?).await?;
    let avatar = crate::domain::users::avatar_url(&job.sender);
    let channel_name = message.channel_name.clone().unwrap_or_default();
    let notice = push::MessageNotice {
        message_id: message.id,
        time: message.date_sent,
        sender_id: job.sender.id,
        sender_full_name: &job.sender.full_name,
        sender_avatar_url: &avatar,
        content: &message.content,
        channel: message.channel_id.map(|id| (id, channel_name.as_str(), message.topic.as_str())),
        recipient_user_ids: None,
    };
    let with_payload: Vec<(PushDeviceRow, Value)> = devices
        .into_iter()
        .map(|d| {
            let base = PayloadBase { realm_url: &job.realm_url, realm_name: &realm.name, user_id: d.user_id };
            let payload = push::message_payload(&base, &notice);
            (d, payload)
        })
        .collect();
    // Recorded before sending, as Zulip marks the message first: a read arriving while the
    // relay is still answering must find it, or the shown notification is never removed.
    crate::db::run(&job.db, q::insert_notified_stmt(&json!(ids).to_string(), message.id)?).await?;
    notify_devices(&job.env, &job.relay, &realm.uuid, &with_payload, Priority::High).await?;
    Ok(())
}

/// Whose shown notifications a removal is about.
#[derive(Debug, Clone)]
pub enum Removal {
    /// One user read these messages.
    Read(i64, Vec<i64>),
    /// One user marked everything read (Zulip then clears all their shown notifications).
    AllRead(i64),
    /// These messages were deleted: everyone's notifications of them.
    Deleted(Vec<i64>),
}

/// Where a background removal goes.
pub struct RemovalJob {
    pub env: Env,
    pub realm_id: i64,
    pub db: D1Database,
    pub relay: PushRelay,
    pub realm_uuid: String,
    pub realm_url: String,
    pub realm_name: String,
    pub removal: Removal,
}

/// Queues, after the response, the removal of the shown notifications a read or a deletion
/// made stale (Zulip's `remove` payload, to each of the users' devices). Nothing when push
/// is off or nothing is named.
pub async fn schedule_notification_removal(ctx: &RequestContext, removal: Removal) {
    let Some(relay) = ctx.settings.push_relay.clone() else { return };
    if matches!(&removal, Removal::Read(_, ids) | Removal::Deleted(ids) if ids.is_empty()) {
        return;
    }
    let Ok(realm) = ctx.realm().await else { return };
    let Ok(db) = ctx.env.d1(&ctx.database) else { return };
    ctx.defer(remove_notifications(RemovalJob {
        env: ctx.env.clone(),
        realm_id: realm.id,
        db,
        relay,
        realm_uuid: realm.uuid,
        realm_url: ctx.base_url.clone(),
        realm_name: realm.name,
        removal,
    }));
}

async fn remove_notifications(job: RemovalJob) {
    if let Err(err) = try_remove_notifications(&job).await {
        record(&job.env, job.realm_id, Kind::PushRemoval, &format!("notification removal: {}", err.msg)).await;
    }
}

async fn try_remove_notifications(job: &RemovalJob) -> ApiResult<()> {
    let shown: Vec<q::NotifiedRow> = match &job.removal {
        Removal::Read(user_id, ids) => db::all(&job.db, q::notified_stmt(Some(*user_id), &json!(ids).to_string())?).await?,
        Removal::Deleted(ids) => db::all(&job.db, q::notified_stmt(None, &json!(ids).to_string())?).await?,
        Removal::AllRead(user_id) => db::all(&job.db, q::notified_of_user_stmt(*user_id)?).await?,
    };
    if shown.is_empty() {
        return Ok(());
    }
    let mut by_user: std::collections::BTreeMap<i64, Vec<i64>> = Default::default();
    for row in shown {
        by_user.entry(row.user_id).or_default().push(row.message_id);
    }
    let forget: Vec<Value> = by_user.iter().flat_map(|(u, ids)| ids.iter().map(move |id| json!([u, id]))).collect();
    crate::db::run(&job.db, q::delete_notified_pairs_stmt(&json!(forget).to_string())?).await?;
    let users: Vec<i64> = by_user.keys().copied().collect();
    let devices: Vec<PushDeviceRow> = db::all(&job.db, q::devices_of_users_stmt(&json!(users).to_string())?).await?;
    let with_payload: Vec<(PushDeviceRow, Value)> = devices
        .into_iter()
        .map(|d| {
            let base = PayloadBase { realm_url: &job.realm_url, realm_name: &job.realm_name, user_id: d.user_id };
            let payload = push::remove_payload(&base, &push::removal_ids(by_user[&d.user_id].clone()));
            (d, payload)
        })
        .collect();
    notify_devices(&job.env, &job.relay, &job.realm_uuid, &with_payload, Priority::Normal).await?;
    Ok(())
}
