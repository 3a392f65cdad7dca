//! Typing notices: validated, then sent as `typing` events to the other participants'
//! queues (channel notices only to clients with `stream_typing_notifications`, which the
//! hub checks), and `typing_edit_message` events of someone editing a message. As in
//! Zulip, only users with `receives_typing_notifications` hear of them, and a channel of
//! more than [`MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS`] subscribers hears of none.
//! Nothing is stored.

use serde_json::{json, Value};

use crate::context::RequestContext;
use crate::db::batch::Batch;
use crate::db::realm_settings;
use crate::db::typing_recipients::{self as db, Recipient, TypingChannel};
use crate::db::users::{self, UserRow};
use crate::domain::messages::accessed_from;
use crate::domain::user_settings::flag_in;
use crate::domain::users::public_email;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, TypingEvent};
use crate::events::{self, EventUser};
use crate::model::ids::{ChannelId, MessageId, RealmId, UserId};

/// Zulip's `MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS`: past it, telling every subscriber
/// of every keystroke costs more than it is worth.
pub const MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS: usize = 100;

/// Who of `users` hear typing notices: those who did not turn them off.
fn receivers(users: &[Recipient]) -> Vec<i64> {
    users.iter().filter(|u| flag_in(&u.settings, "receives_typing_notifications")).map(|u| u.id).collect()
}

/// The channel's subscribers who hear typing notices, or nobody when it is too large.
fn channel_receivers(subscribers: &[Recipient]) -> Vec<i64> {
    if subscribers.len() > MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS {
        return Vec::new();
    }
    receivers(subscribers)
}

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
    let members = batch.add::<Recipient>(db::conversation_of_message_stmt(realm_id, message)?);
    let subscribers = batch.add::<Recipient>(db::subscribers_of_message_channel_stmt(realm_id, message)?);
    let results = batch.run(&ctx.db).await?;
    let accessed = accessed_from(editor, results.first(access)?)?;
    let (recipient, audience) = match accessed.message.channel_id {
        Some(stream_id) => {
            let recipient = json!({"type": "channel", "channel_id": stream_id, "topic": accessed.message.topic});
            (recipient, channel_receivers(&results.rows(subscribers)?))
        }
        None => {
            let user_ids = receivers(&results.rows(members)?);
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
            let hearing = |u: &&UserRow| u.id != sender.id && u.is_active() && flag_in(&u.settings, "receives_typing_notifications");
            let notify: Vec<i64> = found.iter().filter(hearing).map(|u| u.id).collect();
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
            let notify: Vec<i64> = channel_receivers(&subscribers).into_iter().filter(|id| *id != sender.id).collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn recipient(id: i64, settings: &str) -> Recipient {
        Recipient { id, settings: settings.to_string() }
    }

    #[test]
    fn only_who_receives_typing_notifications_hears_them() {
        let users = [recipient(1, "{}"), recipient(2, r#"{"receives_typing_notifications": false}"#), recipient(3, "{}")];
        assert_eq!(receivers(&users), vec![1, 3]);
    }

    #[test]
    fn a_channel_past_the_limit_hears_no_typing() {
        let at_limit: Vec<Recipient> = (1..=MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS as i64).map(|id| recipient(id, "{}")).collect();
        assert_eq!(channel_receivers(&at_limit).len(), MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS);
        let past: Vec<Recipient> = (0..=MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS as i64).map(|id| recipient(id, "{}")).collect();
        assert!(channel_receivers(&past).is_empty());
    }
}
