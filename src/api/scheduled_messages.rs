//! Scheduled messages: create, list, edit, delete.

use serde_json::json;

use crate::actions::message_send::Destination;
use crate::actions::scheduled_messages::{self as actions, ScheduledEdit};
use crate::api::params::{destination, is_channel_type, message_to_send};
use crate::context::RequestContext;
use crate::db;
use crate::domain::scheduled_messages::{scheduled_messages_of, OwnScheduledMessage};
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

fn scheduled_message_id(raw: &str) -> ApiResult<i64> {
    crate::params::parse_int(raw).filter(|id| *id >= 0).ok_or_else(ApiError::scheduled_message_not_found)
}

/// # `POST /scheduled_messages`
/// Any user: schedules a message for `scheduled_delivery_timestamp` (in the future). `type`,
/// `to`, `topic`, `content` and `read_by_sender` as for `POST /messages`, checked by the same
/// code. Answers `scheduled_message_id`.
pub async fn create_scheduled_message(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let send = message_to_send(ctx)?;
    let deliver_at = ctx.params.required_int("scheduled_delivery_timestamp")?;
    let realm = ctx.realm_state(me.realm_id).await?;
    let id = actions::schedule_message(&ctx.db, &ctx.env, &ctx.database, &me, &realm, &send, deliver_at).await?;
    Ok(Reply::json(json!({ "scheduled_message_id": id })))
}

/// # `GET /scheduled_messages`
/// Any user: their own undelivered scheduled messages (pending and failed), soonest first.
pub async fn get_scheduled_messages(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "scheduled_messages": scheduled_messages_of(&ctx.db, me.id).await? })))
}

/// # `PATCH /scheduled_messages/{scheduled_message_id}`
/// The owner only (anyone else's id is answered as a missing one, 404 "Scheduled message
/// does not exist"):
/// - at least one of `type`, `to`, `topic`, `content`, `scheduled_delivery_timestamp`;
/// - a new `type` needs `to`, and `topic` when it is a channel type; `to` alone keeps the type;
/// - `topic` is ignored when the existing or new type is direct;
/// - the result is checked as `POST /messages` checks a message (channel, recipients, topic
///   and content rules);
/// - `scheduled_delivery_timestamp` must be in the future, and is required when the message
///   `failed`; editing clears `failed`.
/// - One round trip before the send rules' read: the message is read in the batch that
///   authenticates.
pub async fn update_scheduled_message(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let params = ctx.after_authentication(edit_params(ctx, id)).await?;
    let (me, realm, current) = ctx.read_as_user(&OwnScheduledMessage(params.id)).await?;
    let to = match params.to {
        EditedTo::Unchanged => None,
        EditedTo::Parsed(to) => Some(to),
        // `to` without `type` keeps the current type.
        EditedTo::SameType(to) => Some(destination(current.channel_id.is_some(), &to)?),
    };
    let edit = ScheduledEdit {
        to,
        topic: params.topic,
        content: params.content,
        deliver_at: params.deliver_at,
        client: ctx.client.clone(),
        realm_host: ctx.realm_host.clone(),
        realm_url: ctx.base_url.clone(),
    };
    actions::edit_scheduled_message(&ctx.db, &ctx.env, &ctx.database, &me, &realm, current, edit).await?;
    Ok(Reply::json(json!({})))
}

/// The `to` of an edit: with a new `type` it is parsed at once; alone, as the message's
/// current type once the message is read.
enum EditedTo {
    Unchanged,
    Parsed(Destination),
    SameType(String),
}

/// The parameters of `PATCH /scheduled_messages/{id}`, checked before anything is read.
struct EditParams {
    id: i64,
    to: EditedTo,
    topic: Option<String>,
    content: Option<String>,
    deliver_at: Option<i64>,
}

fn edit_params(ctx: &RequestContext, id: &str) -> ApiResult<EditParams> {
    let id = scheduled_message_id(id)?;
    let kind = ctx.params.str("type")?;
    let to = ctx.params.str("to")?;
    let topic = ctx.params.str_with_alias("topic", "subject")?;
    let content = ctx.params.str("content")?;
    let deliver_at = ctx.params.int("scheduled_delivery_timestamp")?;
    if kind.is_none() && to.is_none() && topic.is_none() && content.is_none() && deliver_at.is_none() {
        return Err(ApiError::bad_request("Nothing to change"));
    }
    let new_type = kind.as_deref().map(is_channel_type).transpose()?;
    if new_type.is_some() && to.is_none() {
        return Err(ApiError::bad_request("Recipient required when updating type of scheduled message."));
    }
    if new_type == Some(true) && topic.is_none() {
        return Err(ApiError::bad_request("Topic required when updating scheduled message type to stream."));
    }
    if deliver_at.is_some_and(|at| at <= db::now()) {
        return Err(actions::delivery_time_not_in_future());
    }
    let to = match (new_type, to) {
        (Some(is_channel), Some(to)) => EditedTo::Parsed(destination(is_channel, &to)?),
        (None, Some(to)) => EditedTo::SameType(to),
        _ => EditedTo::Unchanged,
    };
    Ok(EditParams { id, to, topic, content, deliver_at })
}

/// # `DELETE /scheduled_messages/{scheduled_message_id}`
/// The owner only (anyone else's id is answered as a missing one): deletes an undelivered
/// scheduled message.
pub async fn delete_scheduled_message(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let id = scheduled_message_id(id)?;
    actions::delete_scheduled_message(&ctx.db, &ctx.env, &ctx.database, &me, id, &ctx.realm_host).await?;
    Ok(Reply::json(json!({})))
}
