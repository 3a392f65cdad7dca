//! Editing and moving a message (`PATCH /messages/{message_id}`): Zulip's
//! `check_update_message` + `do_update_message`.
//!
//! Round trips: one read batch (the message's access, the caller's permission groups, what
//! new content references, the topics and channels a move involves, the message's rows;
//! the settings and linkifiers are the isolate's copy); the write (one batch, moved messages
//! named in chunks, with the notifications of a move and the upload links of a content
//! edit); then the events.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::Value;
use worker::D1Database;

use crate::actions::message_notifications::{self, MoveNotice, PlannedNotices};
use crate::actions::uploads::{EditRelink, Relinked};
use crate::context::RequestContext;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::message_edits::{self as q, MoveChannelRow, RecipientRow, SubscriberRow, TopicMessageRow};
use crate::db::messages::MessageRow;
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::user_groups::{self, IsMemberRow};
use crate::db::users::UserRow;
use crate::domain::channels::access;
use crate::domain::edit_rendering::{self, Rendered};
use crate::domain::ids::{ChannelId, MessageId, RealmId, UserId};
use crate::domain::message_edit::{self as rules, EditParams, EditPlan, EditorRights, PropagateMode, TopicMessage};
use crate::domain::messages::accessed_from;
use crate::domain::rendering::ResolutionReads;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, UpdateMessageEvent};
use crate::events::{self, EventUser};
use crate::markdown;
use crate::model::message_flags::{flag_names, READ};
use crate::realm_cache::RealmState;

/// Zulip's threshold above which wildcard mentions need `can_mention_many_users_group`.
const WILDCARD_MENTION_THRESHOLD: i64 = 15;

/// What the edit answers: the editor's uploads that the edit left unlinked.
pub struct EditResult {
    pub detached_uploads: Vec<Value>,
}

/// Validates the edit, checks permissions, applies it and sends its events.
pub async fn check_update_message(
    ctx: &RequestContext,
    user: &UserRow,
    message_id: MessageId,
    params: EditParams,
) -> ApiResult<EditResult> {
    let db = &ctx.db;
    // The isolate's copy, current for this request (its version came with authentication).
    let state = ctx.realm_state(user.realm_id).await?;
    let settings = state.settings.clone();
    let mut batch = Batch::new();
    let reads = EditReads::add(&mut batch, db, user, &state, message_id, &params)?;
    let results = batch.run(db).await?;
    let message = accessed_from(user, results.first(reads.access)?)?.message;
    let plan = rules::plan_edit(&message, &params, &settings)?;
    let now = crate::db::now();

    let rights = reads.rights.take(&results)?;
    rules::check_edit_permission(
        user,
        &message,
        &plan,
        &settings,
        rights,
        rules::EditClock { now, grace_seconds: ctx.settings.edit_limit_grace_seconds },
    )?;

    let (rendered, topic_participants) = match (&plan.content, reads.content) {
        (Some(content), Some(content_reads)) => {
            let (rendered, participants) = render_checked(&ctx.base_url, user, &message, content, content_reads, &results)?;
            (Some(rendered), participants)
        }
        (Some(_), None) => return Err(ApiError::internal("edited content without its reads")),
        (None, _) => (None, Vec::new()),
    };
    let before = Before { rows: results.rows(reads.rows_before)?, topic_participants };

    let scope = match reads.moves {
        Some(moves) if plan.is_moved() => Some(moves.take(&results, user, &message, &plan, &settings)?),
        _ => None,
    };
    if let Some(scope) = &scope {
        if let Some(deadline) = rules::change_all_deadline(user, &plan, &settings, ctx.settings.edit_limit_grace_seconds) {
            rules::check_change_all_time_limit(&scope.source_topic(), deadline, now)?;
        }
    }

    let others = match &scope {
        Some(s) => rules::other_moved_ids(&s.source_topic(), message.id, &plan),
        None => Vec::new(),
    };
    let mut changed_ids: Vec<i64> = std::iter::once(message.id).chain(others.iter().copied()).collect();
    changed_ids.sort_unstable();
    let changed = Changed { ids: changed_ids, others };

    // A move's notifications go in its write when what it read is all they need.
    let notice = scope.as_ref().map(|scope| MoveNotice {
        message: &message,
        plan: &plan,
        orig_channel: &scope.orig_channel,
        target_channel: scope.target_channel.as_ref().unwrap_or(&scope.orig_channel),
        changed_ids: &changed.ids,
        moved_all_visible: scope.moved_all_visible(&plan, &changed.ids),
        target_had_visible_messages: scope.target_had_visible_messages(),
        last_target_message: scope.last_target_message(&changed.ids),
        notify_old: params.send_notification_to_old_thread,
        notify_new: params.send_notification_to_new_thread,
        settings: &settings,
    });
    let planned = match (&notice, &scope) {
        (Some(notice), Some(scope)) => message_notifications::plan_in_advance(
            ctx,
            user,
            notice,
            scope.notification_bot.as_ref(),
            &scope.subscribers,
            &state.linkifiers,
            now,
        ),
        _ => None,
    };

    let relink = match &plan.content {
        Some(content) => EditRelink::plan(user, &message, content)?,
        None => None,
    };
    let along = AlongWithEdit { notices: planned.as_ref(), relink: relink.as_ref() };
    let applied = apply(ctx, user, &message, &plan, rendered.as_ref(), scope.as_ref(), &before, &changed, along, now).await?;
    crate::actions::push::schedule_edit_notifications(ctx, user, message.id, applied.newly_mentioned).await;
    if let (Some(notice), None) = (&notice, &planned) {
        message_notifications::after_move(ctx, user, notice, now).await?;
    }
    let detached_uploads = match applied.relinked {
        Some(relinked) => crate::actions::uploads::finish_relink(&ctx.env, user, relinked).await,
        None => Vec::new(),
    };
    Ok(EditResult { detached_uploads })
}

