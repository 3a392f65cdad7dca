//! What a move involves and who loses what in a channel move.

use super::*;

/// What a move involves: the source topic (as the mover may see it), the target channel
/// and topic, and the subscribers of both channels.
pub struct MoveScope {
    pub orig_channel: MoveChannelRow,
    pub target_channel: Option<MoveChannelRow>,
    pub source: Vec<TopicMessageRow>,
    pub target: Vec<TopicMessageRow>,
    pub subscribers: Vec<SubscriberRow>,
    /// The organization's notification bot, if it exists yet.
    pub notification_bot: Option<UserRow>,
    pub(super) can_read_orig_history: bool,
    pub(super) can_read_target_history: bool,
}

/// Zulip's `can_access_stream_history`: the whole history of a public channel (not for
/// guests), or of a subscribed channel whose history is public to subscribers.
pub(super) fn can_read_history(user: &UserRow, channel: &MoveChannelRow) -> bool {
    access::can_read_history(user, channel.subscribed != 0, channel.invite_only != 0, channel.history_public_to_subscribers != 0)
}

/// Whether the user may post to (and so move messages into) a channel.
pub(super) fn can_access_channel(user: &UserRow, channel: &MoveChannelRow) -> bool {
    access::can_access_content(user, channel.subscribed != 0, channel.invite_only != 0)
}

impl MoveScope {
    pub fn source_topic(&self) -> Vec<TopicMessage> {
        self.source
            .iter()
            .map(|m| TopicMessage { id: m.id, date_sent: m.date_sent, accessible: m.has_row != 0 || self.can_read_orig_history })
            .collect()
    }

    /// Whether no message of the old topic the mover can see is left behind.
    pub fn moved_all_visible(&self, plan: &EditPlan, changed: &[i64]) -> bool {
        if plan.propagate_mode == PropagateMode::ChangeAll {
            return true;
        }
        self.source_topic().iter().all(|m| !m.accessible || changed.contains(&m.id))
    }

    /// Whether the target topic already had messages the mover can see.
    pub fn target_had_visible_messages(&self) -> bool {
        let same_topic_ids: BTreeSet<i64> = self.source.iter().map(|m| m.id).collect();
        self.target.iter().any(|m| !same_topic_ids.contains(&m.id) && (m.has_row != 0 || self.can_read_target_history))
    }

    /// The newest message of the target topic after the move, if any (id, send time, kind).
    pub fn last_target_message(&self, changed: &[i64]) -> Option<(i64, i64, i64)> {
        self.source
            .iter()
            .filter(|m| changed.contains(&m.id))
            .chain(self.target.iter())
            .max_by_key(|m| m.id)
            .map(|m| (m.id, m.date_sent, m.kind))
    }
}

/// What a move reads (in the edit's read batch, through the message's id): the message's
/// channel and topic, the subscriptions of both channels, the topic the messages land in,
/// the channel they move to, and the notification bot that reports the move.
pub(super) struct MoveReads {
    pub(super) orig_channel: Slot<MoveChannelRow>,
    pub(super) source: Slot<TopicMessageRow>,
    pub(super) subscribers: Slot<SubscriberRow>,
    /// `None` when the new topic is refused (the plan fails first).
    pub(super) target: Option<Slot<TopicMessageRow>>,
    pub(super) target_channel: Option<Slot<MoveChannelRow>>,
    pub(super) notification_bot: Slot<UserRow>,
}

impl MoveReads {
    /// `None` when the request changes neither topic nor channel.
    pub(super) fn add(
        batch: &mut Batch,
        user: &UserRow,
        settings: &RealmSettingsRow,
        message_id: MessageId,
        params: &EditParams,
    ) -> worker::Result<Option<Self>> {
        if params.topic.is_none() && params.stream_id.is_none() {
            return Ok(None);
        }
        let (realm_id, user_id, stream_id) = (RealmId(user.realm_id), UserId(user.id), params.stream_id.map(ChannelId));
        let topic = params.topic.as_deref().map(|t| crate::domain::topics::normalize_topic(t, settings));
        Ok(Some(MoveReads {
            orig_channel: batch.add(q::message_channel_stmt(realm_id, message_id, user_id)?),
            source: batch.add(q::topic_messages_stmt(message_id, user_id)?),
            subscribers: batch.add(q::move_subscribers_stmt(message_id, stream_id)?),
            target: match topic {
                Some(Err(_)) => None,
                Some(Ok(topic)) => Some(batch.add(q::target_topic_messages_stmt(realm_id, message_id, stream_id, Some(&topic), user_id)?)),
                None => Some(batch.add(q::target_topic_messages_stmt(realm_id, message_id, stream_id, None, user_id)?)),
            },
            target_channel: match stream_id {
                Some(channel_id) => Some(batch.add(q::channel_stmt(realm_id, channel_id, user_id)?)),
                None => None,
            },
            notification_bot: batch.add(crate::db::users::by_delivery_email_stmt(realm_id.0, q::NOTIFICATION_BOT_EMAIL)?),
        }))
    }

