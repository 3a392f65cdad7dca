//! Bots owned by the caller.

use serde_json::{json, Value};

use crate::actions::bots::{bots_of, check_create_bot, check_regenerate_bot_api_key, check_update_bot, BotChanges, NewBot, GENERIC_BOT};
use crate::context::RequestContext;
use crate::domain::outgoing_webhooks::ZULIP_INTERFACE;
use crate::domain::users::avatar_url;
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

/// A string parameter Zulip declares JSON-encoded (`payload_url`): accepts the JSON
/// string and, as clients also send, the bare text.
fn json_or_plain(ctx: &RequestContext, name: &str) -> ApiResult<Option<String>> {
    Ok(ctx.params.str(name)?.map(|raw| match serde_json::from_str::<Value>(&raw) {
        Ok(Value::String(s)) => s,
        _ => raw,
    }))
}

/// # `POST /bots`
/// Members and above: `full_name`, `short_name` (the bot's email is
/// `<short_name>-bot@<realm host>`), `bot_type` (1 generic, 2 incoming webhook,
/// 3 outgoing webhook; default 1; 4, embedded, is refused: this server runs none),
/// `service_name`, `payload_url` and `interface_type` (outgoing webhooks: 1 Zulip's
/// format, 2 Slack-compatible; the service gets a fresh `token`). Answers the
/// bot's `user_id` and `api_key` (shown only here: keys are stored hashed).
pub async fn create_bot(ctx: &RequestContext) -> ApiResult<Reply> {
    let owner = ctx.user().await?;
    let full_name = ctx.params.required_str("full_name")?;
    let short_name = ctx.params.required_str("short_name")?;
    let bot_type = ctx.params.int("bot_type")?.unwrap_or(GENERIC_BOT);
    let service_name = ctx.params.str("service_name")?;
    let payload_url = json_or_plain(ctx, "payload_url")?;
    let interface = ctx.params.int("interface_type")?.unwrap_or(ZULIP_INTERFACE);
    for name in ["config_data", "default_sending_stream", "default_events_register_stream", "default_all_public_streams"] {
        ctx.params.accept(name);
    }
    let bot = NewBot {
        full_name: &full_name,
        short_name: &short_name,
        bot_type,
        service_name: service_name.as_deref(),
        payload_url: payload_url.as_deref(),
        interface,
    };
    let host = &ctx.realm_host;
    let created = check_create_bot(&ctx.db, &ctx.env, &owner, &bot, host).await?;
    Ok(Reply::json(json!({
        "user_id": created.user.id,
        "api_key": created.api_key,
        "avatar_url": avatar_url(&created.user),
        "default_sending_stream": null,
        "default_events_register_stream": null,
        "default_all_public_streams": false,
    })))
}

/// # `GET /bots`
/// The caller's active bots, oldest first, each with its current `api_key`.
pub async fn get_bots(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "bots": bots_of(&ctx.db, &ctx.env, &me).await? })))
}

/// # `POST /bots/{bot_id}/api_key/regenerate`
/// The bot's owner or an administrator: replaces the bot's API key (the old one stops
/// working at once); answers `api_key`.
pub async fn regenerate_bot_api_key(ctx: &RequestContext, bot_id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let bot_id = crate::params::parse_int(bot_id).ok_or_else(ApiError::no_such_bot)?;
    let api_key = check_regenerate_bot_api_key(&ctx.db, &ctx.env, &me, bot_id).await?;
    Ok(Reply::json(json!({ "api_key": api_key })))
}

/// # `PATCH /bots/{bot_id}`
/// The bot's owner or an administrator: `full_name`; `service_payload_url` (JSON string)
/// with `service_interface` (default 1), which replace an outgoing-webhook bot's URL and
/// interface together, as in Zulip. Answers the bot's settings as Zulip does.
pub async fn update_bot(ctx: &RequestContext, bot_id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let bot_id = crate::params::parse_int(bot_id).ok_or_else(ApiError::no_such_bot)?;
    let changes = BotChanges {
        full_name: ctx.params.str("full_name")?,
        payload_url: json_or_plain(ctx, "service_payload_url")?,
        interface: ctx.params.int("service_interface")?.unwrap_or(ZULIP_INTERFACE),
    };
    let interface = changes.payload_url.is_some().then_some(changes.interface);
    let payload_url = changes.payload_url.clone();
    let (bot, owner) = check_update_bot(&ctx.db, &ctx.env, &me, bot_id, changes).await?;
    let mut answer = json!({
        "full_name": bot.full_name,
        "avatar_url": avatar_url(&bot),
        "service_interface": interface,
        "service_payload_url": payload_url,
        "config_data": null,
        "default_sending_stream": null,
        "default_events_register_stream": null,
        "default_all_public_streams": false,
    });
    if let Some(owner) = owner {
        answer["bot_owner"] = json!(owner.email);
    }
    Ok(Reply::json(answer))
}
