//! A user's visibility policy of one topic (muted, unmuted, followed, or inherited from the
//! channel), with its `user_topic` event. Shared by `POST /user_topics` and the legacy
//! `PATCH /users/me/subscriptions/muted_topics`.

use worker::{D1Database, Env};

use crate::db::batch::Batch;
use crate::db::realm_settings::{self, RealmSettingsRow};
use crate::db::subscriptions::{self, ChannelViewRow};
use crate::db::users::UserRow;
use crate::db::{self, user_topics};
use crate::domain::topics::normalize_topic;
use crate::error::{ApiError, ApiResult};
use crate::events::{send_event, Event, EventUser};
use crate::model::ids::{ChannelId, RealmId, UserId};
use crate::model::VisibilityPolicy;

/// How the caller names the channel.
pub enum ChannelRef {
    Id(ChannelId),
    Name(String),
}

/// Who may set a policy in the channel.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ChannelAccess {
    /// Anyone who can see the channel (`POST /user_topics`).
    CanSee,
    /// Subscribers only (the legacy muting endpoint).
    Subscribed,
}

/// Sets `policy` on `topic` in the channel and tells the user's queues. Setting the policy
/// a topic already has succeeds; a `topic` over `max_topic_length` is refused (and still emits the event, as Zulip does). Two round trips.
pub async fn do_set_user_topic_policy(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    channel: &ChannelRef,
    topic: &str,
    policy: VisibilityPolicy,
    access: ChannelAccess,
) -> ApiResult<()> {
    let mut batch = Batch::new();
    let settings = batch.add::<RealmSettingsRow>(realm_settings::by_realm_id_stmt(me.realm_id)?);
    let found = batch.add::<ChannelViewRow>(match channel {
        ChannelRef::Id(id) => subscriptions::by_id_for_user_stmt(RealmId(me.realm_id), UserId(me.id), *id)?,
        ChannelRef::Name(name) => subscriptions::by_name_for_user_stmt(RealmId(me.realm_id), UserId(me.id), name)?,
    });
    let results = batch.run(db).await?;
    let settings = results.first(settings)?.ok_or_else(|| ApiError::internal("no realm settings"))?;
    let allowed = |c: &ChannelViewRow| match access {
        ChannelAccess::Subscribed => c.subscribed(),
        ChannelAccess::CanSee => crate::domain::channels::can_access_channel_content(me, c),
    };
    let channel_id = match (results.first(found)?, channel) {
        (Some(c), _) if allowed(&c) => c.id,
        (_, ChannelRef::Id(_)) => return Err(ApiError::invalid_channel_id()),
        (_, ChannelRef::Name(name)) => return Err(ApiError::bad_request(format!("Invalid channel name '{name}'"))),
    };
    if topic.chars().count() as i64 > settings.max_topic_length {
        return Err(ApiError::too_long("topic", settings.max_topic_length));
    }
    let topic = normalize_topic(topic, &settings)?;
    let now = db::now();
    crate::db::run(db, user_topics::upsert_stmt(RealmId(me.realm_id), UserId(me.id), ChannelId(channel_id), &topic, policy, now)?).await?;
    let event = Event::UserTopic { stream_id: channel_id, topic_name: topic.to_string(), last_updated: now, visibility_policy: policy };
    send_event(env, me.realm_id, &event, &[EventUser::plain(me.id)]).await;
    Ok(())
}
