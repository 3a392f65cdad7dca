//! Deleting messages (`DELETE /messages/{message_id}`; also the withdrawn resolve notices of
//! message_notifications): the rows go in one batch, then one `delete_message` event.

use std::collections::BTreeSet;

use serde::Deserialize;

use crate::context::RequestContext;
use crate::db::message_edits::{self as q, DeleteSettingsRow, SubscriberRow};
use crate::db::messages::MessageRow;
use crate::db::user_groups;
use crate::db::users::UserRow;
use crate::domain::ids::{ChannelId, MessageId, RealmId};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{DeleteMessageEvent, Event};
use crate::events::{self, EventUser};

/// Zulip's rule: members of `can_delete_any_message_group` delete any message; others only
/// their own (or their bots'), when in `can_delete_own_message_group`, within
/// `message_content_delete_limit_seconds`.
pub async fn check_delete_message(ctx: &RequestContext, user: &UserRow, message_id: MessageId) -> ApiResult<()> {
    let db = &ctx.db;
    let accessed = crate::domain::messages::access_message(db, user, message_id.0).await?;
    let message = accessed.message;
    let settings: DeleteSettingsRow = crate::db::first(q::delete_settings_stmt(db, user.realm_id)?)
        .await?
        .ok_or_else(|| ApiError::internal("realm without delete settings"))?;
    let results = crate::db::run_batch(
        db,
        vec![
            user_groups::is_member_stmt(db, user.realm_id, settings.can_delete_any_message_group, user.id, false)?,
            user_groups::is_member_stmt(db, user.realm_id, settings.can_delete_own_message_group, user.id, false)?,
            crate::db::users::bot_owner_stmt(db, message.sender_id)?,
        ],
    )
    .await?;
    let member = |i: usize| -> ApiResult<bool> {
        Ok(results[i].results::<serde_json::Value>()?.first().and_then(|r| r["is_member"].as_i64()).unwrap_or(0) != 0)
    };
    #[derive(Deserialize)]
    struct Owner {
        bot_owner_id: Option<i64>,
    }
    let owner = results[2].results::<Owner>()?.into_iter().next().and_then(|o| o.bot_owner_id);
    if !member(0)? {
        let denied = || ApiError::bad_request("You don't have permission to delete this message");
        if message.sender_id != user.id && owner != Some(user.id) {
            return Err(denied());
        }
        if !member(1)? {
            return Err(denied());
        }
        if let Some(limit) = settings.message_content_delete_limit_seconds {
            if crate::db::now() - message.date_sent > limit {
                return Err(ApiError::bad_request("The time limit for deleting this message has passed"));
            }
        }
    }
    delete_messages(ctx, RealmId(user.realm_id), &[MessageId(message.id)]).await
}

/// Deletes messages of one conversation and tells everyone who could see them. The event is
/// Zulip's bulk form (`message_ids`); the event queues adapt it for clients without
/// `bulk_message_deletion`.
pub async fn delete_messages(ctx: &RequestContext, realm_id: RealmId, ids: &[MessageId]) -> ApiResult<()> {
    let (db, realm_id) = (&ctx.db, realm_id.0);
    let ids_json = serde_json::to_string(ids)?;
    let messages: Vec<MessageRow> = crate::db::all(crate::db::messages::by_ids_stmt(db, realm_id, &ids_json)?).await?;
    let Some(first) = messages.first() else { return Ok(()) };
    let ids: Vec<i64> = messages.iter().map(|m| m.id).collect();
    let ids_json = serde_json::to_string(&ids)?;

    // Who sees them: everyone with a row, and for channels with shared history every subscriber.
    let mut reads = vec![crate::db::user_messages::holders_stmt(db, &ids_json)?];
    if let Some(channel_id) = first.channel_id {
        reads.push(crate::db::subscriptions::history_public_stmt(db, channel_id)?);
        reads.push(q::subscribers_stmt(db, &[channel_id])?);
    }
    let read = crate::db::run_batch(db, reads).await?;
    let mut users: BTreeSet<i64> = read[0].results::<q::RecipientRow>()?.into_iter().map(|r| r.user_id).collect();
    if first.channel_id.is_some() {
        let shared = read[1].results::<serde_json::Value>()?.first().and_then(|r| r["h"].as_i64()).unwrap_or(0) != 0;
        if shared {
            users.extend(read[2].results::<SubscriberRow>()?.into_iter().filter(|s| s.active != 0).map(|s| s.user_id));
        }
    }

    let mut stmts = Vec::new();
    for chunk in q::chunks(&ids) {
        stmts.extend(q::delete_messages_stmts(db, &chunk)?);
        stmts.push(crate::db::attachments::unlink_messages_stmt(db, &chunk)?);
    }
    crate::db::run_batch(db, stmts).await?;

    let message_ids: Vec<MessageId> = ids.iter().copied().map(MessageId).collect();
    let event = delete_message_event(&message_ids, first.channel_id.map(|c| (ChannelId(c), first.topic.as_str())));
    let users: Vec<EventUser> = users.into_iter().map(EventUser::plain).collect();
    events::send_event(&ctx.env, realm_id, &event, &users).await;
    crate::actions::push::schedule_notification_removal(ctx, crate::actions::push::Removal::Deleted(ids.clone())).await;
    Ok(())
}

/// Zulip's bulk `delete_message` event (`message_ids`); `channel`: the channel id and
/// topic of channel messages. Event queues adapt it for clients without
/// `bulk_message_deletion`.
pub fn delete_message_event(ids: &[MessageId], channel: Option<(ChannelId, &str)>) -> Event {
    Event::DeleteMessage(DeleteMessageEvent {
        message_ids: ids.to_vec(),
        message_type: if channel.is_some() { "stream" } else { "private" },
        stream_id: channel.map(|(id, _)| id),
        topic: channel.map(|(_, topic)| topic.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn delete_event_is_the_bulk_form() {
        assert_eq!(
            serde_json::to_value(delete_message_event(&[MessageId(3), MessageId(4)], Some((ChannelId(7), "t")))).unwrap(),
            json!({"type": "delete_message", "message_ids": [3, 4], "message_type": "stream", "stream_id": 7, "topic": "t"})
        );
        assert_eq!(serde_json::to_value(delete_message_event(&[MessageId(3)], None)).unwrap()["message_type"], "private");
    }
}
