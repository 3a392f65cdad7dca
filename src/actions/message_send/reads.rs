//! Sending's reads: everything [`plan()`](super::plan()) needs, in ONE batch, made as the
//! sender (in the batch that authenticates a request, through [`ReadAsUser`]).

use std::collections::HashMap;

use serde::Deserialize;
use worker::D1Database;

use super::{Destination, SendRequest};
use crate::actions::channels::Principal;
use crate::auth::ReadAsUser;
use crate::db;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::channels;
use crate::db::messages;
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::subscriptions::{self, ChannelViewRow, SendTopic};
use crate::db::user_groups::{self, IsMemberRow};
use crate::db::users::{self, UserRow};
use crate::domain::rendering::{ResolutionReads, UnmentionableGroups};
use crate::domain::topics::normalize_topic;
use crate::error::ApiResult;
use crate::markdown;
use crate::model::ids::{ChannelId, GroupId, RealmId, UserId};
use crate::model::VisibilityPolicy;
use crate::platform::realm_cache::RealmState;

#[derive(Deserialize)]
pub(super) struct SenderId {
    pub(super) sender_id: i64,
}

#[derive(Deserialize)]
pub(super) struct DirectRecipient {
    pub(super) user_id: i64,
    pub(super) muted_sender: i64,
    pub(super) has_push_device: i64,
}

#[derive(Deserialize)]
pub(super) struct TopicForSender {
    pub(super) first_sender: Option<i64>,
    pub(super) visibility_policy: VisibilityPolicy,
}

/// Sending's reads, made as the sender in the batch that authenticates them, and
/// remembered for the sender's next message to the same place.
impl ReadAsUser for SendRequest {
    type Slots = SendReads;
    type Output = SendInputs;
    fn add(&self, batch: &mut Batch, me: &UserRow, realm: &RealmState) -> ApiResult<SendReads> {
        add_send_reads(batch, me, realm, self)
    }
    fn take(&self, results: &BatchResults, reads: SendReads, me: &UserRow, realm: &RealmState) -> ApiResult<SendInputs> {
        reads.take(results, me, realm, self)
    }
}

/// Everything the rules of sending read from D1, loaded by [`load_send`] in one batch.
pub struct SendInputs {
    /// The destination channel as the sender sees it.
    pub channel: Option<ChannelViewRow>,
    /// Direct-message recipients named by id or email.
    pub named_users: Vec<UserRow>,
    /// Active subscribers of the destination channel.
    pub subscribers: Vec<SendSubscriber>,
    /// The senders of the destination topic so far: all of them when the content may
    /// mention the topic's participants, else one at most (whether the topic is new).
    pub topic_senders: Vec<i64>,
    /// The sender's visibility policy for the destination topic.
    pub sender_topic_policy: VisibilityPolicy,
    /// Whether the sender is in `can_mention_many_users_group`.
    pub may_mention_many: bool,
    /// Whether the destination channel's `can_send_message_group` lets the sender (or, for
    /// a bot, its owner) post.
    pub may_post: bool,
    /// Every alert word of the organization, by user (from the isolate's copy, current
    /// for this request).
    pub alert_words: Vec<(i64, String)>,
    /// Users who muted the sender.
    pub muters: Vec<i64>,
    /// Recipients (and perhaps the sender) with a push device.
    pub recipients_with_push_device: Vec<i64>,
    /// What the content mentions or links to.
    pub resolved: markdown::Resolved,
    pub group_members: HashMap<i64, Vec<i64>>,
    /// The outgoing-webhook bots among the users the content names (from the mention read).
    pub mentionable_webhook_bots: Vec<i64>,
    /// Named groups whose `can_mention_group` leaves the sender out.
    pub unmentionable_groups: UnmentionableGroups,
    pub now: i64,
}

/// A subscriber of the destination channel, as sending reads them.
#[derive(Debug, Clone, Deserialize)]
pub struct SendSubscriber {
    pub user_id: i64,
    pub is_muted: i64,
    pub is_bot: i64,
    /// `automatically_follow_topics_where_mentioned`.
    pub follows_when_mentioned: i64,
    /// The subscriber's policy for the destination topic.
    pub visibility_policy: VisibilityPolicy,
    /// Whether the subscriber registered a device for push notifications.
    #[serde(default)]
    pub has_push_device: i64,
    /// Whether the subscriber muted the sender.
    #[serde(default)]
    pub muted_sender: i64,
}

