//! Read receipts: who read a message.

use serde_json::json;

use crate::context::RequestContext;
use crate::domain::messages::invalid_message;
use crate::domain::read_receipts::readers_of;
use crate::error::ApiResult;
use crate::params::parse_int;
use crate::response::Reply;

/// # `GET /messages/{message_id}/read_receipts`
/// Any user who may access the message ("Invalid message(s)" otherwise): `user_ids`, the
/// active users who read it, but its sender, those who do not share read receipts
/// (`send_read_receipts`) and those muted by or muting the caller. An organization that
/// turned `enable_read_receipts` off answers "Read receipts are disabled in this
/// organization." (after the access check, as Zulip).
pub async fn get_read_receipts(ctx: &RequestContext, message_id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let message_id = parse_int(message_id).ok_or_else(invalid_message)?;
    let enabled = ctx.realm_state(me.realm_id).await?.settings.enable_read_receipts != 0;
    Ok(Reply::json(json!({ "user_ids": readers_of(&ctx.db, &me, message_id, enabled).await? })))
}