    /// The move's scope, checked: both channels exist (and the mover may post to the target),
    /// and the topic is allowed where the messages land.
    pub(super) fn take(
        self,
        results: &BatchResults,
        user: &UserRow,
        message: &MessageRow,
        plan: &EditPlan,
        settings: &RealmSettingsRow,
    ) -> ApiResult<MoveScope> {
        let target_topic = plan.topic.clone().unwrap_or_else(|| message.topic.clone());
        let orig_channel = results.first(self.orig_channel)?.ok_or_else(ApiError::invalid_channel_id)?;
        let source = results.rows(self.source)?;
        let subscribers = results.rows(self.subscribers)?;
        // The target topic, unless it is the source topic (a change of case only).
        let same_topic = plan.stream_id.is_none() && target_topic.to_lowercase() == message.topic.to_lowercase();
        let target = match (same_topic, self.target) {
            (true, _) => Vec::new(),
            (false, Some(slot)) => results.rows(slot)?,
            (false, None) => return Err(ApiError::internal("move without its target topic read")),
        };
        let target_channel = match (plan.stream_id, self.target_channel) {
            (Some(_), Some(slot)) => {
                let channel = results.first(slot)?;
                Some(channel.filter(|c| can_access_channel(user, c)).ok_or_else(ApiError::invalid_channel_id)?)
            }
            _ => None,
        };
        // The empty-topic policy of the channel the messages land in.
        let landing = target_channel.as_ref().unwrap_or(&orig_channel);
        crate::domain::topics::check_topic_allowed(
            &target_topic,
            crate::domain::topics::effective_topics_policy(landing.topics_policy, settings),
        )?;
        let can_read_orig_history = can_read_history(user, &orig_channel);
        let can_read_target_history = can_read_history(user, target_channel.as_ref().unwrap_or(&orig_channel));
        let notification_bot = results.first(self.notification_bot)?;
        Ok(MoveScope {
            orig_channel,
            target_channel,
            source,
            target,
            subscribers,
            notification_bot,
            can_read_orig_history,
            can_read_target_history,
        })
    }
}

/// Who loses what in a channel move (Zulip's rules): every past subscriber of the old
/// channel who is not subscribed to the new one loses its rows; of those, only guests lose
/// access when the new channel is public, everyone when it is private.
pub(super) struct ChannelMoveAccess {
    pub(super) losing_rows: Vec<i64>,
    pub(super) losing_access: Vec<i64>,
    pub(super) new_subscribers: BTreeSet<i64>,
    pub(super) old_subscribers: BTreeSet<i64>,
}

pub(super) fn channel_move_access(scope: &MoveScope, target: &MoveChannelRow) -> ChannelMoveAccess {
    let new_subscribers: BTreeSet<i64> =
        scope.subscribers.iter().filter(|s| s.channel_id == target.id && s.active != 0).map(|s| s.user_id).collect();
    let old_subscribers: BTreeSet<i64> =
        scope.subscribers.iter().filter(|s| s.channel_id == scope.orig_channel.id && s.active != 0).map(|s| s.user_id).collect();
    let mut losing_rows = Vec::new();
    let mut losing_access = Vec::new();
    let mut seen = BTreeSet::new();
    for s in scope.subscribers.iter().filter(|s| s.channel_id == scope.orig_channel.id) {
        if new_subscribers.contains(&s.user_id) || !seen.insert(s.user_id) {
            continue;
        }
        losing_rows.push(s.user_id);
        if target.invite_only != 0 || s.role == crate::model::Role::Guest {
            losing_access.push(s.user_id);
        }
    }
    ChannelMoveAccess { losing_rows, losing_access, new_subscribers, old_subscribers }
}
