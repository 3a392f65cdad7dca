//! Personal message flags and topic visibility.

use serde_json::json;

use crate::actions::message_flags::do_update_message_flags;
use crate::context::RequestContext;
use crate::db::subscriptions::{self, ChannelViewRow};
use crate::db::{self, realm_settings, user_topics};
use crate::domain::topics::normalize_topic;
use crate::error::{ApiError, ApiResult};
use crate::events::{send_event, Dispatch, EventUser};
use crate::response::Reply;

/// # `POST /messages/flags`
/// Any user: `op` (`add`/`remove`) the `flag` (`read`, `starred`, `collapsed`) on
/// `messages` (JSON list of ids the caller may see). Answers `messages`: the ids changed;
/// when marking unread, also `ignored_because_not_subscribed_channels`. Marking read
/// removes the messages' notifications from the user's phones.
pub async fn update_message_flags(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let messages: Vec<i64> = ctx.params.required_json_as("messages", "a list of integers")?;
    let op = ctx.params.required_str("op")?;
    let flag = ctx.params.required_str("flag")?;
    let update = do_update_message_flags(&ctx.db, &ctx.env, &me, &op, &flag, &messages).await?;
    if flag == "read" && op == "add" {
        // Read on one device: the notifications shown on the others go away.
        crate::actions::push::schedule_notification_removal(ctx, Some(me.id), &update.messages).await;
    }
    let mut body = json!({ "messages": update.messages });
    if let Some(ignored) = update.ignored_because_not_subscribed_channels {
        body["ignored_because_not_subscribed_channels"] = json!(ignored);
    }
    Ok(Reply::json(body))
}

/// # `POST /user_topics`
/// Any user who can see the channel: sets its `visibility_policy` (0 none, 1 muted,
/// 2 unmuted, 3 followed) of `topic` in channel `stream_id`; emits `user_topic`.
pub async fn update_user_topic(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let stream_id = ctx.params.required_int("stream_id")?;
    let topic = ctx.params.required_str("topic")?;
    let policy = ctx.params.required_int("visibility_policy")?;
    if !(0..=3).contains(&policy) {
        return Err(ApiError::bad_request("Invalid visibility_policy"));
    }
    let results = crate::db::run_batch(
        &ctx.db,
        vec![
            realm_settings::by_realm_id_stmt(&ctx.db, me.realm_id)?,
            subscriptions::by_id_for_user_stmt(&ctx.db, me.realm_id, me.id, stream_id)?,
        ],
    )
    .await?;
    let settings: realm_settings::RealmSettingsRow =
        results[0].results()?.into_iter().next().ok_or_else(|| ApiError::internal("no realm settings"))?;
    let channel: Option<ChannelViewRow> = results[1].results()?.into_iter().next();
    let channel = match channel {
        Some(c) if c.subscribed() || (!c.is_private() && !me.is_guest()) => c,
        _ => return Err(ApiError::bad_request("Invalid channel ID")),
    };
    let topic = normalize_topic(&topic, &settings)?;
    let now = db::now();
    user_topics::upsert_stmt(&ctx.db, me.realm_id, me.id, channel.id, &topic, policy, now)?.run().await?;
    let event = json!({ "type": "user_topic", "stream_id": channel.id, "topic_name": topic,
        "last_updated": now, "visibility_policy": policy });
    send_event(
        &ctx.env,
        me.realm_id,
        &Dispatch { event: &event, users: &[EventUser::plain(me.id)], sender_queue_id: None, local_id: None },
    )
    .await;
    Ok(Reply::ok())
}
