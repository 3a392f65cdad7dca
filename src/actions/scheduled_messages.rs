//! Scheduling, editing, deleting and delivering scheduled messages.
//!
//! Validation and delivery both go through the send path (`message_send::plan_send` and
//! `send`), so a scheduled message obeys every rule of `POST /messages`, checked
//! once when it is scheduled or edited and again against the state at delivery time.

use serde::de::DeserializeOwned;
use worker::{D1Database, Env};

use crate::actions::channels::Principal;
use crate::actions::message_send::{self, plan_send, Destination, SendPlan, SendRequest, Sender};
use crate::actions::site::Site;
use crate::db::batch::Batch;
use crate::db::scheduled_messages::{self, NewId, Revision, ScheduledFields, ScheduledMessageRow};
use crate::db::statement::Statement;
use crate::db::users::UserRow;
use crate::db::{self, users};
use crate::domain::scheduled_messages::scheduled_message_dict;
use crate::error::{ApiError, ApiResult};
use crate::event_types::ScheduledMessagesEvent;
use crate::events::{send_event, Event, EventUser};
use crate::model::ids::{RealmId, UserId};
use crate::platform::realm_cache::RealmState;

/// Messages delivered per alarm run; the alarm re-arms at once when more are due.
const DELIVERIES_PER_RUN: i64 = 25;
/// A due message that hit a server-side error is tried again this much later.
const RETRY_SECONDS: i64 = 10;

pub fn delivery_time_not_in_future() -> ApiError {
    ApiError::bad_request("Scheduled delivery time must be in the future.")
}

/// Validates `send` as `POST /messages` would and stores it for delivery at `deliver_at`.
pub async fn schedule_message(
    db: &D1Database,
    env: &Env,
    database: &str,
    me: &UserRow,
    realm: &RealmState,
    send: &SendRequest,
    deliver_at: i64,
) -> ApiResult<i64> {
    if deliver_at <= db::now() {
        return Err(delivery_time_not_in_future());
    }
    let plan = plan_send(db, me, realm, send).await?;
    let to_user_ids = direct_ids_json(&plan)?;
    let fields = fields_of(&plan, to_user_ids.as_deref(), deliver_at, send.read_by_sender);
    let insert = scheduled_messages::insert_stmt(RealmId(me.realm_id), UserId(me.id), &send.client, &fields)?;
    let inserted: NewId =
        write_with_group(db, &plan, insert).await?.ok_or_else(|| ApiError::internal("scheduled message insert returned no id"))?;
    let row = row_of(inserted.id, me, &send.client, &fields);
    let event = Event::ScheduledMessages(ScheduledMessagesEvent::Add { scheduled_messages: vec![scheduled_message_dict(&row)] });
    notify_owner(env, me, &event).await;
    crate::platform::scheduler::arm(env, database, me.realm_id, &send.realm_host).await;
    Ok(inserted.id)
}

/// Runs a scheduled message's write after the statements creating the direct-message group
/// it goes to, in one batch: as in Zulip, the group exists once a message to it is
/// scheduled (and so an export has its recipient). Answers the write's first row.
async fn write_with_group<T: DeserializeOwned>(db: &D1Database, plan: &SendPlan, write: Statement) -> ApiResult<Option<T>> {
    let mut batch = Batch::new();
    for stmt in plan.direct_message_group_stmts()? {
        batch.add::<serde_json::Value>(stmt);
    }
    let written = batch.add::<T>(write);
    Ok(batch.run(db).await?.first(written)?)
}

/// What `PATCH /scheduled_messages/{id}` changes; `None` keeps the current value.
pub struct ScheduledEdit {
    /// The new destination (the handler requires `to` with a new `type`).
    pub to: Option<Destination>,
    pub topic: Option<String>,
    pub content: Option<String>,
    pub deliver_at: Option<i64>,
    pub client: String,
    pub realm_host: String,
    pub realm_url: String,
}

