//! Changing the caller's per-channel subscription settings: all changes or none, then one
//! `subscription` `update` event per property (two for `is_muted`/`in_home_view`) to the
//! caller's queues.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::context::RequestContext;
use crate::db::batch::Batch;
use crate::db::subscription_settings::{self as db, ChannelAccessRow, PropertyValue, SubscriptionRow};
use crate::db::users::UserRow;
use crate::domain::subscription_properties::PropertyChange;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, SubscriptionEvent};
use crate::events::{self, EventUser};
use crate::model::ids::{ChannelId, RealmId, UserId};

/// Checks every change (the caller must be subscribed to each channel), then writes them
/// in one atomic batch and sends the events.
pub async fn check_update_subscription_properties(ctx: &RequestContext, user: &UserRow, changes: &[PropertyChange]) -> ApiResult<()> {
    let mut ids: Vec<i64> = changes.iter().map(|c| c.channel_id).collect();
    ids.sort_unstable();
    ids.dedup();
    let ids_json = serde_json::to_string(&ids)?;
    let mut batch = Batch::new();
    let channels = batch.add::<ChannelAccessRow>(db::channels_stmt(user.realm_id, &ids_json)?);
    let subs = batch.add::<SubscriptionRow>(db::of_user_stmt(RealmId(user.realm_id), UserId(user.id), &ids_json)?);
    let results = batch.run(&ctx.db).await?;
    let channels: HashMap<i64, ChannelAccessRow> = results.rows(channels)?.into_iter().map(|c| (c.id, c)).collect();
    let subs: HashMap<i64, SubscriptionRow> =
        results.rows(subs)?.into_iter().filter(|s| s.active != 0).map(|s| (s.channel_id, s)).collect();
    for change in changes {
        let subscribed = subs.contains_key(&change.channel_id);
        match channels.get(&change.channel_id) {
            Some(c) if crate::domain::channels::access::can_access_content(user, subscribed, c.invite_only != 0) => {}
            _ => return Err(ApiError::invalid_channel_id()),
        }
        if !subscribed {
            return Err(ApiError::bad_request(format!("Not subscribed to channel ID {}", change.channel_id)));
        }
    }
    let stmts = changes
        .iter()
        .map(|c| db::update_stmt(RealmId(user.realm_id), UserId(user.id), ChannelId(c.channel_id), c.column, &c.value))
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

/// The `subscription` `update` events of one change: one, or two (`in_home_view` then
/// `is_muted`, as Zulip sends them) for either muting property.
fn update_events(change: &PropertyChange) -> Vec<Event> {
    let event = |property: &'static str, value: Value| {
        Event::Subscription(SubscriptionEvent::Update { stream_id: change.channel_id, property, value })
    };
    match (&change.value, change.column) {
        (PropertyValue::Flag(muted), "is_muted") => vec![event("in_home_view", json!(!muted)), event("is_muted", json!(muted))],
        (PropertyValue::Flag(flag), _) => vec![event(change.property, json!(flag))],
        (PropertyValue::Color(color), _) => vec![event(change.property, json!(color))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::subscription_properties::parse_change;

    #[test]
    fn muting_sends_in_home_view_then_is_muted() {
        let change = parse_change(3, "in_home_view", &json!(false)).unwrap();
        assert_eq!(change.column, "is_muted");
        assert_eq!(change.value, PropertyValue::Flag(true));
        let events = serde_json::to_value(update_events(&change)).unwrap();
        assert_eq!(events.as_array().unwrap().len(), 2);
        assert_eq!(events[0]["property"], "in_home_view");
        assert_eq!(events[0]["value"], false);
        assert_eq!(events[1]["property"], "is_muted");
        assert_eq!(events[1]["value"], true);
    }
}
