//! Typing notices: validated, then sent as `typing` events to the other participants'
//! queues (channel notices only to clients with `stream_typing_notifications`, which the
//! hub checks). Nothing is stored.

use serde_json::json;

use crate::context::RequestContext;
use crate::db::batch::Batch;
use crate::db::realm_settings;
use crate::db::typing_recipients::{self as db, Recipient, TypingChannel};
use crate::db::users::{self, UserRow};
use crate::domain::users::public_email;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, TypingEvent};
use crate::events::{self, EventUser};
use crate::model::ids::{ChannelId, RealmId};

pub enum TypingTarget {
    Direct(Vec<i64>),
    Channel { stream_id: i64, topic: String },
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
