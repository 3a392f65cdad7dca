//! The notification bot's messages about a subscription request (Zulip's
//! `send_messages_for_new_subscribers`): a direct message to each human another user
//! subscribed to channels that existed before, the announcement of new channels where the
//! organization wants it (when asked, `announce`), then each new channel's first message in
//! its "channel events" topic, all read for the one who asked. They follow the committed
//! subscription, so a failure is logged, not answered.

use crate::actions::channels::SubscribeOutcome;
use crate::actions::message_notifications::{send_channel_notice, send_direct_notices, send_notice};
use crate::actions::message_send::PlannedChannel;
use crate::actions::site::Site;
use crate::context::RequestContext;
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::subscriptions::{self, ChannelViewRow};
use crate::db::users::UserRow;
use crate::domain::channel_settings::{access_of, creation_notice, new_channels_notice, subscribed_you_notice, NEW_CHANNELS_TOPIC};
use crate::error::ApiResult;
use crate::model::ids::{RealmId, UserId};

/// Sends the messages `outcome` calls for; `direct_messages`: whether the subscribed are
/// told too; `announce`: whether new channels are announced.
pub async fn send(ctx: &RequestContext, me: &UserRow, outcome: &SubscribeOutcome, direct_messages: bool, announce: bool) {
    if direct_messages {
        let notices = outcome.told.iter().map(|(user_id, names)| (*user_id, subscribed_you_notice(me, names))).collect();
        if let Err(err) = send_direct_notices(&Site::of_request(ctx), me.realm_id, notices).await {
            worker::console_error!("new subscribers not told: {}", err.msg);
        }
    }
    if outcome.created.is_empty() {
        return;
    }
    let settings = match ctx.realm_state(me.realm_id).await {
        Ok(realm) => realm.settings.clone(),
        Err(err) => return worker::console_error!("new channels not announced: {}", err.msg),
    };
    if let Some(id) = settings.new_stream_announcements_stream_id.filter(|_| announce) {
        if let Err(err) = announce_new_channels(ctx, me, &settings, id, &outcome.created).await {
            worker::console_error!("new channels not announced in channel {id}: {}", err.msg);
        }
    }
    for channel in &outcome.created {
        let content = creation_notice(me, access_of(channel), &channel.description);
        let notice_channel = PlannedChannel { id: channel.id, name: channel.name.clone(), recipient_id: channel.recipient_id };
        if let Err(err) = send_channel_notice(ctx, me, &settings, notice_channel, content).await {
            worker::console_error!("channel {} not announced in itself: {}", channel.id, err.msg);
        }
    }
}

/// Zulip's announcement of `created` in the organization's channel for it, `channel_id`
/// (nothing if it is archived or gone).
async fn announce_new_channels(
    ctx: &RequestContext,
    me: &UserRow,
    settings: &RealmSettingsRow,
    channel_id: i64,
    created: &[ChannelViewRow],
) -> ApiResult<()> {
    let ids = serde_json::to_string(&[channel_id])?;
    let found: Option<ChannelViewRow> =
        crate::db::first(&ctx.db, subscriptions::by_ids_for_user_stmt(RealmId(me.realm_id), UserId(me.id), &ids)?).await?;
    let Some(channel) = found.filter(|c| c.is_archived == 0) else { return Ok(()) };
    let names: Vec<String> = created.iter().map(|c| c.name.clone()).collect();
    let notice_channel = PlannedChannel { id: channel.id, name: channel.name, recipient_id: channel.recipient_id };
    send_notice(ctx, me, settings, notice_channel, NEW_CHANNELS_TOPIC, new_channels_notice(me, &names)).await?;
    Ok(())
}
