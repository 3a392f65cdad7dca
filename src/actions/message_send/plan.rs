//! The rules of sending over what [`super::reads`] read (pure): the destination and access,
//! the topic, the content and its rendering, wildcard permissions, each recipient's flags
//! and the topic policies the send changes.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::{Destination, SendInputs, SendRequest};
use crate::actions::channels::Principal;
use crate::db::direct_message_groups;
use crate::db::messages::RecipientRef;
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::statement::Statement;
use crate::db::subscriptions::ChannelViewRow;
use crate::db::users::UserRow;
use crate::domain::alert_words::alerted_users;
use crate::domain::message_send::normalize_content;
use crate::domain::outgoing_webhooks::triggers;
use crate::domain::rendering::mentioned_user_ids;
use crate::domain::topics::{check_topic_allowed, effective_topics_policy};
use crate::error::{ApiError, ApiResult};
use crate::markdown::{self, Rendered};
use crate::model::message_flags;
use crate::model::VisibilityPolicy;
use crate::platform::realm_cache::RealmState;

/// Zulip's `WILDCARD_MENTION_THRESHOLD`: wildcards in channels with more subscribers (or
/// topics with more participants) need `can_mention_many_users_group`.
pub const WILDCARD_MENTION_THRESHOLD: usize = 15;

/// Zulip's automatic visibility policy values (users' settings).
const AUTO_ON_PARTICIPATION: i64 = 1;
const AUTO_ON_SEND: i64 = 2;
const AUTO_ON_INITIATION: i64 = 3;

/// A validated message, ready to write: everything [`super::send`] needs to write it, computed by
/// [`plan`] without writing anything.
pub struct SendPlan {
    pub(super) sender: UserRow,
    pub(super) settings: RealmSettingsRow,
    pub(super) content: String,
    pub(super) rendered: markdown::Rendered,
    pub(super) recipient: RecipientRef,
    pub(super) channel_row: Option<PlannedChannel>,
    pub(super) topic: String,
    pub(super) dm_user_ids: Vec<i64>,
    /// (user id, flag bits) of every recipient.
    pub(super) rows: Vec<(i64, i64)>,
    pub(super) auto_policy: Option<VisibilityPolicy>,
    pub(super) mention_follows: Vec<i64>,
    pub(super) named_users: Vec<UserRow>,
    /// The organization's linkifiers, for the message's `topic_links`.
    pub(super) linkifiers: Vec<markdown::Linkifier>,
    pub(super) date_sent: i64,
    /// See [`super::SentMessage::may_notify_push`].
    pub(super) may_notify_push: bool,
    /// See [`super::SentMessage::changed_its_reads`].
    pub(super) changes_its_reads: bool,
    /// (bot id, trigger) of each outgoing-webhook bot the message triggers.
    pub(super) webhook_triggers: Vec<(i64, &'static str)>,
}

impl SendPlan {
    /// The statements creating the direct-message group it goes to (none for another
    /// conversation), idempotent: its first message, or the first scheduled to it, creates it.
    pub fn direct_message_group_stmts(&self) -> ApiResult<Vec<Statement>> {
        match self.recipient {
            RecipientRef::Group(_) => Ok(direct_message_groups::ensure_stmts(self.sender.realm_id, &self.dm_user_ids)?),
            _ => Ok(Vec::new()),
        }
    }

