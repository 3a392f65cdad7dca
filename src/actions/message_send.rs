//! Sending a message, in three steps that every sender shares (`POST /messages`,
//! scheduling and delivering scheduled messages):
//! - [`load_send`]: ONE read batch (the organization's settings come from the isolate's
//!   cache, checked current by the request's authentication);
//! - [`plan`]: every rule of `POST /messages`, pure;
//! - [`commit_send`]: ONE write batch, then the events, once the write committed
//!   ([`add_send_writes`] and [`finish_send`] for a caller whose batch holds the message).
//!
//! [`send`] is the entry of `POST /messages`; [`send_as`] sends for a known sender
//! (scheduled delivery); the notification bot plans with [`plan_bot_message`] and writes
//! with [`commit_send`].
//!
//! # The recalled send
//! A repeated `POST /messages` (same key, destination, topic, mentions and links) costs ONE
//! D1 round trip: its write. The first send of a sender to a place reads everything [`plan`]
//! needs in the batch that authenticates the request, and when its write left those
//! answers as they were, this isolate keeps them (`crate::remembered_reads`). The next send
//! of the same reads recalls them instead of reading: it authenticates against the recalled
//! rows, counts the request against the user's rate limit, plans, and puts one guard per
//! recalled read first in its write batch. A guard fails the batch, writing nothing, unless
//! its read still answers exactly what was remembered; the send then forgets the answers,
//! reads them with authentication and sends as usual (one more round trip, never a message
//! planned from old answers). A send that changes what its reads answer (starts the topic,
//! changes a visibility policy, joins a topic's participants) forgets them. The rate-limit
//! count made for a recalled user stands once the write commits; otherwise the request's
//! authentication confirms or refunds it (`crate::auth::Authenticator`).

use std::collections::{BTreeSet, HashMap};

use serde::Deserialize;
use serde_json::Value;
use worker::{D1Database, D1PreparedStatement, Env};

use crate::auth::{Authenticator, ReadAsUser};
use crate::context::RequestContext;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::realm_cache::RealmState;

use crate::actions::channels::Principal;
use crate::actions::uploads::{send_linked, LinkedReads};
use crate::db::direct_message_groups;
use crate::db::messages::{self, MessageRow, NewMessage, RecipientRef};
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::subscriptions::{self, ChannelViewRow, SendTopic};
use crate::db::user_groups::{self, IsMemberRow};
use crate::db::user_messages;
use crate::db::users::{self, UserRow};
use crate::db::{self, user_topics};
use crate::domain::alert_words::alerted_users;
use crate::domain::message_send::normalize_content;
use crate::domain::messages::{message_dict, MessageContext, MessageOptions};
use crate::domain::rendering::{mentioned_user_ids, ResolutionReads};
use crate::domain::topics::{check_topic_allowed, effective_topics_policy, normalize_topic};
use crate::error::{ApiError, ApiResult};
use crate::events::{send_event, send_message_event, Event, EventUser};
use crate::markdown;
use crate::model::message_flags::{self, flag_names};
use crate::model::recipients::RecipientType;
use crate::model::VisibilityPolicy;

/// Zulip's `WILDCARD_MENTION_THRESHOLD`: wildcards in channels with more subscribers (or
/// topics with more participants) need `can_mention_many_users_group`.
pub const WILDCARD_MENTION_THRESHOLD: usize = 15;

/// Zulip's automatic visibility policy values (users' settings).
const AUTO_ON_PARTICIPATION: i64 = 1;
const AUTO_ON_SEND: i64 = 2;
const AUTO_ON_INITIATION: i64 = 3;

/// Where the message goes, as the client named it.
#[derive(Debug, Clone)]
pub enum Destination {
    ChannelName(String),
    ChannelId(i64),
    Users(Vec<Principal>),
}

pub struct SendRequest {
    pub to: Destination,
    /// Channel messages: the topic as sent (`None`: missing).
    pub topic: Option<String>,
    pub content: String,
    pub read_by_sender: bool,
    pub client: String,
    pub queue_id: Option<String>,
    pub local_id: Option<String>,
    /// `host[:port]` of the organization (placeholder emails in the event's message).
    pub realm_host: String,
    /// The organization's URL, which links in the content may be relative to.
    pub realm_url: String,
}

