//! The notification bot's messages about moves: "has marked this topic as resolved" for a
//! pure resolve/unresolve (undone within a minute: the notice is deleted instead), and the
//! "moved here from" / "moved to" messages per `send_notification_to_*_thread`.

use serde::Deserialize;

use crate::actions::message_delete;
use crate::context::RequestContext;
use crate::db::message_edits::{self as q, MoveChannelRow, SubscriberRow, KIND_NORMAL, KIND_RESOLVE_TOPIC_NOTIFICATION};
use crate::db::messages::{self, MessageRow, NewMessage};
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::user_messages;
use crate::db::users::UserRow;
use crate::domain::edit_rendering;
use crate::domain::ids::{MessageId, RealmId};
use crate::domain::message_edit::{self as rules, EditPlan, RESOLVE_UNDO_GRACE_SECONDS};
use crate::domain::message_flags::{self, flag_names, READ};
use crate::domain::messages::{message_dict, MessageContext, MessageOptions};
use crate::error::{ApiError, ApiResult};
use crate::events::{self, Event, EventUser};

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

#[derive(Deserialize)]
struct IdRow {
    id: i64,
}

/// What the notification bot says, and where.
struct BotMessage<'a> {
    channel: &'a MoveChannelRow,
    topic: &'a str,
    content: &'a str,
    kind: i64,
}

/// Sends a message from the organization's notification bot to a channel topic (created on
/// first use), read for the acting user, and its `message` event.
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
    let setup = crate::db::run_batch(
        db,
        vec![
            q::ensure_notification_bot_stmt(db, realm_id, now)?,
            crate::db::users::by_delivery_email_stmt(db, realm_id, q::NOTIFICATION_BOT_EMAIL)?,
            q::subscribers_stmt(db, &[channel.id])?,
        ],
    )
    .await?;
    let bot: UserRow = setup[1].results()?.into_iter().next().ok_or_else(|| ApiError::internal("notification bot missing"))?;
    let subscribers: Vec<i64> = setup[2].results::<SubscriberRow>()?.into_iter().filter(|s| s.active != 0).map(|s| s.user_id).collect();
    let rendered = edit_rendering::render(db, realm_id, content, false).await?;
    let rows: Vec<(i64, i64)> = subscribers
        .iter()
        .map(|id| {
            (
                *id,
                if *id == acting.id { READ } else { 0 }
                    | if rendered.mentioned_user_ids.contains(id) { message_flags::MENTIONED } else { 0 },
            )
        })
        .collect();
    let rows_json = serde_json::to_string(&rows.iter().map(|(u, f)| [*u, *f]).collect::<Vec<_>>())?;
    let insert = messages::insert_stmt(
        db,
        &NewMessage {
            realm_id,
            sender_id: bot.id,
            recipient: messages::RecipientRef::Id(channel.recipient_id),
            channel_id: Some(channel.id),
            topic,
            content,
            rendered_content: &rendered.html,
            date_sent: now,
            client: "Internal",
            is_me_message: false,
            has_image: false,
            has_link: rendered.html.contains("<a "),
        },
    )?;
    let results = crate::db::run_batch(
        db,
        vec![insert, q::set_kind_of_inserted_stmt(db, kind)?, user_messages::insert_for_new_message_stmt(db, &rows_json)?],
    )
    .await?;
    let id = results[0].results::<IdRow>()?.first().map(|r| r.id).ok_or_else(|| ApiError::internal("message insert returned no id"))?;

    let stored: Vec<MessageRow> = crate::db::all(messages::by_ids_stmt(db, realm_id, &format!("[{id}]"))?).await?;
    let host = ctx.base_url.split_once("://").map(|(_, h)| h).unwrap_or(&ctx.base_url).to_string();
    let mctx = MessageContext::load(db, acting, settings, &host, &stored).await?;
    if let Some(row) = stored.first() {
        let mut dict = message_dict(row, None, &mctx, &MessageOptions::default());
        // Each receiver's flags travel beside the message (EventUser), not inside it.
        if let serde_json::Value::Object(map) = &mut dict {
            map.remove("flags");
        }
        let event = Event::Message { message: dict, raw_content: None };
        let users: Vec<EventUser> = rows.iter().map(|(u, f)| EventUser { id: *u, flags: Some(flag_names(Some(*f))) }).collect();
        events::send_event(&ctx.env, realm_id, &event, &users).await;
    }
    Ok(id)
}