/// The topic as the rules will check it, computed before anything is read (the read needs
/// it); its error is reported where Zulip checks the topic.
pub(super) fn normalized_topic(req: &SendRequest, settings: &RealmSettingsRow) -> Option<ApiResult<String>> {
    match req.to {
        Destination::Users(_) => None,
        _ => req.topic.as_deref().map(|raw| normalize_topic(raw, settings)),
    }
}

/// Reads everything [`plan()`](super::plan()) needs in ONE batch: [`add_send_reads`], run, [`SendReads::take`].
pub async fn load_send(db: &D1Database, me: &UserRow, realm: &RealmState, req: &SendRequest) -> ApiResult<SendInputs> {
    let mut batch = Batch::new();
    let reads = add_send_reads(&mut batch, me, realm, req)?;
    let results = batch.run(db).await?;
    reads.take(&results, me, realm, req)
}

/// Where [`add_send_reads`] put its statements in a batch.
pub struct SendReads {
    /// Direct messages only.
    named_users: Option<Slot<UserRow>>,
    /// Direct messages only: whether each named recipient muted the sender or has a push
    /// device (a channel's subscribers say so themselves).
    direct_recipients: Option<Slot<DirectRecipient>>,
    resolution: ResolutionReads,
    channel: Option<ChannelReads>,
}

struct ChannelReads {
    channel: Slot<ChannelViewRow>,
    subscribers: Slot<SendSubscriber>,
    topic: Slot<TopicForSender>,
    /// Only when the content may mention the topic's participants, who are then needed.
    senders: Option<Slot<SenderId>>,
    /// Only when the content has a wildcard mention, the one rule that needs it.
    membership: Option<Slot<IsMemberRow>>,
    /// The sender in the channel's `can_send_message_group`; for a bot, also its owner.
    may_post: Vec<Slot<IsMemberRow>>,
}

/// Adds what [`plan()`](super::plan()) reads to `batch`, as `me`: the destination, its subscribers and
/// topic, the named recipients, mentions and mutes. The organization's
/// settings come with `realm` (the isolate's copy, current for this request).
pub fn add_send_reads(batch: &mut Batch, me: &UserRow, realm: &RealmState, req: &SendRequest) -> ApiResult<SendReads> {
    let realm_id = me.realm_id;
    let settings = &realm.settings;
    let refs = markdown::references(&req.content);
    let (channel_id, channel_name) = match &req.to {
        Destination::ChannelId(id) => (*id, String::new()),
        Destination::ChannelName(name) => (-1, name.clone()),
        Destination::Users(_) => (-1, String::new()),
    };
    let (user_ids, user_emails): (Vec<i64>, Vec<String>) = match &req.to {
        Destination::Users(list) => (
            list.iter().filter_map(|p| if let Principal::Id(id) = p { Some(*id) } else { None }).collect(),
            list.iter().filter_map(|p| if let Principal::Email(e) = p { Some(e.to_lowercase()) } else { None }).collect(),
        ),
        _ => (Vec::new(), Vec::new()),
    };
    let named_users = match req.to {
        Destination::Users(_) => Some(batch.add::<UserRow>(users::by_ids_or_emails_stmt(realm_id, &user_ids, &user_emails, false)?)),
        _ => None,
    };
    let direct_recipients = match req.to {
        Destination::Users(_) => {
            Some(batch.add::<DirectRecipient>(users::direct_recipients_stmt(RealmId(realm_id), &user_ids, &user_emails, UserId(me.id))?))
        }
        _ => None,
    };
    let resolution = ResolutionReads::add(batch, RealmId(realm_id), UserId(me.id), &refs, Some(&realm.linkifiers))?;
    // Channel messages: the channel, its subscribers and the topic, named by the channel's
    // id or name so that they need no earlier read. Without a valid topic the channel is
    // still read: its errors come first.
    let channel = match req.to {
        Destination::Users(_) => None,
        _ => {
            let topic = normalized_topic(req, settings).and_then(Result::ok).unwrap_or_default();
            let to = SendTopic { realm_id, channel_id, channel_name: &channel_name, topic: &topic };
            Some(ChannelReads {
                channel: batch.add::<ChannelViewRow>(match &req.to {
                    Destination::ChannelId(id) => subscriptions::by_id_for_user_stmt(RealmId(realm_id), UserId(me.id), ChannelId(*id))?,
                    _ => subscriptions::by_name_for_user_stmt(RealmId(realm_id), UserId(me.id), &channel_name)?,
                }),
                subscribers: batch.add::<SendSubscriber>(subscriptions::send_subscribers_stmt(&to, me.id)?),
                topic: batch.add::<TopicForSender>(messages::topic_for_sender_stmt(&to, me.id)?),
                senders: if refs.topic_wildcard { Some(batch.add::<SenderId>(messages::topic_senders_stmt(&to)?)) } else { None },
                may_post: may_post_reads(batch, me, channel_id, &channel_name)?,
                membership: if refs.stream_wildcard || refs.topic_wildcard {
                    let group = settings.can_mention_many_users_group;
                    Some(batch.add::<IsMemberRow>(user_groups::is_member_stmt(RealmId(realm_id), GroupId(group), UserId(me.id), false)?))
                } else {
                    None
                },
            })
        }
    };
    Ok(SendReads { named_users, direct_recipients, resolution, channel })
}