pub struct SentMessage {
    pub id: i64,
    pub automatic_new_visibility_policy: Option<VisibilityPolicy>,
    /// Mentioned users this send made follow the topic (`automatically_follow_topics_where_mentioned`).
    pub followed_by_mention: Vec<i64>,
    /// Whether a recipient may get a push notification: false when no recipient but the
    /// sender has a push device, so nothing is looked up after the response.
    pub may_notify_push: bool,
    /// Whether the send changed what its reads answer (it started the topic, or changed a
    /// visibility policy of it, or joined the participants a topic mention reads): the
    /// answers are then not worth remembering.
    pub changed_its_reads: bool,
}

#[derive(Deserialize)]
struct Inserted {
    id: i64,
    recipient_id: i64,
}

#[derive(Deserialize)]
struct SenderId {
    sender_id: i64,
}

#[derive(Deserialize)]
struct DirectRecipient {
    user_id: i64,
    muted_sender: i64,
    has_push_device: i64,
}

#[derive(Deserialize)]
struct TopicForSender {
    first_sender: Option<i64>,
    visibility_policy: VisibilityPolicy,
}

/// Sends a message for a request (`POST /messages`), the one entry of a request's send:
/// the recalled send when this isolate remembers the sender's reads, else one read batch
/// with authentication, [`plan`] and one write; then the push notifications, after the
/// response. Authentication's errors come first, as with any endpoint.
pub async fn send(ctx: &RequestContext, req: &SendRequest) -> ApiResult<SentMessage> {
    let (me, sent) = match send_recalled(&ctx.auth, &ctx.db, &ctx.env, req).await? {
        Some(sent) => sent,
        None => send_read(&ctx.auth, &ctx.db, &ctx.env, req).await?,
    };
    crate::actions::push::schedule_message_notifications(ctx, &me, &sent).await;
    Ok(sent)
}

/// Sends for a known sender, outside a request (a scheduled message falling due): one read
/// batch, [`plan`], one write led by `guard` (see [`commit_send`]).
pub async fn send_as(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    realm: &RealmState,
    req: &SendRequest,
    guard: Vec<D1PreparedStatement>,
) -> ApiResult<SentMessage> {
    let plan = plan_send(db, me, realm, req).await?;
    commit_send(db, env, &plan, req, guard).await
}

/// The recalled send: [`plan`] from the answers this isolate remembers of the same reads
/// (`Authenticator::recall_as_user`), then ONE write batch led by the recall's guards.
/// `None` when nothing was written: there was nothing to recall, the plan refused (a
/// refusal may come from old answers), or a guard found a read answering differently now;
/// the caller then reads and sends as usual.
async fn send_recalled(auth: &Authenticator, db: &D1Database, env: &Env, req: &SendRequest) -> ApiResult<Option<(UserRow, SentMessage)>> {
    let Some((me, realm, inputs, recall)) = auth.recall_as_user(req).await? else { return Ok(None) };
    let Ok(plan) = plan(&me, &realm, req, inputs) else { return Ok(None) };
    let mut batch = Batch::new();
    for guard in recall.guards() {
        batch.add::<Value>(guard.clone());
    }
    let pending = add_send_writes(&mut batch, db, &plan, req, Vec::new())?;
    let results = match batch.run(db).await {
        Ok(results) => results,
        Err(err) if recall.is_stale(&err) => return Ok(None),
        Err(err) => return Err(err.into()),
    };
    let sent = finish_send(env, &plan, req, &results, pending).await?;
    auth.settle_recalled_count();
    if sent.changed_its_reads {
        recall.forget();
    }
    Ok(Some((me, sent)))
}

/// The send's reads in the batch that authenticates the request, [`plan`], then ONE write;
/// the reads' answers are kept for the sender's next message when the write left them as
/// they were.
async fn send_read(auth: &Authenticator, db: &D1Database, env: &Env, req: &SendRequest) -> ApiResult<(UserRow, SentMessage)> {
    let (me, realm, inputs, remembrance) = auth.read_to_remember(req).await?;
    let plan = plan(&me, &realm, req, inputs)?;
    let sent = commit_send(db, env, &plan, req, Vec::new()).await?;
    if let Some(remembrance) = remembrance.filter(|_| !sent.changed_its_reads) {
        remembrance.keep();
    }
    Ok((me, sent))
}