/// The edit's read batch: the access check, the caller's membership in the groups a
/// change of topic or channel may need, what new content references (mentions, channels,
/// emoji; the linkifiers are the isolate's) with the wildcard rule's counts when it names a
/// wildcard, what a move involves, and the message's rows before the edit. Built before the message is known:
/// whatever depends on it is read through its id.
struct EditReads {
    access: Slot<Value>,
    rights: RightsReads,
    content: Option<ContentReads>,
    moves: Option<MoveReads>,
    rows_before: Slot<RecipientRow>,
}

impl EditReads {
    fn add(
        batch: &mut Batch,
        db: &D1Database,
        user: &UserRow,
        state: &RealmState,
        message_id: MessageId,
        params: &EditParams,
    ) -> ApiResult<Self> {
        let access = batch.add(crate::db::messages::access_stmt(db, message_id.0, user.realm_id, user.id)?);
        let rights = RightsReads::add(batch, user, &state.settings, params)?;
        // Content that fails normalization fails the edit's plan before anything renders.
        let content = match params.content.as_deref().map(|c| rules::normalize_content(c, &state.settings)) {
            Some(Ok(content)) => Some(ContentReads::add(batch, db, user, state, message_id, &content)?),
            _ => None,
        };
        let moves = MoveReads::add(batch, db, user, &state.settings, message_id, params)?;
        let rows_before = batch.add(q::message_user_rows_stmt(db, message_id.0)?);
        Ok(EditReads { access, rights, content, moves, rows_before })
    }
}

/// The caller's membership in the permission groups of the changes it asks for; the rules
/// read only those the edit's plan needs.
struct RightsReads {
    resolve: Option<Slot<IsMemberRow>>,
    topics: Option<Slot<IsMemberRow>>,
    channels: Option<Slot<IsMemberRow>>,
}

