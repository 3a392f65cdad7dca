//! Incoming webhooks: `POST /api/v1/external/<integration>`, authenticated by the bot's
//! `api_key` in the URL (or HTTP Basic), as Zulip's integrations are.

use serde_json::json;

use crate::actions::webhooks::{self as actions, WebhookTarget};
use crate::context::RequestContext;
use crate::domain::webhooks::{integration, Delivery};
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

/// # `POST /external/{integration}`
/// Any user's key, normally an incoming-webhook bot's: the integration reads the request
/// (its JSON body, its event header) and the message is sent as that user to `stream`
/// (a name or an id) and the integration's topic, or the URL's `topic`; without `stream`,
/// as a direct message to the bot's owner. `only_events` / `exclude_events` (JSON lists
/// of shell patterns) leave events out. Errors are Zulip's: malformed JSON and missing
/// fields are 400, an event the integration does not handle is 200
/// `UNSUPPORTED_WEBHOOK_EVENT_TYPE`; nothing is sent on any error. An event the
/// integration ignores, or the filters leave out, is answered with success.
pub async fn incoming(ctx: &RequestContext, name: &str) -> ApiResult<Reply> {
    let integration = integration(name).ok_or_else(ApiError::not_found)?;
    let me = ctx.user().await?;
    ctx.params.accept("api_key");
    let target = WebhookTarget {
        channel: ctx.params.str("stream")?,
        topic: ctx.params.str("topic")?,
        only_events: ctx.params.json_as("only_events", "a list of strings")?,
        exclude_events: ctx.params.json_as("exclude_events", "a list of strings")?,
    };
    let branches = ctx.params.str("branches")?;
    let form_payload = ctx.params.str("payload")?;
    let header = |name: &str| ctx.header(name);
    let param = |name: &str| ctx.params.str(name).ok().flatten();
    let delivery = Delivery {
        body: ctx.text.as_deref(),
        form_payload: form_payload.as_deref(),
        header: &header,
        url_topic: target.topic.as_deref(),
        branches: branches.as_deref(),
        param: &param,
    };
    for notice in (integration.render)(&delivery)? {
        actions::send_notice(ctx, &me, integration, &target, notice).await?;
    }
    Ok(Reply::json(json!({})))
}
