//! Emoji reactions.

use crate::actions::reactions::{do_add_reaction, do_remove_reaction, Emoji};
use crate::context::RequestContext;
use crate::domain::messages::{access_message, invalid_message};
use crate::emoji;
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int;
use crate::response::Reply;

fn reaction_type(ctx: &RequestContext) -> ApiResult<Option<String>> {
    match ctx.params.str("reaction_type")? {
        None => Ok(None),
        Some(t) if ["unicode_emoji", "realm_emoji", "zulip_extra_emoji"].contains(&t.as_str()) => Ok(Some(t)),
        Some(_) => Err(ApiError::bad_request("Invalid emoji type.")),
    }
}

/// Zulip's `check_emoji_request` / `emoji_name_to_emoji_code`: without a code the name
/// decides (a unicode emoji, or Zulip's extra emoji `zulip`); with a code, the code must be
/// known and the name one of its names. This organization has no custom emoji.
pub fn resolve_emoji(name: String, code: Option<String>, reaction_type: Option<String>) -> ApiResult<Emoji> {
    let Some(code) = code else {
        if let Some(code) = emoji::code_for_name(&name) {
            return Ok(Emoji { name, code: code.to_string(), reaction_type: "unicode_emoji".into() });
        }
        if name == "zulip" {
            return Ok(Emoji { code: "zulip".into(), name, reaction_type: "zulip_extra_emoji".into() });
        }
        return Err(ApiError::bad_request(format!("Emoji '{name}' does not exist")));
    };
    match reaction_type.as_deref().unwrap_or("unicode_emoji") {
        "unicode_emoji" => {
            if !emoji::is_known_code(&code) {
                return Err(ApiError::bad_request("Invalid emoji code."));
            }
            if emoji::code_for_name(&name) != Some(code.as_str()) {
                return Err(ApiError::bad_request("Invalid emoji name."));
            }
            Ok(Emoji { name, code, reaction_type: "unicode_emoji".into() })
        }
        "zulip_extra_emoji" if code == "zulip" && name == "zulip" => Ok(Emoji { name, code, reaction_type: "zulip_extra_emoji".into() }),
        "zulip_extra_emoji" => Err(ApiError::bad_request("Invalid emoji code.")),
        _ => Err(ApiError::bad_request("Invalid custom emoji.")),
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
    let message_id = parse_int(id).ok_or_else(invalid_message)?;
    let accessed = access_message(&ctx.db, &me, message_id).await?;
    let emoji = resolve_emoji(name, code, reaction_type)?;
    do_add_reaction(&ctx.db, &ctx.env, &me, &accessed, &emoji).await?;
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
    let message_id = parse_int(id).ok_or_else(invalid_message)?;
    access_message(&ctx.db, &me, message_id).await?;
    // Without a code, the name decides the emoji (and its type), as when adding.
    let (code, reaction_type) = match (code, reaction_type) {
        (Some(code), t) => (Some(code), t.unwrap_or_else(|| "unicode_emoji".into())),
        (None, t) => {
            let name = name.clone().unwrap_or_default();
            match emoji::code_for_name(&name) {
                Some(code) => (Some(code.to_string()), t.unwrap_or_else(|| "unicode_emoji".into())),
                None if name == "zulip" => (Some("zulip".into()), "zulip_extra_emoji".into()),
                None => (None, t.unwrap_or_else(|| "unicode_emoji".into())),
            }
        }
    };
    do_remove_reaction(&ctx.db, &ctx.env, &me, message_id, name.as_deref(), code.as_deref(), &reaction_type).await?;
    Ok(Reply::ok())
}
