//! Who sees a private channel through its groups (`can_administer_channel_group`,
//! `can_add_subscribers_group`, `can_subscribe_group`) changes when those groups' members
//! do. As in Zulip, people who gain the channel hear of its creation (and its subscribers),
//! people who lose it of its deletion.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;
use worker::{D1Database, Env};

use crate::db::batch::Batch;
use crate::db::subscriptions::{self, ChannelViewRow, SeenThroughGroupRow, SubscriberRow, SystemGroupRow};
use crate::domain::channels::{stream_dict, SystemGroups};
use crate::error::ApiResult;
use crate::event_types::{CapabilityGate, StreamEvent, SubscriptionEvent};
use crate::events::{send_event, Event, EventUser};
use crate::model::ids::{RealmId, UserId};

/// Tells those who gained or lost a channel between `before` and `after` (both read with
/// `subscriptions::seen_through_groups_stmt`); `viewer` reads the channels.
pub async fn announce(
    db: &D1Database,
    env: &Env,
    realm_id: i64,
    viewer: i64,
    before: Vec<SeenThroughGroupRow>,
    after: Vec<SeenThroughGroupRow>,
) -> ApiResult<()> {
    let (before, after): (BTreeSet<_>, BTreeSet<_>) = (before.into_iter().collect(), after.into_iter().collect());
    let gained = by_user(after.difference(&before));
    let lost = by_user(before.difference(&after));
    if !gained.is_empty() {
        let ids: BTreeSet<i64> = gained.values().flatten().copied().collect();
        let ids_json = serde_json::to_string(&ids)?;
        let mut batch = Batch::new();
        let channels = batch.add::<ChannelViewRow>(subscriptions::by_ids_for_user_stmt(RealmId(realm_id), UserId(viewer), &ids_json)?);
        let subscribers = batch.add::<SubscriberRow>(subscriptions::subscribers_stmt(realm_id, &ids_json)?);
        let groups = batch.add::<SystemGroupRow>(subscriptions::system_groups_stmt(realm_id)?);
        let results = batch.run(db).await?;
        let (channels, subscribers) = (results.rows(channels)?, results.rows(subscribers)?);
        let groups = SystemGroups::new(results.rows(groups)?);
        for (user, channel_ids) in &gained {
            let to = [EventUser::plain(*user)];
            let streams = channels.iter().filter(|c| channel_ids.contains(&c.id)).map(|c| stream_dict(c, &groups)).collect();
            send_event(env, realm_id, &Event::Stream(StreamEvent::Create { streams, audience: CapabilityGate::default() }), &to).await;
            for channel_id in channel_ids {
                let user_ids = subscribers.iter().filter(|s| s.channel_id == *channel_id).map(|s| s.user_id).collect();
                let peer_add = SubscriptionEvent::PeerAdd { stream_ids: vec![*channel_id], user_ids };
                send_event(env, realm_id, &Event::Subscription(peer_add), &to).await;
            }
        }
    }
    for (user, channel_ids) in lost {
        let streams = channel_ids.iter().map(|id| json!({ "stream_id": id })).collect();
        let delete = StreamEvent::Delete { streams, stream_ids: channel_ids, audience: CapabilityGate::default() };
        send_event(env, realm_id, &Event::Stream(delete), &[EventUser::plain(user)]).await;
    }
    Ok(())
}

fn by_user<'a>(rows: impl Iterator<Item = &'a SeenThroughGroupRow>) -> BTreeMap<i64, Vec<i64>> {
    let mut out: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for row in rows {
        out.entry(row.user_id).or_default().push(row.channel_id);
    }
    out
}