impl RightsReads {
    fn add(batch: &mut Batch, user: &UserRow, settings: &RealmSettingsRow, params: &EditParams) -> worker::Result<Self> {
        let mut member = |group: i64| -> worker::Result<Slot<IsMemberRow>> {
            Ok(batch.add(user_groups::is_member_stmt(user.realm_id, group, user.id, false)?))
        };
        let (resolve, topics) = match params.topic {
            Some(_) => (Some(member(settings.can_resolve_topics_group)?), Some(member(settings.can_move_messages_between_topics_group)?)),
            None => (None, None),
        };
        let channels = match params.stream_id {
            Some(_) => Some(member(settings.can_move_messages_between_channels_group)?),
            None => None,
        };
        Ok(RightsReads { resolve, topics, channels })
    }

    fn take(self, results: &BatchResults) -> worker::Result<EditorRights> {
        let member = |slot: Option<Slot<IsMemberRow>>| -> worker::Result<bool> {
            Ok(match slot {
                Some(slot) => results.first(slot)?.is_some_and(|r| r.is_member != 0),
                None => false,
            })
        };
        Ok(EditorRights {
            can_resolve_topics: member(self.resolve)?,
            can_move_between_topics: member(self.topics)?,
            can_move_between_channels: member(self.channels)?,
        })
    }
}

/// What rendering new content reads, and for content that may name a wildcard, what the
/// wildcard rule reads: the channel's subscriber count, the topic's participants and
/// whether the sender may mention many users (only the sender edits content).
struct ContentReads {
    resolution: ResolutionReads,
    wildcards: Option<WildcardReads>,
}

struct WildcardReads {
    subscribers: Slot<CountRow>,
    participants: Slot<RecipientRow>,
    may_mention_many: Slot<IsMemberRow>,
}

#[derive(Deserialize)]
struct CountRow {
    n: i64,
}

impl ContentReads {
    fn add(
        batch: &mut Batch,
        db: &D1Database,
        user: &UserRow,
        state: &RealmState,
        message_id: MessageId,
        content: &str,
    ) -> worker::Result<Self> {
        let refs = markdown::references(content);
        let resolution = ResolutionReads::add(batch, db, user.realm_id, &refs, Some(&state.linkifiers))?;
        let wildcards = if refs.stream_wildcard || refs.topic_wildcard {
            Some(WildcardReads {
                subscribers: batch.add(crate::db::subscriptions::subscriber_count_stmt(db, message_id.0)?),
                participants: batch.add(q::topic_sender_ids_stmt(db, message_id.0)?),
                may_mention_many: batch.add(user_groups::is_member_stmt(
                    user.realm_id,
                    state.settings.can_mention_many_users_group,
                    user.id,
                    false,
                )?),
            })
        } else {
            None
        };
        Ok(ContentReads { resolution, wildcards })
    }
}

/// Renders the new content and applies the wildcard-mention rules of sending: a channel
/// wildcard in a channel with many subscribers, or a topic wildcard in a topic with many
/// participants, needs the sender in `can_mention_many_users_group`. Only the sender edits
/// content, so the editor's `translate_emoticons` is the author's. Answers the rendering and,
/// for a topic wildcard in a channel message, the topic's participants.
fn render_checked(
    realm_url: &str,
    editor: &UserRow,
    message: &MessageRow,
    content: &str,
    reads: ContentReads,
    results: &BatchResults,
) -> ApiResult<(Rendered, Vec<i64>)> {
    let translate_emoticons = crate::domain::user_settings::flag(editor, "translate_emoticons");
    let (resolved, group_members) = reads.resolution.take(results)?;
    let rendered = edit_rendering::render(content, resolved, &group_members, realm_url, translate_emoticons);
    if !message.is_channel_message() || !(rendered.stream_wildcard || rendered.topic_wildcard) {
        return Ok((rendered, Vec::new()));
    }
    // What renders as a wildcard was seen by the scan of references.
    let wildcards = reads.wildcards.ok_or_else(|| ApiError::internal("wildcard mention without its reads"))?;
    let participants: Vec<i64> = results.rows(wildcards.participants)?.into_iter().map(|r| r.user_id).collect();
    let may_mention_many = results.first(wildcards.may_mention_many)?.is_some_and(|r| r.is_member != 0);
    let subscribers = results.first(wildcards.subscribers)?.map_or(0, |r| r.n);
    if rendered.stream_wildcard && !may_mention_many && subscribers > WILDCARD_MENTION_THRESHOLD {
        return Err(ApiError::stream_wildcard_mention_not_allowed());
    }
    if rendered.topic_wildcard && !may_mention_many && participants.len() as i64 > WILDCARD_MENTION_THRESHOLD {
        return Err(ApiError::topic_wildcard_mention_not_allowed());
    }
    let participants = if rendered.topic_wildcard { participants } else { Vec::new() };
    Ok((rendered, participants))
}