/// Sending's reads, made as the sender in the batch that authenticates them, and
/// remembered for the sender's next message to the same place.
impl ReadAsUser for SendRequest {
    type Slots = SendReads;
    type Output = SendInputs;
    fn add(&self, batch: &mut Batch, db: &D1Database, me: &UserRow, realm: &RealmState) -> ApiResult<SendReads> {
        add_send_reads(batch, db, me, realm, self)
    }
    fn take(&self, results: &BatchResults, reads: SendReads, me: &UserRow, realm: &RealmState) -> ApiResult<SendInputs> {
        reads.take(results, me, realm, self)
    }
}

/// A validated message, ready to write: everything [`commit_send`] needs, computed by
/// [`plan`] without writing anything.
pub struct SendPlan {
    sender: UserRow,
    settings: RealmSettingsRow,
    content: String,
    rendered: markdown::Rendered,
    recipient: RecipientRef,
    channel_row: Option<PlannedChannel>,
    topic: String,
    dm_user_ids: Vec<i64>,
    /// (user id, flag bits) of every recipient.
    rows: Vec<(i64, i64)>,
    auto_policy: Option<VisibilityPolicy>,
    mention_follows: Vec<i64>,
    named_users: Vec<UserRow>,
    /// The organization's linkifiers, for the message's `topic_links`.
    linkifiers: Vec<markdown::Linkifier>,
    date_sent: i64,
    /// See [`SentMessage::may_notify_push`].
    may_notify_push: bool,
    /// See [`SentMessage::changed_its_reads`].
    changes_its_reads: bool,
}

impl SendPlan {
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

/// Every rule of sending, checked against the current state: [`load_send`] then [`plan`];
/// writes nothing. Shared by `POST /messages`, scheduling a message and delivering a
/// scheduled one.
pub async fn plan_send(db: &D1Database, me: &UserRow, realm: &RealmState, req: &SendRequest) -> ApiResult<SendPlan> {
    let inputs = load_send(db, me, realm, req).await?;
    plan(me, realm, req, inputs)
}

/// The topic as the rules will check it, computed before anything is read (the read needs
/// it); its error is reported where Zulip checks the topic.
fn normalized_topic(req: &SendRequest, settings: &RealmSettingsRow) -> Option<ApiResult<String>> {
    match req.to {
        Destination::Users(_) => None,
        _ => req.topic.as_deref().map(|raw| normalize_topic(raw, settings)),
    }
}

/// Reads everything [`plan`] needs in ONE batch: [`add_send_reads`], run, [`SendReads::take`].
pub async fn load_send(db: &D1Database, me: &UserRow, realm: &RealmState, req: &SendRequest) -> ApiResult<SendInputs> {
    let mut batch = Batch::new();
    let reads = add_send_reads(&mut batch, db, me, realm, req)?;
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
}

/// Adds what [`plan`] reads to `batch`, as `me`: the destination, its subscribers and
/// topic, the named recipients, mentions and mutes. The organization's
/// settings come with `realm` (the isolate's copy, current for this request).
pub fn add_send_reads(batch: &mut Batch, db: &D1Database, me: &UserRow, realm: &RealmState, req: &SendRequest) -> ApiResult<SendReads> {
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
            Some(batch.add::<DirectRecipient>(users::direct_recipients_stmt(realm_id, &user_ids, &user_emails, me.id)?))
        }
        _ => None,
    };
    let resolution = ResolutionReads::add(batch, db, realm_id, &refs, Some(&realm.linkifiers))?;
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
                    Destination::ChannelId(id) => subscriptions::by_id_for_user_stmt(realm_id, me.id, *id)?,
                    _ => subscriptions::by_name_for_user_stmt(realm_id, me.id, &channel_name)?,
                }),
                subscribers: batch.add::<SendSubscriber>(subscriptions::send_subscribers_stmt(&to, me.id)?),
                topic: batch.add::<TopicForSender>(messages::topic_for_sender_stmt(&to, me.id)?),
                senders: if refs.topic_wildcard { Some(batch.add::<SenderId>(messages::topic_senders_stmt(&to)?)) } else { None },
                membership: if refs.stream_wildcard || refs.topic_wildcard {
                    let group = settings.can_mention_many_users_group;
                    Some(batch.add::<IsMemberRow>(user_groups::is_member_stmt(realm_id, group, me.id, false)?))
                } else {
                    None
                },
            })
        }
    };
    Ok(SendReads { named_users, direct_recipients, resolution, channel })
}

