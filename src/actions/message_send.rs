//! Sending a message: every rule of `POST /messages`, in a constant number of D1 round
//! trips (a lookup batch, a topic batch for channel messages, one write batch), then the
//! message event.

use std::collections::{BTreeSet, HashMap};

use serde::Deserialize;
use serde_json::Value;
use worker::{D1Database, D1PreparedStatement, Env};

use crate::actions::channels::Principal;
use crate::db::alert_words::{self, UserWordRow};
use crate::db::direct_message_groups;
use crate::db::messages::{self, MessageRow, NewMessage, RecipientRef};
use crate::db::muted_users::{self, MuterRow};
use crate::db::realm_settings::{self, RealmSettingsRow};
use crate::db::subscriptions::{self, ChannelViewRow};
use crate::db::user_groups;
use crate::db::user_messages;
use crate::db::users::{self, UserRow};
use crate::db::{self, user_topics};
use crate::domain::alert_words::alerted_users;
use crate::domain::message_flags::{self, flag_names};
use crate::domain::messages::{message_dict, MessageContext, MessageOptions};
use crate::domain::recipients::RecipientType;
use crate::domain::rendering::{mentioned_user_ids, resolution_stmts, resolved_from};
use crate::domain::topics::{check_topic_allowed, effective_topics_policy, normalize_topic, truncate, VisibilityPolicy};
use crate::error::{ApiError, ApiResult};
use crate::events::{send_event, send_message_event, Event, EventUser};
use crate::markdown;

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
}

#[derive(Deserialize)]
struct SenderPolicies {
    automatically_follow_topics_policy: i64,
    automatically_unmute_topics_in_muted_streams_policy: i64,
}

