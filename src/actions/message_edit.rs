//! Editing and moving a message (`PATCH /messages/{message_id}`): Zulip's
//! `check_update_message` + `do_update_message`.
//!
//! Round trips: the message and the settings; the caller's permission groups (one batch);
//! the topics and channels a move involves (one batch); the write (one batch, moved messages
//! named in chunks); then the events, and the notification-bot messages of a move.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use worker::D1Database;

use crate::actions::message_notifications::{self, MoveNotice};
use crate::context::RequestContext;
use crate::db::message_edits::{self as q, MoveChannelRow, RecipientRow, SubscriberRow, TopicMessageRow};
use crate::db::messages::MessageRow;
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::user_groups;
use crate::db::users::UserRow;
use crate::domain::channels::access;
use crate::domain::edit_rendering::{self, Rendered};
use crate::domain::ids::{ChannelId, MessageId, UserId};
use crate::domain::message_edit::{self as rules, EditParams, EditPlan, EditorRights, PropagateMode, TopicMessage};
use crate::domain::message_flags::{flag_names, READ};
use crate::domain::messages::access_message;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, UpdateMessageEvent};
use crate::events::{self, EventUser};

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
    let accessed = access_message(db, user, message_id.0).await?;
    let message = accessed.message;
    // The isolate's copy, current for this request (its version came with authentication).
    let state = ctx.realm_state(user.realm_id).await?;
    let settings = state.settings.clone();
    let plan = rules::plan_edit(&message, &params, &settings)?;
    let now = crate::db::now();

    let rights = editor_rights(db, user, &settings, &plan).await?;
    rules::check_edit_permission(
        user,
        &message,
        &plan,
        &settings,
        rights,
        rules::EditClock { now, grace_seconds: ctx.settings.edit_limit_grace_seconds },
    )?;

    let rendered = match &plan.content {
        Some(content) => Some(render_checked(db, &ctx.base_url, user, &message, &settings, content).await?),
        None => None,
    };

    let scope = if plan.is_moved() { Some(load_move_scope(db, user, &message, &plan, &settings).await?) } else { None };
    if let Some(scope) = &scope {
        if let Some(deadline) = rules::change_all_deadline(user, &plan, &settings, ctx.settings.edit_limit_grace_seconds) {
            rules::check_change_all_time_limit(&scope.source_topic(), deadline, now)?;
        }
    }

    let outcome = apply(ctx, user, &message, &plan, rendered.as_ref(), scope.as_ref(), now).await?;
    crate::actions::push::schedule_edit_notifications(ctx, user, message.id, outcome.newly_mentioned.clone()).await;
    if let Some(scope) = &scope {
        message_notifications::after_move(
            ctx,
            user,
            &MoveNotice {
                message: &message,
                plan: &plan,
                orig_channel: &scope.orig_channel,
                target_channel: scope.target_channel.as_ref().unwrap_or(&scope.orig_channel),
                changed_ids: &outcome.changed_ids,
                moved_all_visible: scope.moved_all_visible(&plan, &outcome.changed_ids),
                target_had_visible_messages: scope.target_had_visible_messages(),
                last_target_message: scope.last_target_message(&outcome.changed_ids),
                notify_old: params.send_notification_to_old_thread,
                notify_new: params.send_notification_to_new_thread,
                settings: &settings,
            },
            now,
        )
        .await?;
    }
    // The edit has committed: a failure to relink uploads must not turn it into an error.
    let detached_uploads = match &plan.content {
        Some(content) => crate::actions::uploads::relink_after_edit(db, &ctx.env, user, &message, content).await.unwrap_or_else(|err| {
            worker::console_error!("upload links of message {message_id} not updated: {}", err.msg);
            Vec::new()
        }),
        None => Vec::new(),
    };
    Ok(EditResult { detached_uploads })
}