impl SendReads {
    /// What the batch read, for [`plan`].
    pub fn take(self, results: &BatchResults, me: &UserRow, realm: &RealmState, req: &SendRequest) -> ApiResult<SendInputs> {
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
            alert_words: realm.alert_words.clone(),
            muters: Vec::new(),
            recipients_with_push_device: Vec::new(),
            resolved,
            group_members,
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
            if let Some(membership) = channel.membership {
                inputs.may_mention_many = results.first(membership)?.is_some_and(|m| m.is_member != 0);
            }
        }
        Ok(inputs)
    }
}

/// The rules of sending over what [`load_send`] read (pure): the destination and access,
/// the topic, the content and its rendering, wildcard permissions, each recipient's flags
/// and the topic policies the send changes.
pub fn plan(me: &UserRow, realm: &RealmState, req: &SendRequest, inputs: SendInputs) -> ApiResult<SendPlan> {
    let settings = &realm.settings;
    let SendInputs {
        channel,
        named_users,
        subscribers,
        topic_senders,
        sender_topic_policy,
        may_mention_many,
        alert_words,
        muters,
        recipients_with_push_device,
        resolved,
        group_members,
        now,
    } = inputs;
    let content = normalize_content(&req.content, settings.max_message_length)?;
    let rendered = markdown::render(&content, &resolved);
    let mentioned = mentioned_user_ids(&rendered, &group_members);
    // Zulip looks for alert words in the Markdown source, for every recipient.
    let alerted = alerted_users(&content, &alert_words);

    // --- Destination and recipients.
    let mut flags: HashMap<i64, i64> = HashMap::new();
    let recipient: RecipientRef;
    let mut topic = String::new();
    let mut channel_row: Option<PlannedChannel> = None;
    let mut dm_user_ids: Vec<i64> = Vec::new();
    let mut auto_policy: Option<VisibilityPolicy> = None;
    // Mentioned users who follow topics where they are mentioned (Zulip's
    // `automatically_follow_topics_where_mentioned`, default on) and do not follow this one yet.
    let mut mention_follows: Vec<i64> = Vec::new();
    let mut topic_participants: BTreeSet<i64>;
    let mut changes_its_reads = false;
    match &req.to {
        Destination::ChannelName(name) if channel.is_none() => return Err(ApiError::stream_does_not_exist(name)),
        Destination::ChannelId(id) if channel.is_none() => return Err(ApiError::stream_id_does_not_exist(*id)),
        _ => {}
    }
    match (&req.to, channel) {
        (Destination::ChannelName(_) | Destination::ChannelId(_), Some(c)) => {
            // Like Zulip, an existing private channel answers "Not authorized".
            if c.is_archived != 0 || (!c.subscribed() && (c.is_private() || me.is_guest())) {
                return Err(ApiError::bad_request(format!("Not authorized to send to channel '{}'", c.name)));
            }
            let normalized = normalized_topic(req, settings).ok_or_else(|| ApiError::bad_request("Missing topic"))?;
            topic = normalized?;
            check_topic_allowed(&topic, effective_topics_policy(&c.topics_policy, settings))?;

            topic_participants = topic_senders.iter().copied().collect();
            let topic_is_new = topic_participants.is_empty();
            if rendered.stream_wildcard && subscribers.len() > WILDCARD_MENTION_THRESHOLD && !may_mention_many {
                return Err(ApiError::stream_wildcard_mention_not_allowed());
            }
            if rendered.topic_wildcard && topic_participants.len() > WILDCARD_MENTION_THRESHOLD && !may_mention_many {
                return Err(ApiError::topic_wildcard_mention_not_allowed());
            }
            topic_participants.insert(me.id);
            mention_follows = subscribers
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
            for s in &subscribers {
                flags.insert(s.user_id, 0);
            }
            flags.entry(me.id).or_insert(0);
            if !me.is_bot() {
                let sender_muted = subscribers.iter().any(|s| s.user_id == me.id && s.is_muted != 0);
                auto_policy = automatic_policy(me, sender_topic_policy, topic_is_new, sender_muted);
            }
            changes_its_reads = topic_is_new
                || auto_policy.is_some()
                || !mention_follows.is_empty()
                || (rendered.topic_wildcard && !topic_senders.contains(&me.id));
            recipient = RecipientRef::Id(c.recipient_id);
            channel_row = Some(PlannedChannel { id: c.id, name: c.name, recipient_id: c.recipient_id });
        }
        (Destination::Users(list), _) => {
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
            recipient = match ids.len() {
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
            dm_user_ids = ids;
            for id in &dm_user_ids {
                flags.insert(*id, message_flags::IS_PRIVATE);
            }
            topic_participants = dm_user_ids.iter().copied().collect();
        }
        _ => return Err(ApiError::internal("channel destination without a channel")),
    }

    // --- Flags.
    for (user_id, bits) in flags.iter_mut() {
        if mentioned.contains(user_id) {
            *bits |= message_flags::MENTIONED;
        }
        if rendered.stream_wildcard {
            *bits |= message_flags::STREAM_WILDCARD_MENTIONED;
        }
        if rendered.topic_wildcard && topic_participants.contains(user_id) {
            *bits |= message_flags::TOPIC_WILDCARD_MENTIONED;
        }
        if alerted.contains(user_id) {
            *bits |= message_flags::HAS_ALERT_WORD;
        }
        // Messages of a user one muted arrive read, as in Zulip.
        if muters.contains(user_id) {
            *bits |= message_flags::READ;
        }
        if *user_id == me.id && req.read_by_sender {
            *bits |= message_flags::READ;
        }
    }
    let mut rows: Vec<(i64, i64)> = flags.into_iter().collect();
    rows.sort_unstable();
    let may_notify_push = recipients_with_push_device.iter().any(|id| *id != me.id);
    Ok(SendPlan {
        sender: me.clone(),
        settings: settings.clone(),
        content,
        rendered,
        recipient,
        channel_row,
        topic,
        dm_user_ids,
        rows,
        auto_policy,
        mention_follows,
        named_users,
        linkifiers: realm.linkifiers.clone(),
        date_sent: now,
        may_notify_push,
        changes_its_reads,
    })
}

/// A message of the organization's notification bot to a channel topic (Zulip's
/// `internal_send_stream_message`): none of a user's sending rules apply; every active
/// subscriber receives it, read for `read_for` (the user whose action it reports), with
/// the users its content mentions flagged.
pub struct BotMessage<'a> {
    pub bot: &'a UserRow,
    pub channel: PlannedChannel,
    pub topic: &'a str,
    pub content: &'a str,
    pub subscribers: &'a [i64],
    pub read_for: i64,
}

