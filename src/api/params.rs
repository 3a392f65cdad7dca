//! The parameters several endpoints read alike: a message's destination (`to`), the
//! `anchor` of a message window, `include_subscribers`; and what several answer alike:
//! the signed-in reply with its session cookies (sign-in, sign-up, password reset).
//! Handlers share these, never each other.

use serde_json::{json, Value};

use crate::actions::channels::Principal;
use crate::actions::message_send::{Destination, SendRequest};
use crate::actions::sessions::do_start_session;
use crate::context::RequestContext;
use crate::db::message_window::{Anchor, LARGER_THAN_MAX_MESSAGE_ID};
use crate::db::users::UserRow;
use crate::domain::sessions::session_cookies;
use crate::error::{ApiError, ApiResult};
use crate::params::{json_value, Params};
use crate::response::{success_response, Reply};

/// `type` of a message: a channel message (`stream`, `channel`: `true`) or a direct one
/// (`direct`, `private`: `false`).
pub fn is_channel_type(kind: &str) -> ApiResult<bool> {
    match kind {
        "stream" | "channel" => Ok(true),
        "direct" | "private" => Ok(false),
        _ => Err(ApiError::bad_request("Invalid type")),
    }
}

/// `to` as the message's type reads it.
pub fn destination(is_channel: bool, to: &str) -> ApiResult<Destination> {
    if is_channel {
        channel_destination(to)
    } else {
        direct_destination(to)
    }
}

/// The message `POST /messages` and `POST /scheduled_messages` name alike: `type`, `to`,
/// `topic` (or its alias `subject`; channel messages only), `content` and
/// `read_by_sender` (by default as the client's kind, as Zulip decides it). No queue.
pub fn message_to_send(ctx: &RequestContext) -> ApiResult<SendRequest> {
    let is_channel = is_channel_type(&ctx.params.required_str("type")?)?;
    let to = ctx.params.required_str("to")?;
    let content = ctx.params.required_str("content")?;
    let topic = ctx.params.str_with_alias("topic", "subject")?;
    let read_by_sender = ctx.params.bool("read_by_sender")?;
    Ok(SendRequest {
        to: destination(is_channel, &to)?,
        topic: if is_channel { topic } else { None },
        content,
        read_by_sender: read_by_sender.unwrap_or_else(|| crate::domain::message_send::default_read_by_sender(&ctx.client)),
        client: ctx.client.clone(),
        queue_id: None,
        local_id: None,
        realm_host: ctx.realm_host.clone(),
        realm_url: ctx.base_url.clone(),
    })
}

/// A channel as `to` names it: a JSON string or integer, a one-element JSON list, or the
/// bare name.
pub fn channel_destination(to: &str) -> ApiResult<Destination> {
    match json_value(to) {
        Some(Value::Number(n)) => n.as_i64().map(Destination::ChannelId).ok_or_else(ApiError::invalid_channel_id),
        Some(Value::String(s)) => Ok(Destination::ChannelName(s)),
        Some(Value::Array(list)) => match list.as_slice() {
            [Value::Number(n)] => n.as_i64().map(Destination::ChannelId).ok_or_else(ApiError::invalid_channel_id),
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

/// `include_subscribers`: `true`, `false`, or `partial` (answered as `true`); `expected`
/// is how the endpoint's error describes the values.
pub fn include_subscribers(params: &Params, expected: &str) -> ApiResult<bool> {
    match params.str("include_subscribers")?.as_deref() {
        None | Some("false") => Ok(false),
        Some("true") | Some("partial") => Ok(true),
        Some(_) => Err(ApiError::invalid_argument("include_subscribers", expected)),
    }
}

/// Starts a session for `user` and answers `user_id` and `email` with its cookies (also
/// after a sign-up or a password reset, `api::signup`).
pub async fn signed_in(ctx: &RequestContext, user: &UserRow) -> ApiResult<Reply> {
    let session = do_start_session(&ctx.db, &ctx.env, user).await?;
    let cookies = session_cookies(&session.id, &session.csrf_token, secure_cookies(ctx));
    with_cookies(ctx, json!({ "user_id": user.id, "email": user.email }), cookies)
}

/// Cookies are `Secure` everywhere but on loopback, which development serves over HTTP.
pub fn secure_cookies(ctx: &RequestContext) -> bool {
    let host = &ctx.realm_host;
    !crate::settings::is_local_host(host)
}

/// Answers `fields` in an envelope that sets `cookies`, never cached.
pub fn with_cookies(ctx: &RequestContext, fields: serde_json::Value, cookies: [String; 2]) -> ApiResult<Reply> {
    let serde_json::Value::Object(fields) = fields else { unreachable!("fields are an object") };
    let mut response = success_response(fields, ctx.params.ignored());
    for cookie in cookies {
        response.headers_mut().append("Set-Cookie", &cookie)?;
    }
    response.headers_mut().set("Cache-Control", "no-store")?;
    Ok(Reply::Raw(response))
}