/// Applies `edit` to `row` (the owner's undelivered message, read with authentication) and
/// checks the result as `POST /messages` would: one read batch and one write.
pub async fn edit_scheduled_message(
    db: &D1Database,
    env: &Env,
    database: &str,
    me: &UserRow,
    realm: &RealmState,
    row: ScheduledMessageRow,
    edit: ScheduledEdit,
) -> ApiResult<()> {
    let id = row.id;
    if row.failed != 0 && edit.deliver_at.is_none() {
        return Err(delivery_time_not_in_future());
    }
    let to = edit.to.unwrap_or_else(|| destination_of(&row));
    let to_channel = matches!(to, Destination::ChannelId(_) | Destination::ChannelName(_));
    // A topic means nothing for direct messages, so one sent with them is ignored.
    let topic = match (to_channel, row.channel_id.is_some()) {
        (true, true) => Some(edit.topic.unwrap_or(row.topic.clone())),
        (true, false) => edit.topic,
        (false, _) => None,
    };
    let send = SendRequest {
        to,
        topic,
        content: edit.content.unwrap_or(row.content.clone()),
        read_by_sender: row.read_by_sender != 0,
        client: edit.client,
        queue_id: None,
        local_id: None,
        realm_url: edit.realm_url,
        realm_host: edit.realm_host,
    };
    let plan = plan_send(db, me, realm, &send).await?;
    let to_user_ids = direct_ids_json(&plan)?;
    let fields = fields_of(&plan, to_user_ids.as_deref(), edit.deliver_at.unwrap_or(row.scheduled_timestamp), send.read_by_sender);
    // None: delivered or deleted since it was read.
    let updated: Revision = write_with_group(db, &plan, scheduled_messages::update_stmt(id, UserId(me.id), &fields)?)
        .await?
        .ok_or_else(ApiError::scheduled_message_not_found)?;
    let updated = ScheduledMessageRow { revision: updated.revision, ..row_of(id, me, &row.client, &fields) };
    let event = Event::ScheduledMessages(ScheduledMessagesEvent::Update { scheduled_message: scheduled_message_dict(&updated) });
    notify_owner(env, me, &event).await;
    crate::platform::scheduler::arm(env, database, me.realm_id, &send.realm_host).await;
    Ok(())
}

pub async fn delete_scheduled_message(
    db: &D1Database,
    env: &Env,
    database: &str,
    me: &UserRow,
    id: i64,
    realm_host: &str,
) -> ApiResult<()> {
    let result = crate::db::run(db, scheduled_messages::delete_stmt(id, UserId(me.id), scheduled_messages::SEND_LATER)?).await?;
    if result.changes()? == 0 {
        return Err(ApiError::scheduled_message_not_found());
    }
    let event = Event::ScheduledMessages(ScheduledMessagesEvent::Remove { scheduled_message_id: id });
    notify_owner(env, me, &event).await;
    crate::platform::scheduler::arm(env, database, me.realm_id, realm_host).await;
    Ok(())
}

/// Sends the organization's due messages, each as its sender through the send path, and
/// answers when to run next. A message that can no longer be sent is marked `failed` (the
/// owner sees it and may fix and reschedule it); one that hit a server-side error stays
/// pending and is retried after [`RETRY_SECONDS`].
pub async fn deliver_due(env: &Env, database: &str, realm_id: i64, realm_host: &str) -> ApiResult<Option<i64>> {
    let db = crate::platform::directory::database(env, database)?;
    let now = db::now();
    let due = scheduled_messages::due_in_realm(&db, realm_id, now, DELIVERIES_PER_RUN).await?;
    for row in &due {
        if let Err(err) = deliver_one(&db, env, database, row, realm_host).await {
            let error = format!("scheduled message {} not delivered: {}", row.id, err.msg);
            crate::actions::background_failures::record(
                env,
                realm_id,
                crate::actions::background_failures::Kind::ScheduledDelivery,
                &error,
            )
            .await;
        }
    }
    if due.len() as i64 == DELIVERIES_PER_RUN {
        return Ok(Some(now));
    }
    let next = scheduled_messages::next_due_in_realm(&db, realm_id).await?;
    Ok(next.map(|at| if at <= now { now + RETRY_SECONDS } else { at }))
}

