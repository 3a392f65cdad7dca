//! Changing the caller's per-channel subscription settings: all changes or none, then one
//! `subscription` `update` event per property (two for `is_muted`/`in_home_view`) to the
//! caller's queues.

use std::collections::HashMap;

use crate::context::RequestContext;
use crate::db::subscription_settings::{self as db, ChannelAccessRow, SubscriptionRow};
use crate::db::users::UserRow;
use crate::domain::subscription_properties::{update_events, PropertyChange};
use crate::error::{ApiError, ApiResult};
use crate::events::{self, EventUser};

/// Checks every change (the caller must be subscribed to each channel), then writes them
/// in one atomic batch and sends the events.
pub async fn check_update_subscription_properties(ctx: &RequestContext, user: &UserRow, changes: &[PropertyChange]) -> ApiResult<()> {
    let mut ids: Vec<i64> = changes.iter().map(|c| c.channel_id).collect();
    ids.sort_unstable();
    ids.dedup();
    let ids_json = serde_json::to_string(&ids)?;
    let results = crate::db::run_batch(
        &ctx.db,
        vec![db::channels_stmt(&ctx.db, user.realm_id, &ids_json)?, db::of_user_stmt(&ctx.db, user.realm_id, user.id, &ids_json)?],
    )
    .await?;
    let channels: HashMap<i64, ChannelAccessRow> = results[0].results::<ChannelAccessRow>()?.into_iter().map(|c| (c.id, c)).collect();
    let subs: HashMap<i64, SubscriptionRow> =
        results[1].results::<SubscriptionRow>()?.into_iter().filter(|s| s.active != 0).map(|s| (s.channel_id, s)).collect();
    for change in changes {
        let subscribed = subs.contains_key(&change.channel_id);
        match channels.get(&change.channel_id) {
            Some(c) if crate::domain::channels::access::can_access_content(user, subscribed, c.invite_only != 0) => {}
            _ => return Err(ApiError::bad_request("Invalid channel ID")),
        }
        if !subscribed {
            return Err(ApiError::bad_request(format!("Not subscribed to channel ID {}", change.channel_id)));
        }
    }
    let stmts = changes
        .iter()
        .map(|c| db::update_stmt(&ctx.db, user.realm_id, user.id, c.channel_id, c.column, &c.value))
        .collect::<worker::Result<Vec<_>>>()?;
    crate::db::run_batch(&ctx.db, stmts).await?;

    let me = [EventUser::plain(user.id)];
    for change in changes {
        for event in update_events(change) {
            events::send_event(&ctx.env, user.realm_id, &event, &me).await;
        }
    }
    Ok(())
}
