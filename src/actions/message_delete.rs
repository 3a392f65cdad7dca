//! Deleting messages (`DELETE /messages/{message_id}`; also the withdrawn resolve notices of
//! message_notifications, in the move's batch): one batch reads the rows and who sees them
//! and deletes them, then one `delete_message` event.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::Value;

use crate::context::RequestContext;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::message_edits::{self as q, SubscriberRow};
use crate::db::messages::MessageRow;
use crate::db::user_groups::{self, IsMemberRow};
use crate::db::users::UserRow;
use crate::domain::channel_permissions::{ChannelGroupSetting, CAN_DELETE_ANY, CAN_DELETE_OWN};
use crate::domain::messages::accessed_from;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{DeleteMessageEvent, Event};
use crate::events::{self, EventUser};
use crate::model::ids::{ChannelId, GroupId, MessageId, RealmId, UserId};

/// Zulip's rule: members of the organization's or the message's channel's
/// `can_delete_any_message_group` delete any message; others only their own (or their
/// bots'), when in either `can_delete_own_message_group`, within
/// `message_content_delete_limit_seconds`. The settings are the isolate's copy (current
/// under the version authentication read); the access check, both memberships and the
/// sender's bot owner are one read batch, then [`do_delete_messages`] one write batch.
pub async fn check_delete_message(ctx: &RequestContext, user: &UserRow, message_id: MessageId) -> ApiResult<()> {
    let db = &ctx.db;
    let state = ctx.realm_state(user.realm_id).await?;
    let settings = &state.settings;
    let mut batch = Batch::new();
    let access = batch.add::<Value>(crate::db::messages::access_stmt(message_id, RealmId(user.realm_id), UserId(user.id))?);
    let delete_any = batch.add::<IsMemberRow>(user_groups::is_member_stmt(
        RealmId(user.realm_id),
        GroupId(settings.can_delete_any_message_group),
        UserId(user.id),
        false,
    )?);
    let delete_own = batch.add::<IsMemberRow>(user_groups::is_member_stmt(
        RealmId(user.realm_id),
        GroupId(settings.can_delete_own_message_group),
        UserId(user.id),
        false,
    )?);
    let in_channel_group = |setting: &ChannelGroupSetting| {
        crate::db::channels::in_message_channel_group_stmt(RealmId(user.realm_id), message_id, setting.name, UserId(user.id), false)
    };
    let channel_delete_any = batch.add::<IsMemberRow>(in_channel_group(&CAN_DELETE_ANY)?);
    let channel_delete_own = batch.add::<IsMemberRow>(in_channel_group(&CAN_DELETE_OWN)?);
    let owner = batch.add::<BotOwnerRow>(crate::db::users::sender_bot_owner_stmt(message_id.0)?);
    let results = batch.run(db).await?;
    let message = accessed_from(user, results.first(access)?)?.message;
    let member = |slot| -> ApiResult<bool> { Ok(results.first(slot)?.is_some_and(|r: IsMemberRow| r.is_member != 0)) };
    let owner = results.first(owner)?.and_then(|o| o.bot_owner_id);
    if !member(delete_any)? && !member(channel_delete_any)? {
        let denied = || ApiError::bad_request("You don't have permission to delete this message");
        if message.sender_id != user.id && owner != Some(user.id) {
            return Err(denied());
        }
        if !member(delete_own)? && !member(channel_delete_own)? {
            return Err(denied());
        }
        if let Some(limit) = settings.message_content_delete_limit_seconds {
            if crate::db::now() - message.date_sent > limit {
                return Err(ApiError::bad_request("The time limit for deleting this message has passed"));
            }
        }
    }
    do_delete_messages(ctx, RealmId(user.realm_id), &[message]).await
}

/// Deletes messages of one conversation and tells everyone who could see them. The event is
/// Zulip's bulk form (`message_ids`); the event queues adapt it for clients without
/// `bulk_message_deletion`.
pub async fn delete_messages(ctx: &RequestContext, realm_id: RealmId, ids: &[MessageId]) -> ApiResult<()> {
    let ids_json = serde_json::to_string(ids)?;
    let messages: Vec<MessageRow> = crate::db::all(&ctx.db, crate::db::messages::by_ids_stmt(realm_id.0, &ids_json)?).await?;
    do_delete_messages(ctx, realm_id, &messages).await
}