/// Plans a [`BotMessage`] (pure): the rendering of its content and each subscriber's flags.
pub fn plan_bot_message(
    message: BotMessage<'_>,
    settings: &RealmSettingsRow,
    resolved: &markdown::Resolved,
    group_members: &HashMap<i64, Vec<i64>>,
    now: i64,
) -> SendPlan {
    let rendered = markdown::render(message.content, resolved);
    let mentioned = mentioned_user_ids(&rendered, group_members);
    let rows = message
        .subscribers
        .iter()
        .map(|id| {
            let read = if *id == message.read_for { message_flags::READ } else { 0 };
            let mention = if mentioned.contains(id) { message_flags::MENTIONED } else { 0 };
            (*id, read | mention)
        })
        .collect();
    SendPlan {
        sender: message.bot.clone(),
        settings: settings.clone(),
        content: message.content.to_string(),
        rendered,
        recipient: RecipientRef::Id(message.channel.recipient_id),
        channel_row: Some(message.channel),
        topic: message.topic.to_string(),
        dm_user_ids: Vec::new(),
        rows,
        auto_policy: None,
        mention_follows: Vec::new(),
        named_users: Vec::new(),
        linkifiers: resolved.linkifiers.clone(),
        date_sent: now,
        // Nothing schedules push notifications for the notification bot's messages.
        may_notify_push: false,
        changes_its_reads: true,
    }
}

/// Writes a planned message in ONE D1 batch, then sends its events. `guard` statements run
/// in the same batch right after the message insert (`last_insert_rowid()` is the new
/// message's id there; they must not insert rows, since the recipients' rows that follow
/// read it too); when one fails, nothing of the batch is written.
pub async fn commit_send(
    db: &D1Database,
    env: &Env,
    plan: &SendPlan,
    req: &SendRequest,
    guard: Vec<D1PreparedStatement>,
) -> ApiResult<SentMessage> {
    let mut batch = Batch::new();
    let pending = add_send_writes(&mut batch, db, plan, req, guard)?;
    let results = batch.run(db).await?;
    finish_send(env, plan, req, &results, pending).await
}