#[derive(Deserialize)]
struct SubscriberFlags {
    user_id: i64,
    is_muted: i64,
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
struct Policy {
    visibility_policy: VisibilityPolicy,
}

#[derive(Deserialize)]
struct MentionedPolicy {
    user_id: i64,
    visibility_policy: VisibilityPolicy,
}

#[derive(Deserialize)]
struct Membership {
    is_member: i64,
}

/// Zulip's `normalize_body`: trailing whitespace and leading blank lines go; empty and
/// NUL-containing content is refused; content over the limit is truncated.
pub fn normalize_content(content: &str, max_len: i64) -> ApiResult<String> {
    let body = content.trim_end().trim_start_matches('\n');
    if body.is_empty() {
        return Err(ApiError::bad_request("Message must not be empty"));
    }
    if body.contains('\0') {
        return Err(ApiError::bad_request("Message must not contain null bytes"));
    }
    Ok(truncate(body, max_len.max(30) as usize, "\n[message truncated]"))
}

/// Zulip's `Client.default_read_by_sender`: messages from interactive clients start read
/// for their sender; API clients (bots, integrations) do not.
pub fn default_read_by_sender(client: &str) -> bool {
    let name = client.to_lowercase();
    [
        "zulipandroid",
        "zulipios",
        "zulipdesktop",
        "zulipmobile",
        "zulipelectron",
        "zulipterminal",
        "snipe",
        "website",
        "ios",
        "android",
        "zulipflutter",
    ]
    .contains(&name.as_str())
        || name.contains("desktop app")
}

/// Sends a message: [`plan_send`], then [`commit_send`].
pub async fn check_send_message(db: &D1Database, env: &Env, me: &UserRow, req: &SendRequest) -> ApiResult<SentMessage> {
    let plan = plan_send(db, me, req).await?;
    commit_send(db, env, &plan, req, Vec::new()).await
}

/// A validated message, ready to write: everything [`commit_send`] needs, computed by
/// [`plan_send`] without writing anything.
pub struct SendPlan {
    sender: UserRow,
    settings: RealmSettingsRow,
    content: String,
    rendered: markdown::Rendered,
    recipient: RecipientRef,
    channel_row: Option<ChannelViewRow>,
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

/// Every rule of sending (destination, access, topic, content, wildcard permissions),
/// checked against the current state in at most two read batches; writes nothing. Shared
/// by `POST /messages`, scheduling a message and delivering a scheduled one.
pub async fn plan_send(db: &D1Database, me: &UserRow, req: &SendRequest) -> ApiResult<SendPlan> {
    let realm_id = me.realm_id;
    // --- Lookup batch: settings, destination, mentions, the sender's policies.
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
    let mut batch = vec![
        realm_settings::by_realm_id_stmt(db, realm_id)?,
        match &req.to {
            Destination::ChannelId(id) => subscriptions::by_id_for_user_stmt(db, realm_id, me.id, *id)?,
            _ => subscriptions::by_name_for_user_stmt(db, realm_id, me.id, &channel_name)?,
        },
        users::by_ids_or_emails_stmt(db, realm_id, &user_ids, &user_emails, false)?,
        users::topic_policies_stmt(db, me.id)?,
        subscriptions::subscriber_mutes_stmt(db, realm_id, channel_id, &channel_name)?,
    ];
    batch.push(alert_words::in_realm_stmt(db, realm_id)?);
    batch.push(muted_users::muters_of_stmt(db, me.id)?);
    batch.extend(resolution_stmts(db, realm_id, &refs)?);
    let results = crate::db::run_batch(db, batch).await?;
    let settings: RealmSettingsRow = results[0].results()?.into_iter().next().ok_or_else(|| ApiError::internal("no realm settings"))?;
    let channel: Option<ChannelViewRow> = results[1].results()?.into_iter().next();
    let named_users: Vec<UserRow> = results[2].results()?;
    let policies: Option<SenderPolicies> = results[3].results()?.into_iter().next();
    let subscribers: Vec<SubscriberFlags> = results[4].results()?;
    let realm_alert_words: Vec<(i64, String)> = results[5].results::<UserWordRow>()?.into_iter().map(|w| (w.user_id, w.word)).collect();
    let muters: Vec<i64> = results[6].results::<MuterRow>()?.into_iter().map(|m| m.user_id).collect();
    let (mut resolved, group_members) = resolved_from(&results[7..])?;
    resolved.translate_emoticons = crate::domain::user_settings::flag(me, "translate_emoticons");
    resolved.realm_url = req.realm_url.clone();

    let content = normalize_content(&req.content, settings.max_message_length)?;
    let rendered = markdown::render(&content, &resolved);
    let mentioned = mentioned_user_ids(&rendered, &group_members);
    // Zulip looks for alert words in the Markdown source, for every recipient.
    let alerted = alerted_users(&content, &realm_alert_words);
    let now = db::now();

    // --- Destination and recipients.
    let mut flags: HashMap<i64, i64> = HashMap::new();
    let recipient: RecipientRef;
    let mut topic = String::new();
    let mut channel_row: Option<ChannelViewRow> = None;
    let mut dm_user_ids: Vec<i64> = Vec::new();
    let mut auto_policy: Option<VisibilityPolicy> = None;
    // Mentioned users who follow topics where they are mentioned (Zulip's
    // `automatically_follow_topics_where_mentioned`, default on) and do not follow this one yet.
    let mut mention_follows: Vec<i64> = Vec::new();
    let mut topic_participants: BTreeSet<i64>;
    match &req.to {
        Destination::ChannelName(_) | Destination::ChannelId(_) => {
            let c = match (channel, &req.to) {
                // Like Zulip, an existing private channel answers "Not authorized" below.
                (Some(c), _) => c,
                (_, Destination::ChannelId(id)) => return Err(ApiError::stream_id_does_not_exist(*id)),
                _ => return Err(ApiError::stream_does_not_exist(&channel_name)),
            };
            if c.is_archived != 0 || (!c.subscribed() && (c.is_private() || me.is_guest())) {
                return Err(ApiError::bad_request(format!("Not authorized to send to channel '{}'", c.name)));
            }
            let raw_topic = req.topic.as_deref().ok_or_else(|| ApiError::bad_request("Missing topic"))?;
            topic = normalize_topic(raw_topic, &settings)?;
            check_topic_allowed(&topic, effective_topics_policy(&c.topics_policy, &settings))?;

            // --- Topic batch: participants, the sender's policy, permission for wildcards.
            let topic_results = crate::db::run_batch(
                db,
                vec![
                    messages::topic_senders_stmt(db, c.recipient_id, &topic)?,
                    user_topics::policy_stmt(db, me.id, c.id, &topic)?,
                    user_groups::is_member_stmt(db, realm_id, settings.can_mention_many_users_group, me.id, false)?,
                    user_topics::mentioned_followers_stmt(
                        db,
                        realm_id,
                        &mentioned.iter().copied().collect::<Vec<i64>>(),
                        c.id,
                        &topic,
                        me.id,
                    )?,
                ],
            )
            .await?;
            topic_participants = topic_results[0].results::<SenderId>()?.into_iter().map(|r| r.sender_id).collect();
            let topic_is_new = topic_participants.is_empty();
            let current_policy = topic_results[1].results::<Policy>()?.into_iter().next().map(|p| p.visibility_policy).unwrap_or_default();
            let may_mention_many = topic_results[2].results::<Membership>()?.into_iter().next().is_some_and(|m| m.is_member != 0);
            if rendered.stream_wildcard && subscribers.len() > WILDCARD_MENTION_THRESHOLD && !may_mention_many {
                return Err(ApiError::stream_wildcard_mention_not_allowed());
            }
            if rendered.topic_wildcard && topic_participants.len() > WILDCARD_MENTION_THRESHOLD && !may_mention_many {
                return Err(ApiError::topic_wildcard_mention_not_allowed());
            }
            topic_participants.insert(me.id);
            let subscribed: BTreeSet<i64> = subscribers.iter().map(|s| s.user_id).collect();
            mention_follows = topic_results[3]
                .results::<MentionedPolicy>()?
                .into_iter()
                .filter(|r| r.visibility_policy != VisibilityPolicy::Followed && subscribed.contains(&r.user_id))
                .map(|r| r.user_id)
                .collect();

            for s in &subscribers {
                flags.insert(s.user_id, 0);
            }
            flags.entry(me.id).or_insert(0);
            if !me.is_bot() {
                let sender_muted = subscribers.iter().any(|s| s.user_id == me.id && s.is_muted != 0);
                auto_policy = automatic_policy(policies.as_ref(), current_policy, topic_is_new, sender_muted);
            }
            recipient = RecipientRef::Id(c.recipient_id);
            channel_row = Some(c);
        }
        Destination::Users(list) => {
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
    let rows: Vec<(i64, i64)> = flags.iter().map(|(u, f)| (*u, *f)).collect();
    Ok(SendPlan {
        sender: me.clone(),
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
        linkifiers: resolved.linkifiers,
        date_sent: now,
    })
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
    } = plan;
    let (auto_policy, now, realm_id) = (*auto_policy, *now, me.realm_id);
    let channel_row = channel_row.as_ref();

    // --- Write batch.
    let mut writes = Vec::new();
    if let RecipientRef::Group(_) = &recipient {
        writes.extend(direct_message_groups::ensure_stmts(db, realm_id, dm_user_ids)?);
    }
    let insert_index = writes.len();
    let html = &rendered.html;
    writes.push(messages::insert_stmt(
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
    writes.extend(guard);
    writes.push(user_messages::insert_for_new_message_stmt(db, &serde_json::to_string(&rows)?)?);
    let linked_uploads = crate::domain::uploads::linked_path_ids(content);
    if !linked_uploads.is_empty() {
        writes.push(crate::db::attachments::link_new_message_stmt(db, realm_id, me.id, &serde_json::to_string(&linked_uploads)?)?);
    }
    if let (Some(policy), Some(c)) = (auto_policy, channel_row) {
        writes.push(user_topics::upsert_stmt(db, realm_id, me.id, c.id, topic, policy, now)?);
    }
    if let Some(c) = channel_row {
        for user_id in mention_follows.iter() {
            writes.push(user_topics::upsert_stmt(db, realm_id, *user_id, c.id, topic, VisibilityPolicy::Followed, now)?);
        }
    }
    let results = crate::db::run_batch(db, writes).await?;
    let inserted: Inserted =
        results[insert_index].results()?.into_iter().next().ok_or_else(|| ApiError::internal("message insert returned no id"))?;

    // --- Events, after the write committed.
    if let Err(err) = crate::actions::uploads::notify_linked(db, env, me, &linked_uploads).await {
        worker::console_error!("attachment events not sent: {}", err.msg);
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
    Ok(SentMessage { id: inserted.id, automatic_new_visibility_policy: auto_policy, followed_by_mention: mention_follows.clone() })
}

/// Zulip's `visibility_policy_for_send_message`: follow the topic per the sender's
/// automatically-follow setting, or else unmute it in a muted channel per the
/// automatically-unmute setting; nothing when already followed or unchanged.
fn automatic_policy(
    policies: Option<&SenderPolicies>,
    current: VisibilityPolicy,
    topic_is_new: bool,
    channel_muted: bool,
) -> Option<VisibilityPolicy> {
    let policies = policies?;
    if current == VisibilityPolicy::Followed {
        return None;
    }
    let applies = |setting: i64| matches!(setting, AUTO_ON_PARTICIPATION | AUTO_ON_SEND) || (setting == AUTO_ON_INITIATION && topic_is_new);
    if applies(policies.automatically_follow_topics_policy) {
        return Some(VisibilityPolicy::Followed);
    }
    if channel_muted && current == VisibilityPolicy::Inherit && applies(policies.automatically_unmute_topics_in_muted_streams_policy) {
        return Some(VisibilityPolicy::Unmuted);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_by_sender_heuristic() {
        assert!(default_read_by_sender("website"));
        assert!(default_read_by_sender("ZulipTerminal"));
        assert!(!default_read_by_sender("ZulipPython"));
        assert!(!default_read_by_sender("API"));
    }

    #[test]
    fn content_is_normalized_and_truncated() {
        assert_eq!(normalize_content("\n\nhi  \n", 100).unwrap(), "hi");
        assert!(normalize_content("   ", 100).is_err());
        let long = "x".repeat(200);
        assert!(normalize_content(&long, 100).unwrap().ends_with("[message truncated]"));
        assert_eq!(normalize_content(&long, 100).unwrap().chars().count(), 100);
    }

    #[test]
    fn initiating_a_topic_follows_it_by_default() {
        let p = SenderPolicies { automatically_follow_topics_policy: 3, automatically_unmute_topics_in_muted_streams_policy: 2 };
        use VisibilityPolicy::{Followed, Inherit, Unmuted};
        assert_eq!(automatic_policy(Some(&p), Inherit, true, false), Some(Followed));
        assert_eq!(automatic_policy(Some(&p), Inherit, false, false), None);
        assert_eq!(automatic_policy(Some(&p), Inherit, false, true), Some(Unmuted));
        assert_eq!(automatic_policy(Some(&p), Followed, true, false), None);
    }
}