/// [`delete_messages`] of rows already read: one batch ([`add_deletion`]), then the event.
async fn do_delete_messages(ctx: &RequestContext, realm_id: RealmId, messages: &[MessageRow]) -> ApiResult<()> {
    let Some(first) = messages.first() else { return Ok(()) };
    let ids: Vec<i64> = messages.iter().map(|m| m.id).collect();
    let mut batch = Batch::new();
    let pending = add_deletion(&mut batch, realm_id, &ids, first.channel_id.map(ChannelId))?;
    let results = batch.run(&ctx.db).await?;
    finish_deletion(ctx, realm_id, &results, pending).await
}

/// Where a deletion's statements sit in a batch, for [`finish_deletion`].
pub struct PendingDeletion {
    messages: Slot<MessageRow>,
    holders: Slot<q::RecipientRow>,
    shared_history: Option<(Slot<HistoryPublicRow>, Slot<SubscriberRow>)>,
}

/// Adds the deletion of messages `ids` of one conversation (in channel `channel_id`, if
/// any) to `batch`: first the reads of the rows and of who sees them (everyone with a row,
/// and for channels with shared history every subscriber), then the deletion. Another
/// action's batch may hold it after its own writes.
pub fn add_deletion(batch: &mut Batch, realm_id: RealmId, ids: &[i64], channel_id: Option<ChannelId>) -> ApiResult<PendingDeletion> {
    let ids_json = serde_json::to_string(ids)?;
    let messages = batch.add(crate::db::messages::by_ids_stmt(realm_id.0, &ids_json)?);
    let holders = batch.add(crate::db::user_messages::holders_stmt(&ids_json)?);
    let shared_history = match channel_id {
        Some(channel_id) => Some((
            batch.add(crate::db::subscriptions::history_public_stmt(channel_id.0)?),
            batch.add(q::subscribers_stmt(&[channel_id.0])?),
        )),
        None => None,
    };
    for chunk in q::chunks(ids) {
        for stmt in q::delete_messages_stmts(&chunk)? {
            batch.add::<Value>(stmt);
        }
        batch.add::<Value>(crate::db::attachments::unlink_messages_stmt(&chunk)?);
    }
    Ok(PendingDeletion { messages, holders, shared_history })
}

/// The `delete_message` event of a deletion committed in `results` (none when none of its
/// messages was there), and the removal of their push notifications.
pub async fn finish_deletion(ctx: &RequestContext, realm_id: RealmId, results: &BatchResults, pending: PendingDeletion) -> ApiResult<()> {
    let messages = results.rows(pending.messages)?;
    let Some(first) = messages.first() else { return Ok(()) };
    let ids: Vec<i64> = messages.iter().map(|m| m.id).collect();
    let mut users: BTreeSet<i64> = results.rows(pending.holders)?.into_iter().map(|r| r.user_id).collect();
    if let (Some((history_public, subscribers)), Some(_)) = (pending.shared_history, first.channel_id) {
        if results.first(history_public)?.is_some_and(|r| r.h != 0) {
            users.extend(results.rows(subscribers)?.into_iter().filter(|s| s.active != 0).map(|s| s.user_id));
        }
    }

    let message_ids: Vec<MessageId> = ids.iter().copied().map(MessageId).collect();
    let event = delete_message_event(&message_ids, first.channel_id.map(|c| (ChannelId(c), first.topic.as_str())));
    let users: Vec<EventUser> = users.into_iter().map(EventUser::plain).collect();
    events::send_event(&ctx.env, realm_id.0, &event, &users).await;
    crate::actions::push::schedule_notification_removal(ctx, crate::actions::push::Removal::Deleted(ids)).await;
    Ok(())
}

#[derive(Deserialize)]
struct BotOwnerRow {
    bot_owner_id: Option<i64>,
}

#[derive(Deserialize)]
struct HistoryPublicRow {
    h: i64,
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
