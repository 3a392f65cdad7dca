//! Reminders (Zulip's `schedule_reminder_for_message`): a direct message to its owner at
//! the chosen time, sent by the notification bot, quoting a message the owner may read.
//! They are stored and delivered with the scheduled messages (`scheduled_messages.rs`).

use serde_json::Value;

use crate::actions::scheduled_messages::delivery_time_not_in_future;
use crate::context::RequestContext;
use crate::db::batch::Batch;
use crate::db::messages::PersonRow;
use crate::db::scheduled_messages::{self, NewId, ScheduledFields, ScheduledMessageRow, REMIND};
use crate::db::users::UserRow;
use crate::db::{self, messages};
use crate::domain::messages::{accessed_from, invalid_message};
use crate::domain::reminders::{normalize_note, reminder_content, Target};
use crate::domain::rendering::render_content;
use crate::domain::scheduled_messages::reminder_dict;
use crate::error::{ApiError, ApiResult};
use crate::event_types::RemindersEvent;
use crate::events::{send_event, Event, EventUser};
use crate::model::ids::{MessageId, RealmId, UserId};

/// What `POST /reminders` asks for.
pub struct ReminderRequest<'a> {
    pub message_id: i64,
    pub deliver_at: i64,
    pub note: Option<&'a str>,
}

/// Schedules a reminder of a message `me` may read: one read (access and what the reminder
/// quotes, `db::messages::people_of_message_stmt`), the rendering's read, then the insert. Answers the reminder's id.
pub async fn create_reminder(ctx: &RequestContext, me: &UserRow, req: &ReminderRequest<'_>) -> ApiResult<i64> {
    if req.deliver_at <= db::now() {
        return Err(delivery_time_not_in_future());
    }
    let note = req.note.map(normalize_note).transpose()?;
    let (realm_id, message_id) = (RealmId(me.realm_id), MessageId(req.message_id));
    let mut batch = Batch::new();
    let access = batch.add::<Value>(messages::access_stmt(message_id, realm_id, UserId(me.id))?);
    let people = batch.add::<PersonRow>(messages::people_of_message_stmt(realm_id, message_id)?);
    let results = batch.run(&ctx.db).await?;
    let accessed = accessed_from(me, results.first(access)?)?;
    let people = results.rows(people)?;
    let (sender, conversation) = people.split_first().ok_or_else(invalid_message)?;
    let participants: Vec<i64> = conversation.iter().map(|p| p.id).collect();
    let message = &accessed.message;
    let target = Target {
        id: message.id,
        channel: accessed.channel.as_ref().map(|c| (c.id, c.name.as_str(), message.topic.as_str())),
        participants: &participants,
        content: &message.content,
        sender_id: message.sender_id,
        sender_full_name: &sender.full_name,
    };
    let realm = ctx.realm_state(me.realm_id).await?;
    let content = reminder_content(&ctx.base_url, &target, note.as_deref(), realm.settings.max_message_length as usize);
    let (rendered, _) = render_content(&ctx.db, me.realm_id, &ctx.base_url, &content, false).await?;
    let fields = ScheduledFields {
        channel_id: None,
        to_user_ids: None,
        topic: "",
        content: &content,
        rendered_content: &rendered.html,
        scheduled_timestamp: req.deliver_at,
        read_by_sender: false,
    };
    let inserted: NewId = db::first(&ctx.db, scheduled_messages::insert_reminder_stmt(realm_id, UserId(me.id), message_id, &fields)?)
        .await?
        .ok_or_else(|| ApiError::internal("reminder insert returned no id"))?;
    let row = ScheduledMessageRow {
        id: inserted.id,
        realm_id: me.realm_id,
        sender_id: me.id,
        channel_id: None,
        to_user_ids: Some(format!("[{}]", me.id)),
        topic: String::new(),
        content,
        rendered_content: rendered.html,
        scheduled_timestamp: req.deliver_at,
        read_by_sender: 0,
        client: "Internal".to_string(),
        failed: 0,
        revision: 0,
        delivery_type: REMIND,
        reminder_target_message_id: Some(req.message_id),
    };
    let event = Event::Reminders(RemindersEvent::Add { reminders: vec![reminder_dict(&row)] });
    send_event(&ctx.env, me.realm_id, &event, &[EventUser::plain(me.id)]).await;
    crate::platform::scheduler::arm(&ctx.env, &ctx.database, me.realm_id, &ctx.realm_host).await;
    Ok(inserted.id)
}

/// Cancels an undelivered reminder of `me` ("Reminder does not exist" for anyone else's).
pub async fn delete_reminder(ctx: &RequestContext, me: &UserRow, id: i64) -> ApiResult<()> {
    let result = db::run(&ctx.db, scheduled_messages::delete_stmt(id, UserId(me.id), REMIND)?).await?;
    if result.changes()? == 0 {
        return Err(ApiError::reminder_not_found());
    }
    notify_removed(&ctx.env, RealmId(me.realm_id), UserId(me.id), id).await;
    crate::platform::scheduler::arm(&ctx.env, &ctx.database, me.realm_id, &ctx.realm_host).await;
    Ok(())
}

/// Tells the owner's clients the reminder is gone (cancelled or sent).
pub async fn notify_removed(env: &worker::Env, realm_id: RealmId, owner_id: UserId, reminder_id: i64) {
    send_event(env, realm_id.0, &Event::Reminders(RemindersEvent::Remove { reminder_id }), &[EventUser::plain(owner_id.0)]).await;
}