/// Zulip's `can_send_message_group` check: the sender, or a bot's owner (a bot posts where
/// its owner may).
fn may_post_reads(batch: &mut Batch, me: &UserRow, channel_id: i64, channel_name: &str) -> ApiResult<Vec<Slot<IsMemberRow>>> {
    let setting = crate::domain::channel_permissions::CAN_SEND_MESSAGE.name;
    let owner = if me.is_bot() { me.bot_owner_id } else { None };
    let mut slots = Vec::new();
    for user_id in std::iter::once(me.id).chain(owner) {
        slots.push(batch.add::<IsMemberRow>(channels::in_group_setting_stmt(
            RealmId(me.realm_id),
            ChannelId(channel_id),
            channel_name,
            setting,
            UserId(user_id),
            true,
        )?));
    }
    Ok(slots)
}

impl SendReads {
    /// What the batch read, for [`plan()`](super::plan()).
    pub fn take(self, results: &BatchResults, me: &UserRow, realm: &RealmState, req: &SendRequest) -> ApiResult<SendInputs> {
        let mentionable_webhook_bots = self.resolution.outgoing_webhook_bots(results)?;
        let unmentionable_groups = self.resolution.unmentionable_groups(results)?;
        let (mut resolved, group_members) = self.resolution.take(results)?;
        resolved.translate_emoticons = crate::domain::user_settings::flag(me, "translate_emoticons");
        resolved.realm_url = req.realm_url.clone();
        let mut inputs = SendInputs {
            channel: None,
            named_users: match self.named_users {
                Some(slot) => results.rows(slot)?,
                None => Vec::new(),
            },
            subscribers: Vec::new(),
            topic_senders: Vec::new(),
            sender_topic_policy: VisibilityPolicy::Inherit,
            may_mention_many: false,
            may_post: true,
            alert_words: realm.alert_words.clone(),
            muters: Vec::new(),
            recipients_with_push_device: Vec::new(),
            resolved,
            group_members,
            mentionable_webhook_bots,
            unmentionable_groups,
            now: db::now(),
        };
        if let Some(slot) = self.direct_recipients {
            let recipients = results.rows(slot)?;
            inputs.muters = recipients.iter().filter(|r| r.muted_sender != 0).map(|r| r.user_id).collect();
            inputs.recipients_with_push_device = recipients.iter().filter(|r| r.has_push_device != 0).map(|r| r.user_id).collect();
        }
        if let Some(channel) = self.channel {
            inputs.channel = results.first(channel.channel)?;
            inputs.subscribers = results.rows(channel.subscribers)?;
            inputs.muters = inputs.subscribers.iter().filter(|s| s.muted_sender != 0).map(|s| s.user_id).collect();
            inputs.recipients_with_push_device = inputs.subscribers.iter().filter(|s| s.has_push_device != 0).map(|s| s.user_id).collect();
            let topic = results.first(channel.topic)?;
            inputs.topic_senders = match channel.senders {
                Some(senders) => results.rows(senders)?.into_iter().map(|r| r.sender_id).collect(),
                None => topic.as_ref().and_then(|t| t.first_sender).into_iter().collect(),
            };
            inputs.sender_topic_policy = topic.map_or(VisibilityPolicy::Inherit, |t| t.visibility_policy);
            let mut may_post = false;
            for slot in channel.may_post {
                may_post |= results.first(slot)?.is_some_and(|m| m.is_member != 0);
            }
            inputs.may_post = may_post;
            if let Some(membership) = channel.membership {
                inputs.may_mention_many = results.first(membership)?.is_some_and(|m| m.is_member != 0);
            }
        }
        Ok(inputs)
    }
}