/// What the read batch found that the write and the events need: the message's rows before
/// the edit, and the topic's participants when new content names the topic wildcard.
struct Before {
    rows: Vec<RecipientRow>,
    topic_participants: Vec<i64>,
}

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
    can_read_orig_history: bool,
    can_read_target_history: bool,
}

/// Zulip's `can_access_stream_history`: the whole history of a public channel (not for
/// guests), or of a subscribed channel whose history is public to subscribers.
fn can_read_history(user: &UserRow, channel: &MoveChannelRow) -> bool {
    access::can_read_history(user, channel.subscribed != 0, channel.invite_only != 0, channel.history_public_to_subscribers != 0)
}

/// Whether the user may post to (and so move messages into) a channel.
fn can_access_channel(user: &UserRow, channel: &MoveChannelRow) -> bool {
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
struct MoveReads {
    orig_channel: Slot<MoveChannelRow>,
    source: Slot<TopicMessageRow>,
    subscribers: Slot<SubscriberRow>,
    /// `None` when the new topic is refused (the plan fails first).
    target: Option<Slot<TopicMessageRow>>,
    target_channel: Option<Slot<MoveChannelRow>>,
    notification_bot: Slot<UserRow>,
}

impl MoveReads {
    /// `None` when the request changes neither topic nor channel.
    fn add(
        batch: &mut Batch,
        db: &D1Database,
        user: &UserRow,
        settings: &RealmSettingsRow,
        message_id: MessageId,
        params: &EditParams,
    ) -> worker::Result<Option<Self>> {
        if params.topic.is_none() && params.stream_id.is_none() {
            return Ok(None);
        }
        let (realm_id, id) = (user.realm_id, message_id.0);
        let topic = params.topic.as_deref().map(|t| crate::domain::topics::normalize_topic(t, settings));
        Ok(Some(MoveReads {
            orig_channel: batch.add(q::message_channel_stmt(db, realm_id, id, user.id)?),
            source: batch.add(q::topic_messages_stmt(db, id, user.id)?),
            subscribers: batch.add(q::move_subscribers_stmt(db, id, params.stream_id)?),
            target: match topic {
                Some(Err(_)) => None,
                Some(Ok(topic)) => {
                    Some(batch.add(q::target_topic_messages_stmt(db, realm_id, id, params.stream_id, Some(&topic), user.id)?))
                }
                None => Some(batch.add(q::target_topic_messages_stmt(db, realm_id, id, params.stream_id, None, user.id)?)),
            },
            target_channel: match params.stream_id {
                Some(channel_id) => Some(batch.add(q::channel_stmt(db, realm_id, channel_id, user.id)?)),
                None => None,
            },
            notification_bot: batch.add(crate::db::users::by_delivery_email_stmt(db, realm_id, q::NOTIFICATION_BOT_EMAIL)?),
        }))
    }

    /// The move's scope, checked: both channels exist (and the mover may post to the target),
    /// and the topic is allowed where the messages land.
    fn take(
        self,
        results: &BatchResults,
        user: &UserRow,
        message: &MessageRow,
        plan: &EditPlan,
        settings: &RealmSettingsRow,
    ) -> ApiResult<MoveScope> {
        let target_topic = plan.topic.clone().unwrap_or_else(|| message.topic.clone());
        let orig_channel = results.first(self.orig_channel)?.ok_or_else(|| ApiError::bad_request("Invalid channel ID"))?;
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
                Some(channel.filter(|c| can_access_channel(user, c)).ok_or_else(|| ApiError::bad_request("Invalid channel ID"))?)
            }
            _ => None,
        };
        // The empty-topic policy of the channel the messages land in.
        let landing = target_channel.as_ref().unwrap_or(&orig_channel);
        crate::domain::topics::check_topic_allowed(
            &target_topic,
            crate::domain::topics::effective_topics_policy(&landing.topics_policy, settings),
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

/// The messages an edit changes: the edited one and the `others` a move takes along, by id.
struct Changed {
    ids: Vec<i64>,
    others: Vec<i64>,
}

/// What the edit's write batch carries besides the edit itself: a move's planned
/// notifications and a content edit's upload links.
struct AlongWithEdit<'a> {
    notices: Option<&'a PlannedNotices>,
    relink: Option<&'a EditRelink>,
}

/// What [`apply`] answers: the users the new content newly mentions, and what the batch
/// read about the edit's uploads.
struct Applied {
    newly_mentioned: Vec<i64>,
    relinked: Option<Relinked>,
}

/// The write (one batch, which for content edits of channel messages also reads the
/// channel and its subscribers for the event, and which holds [`AlongWithEdit`]) and the
/// `update_message` / `delete_message` events, then the notifications' events.
#[allow(clippy::too_many_arguments)]
async fn apply(
    ctx: &RequestContext,
    user: &UserRow,
    message: &MessageRow,
    plan: &EditPlan,
    rendered: Option<&Rendered>,
    scope: Option<&MoveScope>,
    before: &Before,
    changed: &Changed,
    along: AlongWithEdit<'_>,
    now: i64,
) -> ApiResult<Applied> {
    let db = &ctx.db;
    let orig_channel_id = message.channel_id;
    let target_channel_id = plan.stream_id.or(orig_channel_id);
    let target_recipient_id = scope.and_then(|s| s.target_channel.as_ref()).map(|c| c.recipient_id).unwrap_or(message.recipient_id);
    let target_topic = plan.topic.clone().unwrap_or_else(|| message.topic.clone());
    let moved_at = plan.counts_as_move().then_some(now);
    let (changed_ids, others) = (&changed.ids, &changed.others);

    // The target message: its full new state, its history entry first.
    let entry = rules::history_entry(user.id, now, message, plan, true);
    let mut history: Vec<Value> = message.edit_history.as_deref().and_then(|h| serde_json::from_str(h).ok()).unwrap_or_default();
    history.insert(0, entry);
    let history = serde_json::to_string(&history)?;
    let (content, html, is_me) = match (&plan.content, rendered) {
        (Some(c), Some(r)) => (c.as_str(), r.html.as_str(), r.is_me_message),
        _ => (message.content.as_str(), message.rendered_content.as_str(), message.is_me_message != 0),
    };
    let mut batch = Batch::new();
    batch.add::<Value>(q::update_target_stmt(
        db,
        &q::TargetUpdate {
            id: message.id,
            content,
            rendered_content: html,
            is_me_message: is_me,
            topic: &target_topic,
            recipient_id: target_recipient_id,
            channel_id: target_channel_id,
            last_edit_timestamp: if plan.content.is_some() { Some(now) } else { message.last_edit_timestamp },
            last_moved_timestamp: moved_at.or(message.last_moved_timestamp),
            edit_history: &history,
        },
    )?);

    // The other moved messages: only the move in their history.
    let other_entry = serde_json::to_string(&rules::history_entry(user.id, now, message, plan, false))?;
    if let Some(channel_id) = target_channel_id {
        for chunk in q::chunks(others) {
            batch.add::<Value>(q::move_messages_stmt(db, &chunk, &target_topic, target_recipient_id, channel_id, &other_entry, moved_at)?);
        }
    }

    // Mention flags of a content edit.
    let topic_participants = &before.topic_participants;
    if let Some(r) = rendered {
        batch.add::<Value>(q::update_mention_flags_stmt(
            db,
            message.id,
            &serde_json::to_string(&r.mentioned_user_ids)?,
            r.stream_wildcard,
            &serde_json::to_string(topic_participants)?,
        )?);
    }

    // A channel move: who loses the messages, who gains rows.
    let access = scope.and_then(|s| s.target_channel.as_ref().map(|t| channel_move_access(s, t)));
    if let (Some(access), Some(target)) = (&access, scope.and_then(|s| s.target_channel.as_ref())) {
        let losing = serde_json::to_string(&access.losing_rows)?;
        for chunk in q::chunks(changed_ids) {
            if !access.losing_rows.is_empty() {
                batch.add::<Value>(q::delete_user_rows_stmt(db, &chunk, &losing)?);
            }
            if target.history_public_to_subscribers == 0 {
                batch.add::<Value>(q::add_subscriber_rows_stmt(db, &chunk, target.id)?);
            }
        }
    }

    let relink = along.relink.map(|r| r.add(&mut batch, db)).transpose()?;

    // Content edits of channel messages: the channel's name and, for shared history, its
    // subscribers, for the event (the write changes neither).
    let channel_reads = match (scope, message.channel_id) {
        (None, Some(channel_id)) => Some((
            batch.add::<MoveChannelRow>(q::channel_stmt(db, user.realm_id, channel_id, user.id)?),
            batch.add::<SubscriberRow>(q::subscribers_stmt(db, &[channel_id])?),
        )),
        _ => None,
    };
    let pending_notices = along.notices.map(|n| n.add_writes(&mut batch, db, RealmId(user.realm_id))).transpose()?;
    let results = batch.run(db).await?;
    let rows_before = &before.rows;
    let mut channel_name: Option<String> = None;
    let shared_history_subscribers: Vec<i64> = match channel_reads {
        Some((channel, subscribers)) => {
            let channel = results.first(channel)?;
            channel_name = channel.as_ref().map(|c| c.name.clone());
            if channel.is_some_and(|c| c.history_public_to_subscribers != 0) {
                results.rows(subscribers)?.into_iter().filter(|s| s.active != 0).map(|s| s.user_id).collect()
            } else {
                Vec::new()
            }
        }
        None => Vec::new(),
    };

    let recipients =
        EventRecipients { rows_before, shared_history_subscribers: &shared_history_subscribers, channel_name: channel_name.as_deref() };
    send_update_event(ctx, user, message, plan, rendered, scope, access.as_ref(), &recipients, changed_ids, topic_participants, now).await;
    if let (Some(access), Some(scope)) = (&access, scope) {
        if !access.losing_access.is_empty() {
            let event = crate::actions::message_delete::delete_message_event(
                &changed_ids.iter().copied().map(MessageId).collect::<Vec<_>>(),
                Some((ChannelId(scope.orig_channel.id), &message.topic)),
            );
            let users: Vec<EventUser> = access.losing_access.iter().map(|id| EventUser::plain(*id)).collect();
            events::send_event(&ctx.env, user.realm_id, &event, &users).await;
        }
    }
    let newly_mentioned = match rendered {
        Some(r) => rows_before
            .iter()
            .filter(|row| {
                row.user_id != user.id
                    && row.flags & crate::model::message_flags::MENTIONED == 0
                    && r.mentioned_user_ids.contains(&row.user_id)
            })
            .map(|row| row.user_id)
            .collect(),
        None => Vec::new(),
    };
    if let (Some(notices), Some(pending)) = (along.notices, pending_notices) {
        notices.finish(ctx, RealmId(user.realm_id), &results, pending).await?;
    }
    let relinked = relink.map(|slots| slots.take(&results)).transpose()?;
    Ok(Applied { newly_mentioned, relinked })
}

/// Who loses what in a channel move (Zulip's rules): every past subscriber of the old
/// channel who is not subscribed to the new one loses its rows; of those, only guests lose
/// access when the new channel is public, everyone when it is private.
struct ChannelMoveAccess {
    losing_rows: Vec<i64>,
    losing_access: Vec<i64>,
    new_subscribers: BTreeSet<i64>,
    old_subscribers: BTreeSet<i64>,
}

fn channel_move_access(scope: &MoveScope, target: &MoveChannelRow) -> ChannelMoveAccess {
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

struct EventRecipients<'a> {
    rows_before: &'a [RecipientRow],
    shared_history_subscribers: &'a [i64],
    /// Content edits of channel messages: the channel's name (`stream_name`).
    channel_name: Option<&'a str>,
}

/// `update_message` (Zulip's shape) to everyone who had the message (their flags), and for
/// channels with shared history to the subscribers of the channels involved (`read`).
#[allow(clippy::too_many_arguments)]
async fn send_update_event(
    ctx: &RequestContext,
    user: &UserRow,
    message: &MessageRow,
    plan: &EditPlan,
    rendered: Option<&Rendered>,
    scope: Option<&MoveScope>,
    access: Option<&ChannelMoveAccess>,
    recipients: &EventRecipients<'_>,
    changed_ids: &[i64],
    topic_participants: &[i64],
    now: i64,
) {
    let channel = match scope {
        Some(s) => Some((s.orig_channel.id, s.orig_channel.name.as_str())),
        None => message.channel_id.map(|id| (id, recipients.channel_name.unwrap_or_default())),
    };
    let event = update_message_event(
        UserId(user.id),
        now,
        message,
        plan,
        rendered.map(|r| (r.html.as_str(), r.is_me_message)),
        changed_ids,
        channel,
    );
    let mut users: BTreeMap<i64, Option<Vec<String>>> = BTreeMap::new();
    let losing: BTreeSet<i64> = access.map(|a| a.losing_rows.iter().copied().collect()).unwrap_or_default();
    for row in recipients.rows_before {
        if losing.contains(&row.user_id) {
            continue;
        }
        let mut flags = row.flags;
        if let Some(r) = rendered {
            use crate::model::message_flags::{MENTIONED, STREAM_WILDCARD_MENTIONED, TOPIC_WILDCARD_MENTIONED};
            flags &= !(MENTIONED | STREAM_WILDCARD_MENTIONED | TOPIC_WILDCARD_MENTIONED);
            if r.mentioned_user_ids.contains(&row.user_id) {
                flags |= MENTIONED;
            }
            if r.stream_wildcard {
                flags |= STREAM_WILDCARD_MENTIONED;
            }
            if topic_participants.contains(&row.user_id) {
                flags |= TOPIC_WILDCARD_MENTIONED;
            }
        }
        users.insert(row.user_id, Some(flag_names(Some(flags))));
    }
    if let Some(scope) = scope {
        if scope.orig_channel.history_public_to_subscribers != 0 {
            let mut subscribers: BTreeSet<i64> = match access {
                Some(a) => a.new_subscribers.union(&a.old_subscribers).copied().collect(),
                None => scope.subscribers.iter().filter(|s| s.active != 0).map(|s| s.user_id).collect(),
            };
            if let Some(a) = access {
                for id in &a.losing_access {
                    subscribers.remove(id);
                }
            }
            for id in subscribers {
                users.entry(id).or_insert_with(|| Some(flag_names(Some(READ))));
            }
        }
    } else if message.channel_id.is_some() {
        for id in recipients.shared_history_subscribers {
            users.entry(*id).or_insert_with(|| Some(flag_names(Some(READ))));
        }
    }
    let users: Vec<EventUser> = users.into_iter().map(|(id, flags)| EventUser { id, flags }).collect();
    events::send_event(&ctx.env, user.realm_id, &event, &users).await;
}

/// Zulip's `update_message` event of an edit (without `id`; flags travel per user).
/// `rendered`: the new HTML and `/me` status of a content edit; `channel`: the channel the
/// message was in (channel messages).
fn update_message_event(
    editor_id: UserId,
    now: i64,
    message: &MessageRow,
    plan: &EditPlan,
    rendered: Option<(&str, bool)>,
    changed_ids: &[i64],
    channel: Option<(i64, &str)>,
) -> Event {
    let mut event = UpdateMessageEvent {
        user_id: editor_id,
        edit_timestamp: now,
        message_id: message.id,
        message_ids: changed_ids.to_vec(),
        rendering_only: false,
        ..Default::default()
    };
    if let (Some(content), Some((html, is_me))) = (&plan.content, rendered) {
        event.orig_content = Some(message.content.clone());
        event.orig_rendered_content = Some(message.rendered_content.clone());
        event.content = Some(content.clone());
        event.rendered_content = Some(html.to_string());
        event.is_me_message = Some(is_me);
    }
    if let Some((id, name)) = channel {
        event.stream_id = Some(id);
        event.stream_name = Some(name.to_string());
    }
    if plan.is_moved() {
        event.propagate_mode = Some(plan.propagate_mode.as_str());
    }
    if plan.stream_id.is_some() || plan.topic.is_some() {
        event.orig_subject = Some(message.topic.clone());
    }
    event.new_stream_id = plan.stream_id;
    if let Some(topic) = &plan.topic {
        event.subject = Some(topic.clone());
        event.topic_links = Some(Vec::new());
    }
    Event::UpdateMessage(Box::new(event))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message() -> MessageRow {
        MessageRow::for_tests()
    }

    fn plan() -> EditPlan {
        EditPlan {
            content: None,
            topic: None,
            stream_id: None,
            propagate_mode: PropagateMode::ChangeOne,
            topic_resolved: false,
            topic_unresolved: false,
        }
    }

    #[test]
    fn content_edit_event_carries_old_and_new_content() {
        let plan = EditPlan { content: Some("new".into()), ..plan() };
        let event = serde_json::to_value(update_message_event(
            UserId(1),
            50,
            &message(),
            &plan,
            Some(("<p>new</p>", false)),
            &[10],
            Some((7, "Verona")),
        ))
        .unwrap();
        assert_eq!(
            event,
            json!({
                "type": "update_message", "user_id": 1, "edit_timestamp": 50, "message_id": 10, "message_ids": [10],
                "rendering_only": false, "orig_content": "hi", "orig_rendered_content": "<p>hi</p>", "content": "new",
                "rendered_content": "<p>new</p>", "is_me_message": false, "stream_id": 7, "stream_name": "Verona",
            })
        );
    }

    #[test]
    fn move_event_names_both_channels_topics_and_mode() {
        let plan = EditPlan { topic: Some("new".into()), stream_id: Some(9), propagate_mode: PropagateMode::ChangeAll, ..plan() };
        let event =
            serde_json::to_value(update_message_event(UserId(2), 50, &message(), &plan, None, &[10, 11], Some((7, "Verona")))).unwrap();
        assert_eq!(event["propagate_mode"], "change_all");
        assert_eq!(event["new_stream_id"], 9);
        assert_eq!(event["orig_subject"], "old");
        assert_eq!(event["subject"], "new");
        assert_eq!(event["message_ids"], json!([10, 11]));
        assert!(event.get("content").is_none());
    }
}