/// Where a planned message's writes sit in a batch, for [`finish_send`].
pub struct PendingSend {
    inserted: Slot<Inserted>,
    linked: Option<LinkedReads>,
}

/// Adds the writes of a planned message to `batch` (see [`commit_send`] for `guard`), for
/// a caller that writes it together with its own change.
pub fn add_send_writes(
    batch: &mut Batch,
    db: &D1Database,
    plan: &SendPlan,
    req: &SendRequest,
    guard: Vec<D1PreparedStatement>,
) -> ApiResult<PendingSend> {
    let SendPlan { sender: me, content, rendered, recipient, channel_row, topic, dm_user_ids, rows, auto_policy, mention_follows, .. } =
        plan;
    let (now, realm_id) = (plan.date_sent, me.realm_id);
    let channel_row = channel_row.as_ref();
    if let RecipientRef::Group(_) = &recipient {
        for stmt in direct_message_groups::ensure_stmts(db, realm_id, dm_user_ids)? {
            batch.add::<Value>(stmt);
        }
    }
    let html = &rendered.html;
    let inserted = batch.add::<Inserted>(messages::insert_stmt(
        db,
        &NewMessage {
            realm_id,
            sender_id: me.id,
            recipient: recipient.clone(),
            channel_id: channel_row.map(|c| c.id),
            topic,
            content,
            rendered_content: html,
            date_sent: now,
            client: &req.client,
            is_me_message: rendered.is_me_message,
            has_image: html.contains("<img"),
            has_link: html.contains("<a "),
        },
    )?);
    for stmt in guard {
        batch.add::<Value>(stmt);
    }
    batch.add::<Value>(user_messages::insert_for_new_message_stmt(db, &serde_json::to_string(&rows)?)?);
    let linked_uploads = crate::domain::uploads::linked_path_ids(content);
    if !linked_uploads.is_empty() {
        batch.add::<Value>(crate::db::attachments::link_new_message_stmt(db, realm_id, me.id, &serde_json::to_string(&linked_uploads)?)?);
    }
    let linked = LinkedReads::add(batch, db, me.id, &linked_uploads)?;
    if let (Some(policy), Some(c)) = (auto_policy, channel_row) {
        batch.add::<Value>(user_topics::upsert_stmt(db, realm_id, me.id, c.id, topic, *policy, now)?);
    }
    if let Some(c) = channel_row {
        for user_id in mention_follows.iter() {
            batch.add::<Value>(user_topics::upsert_stmt(db, realm_id, *user_id, c.id, topic, VisibilityPolicy::Followed, now)?);
        }
    }
    Ok(PendingSend { inserted, linked })
}