    /// The content as it will be stored (normalized, perhaps truncated).
    pub fn content(&self) -> &str {
        &self.content
    }
    pub fn rendered_html(&self) -> &str {
        &self.rendered.html
    }
    /// Channel messages: the channel and the normalized topic.
    pub fn channel(&self) -> Option<(i64, &str)> {
        self.channel_row.as_ref().map(|c| (c.id, self.topic.as_str()))
    }
    /// Direct messages: the recipients other than the sender (the sender alone when
    /// writing to themselves).
    pub fn direct_recipients(&self) -> Vec<i64> {
        let others: Vec<i64> = self.dm_user_ids.iter().copied().filter(|id| *id != self.sender.id).collect();
        if others.is_empty() && !self.dm_user_ids.is_empty() {
            vec![self.sender.id]
        } else {
            others
        }
    }
}

/// The channel a planned message goes to.
#[derive(Debug, Clone)]
pub struct PlannedChannel {
    pub id: i64,
    pub name: String,
    pub recipient_id: i64,
}

/// Who a planned message goes to, as [`plan_channel`] or [`plan_direct`] decided.
struct Recipients {
    recipient: RecipientRef,
    topic: String,
    channel_row: Option<PlannedChannel>,
    dm_user_ids: Vec<i64>,
    /// Every recipient, with the flags the destination gives them.
    flags: HashMap<i64, i64>,
    /// Who a topic wildcard mention reaches.
    topic_participants: BTreeSet<i64>,
    auto_policy: Option<VisibilityPolicy>,
    /// Mentioned users who follow topics where they are mentioned (Zulip's
    /// `automatically_follow_topics_where_mentioned`, default on) and do not follow this one yet.
    mention_follows: Vec<i64>,
    changes_its_reads: bool,
}

/// The rules of sending over what [`super::load_send`] read (pure): the content and its
/// rendering, the destination ([`plan_channel`], [`plan_direct`]), then each recipient's
/// flags ([`flag_rows`]).
pub fn plan(me: &UserRow, realm: &RealmState, req: &SendRequest, mut inputs: SendInputs) -> ApiResult<SendPlan> {
    let settings = &realm.settings;
    let content = normalize_content(&req.content, settings.max_message_length)?;
    let rendered = markdown::render(&content, &inputs.resolved);
    let mentioned = mentioned_user_ids(&rendered, &inputs.group_members);
    // Zulip looks for alert words in the Markdown source, for every recipient.
    let alerted = alerted_users(&content, &inputs.alert_words);
    let to = match (&req.to, inputs.channel.take()) {
        (Destination::ChannelName(name), None) => return Err(ApiError::stream_does_not_exist(name)),
        (Destination::ChannelId(id), None) => return Err(ApiError::stream_id_does_not_exist(*id)),
        (Destination::ChannelName(_) | Destination::ChannelId(_), Some(c)) => {
            plan_channel(me, settings, req, c, &inputs, &rendered, &mentioned)?
        }
        (Destination::Users(list), _) => plan_direct(me, list, &inputs.named_users)?,
    };
    inputs.unmentionable_groups.check(&rendered.mentioned_group_ids)?;
    let marks = Marks { rendered: &rendered, mentioned: &mentioned, alerted: &alerted, muters: &inputs.muters };
    let rows = flag_rows(me, req, &to, &marks);
    let may_notify_push = inputs.recipients_with_push_device.iter().any(|id| *id != me.id);
    let is_channel = to.channel_row.is_some();
    let webhook_triggers = triggers(me, is_channel, &mentioned, &inputs.mentionable_webhook_bots, &inputs.named_users);
    Ok(SendPlan {
        sender: me.clone(),
        settings: settings.clone(),
        content,
        rendered,
        recipient: to.recipient,
        channel_row: to.channel_row,
        topic: to.topic,
        dm_user_ids: to.dm_user_ids,
        rows,
        auto_policy: to.auto_policy,
        mention_follows: to.mention_follows,
        named_users: inputs.named_users,
        linkifiers: realm.linkifiers.clone(),
        date_sent: inputs.now,
        may_notify_push,
        changes_its_reads: to.changes_its_reads,
        webhook_triggers,
    })
}

/// A channel message: access (like Zulip, an existing private channel answers "Not
/// authorized"), the topic and the channel's topics policy, wildcard permissions, the
/// mentioned users who come to follow the topic, and the sender's automatic policy.
fn plan_channel(
    me: &UserRow,
    settings: &RealmSettingsRow,
    req: &SendRequest,
    c: ChannelViewRow,
    inputs: &SendInputs,
    rendered: &Rendered,
    mentioned: &BTreeSet<i64>,
) -> ApiResult<Recipients> {
    if c.is_archived != 0 || (!c.subscribed() && (c.is_private() || me.is_guest())) {
        return Err(ApiError::bad_request(format!("Not authorized to send to channel '{}'", c.name)));
    }
    if !inputs.may_post {
        return Err(ApiError::bad_request("You do not have permission to post in this channel."));
    }
    let normalized = super::reads::normalized_topic(req, settings).ok_or_else(|| ApiError::bad_request("Missing topic"))?;
    let topic = normalized?;
    check_topic_allowed(&topic, effective_topics_policy(c.topics_policy, settings))?;
    let subscribers = &inputs.subscribers;
    let mut topic_participants: BTreeSet<i64> = inputs.topic_senders.iter().copied().collect();
    let topic_is_new = topic_participants.is_empty();
    if rendered.stream_wildcard && subscribers.len() > WILDCARD_MENTION_THRESHOLD && !inputs.may_mention_many {
        return Err(ApiError::stream_wildcard_mention_not_allowed());
    }
    if rendered.topic_wildcard && topic_participants.len() > WILDCARD_MENTION_THRESHOLD && !inputs.may_mention_many {
        return Err(ApiError::topic_wildcard_mention_not_allowed());
    }
    topic_participants.insert(me.id);
    let mention_follows: Vec<i64> = subscribers
        .iter()
        .filter(|s| {
            mentioned.contains(&s.user_id)
                && s.user_id != me.id
                && s.is_bot == 0
                && s.follows_when_mentioned != 0
                && s.visibility_policy != VisibilityPolicy::Followed
        })
        .map(|s| s.user_id)
        .collect();
    let mut flags: HashMap<i64, i64> = subscribers.iter().map(|s| (s.user_id, 0)).collect();
    flags.entry(me.id).or_insert(0);
    let mut auto_policy = None;
    if !me.is_bot() {
        let sender_muted = subscribers.iter().any(|s| s.user_id == me.id && s.is_muted != 0);
        auto_policy = automatic_policy(me, inputs.sender_topic_policy, topic_is_new, sender_muted);
    }
    let changes_its_reads = topic_is_new
        || auto_policy.is_some()
        || !mention_follows.is_empty()
        || (rendered.topic_wildcard && !inputs.topic_senders.contains(&me.id));
    Ok(Recipients {
        recipient: RecipientRef::Id(c.recipient_id),
        topic,
        channel_row: Some(PlannedChannel { id: c.id, name: c.name, recipient_id: c.recipient_id }),
        dm_user_ids: Vec::new(),
        flags,
        topic_participants,
        auto_policy,
        mention_follows,
        changes_its_reads,
    })
}

/// A direct message: each named recipient must exist and be active; the conversation is
/// with one user (or oneself) or a group of three or more.
fn plan_direct(me: &UserRow, list: &[Principal], named_users: &[UserRow]) -> ApiResult<Recipients> {
    if list.is_empty() {
        return Err(ApiError::bad_request("Message must have recipients"));
    }
    let mut ids = Vec::new();
    for p in list {
        let user = named_users.iter().find(|u| match p {
            Principal::Id(id) => u.id == *id,
            Principal::Email(e) => u.email.eq_ignore_ascii_case(e) || u.delivery_email.eq_ignore_ascii_case(e),
        });
        match (user, p) {
            (Some(u), _) if !u.is_active() => {
                return Err(ApiError::bad_request(format!("'{}' is no longer using Zulip.", u.email)));
            }
            (Some(u), _) => ids.push(u.id),
            (None, Principal::Email(e)) => return Err(ApiError::bad_request(format!("Invalid email '{e}'"))),
            (None, Principal::Id(id)) => return Err(ApiError::bad_request(format!("Invalid user ID {id}"))),
        }
    }
    ids.retain(|id| *id != me.id);
    ids.sort_unstable();
    ids.dedup();
    let recipient = match ids.len() {
        0 => RecipientRef::User(me.id),
        1 => RecipientRef::User(ids[0]),
        _ => {
            let mut members = ids.clone();
            members.push(me.id);
            RecipientRef::Group(direct_message_groups::member_key(&members))
        }
    };
    ids.push(me.id);
    ids.sort_unstable();
    Ok(Recipients {
        recipient,
        topic: String::new(),
        channel_row: None,
        flags: ids.iter().map(|id| (*id, message_flags::IS_PRIVATE)).collect(),
        topic_participants: ids.iter().copied().collect(),
        dm_user_ids: ids,
        auto_policy: None,
        mention_follows: Vec::new(),
        changes_its_reads: false,
    })
}

/// What the content does to each recipient: mentions, alert words, and the users who muted
/// the sender.
struct Marks<'a> {
    rendered: &'a Rendered,
    mentioned: &'a BTreeSet<i64>,
    alerted: &'a HashSet<i64>,
    muters: &'a [i64],
}

