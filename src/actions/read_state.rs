//! Marking many messages read at once: everything, a channel, a topic. Each is one D1
//! write; the `update_message_flags` event follows it.

use worker::{D1Database, Env};

use crate::actions::notify_users;
use crate::db::batch::Batch;
use crate::db::subscriptions::{self, ChannelViewRow};
use crate::db::user_messages::{self, MessageIdRow};
use crate::db::users::UserRow;
use crate::domain::channels::access_channel;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, FlagsEvent};
use crate::model::ids::{ChannelId, RealmId, UserId};
use crate::model::message_flags::MessageFlag;

/// Zulip's `update_message_flags` event for messages marked read.
fn read_event(messages: &[i64], all: bool) -> Event {
    Event::UpdateMessageFlags(FlagsEvent::new(true, MessageFlag::Read, messages.to_vec(), all))
}

/// Marks all of the user's messages read; the event says `all` and lists none, as Zulip's
/// (clients reload their unread state).
pub async fn do_mark_all_as_read(db: &D1Database, env: &Env, me: &UserRow) -> ApiResult<()> {
    crate::db::run(db, user_messages::mark_all_read_stmt(me.id)?).await?;
    notify_users(env, me.realm_id, &[me.id], &read_event(&[], true)).await;
    Ok(())
}

/// Marks the user's unread messages of the channel (of `topic` when given) read. A channel
/// the user may not see is "Invalid channel ID"; a topic the user has no message of is
/// `No such topic '…'`. No event when nothing changed. Answers
/// the ids marked read.
pub async fn do_mark_channel_as_read(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    channel_id: ChannelId,
    topic: Option<&str>,
) -> ApiResult<Vec<i64>> {
    let topic = topic.filter(|t| !t.is_empty());
    // The channel and whether the user has a message in the topic, in one read.
    let mut batch = Batch::new();
    let channel = batch.add::<ChannelViewRow>(subscriptions::by_id_for_user_stmt(RealmId(me.realm_id), UserId(me.id), channel_id)?);
    let exists = match topic {
        Some(topic) => Some(batch.add::<MessageIdRow>(user_messages::topic_exists_for_user_stmt(UserId(me.id), channel_id, topic)?)),
        None => None,
    };
    let results = batch.run(db).await?;
    let channel = access_channel(me, results.first(channel)?)?;
    if let (Some(topic), Some(exists)) = (topic, exists) {
        if results.first(exists)?.is_none() {
            return Err(ApiError::bad_request(format!("No such topic '{topic}'")));
        }
    }
    let changed: Vec<MessageIdRow> =
        crate::db::all(db, user_messages::mark_channel_read_stmt(UserId(me.id), ChannelId(channel.id), topic)?).await?;
    let mut ids: Vec<i64> = changed.iter().map(|r| r.message_id).collect();
    ids.sort_unstable();
    if !ids.is_empty() {
        notify_users(env, me.realm_id, &[me.id], &read_event(&ids, false)).await;
    }
    Ok(ids)
}