/// The events of a message whose [`add_send_writes`] statements committed in `results`.
pub async fn finish_send(
    env: &Env,
    plan: &SendPlan,
    req: &SendRequest,
    results: &BatchResults,
    pending: PendingSend,
) -> ApiResult<SentMessage> {
    let SendPlan {
        sender: me,
        settings,
        content,
        rendered,
        recipient,
        channel_row,
        topic,
        dm_user_ids,
        rows,
        auto_policy,
        mention_follows,
        named_users,
        linkifiers,
        date_sent: now,
        ..
    } = plan;
    let (auto_policy, now, realm_id) = (*auto_policy, *now, me.realm_id);
    let channel_row = channel_row.as_ref();
    let PendingSend { inserted, linked } = pending;
    let inserted = results.first(inserted)?.ok_or_else(|| ApiError::internal("message insert returned no id"))?;

    // --- Events, after the write committed.
    match linked.map(|reads| reads.take(results)).transpose() {
        Ok(Some(linked)) => send_linked(env, me, &linked).await,
        Ok(None) => {}
        Err(err) => worker::console_error!("attachment events not sent: {}", err.msg),
    }
    let (recipient_type, recipient_type_id) = match (&recipient, channel_row) {
        (RecipientRef::Id(_), Some(c)) => (RecipientType::Channel, c.id),
        (RecipientRef::User(id), _) => (RecipientType::Personal, *id),
        _ => (RecipientType::DirectMessageGroup, 0),
    };
    let message = MessageRow {
        id: inserted.id,
        realm_id,
        sender_id: me.id,
        recipient_id: inserted.recipient_id,
        recipient_type,
        recipient_type_id,
        channel_id: channel_row.map(|c| c.id),
        topic: topic.clone(),
        content: content.clone(),
        rendered_content: rendered.html.clone(),
        date_sent: now,
        client: req.client.clone(),
        is_me_message: rendered.is_me_message as i64,
        last_edit_timestamp: None,
        last_moved_timestamp: None,
        edit_history: None,
        has_attachment: 0,
        has_image: 0,
        has_link: 0,
    };
    let mut users: HashMap<i64, UserRow> = named_users.iter().cloned().map(|u| (u.id, u)).collect();
    users.insert(me.id, me.clone());
    let mut group_members_map = HashMap::new();
    if recipient_type == RecipientType::DirectMessageGroup {
        group_members_map.insert(0, dm_user_ids.clone());
    }
    let mut channel_names = HashMap::new();
    if let Some(c) = channel_row {
        channel_names.insert(c.id, c.name.clone());
    }
    let ctx = MessageContext {
        viewer: me.clone(),
        settings: settings.clone(),
        realm_host: req.realm_host.clone(),
        users,
        group_members: group_members_map,
        reactions: HashMap::new(),
        channel_names,
        topic_linker: crate::markdown::TopicLinker::new(linkifiers),
    };
    let opts = MessageOptions { apply_markdown: true, allow_empty_topic_name: true, client_gravatar: false };
    let mut dict = message_dict(&message, None, &ctx, &opts);
    if let Value::Object(map) = &mut dict {
        map.remove("flags");
    }
    let event = Event::Message { message: dict, raw_content: Some(content.to_string()) };
    let event_users: Vec<EventUser> = rows.iter().map(|(id, bits)| EventUser { id: *id, flags: Some(flag_names(Some(*bits))) }).collect();
    send_message_event(env, realm_id, &event, &event_users, req.queue_id.as_deref(), req.local_id.as_deref()).await;
    if let (Some(policy), Some(c)) = (auto_policy, channel_row) {
        let event = Event::UserTopic { stream_id: c.id, topic_name: topic.to_string(), last_updated: now, visibility_policy: policy };
        send_event(env, realm_id, &event, &[EventUser::plain(me.id)]).await;
    }
    if let Some(c) = channel_row {
        for user_id in mention_follows.iter() {
            let event = Event::UserTopic {
                stream_id: c.id,
                topic_name: topic.to_string(),
                last_updated: now,
                visibility_policy: VisibilityPolicy::Followed,
            };
            send_event(env, realm_id, &event, &[EventUser::plain(*user_id)]).await;
        }
    }
    Ok(SentMessage {
        id: inserted.id,
        automatic_new_visibility_policy: auto_policy,
        followed_by_mention: mention_follows.clone(),
        may_notify_push: plan.may_notify_push,
        changed_its_reads: plan.changes_its_reads,
    })
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
            topics_policy: "inherit".into(),
            folder_id: None,
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
            alert_words: Vec::new(),
            muters: Vec::new(),
            recipients_with_push_device: Vec::new(),
            resolved: markdown::Resolved::default(),
            group_members: HashMap::new(),
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

    #[test]
    fn bot_messages_reach_every_subscriber_read_for_the_actor_only() {
        let bot = UserRow { id: 99, is_bot: 1, ..member(99) };
        let resolved = markdown::Resolved {
            users: vec![markdown::MentionableUser { id: 3, full_name: "User 3".into() }],
            ..markdown::Resolved::default()
        };
        let message = BotMessage {
            bot: &bot,
            channel: PlannedChannel { id: 5, name: "Denmark".into(), recipient_id: 50 },
            topic: "t",
            content: "@**User 3** moved this topic",
            subscribers: &[1, 2, 3],
            read_for: 1,
        };
        let planned = plan_bot_message(message, &realm().settings, &resolved, &HashMap::new(), 1000);
        assert_eq!(planned.rows, vec![(1, message_flags::READ), (2, 0), (3, message_flags::MENTIONED)]);
        assert_eq!(planned.channel(), Some((5, "t")));
        assert_eq!(planned.auto_policy, None);
    }
}
