//! Incoming webhooks: a message an integration made of a request (`domain::webhooks`),
//! sent as the webhook's bot through the one send entry (`message_send::send`).

use crate::actions::channels::Principal;
use crate::actions::message_send::{self, Destination, SendRequest, Sender};
use crate::context::RequestContext;
use crate::db::users::UserRow;
use crate::domain::webhooks::{event_wanted, Integration, Notice};
use crate::error::ApiResult;

/// Where the webhook's URL sends its messages.
pub struct WebhookTarget {
    /// `stream`: a channel's name, or its id in digits; none: a direct message to the bot's
    /// owner (to the user itself when it is not a bot).
    pub channel: Option<String>,
    /// `topic`: replaces the integration's topic.
    pub topic: Option<String>,
    pub only_events: Option<Vec<String>>,
    pub exclude_events: Option<Vec<String>>,
}

/// Sends `notice` as `me`, unless the URL's event filters leave its event out. Answers
/// whether it was sent.
pub async fn send_notice(
    ctx: &RequestContext,
    me: &UserRow,
    integration: &Integration,
    target: &WebhookTarget,
    notice: Notice,
) -> ApiResult<bool> {
    if let Some(event) = &notice.event {
        if !event_wanted(event, target.only_events.as_deref(), target.exclude_events.as_deref()) {
            return Ok(false);
        }
    }
    let (to, topic) = match &target.channel {
        Some(channel) => {
            let to = match channel.parse::<i64>() {
                Ok(id) if channel.bytes().all(|b| b.is_ascii_digit()) => Destination::ChannelId(id),
                _ => Destination::ChannelName(channel.clone()),
            };
            (to, Some(target.topic.clone().unwrap_or(notice.topic)))
        }
        None => (Destination::Users(vec![Principal::Id(me.bot_owner_id.unwrap_or(me.id))]), None),
    };
    let request = SendRequest {
        to,
        topic,
        content: notice.content,
        read_by_sender: true,
        client: format!("Zulip{}Webhook", integration.display_name),
        queue_id: None,
        local_id: None,
        realm_host: ctx.realm_host.clone(),
        realm_url: ctx.base_url.clone(),
    };
    message_send::send(Sender::Request(ctx), &request).await?;
    Ok(true)
}
