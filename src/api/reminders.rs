//! Reminders: create, list, delete.

use serde_json::json;

use crate::actions::reminders::{self as actions, ReminderRequest};
use crate::context::RequestContext;
use crate::domain::scheduled_messages::reminders_of;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::UserId;
use crate::response::Reply;

/// # `POST /reminders`
/// Any user: a reminder of `message_id` (a message they may read) at
/// `scheduled_delivery_timestamp` (in the future), with an optional `note` (at most 1,000
/// characters), sent to them by the notification bot. Answers `reminder_id`.
pub async fn create_reminder(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let message_id = ctx.params.required_int("message_id")?;
    let deliver_at = ctx.params.required_int("scheduled_delivery_timestamp")?;
    let note = ctx.params.str("note")?;
    let req = ReminderRequest { message_id, deliver_at, note: note.as_deref() };
    let id = actions::create_reminder(ctx, &me, &req).await?;
    Ok(Reply::json(json!({ "reminder_id": id })))
}

/// # `GET /reminders`
/// Any user: their undelivered reminders (pending and failed), soonest first.
pub async fn get_reminders(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "reminders": reminders_of(&ctx.db, UserId(me.id)).await? })))
}

/// # `DELETE /reminders/{reminder_id}`
/// The owner only: cancels the reminder; anyone else's id, or an unknown one, is 404
/// "Reminder does not exist".
pub async fn delete_reminder(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let id = crate::params::parse_int(id).filter(|id| *id >= 0).ok_or_else(ApiError::reminder_not_found)?;
    let me = ctx.user().await?;
    actions::delete_reminder(ctx, &me, id).await?;
    Ok(Reply::json(json!({})))
}
