//! `POST /typing`: typing notices, kept as no server state.

use crate::actions::typing::{self, TypingTarget};
use crate::context::RequestContext;
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

/// # `POST /typing`
/// Any user. Starts or stops a typing notice; no state is kept.
/// - `op`: `start` | `stop`.
/// - `type`: `direct` (default; `to` is a JSON list of user ids), `stream`/`channel`
///   (`stream_id` and `topic` required; `(no topic)` reads as the empty topic).
///   `private` is no longer accepted.
pub async fn set_typing_status(ctx: &RequestContext) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let p = &ctx.params;
    let start = typing_op(ctx)?;
    let target = match p.str("type")?.as_deref().unwrap_or("direct") {
        "direct" => {
            p.accept("stream_id");
            p.accept("topic");
            let to: Vec<i64> = p.json_as("to", "a list of integers")?.ok_or_else(|| ApiError::missing_argument("to"))?;
            TypingTarget::Direct(to)
        }
        "stream" | "channel" => {
            p.accept("to");
            let stream_id = p.int("stream_id")?.ok_or_else(|| ApiError::bad_request("Missing stream_id"))?;
            let topic = p.str("topic")?.ok_or_else(|| ApiError::bad_request("Missing topic"))?;
            TypingTarget::Channel { stream_id, topic }
        }
        _ => return Err(ApiError::bad_request("Invalid type")),
    };
    typing::check_send_typing_notification(ctx, &user, start, target).await?;
    Ok(Reply::ok())
}

/// # `POST /messages/{message_id}/typing`
/// Any user who may access the message ("Invalid message(s)" otherwise): `op` (`start` or
/// `stop`) says they started or stopped editing it. A `typing_edit_message` event goes to
/// whom the edit would reach: the channel's subscribers, or the conversation's members.
pub async fn set_typing_status_for_message_edit(ctx: &RequestContext, message_id: &str) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let start = typing_op(ctx)?;
    let message_id = crate::params::parse_int(message_id).ok_or_else(crate::domain::messages::invalid_message)?;
    typing::check_send_edit_typing_notification(ctx, &user, start, message_id).await?;
    Ok(Reply::ok())
}

/// `op`: `start` (true) or `stop`.
fn typing_op(ctx: &RequestContext) -> ApiResult<bool> {
    match ctx.params.required_str("op")?.as_str() {
        "start" => Ok(true),
        "stop" => Ok(false),
        _ => Err(ApiError::bad_request("Invalid op")),
    }
}