async fn deliver_one(db: &D1Database, env: &Env, database: &str, row: &ScheduledMessageRow, realm_host: &str) -> ApiResult<()> {
    let owner = match users::by_id(db, RealmId(row.realm_id), UserId(row.sender_id)).await? {
        Some(owner) if owner.is_active() => owner,
        _ => return mark_failed(db, env, row, "Sender is deactivated").await,
    };
    let is_reminder = row.delivery_type == scheduled_messages::REMIND;
    // A reminder comes from the notification bot, to its owner.
    let (realm, sender) = match is_reminder {
        true => crate::actions::message_notifications::realm_and_bot(db, row.realm_id).await?,
        false => (crate::platform::realm_cache::load(db, owner.realm_id, None).await?, owner.clone()),
    };
    // An alarm answers no client: the send awaits its follow-up.
    let site = Site::of_host(env, database, realm_host);
    let send = SendRequest {
        to: destination_of(row),
        topic: row.channel_id.map(|_| row.topic.clone()),
        content: row.content.clone(),
        read_by_sender: row.read_by_sender != 0,
        client: row.client.clone(),
        queue_id: None,
        local_id: None,
        realm_host: realm_host.to_string(),
        realm_url: site.realm_url.clone(),
    };
    let guard = vec![scheduled_messages::mark_delivered_stmt(row.id, row.revision)?];
    // The guard refusing a message that is no longer pending fails the write (a D1 error,
    // nothing written), like any server-side error, which leaves it pending for the retry.
    match message_send::send(Sender::Known { site: &site, user: &sender, realm: &realm, guard }, &send).await {
        Ok(_) => {}
        // The message broke a rule of sending (access, recipients, topic, ...): the owner
        // has to fix it.
        Err(reason) if reason.status < 500 => return mark_failed(db, env, row, &reason.msg).await,
        Err(err) => return Err(err),
    };
    if is_reminder {
        crate::actions::reminders::notify_removed(env, RealmId(row.realm_id), UserId(owner.id), row.id).await;
        return Ok(());
    }
    let event = Event::ScheduledMessages(ScheduledMessagesEvent::Remove { scheduled_message_id: row.id });
    notify_owner(env, &owner, &event).await;
    Ok(())
}

async fn mark_failed(db: &D1Database, env: &Env, row: &ScheduledMessageRow, reason: &str) -> ApiResult<()> {
    let marked: Option<NewId> = db::first(db, scheduled_messages::mark_failed_stmt(row.id, row.revision, reason)?).await?;
    // Zulip tells of no failed reminder; `GET /reminders` shows it.
    if marked.is_some() && row.delivery_type == scheduled_messages::SEND_LATER {
        let failed = ScheduledMessageRow { failed: 1, ..row.clone() };
        let event = Event::ScheduledMessages(ScheduledMessagesEvent::Update { scheduled_message: scheduled_message_dict(&failed) });
        send_event(env, row.realm_id, &event, &[EventUser::plain(row.sender_id)]).await;
    }
    Ok(())
}

async fn notify_owner(env: &Env, me: &UserRow, event: &Event) {
    send_event(env, me.realm_id, event, &[EventUser::plain(me.id)]).await;
}

fn destination_of(row: &ScheduledMessageRow) -> Destination {
    match row.channel_id {
        Some(channel_id) => Destination::ChannelId(channel_id),
        None => {
            let ids: Vec<i64> = row.to_user_ids.as_deref().and_then(|s| serde_json::from_str(s).ok()).unwrap_or_default();
            Destination::Users(ids.into_iter().map(Principal::Id).collect())
        }
    }
}

fn direct_ids_json(plan: &SendPlan) -> ApiResult<Option<String>> {
    Ok(match plan.channel() {
        Some(_) => None,
        None => Some(serde_json::to_string(&plan.direct_recipients())?),
    })
}

fn fields_of<'a>(plan: &'a SendPlan, to_user_ids: Option<&'a str>, deliver_at: i64, read_by_sender: bool) -> ScheduledFields<'a> {
    ScheduledFields {
        channel_id: plan.channel().map(|(id, _)| id),
        to_user_ids,
        topic: plan.channel().map(|(_, topic)| topic).unwrap_or(""),
        content: plan.content(),
        rendered_content: plan.rendered_html(),
        scheduled_timestamp: deliver_at,
        read_by_sender,
    }
}

fn row_of(id: i64, me: &UserRow, client: &str, f: &ScheduledFields<'_>) -> ScheduledMessageRow {
    ScheduledMessageRow {
        id,
        realm_id: me.realm_id,
        sender_id: me.id,
        channel_id: f.channel_id,
        to_user_ids: f.to_user_ids.map(str::to_string),
        topic: f.topic.to_string(),
        content: f.content.to_string(),
        rendered_content: f.rendered_content.to_string(),
        scheduled_timestamp: f.scheduled_timestamp,
        read_by_sender: f.read_by_sender as i64,
        client: client.to_string(),
        failed: 0,
        revision: 0,
        delivery_type: scheduled_messages::SEND_LATER,
        reminder_target_message_id: None,
    }
}
