//! The notification bot's messages about moves: "has marked this topic as resolved" for a
//! pure resolve/unresolve (undone within a minute: the notice is deleted instead), and the
//! "moved here from" / "moved to" messages per `send_notification_to_*_thread`.

use serde_json::Value;

use crate::actions::message_delete;
use crate::actions::message_send::{self, Destination, PlannedChannel, SendRequest};
use crate::context::RequestContext;
use crate::db::batch::Batch;
use crate::db::message_edits::{self as q, MoveChannelRow, SubscriberRow, KIND_NORMAL, KIND_RESOLVE_TOPIC_NOTIFICATION};
use crate::db::messages::MessageRow;
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::users::UserRow;
use crate::domain::ids::{MessageId, RealmId};
use crate::domain::message_edit::{self as rules, EditPlan, RESOLVE_UNDO_GRACE_SECONDS};
use crate::domain::rendering::ResolutionReads;
use crate::error::{ApiError, ApiResult};
use crate::markdown;

/// What the notifications of a move are about.
pub struct MoveNotice<'a> {
    pub message: &'a MessageRow,
    pub plan: &'a EditPlan,
    pub orig_channel: &'a MoveChannelRow,
    pub target_channel: &'a MoveChannelRow,
    pub changed_ids: &'a [i64],
    pub moved_all_visible: bool,
    pub target_had_visible_messages: bool,
    /// The newest message of the target topic after the move: id, send time, kind.
    pub last_target_message: Option<(i64, i64, i64)>,
    pub notify_old: bool,
    pub notify_new: bool,
    pub settings: &'a RealmSettingsRow,
}

pub async fn after_move(ctx: &RequestContext, editor: &UserRow, n: &MoveNotice<'_>, now: i64) -> ApiResult<()> {
    let plan = n.plan;
    let orig_topic = n.message.topic.as_str();
    let target_topic = plan.topic.as_deref().unwrap_or(orig_topic);
    if plan.topic.is_some() && plan.content.is_none() && plan.stream_id.is_none() && plan.is_resolve_toggle() {
        match n.last_target_message {
            Some((id, sent, kind)) if kind == KIND_RESOLVE_TOPIC_NOTIFICATION && now - sent <= RESOLVE_UNDO_GRACE_SECONDS => {
                message_delete::delete_messages(ctx, RealmId(editor.realm_id), &[MessageId(id)]).await?;
            }
            _ => {
                let text = rules::resolve_notification(editor, plan.topic_resolved);
                send_bot_message(
                    ctx,
                    editor,
                    n.settings,
                    BotMessage { channel: n.orig_channel, topic: target_topic, content: &text, kind: KIND_RESOLVE_TOPIC_NOTIFICATION },
                    now,
                )
                .await?;
            }
        }
    }
    let count = n.changed_ids.len();
    if n.notify_new {
        let old_location = rules::topic_link(&ctx.base_url, n.orig_channel.id, &n.orig_channel.name, orig_topic);
        let link = rules::narrow_url(&ctx.base_url, n.target_channel.id, &n.target_channel.name, target_topic, Some(n.message.id));
        let text =
            rules::new_thread_notification(plan, n.moved_all_visible, n.target_had_visible_messages, count, editor, &old_location, &link);
        if let Some(text) = text {
            send_bot_message(
                ctx,
                editor,
                n.settings,
                BotMessage { channel: n.target_channel, topic: target_topic, content: &text, kind: KIND_NORMAL },
                now,
            )
            .await?;
        }
    }
    if n.notify_old {
        let new_location = rules::topic_link(&ctx.base_url, n.target_channel.id, &n.target_channel.name, target_topic);
        let text = rules::old_thread_notification(n.moved_all_visible, count, editor, &new_location);
        send_bot_message(
            ctx,
            editor,
            n.settings,
            BotMessage { channel: n.orig_channel, topic: orig_topic, content: &text, kind: KIND_NORMAL },
            now,
        )
        .await?;
    }
    Ok(())
}

/// What the notification bot says, and where.
struct BotMessage<'a> {
    channel: &'a MoveChannelRow,
    topic: &'a str,
    content: &'a str,
    kind: i64,
}

/// Sends a message from the organization's notification bot to a channel topic (created on
/// first use), read for the acting user, through the send path: one read batch (the bot,
/// the channel's subscribers, what the content mentions), [`message_send::plan_bot_message`],
/// then [`message_send::commit_send`] (one write batch, then the `message` event).
async fn send_bot_message(
    ctx: &RequestContext,
    acting: &UserRow,
    settings: &RealmSettingsRow,
    bot_message: BotMessage<'_>,
    now: i64,
) -> ApiResult<i64> {
    let BotMessage { channel, topic, content, kind } = bot_message;
    let db = &ctx.db;
    let realm_id = acting.realm_id;
    let mut batch = Batch::new();
    batch.add::<Value>(q::ensure_notification_bot_stmt(db, realm_id, now)?);
    let bot = batch.add::<UserRow>(crate::db::users::by_delivery_email_stmt(db, realm_id, q::NOTIFICATION_BOT_EMAIL)?);
    let subscribers = batch.add::<SubscriberRow>(q::subscribers_stmt(db, &[channel.id])?);
    let resolution = ResolutionReads::add(&mut batch, db, realm_id, &markdown::references(content), None)?;
    let results = batch.run(db).await?;
    let bot = results.first(bot)?.ok_or_else(|| ApiError::internal("notification bot missing"))?;
    let subscribers: Vec<i64> = results.rows(subscribers)?.into_iter().filter(|s| s.active != 0).map(|s| s.user_id).collect();
    let (resolved, group_members) = resolution.take(&results)?;
    let message = message_send::BotMessage {
        bot: &bot,
        channel: PlannedChannel { id: channel.id, name: channel.name.clone(), recipient_id: channel.recipient_id },
        topic,
        content,
        subscribers: &subscribers,
        read_for: acting.id,
    };
    let plan = message_send::plan_bot_message(message, settings, &resolved, &group_members, now);
    let send = SendRequest {
        to: Destination::ChannelId(channel.id),
        topic: Some(topic.to_string()),
        content: content.to_string(),
        read_by_sender: false,
        client: "Internal".to_string(),
        queue_id: None,
        local_id: None,
        realm_url: ctx.base_url.clone(),
        realm_host: ctx.base_url.split_once("://").map(|(_, host)| host).unwrap_or(&ctx.base_url).to_string(),
    };
    let sent = message_send::commit_send(db, &ctx.env, &plan, &send, vec![q::set_kind_of_inserted_stmt(db, kind)?]).await?;
    Ok(sent.id)
}
