//! Personal message flags and topic visibility.

use serde_json::json;

use crate::actions::message_flags::do_update_message_flags;
use crate::actions::user_topics::{do_set_user_topic_policy, ChannelAccess, ChannelRef};
use crate::context::RequestContext;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::ChannelId;
use crate::model::message_flags::MessageFlag;
use crate::model::VisibilityPolicy;
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
    if flag == MessageFlag::Read.name() && op == "add" {
        // Read on one device: the notifications shown on the others go away.
        crate::actions::push::schedule_notification_removal(ctx, crate::actions::push::Removal::Read(me.id, update.messages.clone())).await;
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
/// - `topic` at most `max_topic_length` characters.
pub async fn update_user_topic(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let stream_id = ctx.params.required_int("stream_id")?;
    let topic = ctx.params.required_str("topic")?;
    let policy = ctx.params.required_int("visibility_policy")?;
    let policy = VisibilityPolicy::from_code(policy).ok_or_else(|| ApiError::bad_request("Invalid visibility_policy"))?;
    do_set_user_topic_policy(&ctx.db, &ctx.env, &me, &ChannelRef::Id(ChannelId(stream_id)), &topic, policy, ChannelAccess::CanSee).await?;
    Ok(Reply::ok())
}

/// # `PATCH /users/me/subscriptions/muted_topics`
/// Any user, in a channel they are subscribed to (the legacy form of `POST /user_topics`):
/// - exactly one of `stream_id` and `stream` (a channel name);
/// - `topic` required, at most `max_topic_length` characters; it need not have messages;
/// - `op` `add` mutes, `remove` sets the policy back to inherit; repeating either succeeds.
pub async fn update_muted_topic(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let stream_id = ctx.params.int("stream_id")?;
    let stream = ctx.params.str("stream")?;
    let topic = ctx.params.required_str("topic")?;
    let op = ctx.params.required_str("op")?;
    let channel = match (stream_id, stream) {
        (Some(_), Some(_)) => return Err(ApiError::incompatible_parameters(&["stream_id", "stream"])),
        (None, None) => return Err(ApiError::bad_request("Missing 'stream_id' argument")),
        (Some(id), None) => ChannelRef::Id(ChannelId(id)),
        (None, Some(name)) => ChannelRef::Name(name),
    };
    let policy = match op.as_str() {
        "add" => VisibilityPolicy::Muted,
        "remove" => VisibilityPolicy::Inherit,
        _ => return Err(ApiError::bad_request("Invalid op")),
    };
    do_set_user_topic_policy(&ctx.db, &ctx.env, &me, &channel, &topic, policy, ChannelAccess::Subscribed).await?;
    Ok(Reply::ok())
}