/// The caller's membership in the groups the edit's permissions depend on (one batch).
async fn editor_rights(db: &D1Database, user: &UserRow, settings: &RealmSettingsRow, plan: &EditPlan) -> ApiResult<EditorRights> {
    let mut needed: Vec<(&str, i64)> = Vec::new();
    if plan.topic.is_some() {
        if plan.is_resolve_toggle() {
            needed.push(("resolve", settings.can_resolve_topics_group));
        } else {
            needed.push(("topics", settings.can_move_messages_between_topics_group));
        }
    }
    if plan.stream_id.is_some() {
        needed.push(("channels", settings.can_move_messages_between_channels_group));
    }
    let mut rights = EditorRights::default();
    if needed.is_empty() {
        return Ok(rights);
    }
    let stmts = needed
        .iter()
        .map(|(_, group)| user_groups::is_member_stmt(db, user.realm_id, *group, user.id, false))
        .collect::<worker::Result<Vec<_>>>()?;
    let results = crate::db::run_batch(db, stmts).await?;
    for ((name, _), result) in needed.iter().zip(results) {
        let member = result.results::<Value>()?.first().and_then(|r| r["is_member"].as_i64()).unwrap_or(0) != 0;
        match *name {
            "resolve" => rights.can_resolve_topics = member,
            "topics" => rights.can_move_between_topics = member,
            _ => rights.can_move_between_channels = member,
        }
    }
    Ok(rights)
}

/// Renders the new content and applies the wildcard-mention rules of sending: a channel
/// wildcard in a channel with many subscribers, or a topic wildcard in a topic with many
/// participants, needs the sender in `can_mention_many_users_group`. Only the sender edits
/// content, so the editor's `translate_emoticons` is the author's.
async fn render_checked(
    db: &D1Database,
    realm_url: &str,
    editor: &UserRow,
    message: &MessageRow,
    settings: &RealmSettingsRow,
    content: &str,
) -> ApiResult<Rendered> {
    let translate_emoticons = crate::domain::user_settings::flag(editor, "translate_emoticons");
    let rendered = edit_rendering::render(db, message.realm_id, realm_url, content, translate_emoticons).await?;
    if !message.is_channel_message() || !(rendered.stream_wildcard || rendered.topic_wildcard) {
        return Ok(rendered);
    }
    let channel_id = message.channel_id.unwrap_or(message.recipient_type_id);
    let results = crate::db::run_batch(
        db,
        vec![
            crate::db::subscriptions::subscriber_count_stmt(db, channel_id)?,
            crate::db::messages::topic_participant_count_stmt(db, message.recipient_id, &message.topic)?,
            user_groups::is_member_stmt(db, message.realm_id, settings.can_mention_many_users_group, message.sender_id, false)?,
        ],
    )
    .await?;
    let first =
        |i: usize, key: &str| -> ApiResult<i64> { Ok(results[i].results::<Value>()?.first().and_then(|r| r[key].as_i64()).unwrap_or(0)) };
    let may_mention_many = first(2, "is_member")? != 0;
    if rendered.stream_wildcard && !may_mention_many && first(0, "n")? > WILDCARD_MENTION_THRESHOLD {
        return Err(ApiError::stream_wildcard_mention_not_allowed());
    }
    if rendered.topic_wildcard && !may_mention_many && first(1, "n")? > WILDCARD_MENTION_THRESHOLD {
        return Err(ApiError::topic_wildcard_mention_not_allowed());
    }
    Ok(rendered)
}

