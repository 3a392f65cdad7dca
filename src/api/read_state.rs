//! Marking messages read in bulk, and flags over a narrow.

use serde_json::json;

use crate::actions::message_flags::{do_update_message_flags_for_narrow, NarrowFlagsUpdate};
use crate::actions::push::{schedule_notification_removal, Removal};
use crate::actions::read_state::{do_mark_all_as_read, do_mark_channel_as_read};
use crate::api::params::parse_anchor;
use crate::context::RequestContext;
use crate::db::message_window::WindowRequest;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::ChannelId;
use crate::model::message_flags::MessageFlag;
use crate::model::narrow::parse_narrow;
use crate::response::Reply;

/// Zulip's `MAX_MESSAGES_PER_UPDATE`.
const MAX_MESSAGES_PER_UPDATE: i64 = 5000;

/// # `POST /mark_all_as_read`
/// Any user: marks every unread message read. Answers `complete` (always true: one write).
/// Every notification shown on the user's phones is removed (after the response).
pub async fn mark_all_as_read(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    do_mark_all_as_read(&ctx.db, &ctx.env, &me).await?;
    schedule_notification_removal(ctx, Removal::AllRead(me.id)).await;
    Ok(Reply::json(json!({ "complete": true })))
}

/// # `POST /mark_stream_as_read`
/// Any user who can see channel `stream_id` (else "Invalid channel ID"): marks its unread
/// messages read, and removes their notifications from the user's phones.
pub async fn mark_stream_as_read(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let stream_id = ctx.params.required_int("stream_id")?;
    let read = do_mark_channel_as_read(&ctx.db, &ctx.env, &me, ChannelId(stream_id), None).await?;
    schedule_notification_removal(ctx, Removal::Read(me.id, read)).await;
    Ok(Reply::ok())
}

/// # `POST /mark_topic_as_read`
/// Any user who can see channel `stream_id`: marks the unread messages of `topic_name` read;
/// a topic the user received no message of is "No such topic '…'". Removes the messages'
/// notifications from the user's phones.
pub async fn mark_topic_as_read(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let stream_id = ctx.params.required_int("stream_id")?;
    let topic = ctx.params.required_str("topic_name")?;
    let read = do_mark_channel_as_read(&ctx.db, &ctx.env, &me, ChannelId(stream_id), Some(&topic)).await?;
    schedule_notification_removal(ctx, Removal::Read(me.id, read)).await;
    Ok(Reply::ok())
}

/// # `POST /messages/flags/narrow`
/// Any user: `op` the `flag` on the messages `GET /messages` would return for `anchor`,
/// `num_before`, `num_after`, `include_anchor` and `narrow` (at most 5000, clamped as Zulip
/// does). Rules of the flag as `POST /messages/flags`. Answers `processed_count`,
/// `updated_count`, `first_processed_id`, `last_processed_id`, `found_oldest`,
/// `found_newest` (and `ignored_because_not_subscribed_channels` when marking unread).
/// Marking read removes the messages' notifications from the user's phones.
pub async fn update_message_flags_for_narrow(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let anchor = ctx.params.required_str("anchor")?;
    let include_anchor = ctx.params.bool_or("include_anchor", true)?;
    let mut num_before = ctx.params.required_int("num_before")?;
    let mut num_after = ctx.params.required_int("num_after")?;
    let narrow = ctx.params.json("narrow")?.unwrap_or(json!([]));
    let op = ctx.params.required_str("op")?;
    let flag = ctx.params.required_str("flag")?;
    if num_before < 0 {
        return Err(ApiError::bad_request("num_before is too small"));
    }
    if num_after < 0 {
        return Err(ApiError::bad_request("num_after is too small"));
    }
    if num_before > 0 && num_after > 0 && !include_anchor {
        return Err(ApiError::bad_request("The anchor can only be excluded at an end of the range"));
    }
    num_before = num_before.min((MAX_MESSAGES_PER_UPDATE - num_after).max(MAX_MESSAGES_PER_UPDATE / 2));
    num_after = num_after.min(MAX_MESSAGES_PER_UPDATE - num_before);
    let terms = parse_narrow(&narrow)?;
    let anchor = parse_anchor(Some(&anchor), false)?;
    let realm = ctx.realm_state(me.realm_id).await?;
    let window = WindowRequest {
        terms: &terms,
        anchor,
        num_before,
        num_after,
        include_anchor,
        empty_topic_display_name: &realm.settings.empty_topic_display_name,
        with_matches: false,
    };
    let NarrowFlagsUpdate { processed: ids, found_oldest, found_newest, update } =
        do_update_message_flags_for_narrow(&ctx.db, &ctx.env, &me, &window, &op, &flag).await?;
    if flag == MessageFlag::Read.name() && op == "add" {
        schedule_notification_removal(ctx, Removal::Read(me.id, update.messages.clone())).await;
    }
    let mut body = json!({
        "processed_count": ids.len(),
        "updated_count": update.messages.len(),
        "first_processed_id": ids.first(),
        "last_processed_id": ids.last(),
        "found_oldest": found_oldest,
        "found_newest": found_newest,
    });
    if let Some(ignored) = update.ignored_because_not_subscribed_channels {
        body["ignored_because_not_subscribed_channels"] = json!(ignored);
    }
    Ok(Reply::json(body))
}
