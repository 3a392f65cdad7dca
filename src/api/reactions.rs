//! Emoji reactions.

use crate::actions::reactions::{check_add_reaction, check_remove_reaction};
use crate::actions::site::Site;
use crate::context::RequestContext;
use crate::domain::messages::invalid_message;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::MessageId;
use crate::params::parse_int;
use crate::response::Reply;

fn reaction_type(ctx: &RequestContext) -> ApiResult<Option<String>> {
    match ctx.params.str("reaction_type")? {
        None => Ok(None),
        Some(t) if ["unicode_emoji", "realm_emoji", "zulip_extra_emoji"].contains(&t.as_str()) => Ok(Some(t)),
        Some(_) => Err(ApiError::bad_request("Invalid emoji type.")),
    }
}

/// # `POST /messages/{message_id}/reactions`
/// Any user who may see the message: adds a reaction by `emoji_name` (required) and,
/// optionally, `emoji_code` and `reaction_type` (both default to what the name stands for:
/// an active custom emoji, `zulip`, or a unicode emoji).
/// - `realm_emoji` takes the custom emoji's id as `emoji_code`; a deactivated one only
///   joins a reaction someone already made with it.
pub async fn add_reaction(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let name = ctx.params.required_str("emoji_name")?;
    let code = ctx.params.str("emoji_code")?;
    let reaction_type = reaction_type(ctx)?;
    let message_id = parse_int(id).ok_or_else(invalid_message)?;
    check_add_reaction(&Site::of_request(ctx), &me, MessageId(message_id), name, code, reaction_type).await?;
    Ok(Reply::ok())
}

/// # `DELETE /messages/{message_id}/reactions`
/// Any user who may see the message: removes its own reaction named by `emoji_code` or
/// `emoji_name` (one is required). Without a code the name decides, as when adding (an
/// active custom emoji first).
pub async fn remove_reaction(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let name = ctx.params.str("emoji_name")?;
    let code = ctx.params.str("emoji_code")?;
    let reaction_type = reaction_type(ctx)?;
    if name.is_none() && code.is_none() {
        return Err(ApiError::bad_request("At least one of the following arguments must be present: emoji_name, emoji_code"));
    }
    let message_id = parse_int(id).ok_or_else(invalid_message)?;
    check_remove_reaction(&Site::of_request(ctx), &me, MessageId(message_id), name, code, reaction_type).await?;
    Ok(Reply::ok())
}
