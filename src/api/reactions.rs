//! Emoji reactions.

use crate::actions::reactions::{do_add_reaction, do_remove_reaction, Emoji};
use crate::context::RequestContext;
use crate::domain::emoji::{code_for_name, is_valid_unicode_code};
use crate::domain::messages::{access_message, invalid_message};
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

fn reaction_type(ctx: &RequestContext) -> ApiResult<String> {
    let t = ctx.params.str("reaction_type")?.unwrap_or_else(|| "unicode_emoji".to_string());
    match t.as_str() {
        "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji" => Ok(t),
        _ => Err(ApiError::bad_request("Invalid emoji type.")),
    }
}

/// # `POST /messages/{message_id}/reactions`
/// Any user who may see the message: adds a reaction by `emoji_name` (required) and,
/// optionally, `emoji_code` and `reaction_type` (default `unicode_emoji`).
pub async fn add_reaction(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let name = ctx.params.required_str("emoji_name")?;
    let code = ctx.params.str("emoji_code")?;
    let reaction_type = reaction_type(ctx)?;
    let message_id: i64 = id.parse().map_err(|_| invalid_message())?;
    let accessed = access_message(&ctx.db, &me, message_id).await?;
    let code = match (code, reaction_type.as_str()) {
        (Some(code), "unicode_emoji") if !is_valid_unicode_code(&code) => return Err(ApiError::bad_request("Invalid emoji code.")),
        (Some(code), _) => code,
        (None, "zulip_extra_emoji") => name.clone(),
        (None, _) => code_for_name(&name)
            .map(str::to_string)
            .ok_or_else(|| ApiError::bad_request(format!("Emoji '{name}' does not exist")))?,
    };
    do_add_reaction(&ctx.db, &ctx.env, &me, &accessed, &Emoji { name, code, reaction_type }).await?;
    Ok(Reply::ok())
}

/// # `DELETE /messages/{message_id}/reactions`
/// Any user who may see the message: removes its own reaction named by `emoji_code` or
/// `emoji_name` (one is required).
pub async fn remove_reaction(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let name = ctx.params.str("emoji_name")?;
    let code = ctx.params.str("emoji_code")?;
    let reaction_type = reaction_type(ctx)?;
    if name.is_none() && code.is_none() {
        return Err(ApiError::bad_request("At least one of the following arguments must be present: emoji_name, emoji_code"));
    }
    let message_id: i64 = id.parse().map_err(|_| invalid_message())?;
    access_message(&ctx.db, &me, message_id).await?;
    do_remove_reaction(&ctx.db, &ctx.env, &me, message_id, name.as_deref(), code.as_deref(), &reaction_type).await?;
    Ok(Reply::ok())
}