/// What a move involves: the source topic (as the mover may see it), the target channel
/// and topic, and the subscribers of both channels.
pub struct MoveScope {
    pub orig_channel: MoveChannelRow,
    pub target_channel: Option<MoveChannelRow>,
    pub source: Vec<TopicMessageRow>,
    pub target: Vec<TopicMessageRow>,
    pub subscribers: Vec<SubscriberRow>,
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

async fn load_move_scope(
    db: &D1Database,
    user: &UserRow,
    message: &MessageRow,
    plan: &EditPlan,
    settings: &RealmSettingsRow,
) -> ApiResult<MoveScope> {
    let orig_id = message.channel_id.unwrap_or(message.recipient_type_id);
    let target_topic = plan.topic.clone().unwrap_or_else(|| message.topic.clone());
    let mut stmts = vec![
        q::channel_stmt(db, user.realm_id, orig_id, user.id)?,
        q::topic_messages_stmt(db, message.recipient_id, &message.topic, user.id)?,
    ];
    let channel_ids: Vec<i64> = std::iter::once(orig_id).chain(plan.stream_id).collect();
    stmts.push(q::subscribers_stmt(db, &channel_ids)?);
    // The target topic, unless it is the source topic (a change of case only).
    let target_channel_id = plan.stream_id.unwrap_or(orig_id);
    let same_topic = plan.stream_id.is_none() && target_topic.to_lowercase() == message.topic.to_lowercase();
    if !same_topic {
        stmts.push(q::channel_topic_messages_stmt(db, user.realm_id, target_channel_id, &target_topic, user.id)?);
    }
    if let Some(target) = plan.stream_id {
        stmts.push(q::channel_stmt(db, user.realm_id, target, user.id)?);
    }
    let results = crate::db::run_batch(db, stmts).await?;
    let orig_channel: MoveChannelRow =
        results[0].results()?.into_iter().next().ok_or_else(|| ApiError::bad_request("Invalid channel ID"))?;
    let source: Vec<TopicMessageRow> = results[1].results()?;
    let subscribers: Vec<SubscriberRow> = results[2].results()?;
    let target: Vec<TopicMessageRow> = if same_topic { Vec::new() } else { results[3].results()? };
    let target_channel = match plan.stream_id {
        Some(_) => {
            let channel: Option<MoveChannelRow> = results[results.len() - 1].results()?.into_iter().next();
            Some(channel.filter(|c| can_access_channel(user, c)).ok_or_else(|| ApiError::bad_request("Invalid channel ID"))?)
        }
        None => None,
    };
    // The empty-topic policy of the channel the messages land in.
    let landing = target_channel.as_ref().unwrap_or(&orig_channel);
    crate::domain::topics::check_topic_allowed(
        &target_topic,
        crate::domain::topics::effective_topics_policy(&landing.topics_policy, settings),
    )?;
    let can_read_orig_history = can_read_history(user, &orig_channel);
    let can_read_target_history = can_read_history(user, target_channel.as_ref().unwrap_or(&orig_channel));
    Ok(MoveScope { orig_channel, target_channel, source, target, subscribers, can_read_orig_history, can_read_target_history })
}

struct Outcome {
    changed_ids: Vec<i64>,
    /// Users the new content mentions who were not mentioned before.
    newly_mentioned: Vec<i64>,
}

/// The write (one batch) and the `update_message` / `delete_message` events.
async fn apply(
    ctx: &RequestContext,
    user: &UserRow,
    message: &MessageRow,
    plan: &EditPlan,
    rendered: Option<&Rendered>,
    scope: Option<&MoveScope>,
    now: i64,
) -> ApiResult<Outcome> {
    let db = &ctx.db;
    let orig_channel_id = message.channel_id;
    let target_channel_id = plan.stream_id.or(orig_channel_id);
    let target_recipient_id = scope.and_then(|s| s.target_channel.as_ref()).map(|c| c.recipient_id).unwrap_or(message.recipient_id);
    let target_topic = plan.topic.clone().unwrap_or_else(|| message.topic.clone());
    let moved_at = plan.counts_as_move().then_some(now);

    let others = match scope {
        Some(s) => rules::other_moved_ids(&s.source_topic(), message.id, plan),
        None => Vec::new(),
    };
    let mut changed_ids: Vec<i64> = std::iter::once(message.id).chain(others.iter().copied()).collect();
    changed_ids.sort_unstable();

    // The target message: its full new state, its history entry first.
    let entry = rules::history_entry(user.id, now, message, plan, true);
    let mut history: Vec<Value> = message.edit_history.as_deref().and_then(|h| serde_json::from_str(h).ok()).unwrap_or_default();
    history.insert(0, entry);
    let history = serde_json::to_string(&history)?;
    let (content, html, is_me) = match (&plan.content, rendered) {
        (Some(c), Some(r)) => (c.as_str(), r.html.as_str(), r.is_me_message),
        _ => (message.content.as_str(), message.rendered_content.as_str(), message.is_me_message != 0),
    };
    let mut stmts = vec![q::update_target_stmt(
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
    )?];

    // The other moved messages: only the move in their history.
    let other_entry = serde_json::to_string(&rules::history_entry(user.id, now, message, plan, false))?;
    if let Some(channel_id) = target_channel_id {
        for chunk in q::chunks(&others) {
            stmts.push(q::move_messages_stmt(db, &chunk, &target_topic, target_recipient_id, channel_id, &other_entry, moved_at)?);
        }
    }

    // Mention flags of a content edit.
    let mut topic_participants: Vec<i64> = Vec::new();
    if let Some(r) = rendered {
        if r.topic_wildcard && message.is_channel_message() {
            let rows: Vec<RecipientRow> = crate::db::all(q::topic_sender_ids_stmt(db, message.recipient_id, &message.topic)?).await?;
            topic_participants = rows.into_iter().map(|r| r.user_id).collect();
        }
        stmts.push(q::update_mention_flags_stmt(
            db,
            message.id,
            &serde_json::to_string(&r.mentioned_user_ids)?,
            r.stream_wildcard,
            &serde_json::to_string(&topic_participants)?,
        )?);
    }

    // A channel move: who loses the messages, who gains rows.
    let access = scope.and_then(|s| s.target_channel.as_ref().map(|t| channel_move_access(s, t)));
    if let (Some(access), Some(target)) = (&access, scope.and_then(|s| s.target_channel.as_ref())) {
        let losing = serde_json::to_string(&access.losing_rows)?;
        for chunk in q::chunks(&changed_ids) {
            if !access.losing_rows.is_empty() {
                stmts.push(q::delete_user_rows_stmt(db, &chunk, &losing)?);
            }
            if target.history_public_to_subscribers == 0 {
                stmts.push(q::add_subscriber_rows_stmt(db, &chunk, target.id)?);
            }
        }
    }

    // The rows of the target message before the write, and (content edits of channel
    // messages) the channel's subscribers, for the event recipients.
    let mut reads = vec![q::message_user_rows_stmt(db, message.id)?];
    if let (None, Some(channel_id)) = (scope, message.channel_id) {
        reads.push(q::channel_stmt(db, user.realm_id, channel_id, user.id)?);
        reads.push(q::subscribers_stmt(db, &[channel_id])?);
    }
    let read_results = crate::db::run_batch(db, reads).await?;
    let rows_before: Vec<RecipientRow> = read_results[0].results()?;
    let mut channel_name: Option<String> = None;
    let shared_history_subscribers: Vec<i64> = match read_results.get(1) {
        Some(channel) => {
            let channel: Option<MoveChannelRow> = channel.results()?.into_iter().next();
            channel_name = channel.as_ref().map(|c| c.name.clone());
            if channel.is_some_and(|c| c.history_public_to_subscribers != 0) {
                read_results[2].results::<SubscriberRow>()?.into_iter().filter(|s| s.active != 0).map(|s| s.user_id).collect()
            } else {
                Vec::new()
            }
        }
        None => Vec::new(),
    };
    crate::db::run_batch(db, stmts).await?;

    let recipients = EventRecipients {
        rows_before: &rows_before,
        shared_history_subscribers: &shared_history_subscribers,
        channel_name: channel_name.as_deref(),
    };
    send_update_event(ctx, user, message, plan, rendered, scope, access.as_ref(), &recipients, &changed_ids, &topic_participants, now)
        .await;
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
                    && row.flags & crate::domain::message_flags::MENTIONED == 0
                    && r.mentioned_user_ids.contains(&row.user_id)
            })
            .map(|row| row.user_id)
            .collect(),
        None => Vec::new(),
    };
    Ok(Outcome { changed_ids, newly_mentioned })
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
        if target.invite_only != 0 || s.role == crate::domain::users::Role::Guest {
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
            use crate::domain::message_flags::{MENTIONED, STREAM_WILDCARD_MENTIONED, TOPIC_WILDCARD_MENTIONED};
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
