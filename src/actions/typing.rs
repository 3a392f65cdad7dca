//! Typing notices: validated, then sent as `typing` events to the other participants'
//! queues (channel notices only to clients with `stream_typing_notifications`, which the
//! hub checks), and `typing_edit_message` events of someone editing a message. Nothing is
//! stored.

use serde_json::{json, Value};

use crate::context::RequestContext;
use crate::db::batch::Batch;
use crate::db::realm_settings;
use crate::db::typing_recipients::{self as db, Recipient, TypingChannel};
use crate::db::user_messages::HolderRow;
use crate::db::users::{self, UserRow};
use crate::domain::messages::accessed_from;
use crate::domain::users::public_email;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, TypingEvent};
use crate::events::{self, EventUser};
use crate::model::ids::{ChannelId, MessageId, RealmId, UserId};

pub enum TypingTarget {
    Direct(Vec<i64>),
    Channel { stream_id: i64, topic: String },
}

/// Tells whom an edit of the message would reach that `editor` started or stopped editing
/// it: one read batch (the editor's access to the message, the conversation's members and
/// the channel's subscribers), then one event.
pub async fn check_send_edit_typing_notification(ctx: &RequestContext, editor: &UserRow, start: bool, message_id: i64) -> ApiResult<()> {
    let (realm_id, message) = (RealmId(editor.realm_id), MessageId(message_id));
    let mut batch = Batch::new();
    let access = batch.add::<Value>(crate::db::messages::access_stmt(message, realm_id, UserId(editor.id))?);
    let members = batch.add::<HolderRow>(crate::db::user_messages::holder_ids_stmt(message_id)?);
    let subscribers = batch.add::<Recipient>(db::subscribers_of_message_channel_stmt(realm_id, message)?);
    let results = batch.run(&ctx.db).await?;
    let accessed = accessed_from(editor, results.first(access)?)?;
    let (recipient, audience) = match accessed.message.channel_id {
        Some(stream_id) => {
            let recipient = json!({"type": "channel", "stream_id": stream_id, "topic": accessed.message.topic});
            (recipient, results.rows(subscribers)?.into_iter().map(|u| u.id).collect::<Vec<i64>>())
        }
        None => {
            let mut user_ids: Vec<i64> = results.rows(members)?.into_iter().map(|r| r.user_id).collect();
            user_ids.sort_unstable();
            (json!({"type": "direct", "user_ids": user_ids}), user_ids)
        }
    };
    let op = if start { "start" } else { "stop" };
    let event = Event::TypingEditMessage { op, sender_id: editor.id, message_id, recipient };
    let users: Vec<EventUser> = audience.into_iter().filter(|id| *id != editor.id).map(EventUser::plain).collect();
    if !users.is_empty() {
        events::send_event(&ctx.env, editor.realm_id, &event, &users).await;
    }
    Ok(())
}

pub async fn check_send_typing_notification(ctx: &RequestContext, sender: &UserRow, start: bool, target: TypingTarget) -> ApiResult<()> {
    let op = if start { "start" } else { "stop" };
    let sender_dict = json!({"user_id": sender.id, "email": public_email(sender, &ctx.realm_host)});
    let (event, notify) = match target {
        TypingTarget::Direct(to) => {
            if to.is_empty() {
                return Err(ApiError::bad_request("Empty 'to' list"));
            }
            let mut ids = to.clone();
            ids.push(sender.id);
            ids.sort_unstable();
            ids.dedup();
            let mut found: Vec<UserRow> =
                crate::db::all(&ctx.db, users::by_ids_stmt(sender.realm_id, &serde_json::to_string(&ids)?)?).await?;
            if let Some(bad) = to.iter().find(|id| !found.iter().any(|u| u.id == **id)) {
                return Err(ApiError::bad_request(format!("Invalid user ID {bad}")));
            }
            found.sort_unstable_by_key(|u| u.id);
            let recipients: Vec<_> = found.iter().map(|u| json!({"user_id": u.id, "email": public_email(u, &ctx.realm_host)})).collect();
            let notify: Vec<i64> = found.iter().filter(|u| u.id != sender.id && u.is_active()).map(|u| u.id).collect();
            (
                TypingEvent { op, message_type: "direct", sender: sender_dict, recipients: Some(recipients), stream_id: None, topic: None },
                notify,
            )
        }
        TypingTarget::Channel { stream_id, topic } => {
            let mut batch = Batch::new();
            let channel = batch.add::<TypingChannel>(db::channel_stmt(RealmId(sender.realm_id), ChannelId(stream_id))?);
            let subscribers = batch.add::<Recipient>(db::subscribers_stmt(RealmId(sender.realm_id), ChannelId(stream_id))?);
            let settings = batch.add::<realm_settings::RealmSettingsRow>(realm_settings::by_realm_id_stmt(sender.realm_id)?);
            let results = batch.run(&ctx.db).await?;
            let channel = results.first(channel)?;
            let subscribers = results.rows(subscribers)?;
            let settings = results.first(settings)?;
            let subscribed = subscribers.iter().any(|u| u.id == sender.id);
            let channel = channel
                .filter(|c| crate::domain::channels::access::can_access_content(sender, subscribed, c.invite_only != 0))
                .ok_or_else(ApiError::invalid_channel_id)?;
            let display = settings.map(|s| s.empty_topic_display_name).unwrap_or_default();
            let topic = topic.trim().to_string();
            let topic = if topic == "(no topic)" || topic == display { String::new() } else { topic };
            let _ = channel.is_archived;
            let notify: Vec<i64> = subscribers.iter().filter(|u| u.id != sender.id).map(|u| u.id).collect();
            (
                TypingEvent {
                    op,
                    message_type: "stream",
                    sender: sender_dict,
                    recipients: None,
                    stream_id: Some(channel.id),
                    topic: Some(topic),
                },
                notify,
            )
        }
    };
    let users: Vec<EventUser> = notify.into_iter().map(EventUser::plain).collect();
    if !users.is_empty() {
        events::send_event(&ctx.env, sender.realm_id, &Event::Typing(event), &users).await;
    }
    Ok(())
}
