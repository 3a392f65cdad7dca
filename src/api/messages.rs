//! Sending and fetching messages.

use serde_json::{json, Value};

use crate::actions::channels::Principal;
use crate::actions::message_send::{self, Destination, SendRequest};
use crate::context::RequestContext;
use crate::db::message_window::{Anchor, LARGER_THAN_MAX_MESSAGE_ID};
use crate::domain::messages::{MessageOptions, MessageWindow, OneMessage};
use crate::domain::narrow::parse_narrow;
use crate::error::{ApiError, ApiResult};
use crate::params::{json_value, parse_int};
use crate::response::Reply;

/// `host[:port]` of the organization.
pub fn realm_host(ctx: &RequestContext) -> String {
    ctx.base_url.split_once("://").map(|(_, host)| host).unwrap_or(&ctx.base_url).to_string()
}

/// A channel as `to` names it: a JSON string or integer, a one-element JSON list, or the
/// bare name.
pub fn channel_destination(to: &str) -> ApiResult<Destination> {
    match json_value(to) {
        Some(Value::Number(n)) => n.as_i64().map(Destination::ChannelId).ok_or_else(|| ApiError::bad_request("Invalid channel ID")),
        Some(Value::String(s)) => Ok(Destination::ChannelName(s)),
        Some(Value::Array(list)) => match list.as_slice() {
            [Value::Number(n)] => n.as_i64().map(Destination::ChannelId).ok_or_else(|| ApiError::bad_request("Invalid channel ID")),
            [Value::String(s)] => Ok(Destination::ChannelName(s.clone())),
            _ => Err(ApiError::bad_request("Expected exactly one channel")),
        },
        _ => Ok(Destination::ChannelName(to.to_string())),
    }
}

/// Direct-message recipients as `to` names them: a JSON list of user ids or of emails (not
/// both), a single id, or comma-separated emails.
pub fn direct_destination(to: &str) -> ApiResult<Destination> {
    let mixed = || ApiError::bad_request("Recipient lists may contain emails or user IDs, but not both.");
    match json_value(to) {
        Some(Value::Array(list)) => {
            let principals: Vec<Principal> = list
                .iter()
                .map(|v| match v {
                    Value::Number(n) => n.as_i64().map(Principal::Id).ok_or_else(|| ApiError::bad_request("Invalid user ID")),
                    Value::String(s) => Ok(Principal::Email(s.trim().to_string())),
                    _ => Err(ApiError::invalid_argument("to", "a list of user ids or emails")),
                })
                .collect::<ApiResult<_>>()?;
            let ids = principals.iter().filter(|p| matches!(p, Principal::Id(_))).count();
            if ids != 0 && ids != principals.len() {
                return Err(mixed());
            }
            Ok(Destination::Users(principals))
        }
        Some(Value::Number(n)) => Ok(Destination::Users(vec![Principal::Id(n.as_i64().unwrap_or(-1))])),
        _ => Ok(Destination::Users(
            to.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| Principal::Email(s.to_string())).collect(),
        )),
    }
}

/// # `POST /messages`
/// Any user: sends a channel message (`type` `stream`/`channel`, `to` a channel name or id,
/// `topic` or its alias `subject`) or a direct message (`type` `direct`/`private`, `to` user
/// ids or emails). Answers `id` and, when sending changed the sender's visibility policy of
/// the topic, `automatic_new_visibility_policy`.
/// - One D1 round trip for a repeated send (same key, destination, topic, mentions and
///   links): it plans from the reads this isolate remembers and proves them current
///   in its write batch (`RequestContext::recall_as_user`); otherwise one read with
///   authentication and one write.
pub async fn send_message(ctx: &RequestContext) -> ApiResult<Reply> {
    let req = ctx.after_authentication(send_request(ctx)).await?;
    let recalled = match ctx.recall_as_user(&req).await? {
        Some((me, realm, inputs, recall)) => {
            let sent = message_send::send_recalled(&ctx.db, &ctx.env, &me, &realm, &req, inputs, &recall).await?;
            if let Some(sent) = &sent {
                ctx.settle_recalled_count();
                if sent.changed_its_reads {
                    recall.forget();
                }
            }
            sent.map(|sent| (me, sent))
        }
        None => None,
    };
    let (me, sent) = match recalled {
        Some(sent) => sent,
        None => {
            let (me, realm, inputs) = ctx.read_as_user(&req).await?;
            let sent = message_send::send_loaded(&ctx.db, &ctx.env, &me, &realm, &req, inputs).await?;
            if !sent.changed_its_reads {
                ctx.remember_reads();
            }
            (me, sent)
        }
    };
    crate::actions::push::schedule_message_notifications(ctx, &me, &sent).await;
    crate::actions::missed_message_emails::schedule(ctx, &me, &sent).await;
    let mut body = json!({ "id": sent.id });
    if let Some(policy) = sent.automatic_new_visibility_policy {
        body["automatic_new_visibility_policy"] = json!(policy);
    }
    Ok(Reply::json(body))
}

/// The parameters of `POST /messages`.
fn send_request(ctx: &RequestContext) -> ApiResult<SendRequest> {
    let kind = ctx.params.required_str("type")?;
    let is_channel = match kind.as_str() {
        "stream" | "channel" => true,
        "direct" | "private" => false,
        _ => return Err(ApiError::bad_request("Invalid type")),
    };
    let to = ctx.params.str("to")?;
    let content = ctx.params.required_str("content")?;
    let topic = ctx.params.str_with_alias("topic", "subject")?;
    let queue_id = ctx.params.str("queue_id")?;
    let local_id = ctx.params.str("local_id")?;
    match (&queue_id, &local_id) {
        (Some(_), None) => return Err(ApiError::missing_argument("local_id")),
        (None, Some(_)) => return Err(ApiError::missing_argument("queue_id")),
        _ => {}
    }
    let read_by_sender = ctx.params.bool("read_by_sender")?;
    let client = ctx.client_name();
    let to = to.ok_or_else(|| ApiError::missing_argument("to"))?;
    let destination = if is_channel { channel_destination(&to)? } else { direct_destination(&to)? };
    Ok(SendRequest {
        to: destination,
        topic: if is_channel { topic } else { None },
        content,
        read_by_sender: read_by_sender.unwrap_or_else(|| message_send::default_read_by_sender(&client)),
        client,
        queue_id,
        local_id,
        realm_host: realm_host(ctx),
        realm_url: ctx.base_url.clone(),
    })
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
    Ok(OneMessage { message_id, opts, realm_host: realm_host(ctx) })
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
    Ok(MessageWindow { terms, anchor, num_before, num_after, include_anchor, opts, realm_host: realm_host(ctx) })
}

/// The `anchor` parameter (an id, `newest`, `oldest`, `first_unread`); as in Zulip,
/// `use_first_unread_anchor` wins over an `anchor` sent with it.
pub fn parse_anchor(raw: Option<&str>, use_first_unread: bool) -> ApiResult<Anchor> {
    Ok(match raw {
        _ if use_first_unread => Anchor::FirstUnread,
        Some("newest") => Anchor::Id(LARGER_THAN_MAX_MESSAGE_ID),
        Some("oldest") => Anchor::Id(0),
        Some("first_unread") => Anchor::FirstUnread,
        // Old clients send 10000000000000000 for "newest": an id past every message, kept
        // within what D1 can bind.
        Some(raw) => {
            Anchor::Id(raw.trim().parse::<i64>().map_err(|_| ApiError::bad_request("Invalid anchor"))?.clamp(0, LARGER_THAN_MAX_MESSAGE_ID))
        }
        None => return Err(ApiError::missing_argument("anchor")),
    })
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
