//! Sending and fetching messages.

use serde_json::{json, Value};

use crate::actions::message_send::{self, SendRequest, Sender};
use crate::api::params::{message_to_send, parse_anchor};
use crate::context::RequestContext;
use crate::domain::messages::{MessageOptions, MessageWindow, OneMessage};
use crate::domain::narrow_matches::NarrowMatches;
use crate::error::{ApiError, ApiResult};
use crate::model::narrow::parse_narrow;
use crate::params::{parse_int, Params};
use crate::response::Reply;

/// # `POST /messages`
/// Any user: sends a channel message (`type` `stream`/`channel`, `to` a channel name or id,
/// `topic` or its alias `subject`) or a direct message (`type` `direct`/`private`, `to` user
/// ids or emails). Answers `id` and, when sending changed the sender's visibility policy of
/// the topic, `automatic_new_visibility_policy`.
/// - One D1 round trip for a repeated send (the recalled send of `actions::message_send`);
///   otherwise one read with authentication and one write.
pub async fn send_message(ctx: &RequestContext) -> ApiResult<Reply> {
    let req = ctx.after_authentication(message_to_send(ctx).and_then(|message| from_queue(&ctx.params, message))).await?;
    let sent = message_send::send(Sender::Request(ctx), &req).await?;
    let mut body = json!({ "id": sent.id });
    if let Some(policy) = sent.automatic_new_visibility_policy {
        body["automatic_new_visibility_policy"] = json!(policy);
    }
    Ok(Reply::json(body))
}

/// `message` sent from the event queue `queue_id` as `local_id` (both or neither), which
/// that queue's `message` event then echoes.
fn from_queue(params: &Params, message: SendRequest) -> ApiResult<SendRequest> {
    let queue_id = params.str("queue_id")?;
    let local_id = params.str("local_id")?;
    match (&queue_id, &local_id) {
        (Some(_), None) => Err(ApiError::missing_argument("local_id")),
        (None, Some(_)) => Err(ApiError::missing_argument("queue_id")),
        _ => Ok(SendRequest { queue_id, local_id, ..message }),
    }
}

fn message_options(ctx: &RequestContext, client_gravatar_default: bool) -> ApiResult<MessageOptions> {
    Ok(MessageOptions {
        apply_markdown: ctx.params.bool_or("apply_markdown", true)?,
        allow_empty_topic_name: ctx.params.bool_or("allow_empty_topic_name", false)?,
        client_gravatar: ctx.params.bool_or("client_gravatar", client_gravatar_default)?,
    })
}

/// # `GET /messages/{message_id}`
/// Any user who may see the message (else `BAD_REQUEST` "Invalid message(s)"): `message`
/// (the Message object) and the deprecated `raw_content`.
/// - One D1 round trip once this isolate has seen the caller's key: the message's access
///   row and context are read in the batch that authenticates (`RequestContext::read_as_user`).
pub async fn get_message(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let query = ctx.after_authentication(one_message(ctx, id)).await?;
    let (_, _, body) = ctx.read_as_user(&query).await?;
    Ok(Reply::json(body))
}

fn one_message(ctx: &RequestContext, id: &str) -> ApiResult<OneMessage> {
    let opts = message_options(ctx, false)?;
    let message_id = parse_int(id).ok_or_else(crate::domain::messages::invalid_message)?;
    Ok(OneMessage { message_id, opts, realm_host: ctx.realm_host.clone() })
}

/// Zulip's `MAX_MESSAGES_PER_FETCH`.
const MAX_MESSAGES_PER_FETCH: i64 = 5000;

/// # `GET /messages`
/// Any user: messages around `anchor` (an id, `newest`, `oldest`, `first_unread`) matching
/// `narrow`, `num_before` before and `num_after` after it, oldest first, with
/// `found_anchor`, `found_newest`, `found_oldest`, `history_limited` and `anchor`. Without a
/// channel term only messages the caller received are included; with one, the channel's
/// history the caller may read.
/// - One D1 round trip once this isolate has seen the caller's key: the window and its
///   messages' context are read in the batch that authenticates.
pub async fn get_messages(ctx: &RequestContext) -> ApiResult<Reply> {
    let window = ctx.after_authentication(message_window(ctx)).await?;
    let (_, _, body) = ctx.read_as_user(&window).await?;
    Ok(Reply::json(body))
}

fn message_window(ctx: &RequestContext) -> ApiResult<MessageWindow> {
    let opts = message_options(ctx, true)?;
    let anchor_param = ctx.params.str("anchor")?;
    let use_first_unread = ctx.params.bool_or("use_first_unread_anchor", false)?;
    let num_before = ctx.params.required_int("num_before")?;
    let num_after = ctx.params.required_int("num_after")?;
    let include_anchor = ctx.params.bool_or("include_anchor", true)?;
    let narrow = ctx.params.json("narrow")?.unwrap_or(json!([]));
    if num_before < 0 || num_after < 0 {
        return Err(ApiError::bad_request("Invalid num_before or num_after"));
    }
    if num_before + num_after > MAX_MESSAGES_PER_FETCH {
        return Err(ApiError::bad_request(format!("Too many messages requested (maximum {MAX_MESSAGES_PER_FETCH}).")));
    }
    let terms = parse_narrow(&narrow)?;
    let anchor = parse_anchor(anchor_param.as_deref(), use_first_unread)?;
    Ok(MessageWindow { terms, anchor, num_before, num_after, include_anchor, opts, realm_host: ctx.realm_host.clone() })
}

/// # `GET /messages/matches_narrow`
/// Any user: of the messages `msg_ids` that the caller received, those `narrow` matches,
/// as `messages`: `{"<id>": {"match_content", "match_subject"}}` (a search's matches
/// highlighted as in `GET /messages`). One round trip with authentication.
pub async fn matches_narrow(ctx: &RequestContext) -> ApiResult<Reply> {
    let message_ids: Vec<i64> = ctx.params.required_json_as("msg_ids", "a list of integers")?;
    let terms = parse_narrow(&ctx.params.required_json_as::<Value>("narrow", "a list of narrow terms")?)?;
    let (_, _, body) = ctx.read_as_user(&NarrowMatches { terms, message_ids }).await?;
    Ok(Reply::json(body))
}

/// # `POST /messages/{message_id}/report`
/// Any user, of a message they may read: `report_type` (`spam`, `harassment`,
/// `inappropriate`, `norms`, `other`) and `description` (at most 1,000 characters; needed
/// for `other`) go to the organization's moderation request channel as a notification-bot
/// message. No such channel: "Moderation request channel must be specified to enable
/// message reporting."
pub async fn report_message(ctx: &RequestContext, message_id: &str) -> ApiResult<Reply> {
    let id = parse_int(message_id).ok_or_else(crate::domain::messages::invalid_message)?;
    let me = ctx.user().await?;
    let report_type = ctx.params.required_str("report_type")?;
    let description = ctx.params.str("description")?.unwrap_or_default();
    crate::actions::message_reports::report_message(ctx, &me, id, &report_type, &description).await?;
    Ok(Reply::json(json!({})))
}

/// # `POST /messages/render`
/// Any user: `rendered`, the HTML that sending `content` would store (mentions resolved in
/// the caller's organization); nothing is saved.
pub async fn render_message(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let content = ctx.params.required_str("content")?;
    let (rendered, _) = crate::domain::rendering::render_content(
        &ctx.db,
        me.realm_id,
        &ctx.base_url,
        &content,
        crate::domain::user_settings::flag(&me, "translate_emoticons"),
    )
    .await?;
    Ok(Reply::json(json!({ "rendered": rendered.html })))
}
