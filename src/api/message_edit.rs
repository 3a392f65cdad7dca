//! Editing, moving and deleting a message, and its edit history.

use serde_json::{json, Map, Value};

use crate::actions::{message_delete, message_edit};
use crate::context::RequestContext;
use crate::domain::message_edit::{EditParams, PropagateMode};
use crate::domain::messages::access_message;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::MessageId;
use crate::model::EditHistoryPolicy;
use crate::params::parse_int;
use crate::response::Reply;

fn message_id(raw: &str) -> ApiResult<MessageId> {
    parse_int(raw).filter(|id| *id >= 0).map(MessageId).ok_or_else(|| ApiError::bad_request("Invalid message(s)"))
}

/// # `PATCH /messages/{message_id}`
/// Any user: edit the content (own messages), move to another topic and/or channel
/// (`propagate_mode` `change_one`/`change_later`/`change_all`), resolve a topic.
/// Answers `detached_uploads`.
pub async fn update_message(ctx: &RequestContext, raw_id: &str) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let id = message_id(raw_id)?;
    let p = &ctx.params;
    let params = EditParams {
        content: p.str("content")?,
        topic: p.str_with_alias("topic", "subject")?,
        stream_id: p.int("stream_id")?,
        propagate_mode: PropagateMode::parse(p.str("propagate_mode")?.as_deref())?,
        send_notification_to_old_thread: p.bool_or("send_notification_to_old_thread", false)?,
        send_notification_to_new_thread: p.bool_or("send_notification_to_new_thread", true)?,
        prev_content_sha256: p.str("prev_content_sha256")?,
    };
    if params.stream_id.is_some_and(|s| s < 0) {
        return Err(ApiError::invalid_argument("stream_id", "a non-negative integer"));
    }
    let result = message_edit::check_update_message(ctx, &user, id, params).await?;
    Ok(Reply::json(json!({ "detached_uploads": result.detached_uploads })))
}

/// # `DELETE /messages/{message_id}`
/// The sender (within the organization's delete limit) or an administrator.
pub async fn delete_message(ctx: &RequestContext, raw_id: &str) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let id = message_id(raw_id)?;
    message_delete::check_delete_message(ctx, &user, id).await?;
    Ok(Reply::ok())
}

/// # `GET /messages/{message_id}/history`
/// Any user who can see the message: every version, oldest first, each with the topic and
/// content it had then and the `prev_*` fields of what that edit changed.
pub async fn get_message_history(ctx: &RequestContext, raw_id: &str) -> ApiResult<Reply> {
    let user = ctx.user().await?;
    let id = message_id(raw_id)?;
    let allow_empty_topic_name = ctx.params.bool_or("allow_empty_topic_name", false)?;
    let state = ctx.realm_state(user.realm_id).await?;
    let settings = &state.settings;
    let policy = settings.message_edit_history_visibility_policy;
    if policy == EditHistoryPolicy::None {
        return Err(ApiError::bad_request("Message edit history is disabled in this organization"));
    }
    let message = access_message(&ctx.db, &user, id.0).await?.message;
    let shown_topic = |t: &str| -> String {
        if t.is_empty() && message.is_channel_message() && !allow_empty_topic_name {
            settings.empty_topic_display_name.clone()
        } else {
            t.to_string()
        }
    };
    let raw: Vec<Value> = message.edit_history.as_deref().and_then(|h| serde_json::from_str(h).ok()).unwrap_or_default();
    let mut content = message.content.clone();
    let mut rendered = message.rendered_content.clone();
    let mut topic = message.topic.clone();
    let mut versions: Vec<Value> = Vec::new();
    for entry in raw {
        let mut out = Map::new();
        out.insert("content".into(), json!(content));
        out.insert("rendered_content".into(), json!(rendered));
        out.insert("timestamp".into(), entry["timestamp"].clone());
        out.insert("topic".into(), json!(shown_topic(&topic)));
        out.insert("user_id".into(), entry["user_id"].clone());
        if let Some(prev) = entry["prev_topic"].as_str() {
            topic = prev.to_string();
            out.insert("prev_topic".into(), json!(shown_topic(&topic)));
        }
        if let Some(prev) = entry["prev_content"].as_str() {
            content = prev.to_string();
            rendered = entry["prev_rendered_content"].as_str().unwrap_or_default().to_string();
            out.insert("prev_content".into(), json!(content));
            out.insert("prev_rendered_content".into(), json!(rendered));
        }
        if entry.get("prev_stream").is_some() {
            out.insert("prev_stream".into(), entry["prev_stream"].clone());
            out.insert("stream".into(), entry["stream"].clone());
        }
        versions.push(Value::Object(out));
    }
    versions.push(json!({
        "content": content,
        "rendered_content": rendered,
        "timestamp": message.date_sent,
        "topic": shown_topic(&topic),
        "user_id": message.sender_id,
    }));
    if policy == EditHistoryPolicy::Moves {
        versions = moves_only(versions);
    }
    versions.reverse();
    Ok(Reply::json(json!({ "message_history": versions })))
}

/// Zulip's "moves" edit-history visibility: the original version and the moves, without
/// the content of any version but the current.
fn moves_only(versions: Vec<Value>) -> Vec<Value> {
    let last = versions.len().saturating_sub(1);
    versions
        .into_iter()
        .enumerate()
        .filter(|(i, v)| *i == last || v.get("prev_topic").is_some() || v.get("prev_stream").is_some())
        .map(|(_, mut v)| {
            if let Value::Object(map) = &mut v {
                map.remove("prev_content");
                map.remove("prev_rendered_content");
            }
            v
        })
        .collect()
}