/// Each recipient's flag bits, sorted by user id.
fn flag_rows(me: &UserRow, req: &SendRequest, to: &Recipients, marks: &Marks) -> Vec<(i64, i64)> {
    let mut rows: Vec<(i64, i64)> = to
        .flags
        .iter()
        .map(|(user_id, bits)| {
            let mut bits = *bits;
            if marks.mentioned.contains(user_id) {
                bits |= message_flags::MENTIONED;
            }
            if marks.rendered.stream_wildcard {
                bits |= message_flags::STREAM_WILDCARD_MENTIONED;
            }
            if marks.rendered.topic_wildcard && to.topic_participants.contains(user_id) {
                bits |= message_flags::TOPIC_WILDCARD_MENTIONED;
            }
            if marks.alerted.contains(user_id) {
                bits |= message_flags::HAS_ALERT_WORD;
            }
            // Messages of a user one muted arrive read, as in Zulip.
            if marks.muters.contains(user_id) {
                bits |= message_flags::READ;
            }
            if *user_id == me.id && req.read_by_sender {
                bits |= message_flags::READ;
            }
            (*user_id, bits)
        })
        .collect();
    rows.sort_unstable();
    rows
}

/// Zulip's `visibility_policy_for_send_message`: follow the topic per the sender's
/// automatically-follow setting, or else unmute it in a muted channel per the
/// automatically-unmute setting; nothing when already followed or unchanged.
fn automatic_policy(sender: &UserRow, current: VisibilityPolicy, topic_is_new: bool, channel_muted: bool) -> Option<VisibilityPolicy> {
    if current == VisibilityPolicy::Followed {
        return None;
    }
    let applies = |setting: i64| matches!(setting, AUTO_ON_PARTICIPATION | AUTO_ON_SEND) || (setting == AUTO_ON_INITIATION && topic_is_new);
    if applies(sender.automatically_follow_topics_policy) {
        return Some(VisibilityPolicy::Followed);
    }
    if channel_muted && current == VisibilityPolicy::Inherit && applies(sender.automatically_unmute_topics_in_muted_streams_policy) {
        return Some(VisibilityPolicy::Unmuted);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::SendSubscriber;
    use super::*;

    #[test]
    fn initiating_a_topic_follows_it_by_default() {
        let sender =
            UserRow { automatically_follow_topics_policy: 3, automatically_unmute_topics_in_muted_streams_policy: 2, ..UserRow::default() };
        use VisibilityPolicy::{Followed, Inherit, Unmuted};
        assert_eq!(automatic_policy(&sender, Inherit, true, false), Some(Followed));
        assert_eq!(automatic_policy(&sender, Inherit, false, false), None);
        assert_eq!(automatic_policy(&sender, Inherit, false, true), Some(Unmuted));
        assert_eq!(automatic_policy(&sender, Followed, true, false), None);
    }

    fn realm() -> RealmState {
        let settings = RealmSettingsRow { can_mention_many_users_group: 9, ..RealmSettingsRow::for_tests(1) };
        RealmState { version: 0, settings, linkifiers: Vec::new(), alert_words: Vec::new() }
    }

    fn member(id: i64) -> UserRow {
        UserRow {
            id,
            realm_id: 1,
            role: crate::model::Role::Member,
            is_active: 1,
            full_name: format!("User {id}"),
            automatically_follow_topics_policy: AUTO_ON_INITIATION,
            ..UserRow::default()
        }
    }

    fn channel(invite_only: bool, subscribed: bool) -> ChannelViewRow {
        ChannelViewRow {
            id: 5,
            name: "Denmark".into(),
            description: String::new(),
            invite_only: invite_only as i64,
            history_public_to_subscribers: 1,
            is_web_public: 0,
            is_archived: 0,
            creator_id: None,
            date_created: 0,
            topics_policy: crate::model::TopicsPolicy::Inherit,
            folder_id: None,
            message_retention_days: None,
            recipient_id: 50,
            subscriber_count: 0,
            first_message_id: None,
            sub_active: subscribed.then_some(1),
            color: None,
            is_muted: None,
            pin_to_top: None,
            desktop_notifications: None,
            audible_notifications: None,
            push_notifications: None,
            email_notifications: None,
            wildcard_mentions_notify: None,
            can_send_message_group: None,
            can_administer_channel_group: None,
            can_add_subscribers_group: None,
            can_remove_subscribers_group: None,
            can_subscribe_group: None,
            can_move_messages_within_channel_group: None,
            can_move_messages_out_of_channel_group: None,
            can_resolve_topics_group: None,
            can_delete_any_message_group: None,
            can_delete_own_message_group: None,
            group_access: 0,
            anonymous_groups: None,
        }
    }

    fn subscriber(user_id: i64) -> SendSubscriber {
        SendSubscriber {
            user_id,
            is_muted: 0,
            is_bot: 0,
            follows_when_mentioned: 1,
            visibility_policy: VisibilityPolicy::Inherit,
            has_push_device: 0,
            muted_sender: 0,
        }
    }

    fn inputs(channel: Option<ChannelViewRow>, subscribers: Vec<SendSubscriber>) -> SendInputs {
        SendInputs {
            channel,
            named_users: Vec::new(),
            subscribers,
            topic_senders: Vec::new(),
            sender_topic_policy: VisibilityPolicy::Inherit,
            may_mention_many: false,
            may_post: true,
            alert_words: Vec::new(),
            muters: Vec::new(),
            recipients_with_push_device: Vec::new(),
            resolved: markdown::Resolved::default(),
            group_members: HashMap::new(),
            mentionable_webhook_bots: Vec::new(),
            unmentionable_groups: Default::default(),
            now: 1000,
        }
    }

    fn to_channel(topic: Option<&str>, content: &str) -> SendRequest {
        SendRequest {
            to: Destination::ChannelName("Denmark".into()),
            topic: topic.map(str::to_string),
            content: content.into(),
            read_by_sender: true,
            client: "test".into(),
            queue_id: None,
            local_id: None,
            realm_host: "localhost".into(),
            realm_url: "http://localhost".into(),
        }
    }

    #[test]
    fn unsubscribed_members_may_not_send_to_a_private_channel() {
        let err = plan(&member(1), &realm(), &to_channel(Some("t"), "hi"), inputs(Some(channel(true, false)), Vec::new()))
            .err()
            .expect("refused");
        assert_eq!(err.msg, "Not authorized to send to channel 'Denmark'");
    }

    #[test]
    fn a_missing_channel_is_reported_before_a_missing_topic() {
        let err = plan(&member(1), &realm(), &to_channel(None, "hi"), inputs(None, Vec::new())).err().expect("refused");
        assert_eq!(err.msg, ApiError::stream_does_not_exist("Denmark").msg);
        let err =
            plan(&member(1), &realm(), &to_channel(None, "hi"), inputs(Some(channel(false, true)), Vec::new())).err().expect("refused");
        assert_eq!(err.msg, "Missing topic");
    }

    #[test]
    fn push_is_looked_up_only_when_a_recipient_other_than_the_sender_has_a_device() {
        let req = to_channel(Some("t"), "hi");
        let planned = |with_device: Vec<i64>| {
            let mut loaded = inputs(Some(channel(false, true)), vec![subscriber(1), subscriber(2)]);
            loaded.recipients_with_push_device = with_device;
            plan(&member(1), &realm(), &req, loaded).ok().unwrap()
        };
        assert!(!planned(vec![]).may_notify_push);
        assert!(!planned(vec![1]).may_notify_push, "the sender's own device");
        assert!(planned(vec![2]).may_notify_push);
    }

    #[test]
    fn channel_wildcards_in_large_channels_need_the_permission() {
        let subscribers: Vec<SendSubscriber> = (1..=16).map(subscriber).collect();
        let req = to_channel(Some("t"), "@**all** hello");
        let refused = plan(&member(1), &realm(), &req, inputs(Some(channel(false, true)), subscribers.clone())).err().expect("refused");
        assert_eq!(refused.msg, ApiError::stream_wildcard_mention_not_allowed().msg);
        let mut allowed = inputs(Some(channel(false, true)), subscribers);
        allowed.may_mention_many = true;
        let planned = plan(&member(1), &realm(), &req, allowed).unwrap_or_else(|e| panic!("{}", e.msg));
        assert_eq!(planned.rows.len(), 16);
        assert!(planned.rows.iter().all(|(_, bits)| bits & message_flags::STREAM_WILDCARD_MENTIONED != 0));
    }

    #[test]
    fn flags_follow_mentions_mutes_and_the_sender() {
        let mut loaded = inputs(Some(channel(false, true)), vec![subscriber(1), subscriber(2), subscriber(3)]);
        loaded.resolved.users = vec![markdown::MentionableUser { id: 2, full_name: "User 2".into() }];
        loaded.muters = vec![3];
        let planned = plan(&member(1), &realm(), &to_channel(Some("t"), "hi @**User 2**"), loaded).unwrap_or_else(|e| panic!("{}", e.msg));
        let bits = |id: i64| planned.rows.iter().find(|(u, _)| *u == id).map(|(_, b)| *b).unwrap();
        assert_eq!(bits(1), message_flags::READ);
        assert_eq!(bits(2), message_flags::MENTIONED);
        assert_eq!(bits(3), message_flags::READ);
        // The mentioned subscriber follows the topic; a new topic is followed by its sender.
        assert_eq!(planned.mention_follows, vec![2]);
        assert_eq!(planned.auto_policy, Some(VisibilityPolicy::Followed));
    }
}
