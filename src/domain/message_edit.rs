//! The rules of editing and moving a message (Zulip's `check_update_message`), as pure
//! functions over what the action loaded: what the request changes, who may change it, the
//! time limits, the edit-history entries and the move notifications.

use serde_json::{json, Map, Value};

use crate::db::messages::MessageRow;
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::users::UserRow;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{ChannelId, MessageId};

/// Zulip's prefix of a resolved topic.
pub const RESOLVED_TOPIC_PREFIX: &str = "✔ ";

/// Zulip allows this many seconds beyond every edit and move time limit (clients show the
/// limit a little early, and requests take time). The server's `EDIT_LIMIT_GRACE_SECS`
/// variable overrides it (the test server sets 0, so no test waits for it).
pub const EDIT_LIMIT_GRACE_SECONDS: i64 = 20;

/// Undoing a resolve within this many seconds deletes the resolve notification instead of
/// sending an "unresolved" one.
pub const RESOLVE_UNDO_GRACE_SECONDS: i64 = 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropagateMode {
    ChangeOne,
    ChangeLater,
    ChangeAll,
}

impl PropagateMode {
    pub fn parse(value: Option<&str>) -> ApiResult<Self> {
        match value.unwrap_or("change_one") {
            "change_one" => Ok(PropagateMode::ChangeOne),
            "change_later" => Ok(PropagateMode::ChangeLater),
            "change_all" => Ok(PropagateMode::ChangeAll),
            _ => Err(ApiError::bad_request("Invalid propagate_mode")),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PropagateMode::ChangeOne => "change_one",
            PropagateMode::ChangeLater => "change_later",
            PropagateMode::ChangeAll => "change_all",
        }
    }
}

/// The parameters of `PATCH /messages/{message_id}`, as sent.
#[derive(Debug, Clone)]
pub struct EditParams {
    pub content: Option<String>,
    pub topic: Option<String>,
    pub stream_id: Option<i64>,
    pub propagate_mode: PropagateMode,
    pub send_notification_to_old_thread: bool,
    pub send_notification_to_new_thread: bool,
    pub prev_content_sha256: Option<String>,
}

/// What an edit changes, once validated against the message.
#[derive(Debug, Clone)]
pub struct EditPlan {
    /// The new raw content (normalized), if the content changes.
    pub content: Option<String>,
    /// The new topic, if it changes.
    pub topic: Option<String>,
    /// The target channel, if the message moves to another channel.
    pub stream_id: Option<i64>,
    pub propagate_mode: PropagateMode,
    pub topic_resolved: bool,
    pub topic_unresolved: bool,
}

impl EditPlan {
    pub fn is_moved(&self) -> bool {
        self.topic.is_some() || self.stream_id.is_some()
    }

    /// A topic change that only adds or removes the resolved prefix.
    pub fn is_resolve_toggle(&self) -> bool {
        self.topic_resolved || self.topic_unresolved
    }

    /// Moves that count for `last_moved_timestamp`: any channel move, and topic changes that
    /// are not a pure resolve/unresolve.
    pub fn counts_as_move(&self) -> bool {
        self.stream_id.is_some() || (self.topic.is_some() && !self.is_resolve_toggle())
    }
}

/// Zulip's content normalization for edits: content that is only whitespace becomes
/// `(deleted)`; otherwise the rules of sending (trimmed, truncated past the limit).
pub fn normalize_content(content: &str, settings: &RealmSettingsRow) -> ApiResult<String> {
    if content.trim_end().is_empty() {
        return Ok("(deleted)".to_string());
    }
    crate::domain::message_send::normalize_content(content, settings.max_message_length)
}

pub fn sha256_hex(text: &str) -> String {
    crate::secrets::sha256_hex(text.as_bytes())
}

/// Whether a topic change resolves (adds the prefix to the same name) or unresolves
/// (removes it) the topic, as Zulip decides it.
pub fn resolve_toggle(old_topic: &str, new_topic: &str) -> (bool, bool) {
    let resolved = new_topic.starts_with(RESOLVED_TOPIC_PREFIX)
        && !old_topic.starts_with(RESOLVED_TOPIC_PREFIX)
        && &new_topic[RESOLVED_TOPIC_PREFIX.len()..] == old_topic;
    let unresolved = old_topic.starts_with(RESOLVED_TOPIC_PREFIX)
        && !new_topic.starts_with(RESOLVED_TOPIC_PREFIX)
        && old_topic.trim_start_matches(['✔', ' ']) == new_topic;
    (resolved, unresolved)
}

/// Validates the request against the message (Zulip's `validate_message_edit_payload`,
/// permissions aside) and answers what changes.
pub fn plan_edit(message: &MessageRow, params: &EditParams, settings: &RealmSettingsRow) -> ApiResult<EditPlan> {
    // The topic rules of sending: `(no topic)` and the display name mean "", truncation.
    let topic = params
        .topic
        .as_deref()
        .map(|t| crate::domain::topics::normalize_topic(t, settings))
        .transpose()?
        .filter(|t| !(message.is_channel_message() && *t == message.topic));
    let stream_id = params.stream_id.filter(|id| Some(*id) != message.channel_id);
    if topic.is_none() && params.content.is_none() && stream_id.is_none() {
        return Err(ApiError::bad_request("Nothing to change"));
    }
    if !message.is_channel_message() {
        if params.stream_id.is_some() {
            return Err(ApiError::bad_request("Direct messages cannot be moved to channels."));
        }
        if topic.is_some() {
            return Err(ApiError::bad_request("Direct messages cannot have topics."));
        }
    }
    if params.propagate_mode != PropagateMode::ChangeOne && topic.is_none() && stream_id.is_none() {
        return Err(ApiError::bad_request("Invalid propagate_mode without topic edit"));
    }
    if let Some(t) = &topic {
        let display_resolved = format!("{RESOLVED_TOPIC_PREFIX}{}", settings.empty_topic_display_name);
        if t == RESOLVED_TOPIC_PREFIX.trim() || *t == display_resolved || t == "✔ (no topic)" {
            return Err(ApiError::bad_request("General chat cannot be marked as resolved"));
        }
    }
    if params.stream_id.is_some() && params.content.is_some() {
        return Err(ApiError::bad_request("Cannot change message content while changing channel"));
    }
    if let Some(expected) = &params.prev_content_sha256 {
        if *expected != sha256_hex(&message.content) {
            return Err(ApiError::bad_request("'prev_content_sha256' value does not match the expected value."));
        }
    }
    let content = params.content.as_deref().map(|c| normalize_content(c, settings)).transpose()?;
    let (topic_resolved, topic_unresolved) = match &topic {
        Some(t) => resolve_toggle(&message.topic, t),
        None => (false, false),
    };
    Ok(EditPlan { content, topic, stream_id, propagate_mode: params.propagate_mode, topic_resolved, topic_unresolved })
}

/// What the permission checks need to know about the acting user.
#[derive(Debug, Clone, Copy, Default)]
pub struct EditorRights {
    pub can_move_between_topics: bool,
    pub can_move_between_channels: bool,
    pub can_resolve_topics: bool,
}

/// Administrators and moderators are exempt from the move time limits.
pub fn exempt_from_move_limits(user: &UserRow) -> bool {
    user.is_moderator_or_above()
}

/// When an edit happens: `now`, and the grace allowed beyond every time limit.
#[derive(Debug, Clone, Copy)]
pub struct EditClock {
    pub now: i64,
    pub grace_seconds: i64,
}

fn past(limit: Option<i64>, date_sent: i64, clock: EditClock) -> bool {
    limit.is_some_and(|limit| clock.now - date_sent > limit + clock.grace_seconds)
}

/// Who may make this edit (Zulip's rules): content only by its sender while editing is
/// allowed and within the content edit limit; topic moves by the topics group (resolving by
/// the resolve group) within the topic move limit; channel moves by the channels group within
/// the channel move limit. Administrators and moderators are exempt from the move limits.
pub fn check_edit_permission(
    user: &UserRow,
    message: &MessageRow,
    plan: &EditPlan,
    settings: &RealmSettingsRow,
    rights: EditorRights,
    clock: EditClock,
) -> ApiResult<()> {
    if plan.content.is_some() {
        if settings.allow_message_editing == 0 {
            return Err(ApiError::bad_request("Your organization has turned off message editing"));
        }
        if message.sender_id != user.id {
            return Err(ApiError::bad_request("You don't have permission to edit this message"));
        }
        if past(settings.message_content_edit_limit_seconds, message.date_sent, clock) {
            return Err(ApiError::bad_request("The time limit for editing this message has passed"));
        }
    }
    let exempt = exempt_from_move_limits(user);
    if plan.topic.is_some() {
        if plan.is_resolve_toggle() {
            if !rights.can_resolve_topics {
                return Err(ApiError::bad_request("You don't have permission to resolve topics in this channel."));
            }
        } else {
            if !rights.can_move_between_topics {
                return Err(ApiError::bad_request("You don't have permission to edit this message"));
            }
            if !exempt && past(settings.move_messages_within_stream_limit_seconds, message.date_sent, clock) {
                return Err(ApiError::bad_request("The time limit for editing this message's topic has passed."));
            }
        }
    }
    if plan.stream_id.is_some() {
        if !rights.can_move_between_channels {
            return Err(ApiError::bad_request("You don't have permission to move this message"));
        }
        if !exempt && past(settings.move_messages_between_streams_limit_seconds, message.date_sent, clock) {
            return Err(ApiError::bad_request("The time limit for editing this message's channel has passed"));
        }
    }
    Ok(())
}

/// The deadline (seconds of age) that applies to a `change_all` move, if any: the stricter
/// of the topic and channel move limits that the move involves.
pub fn change_all_deadline(user: &UserRow, plan: &EditPlan, settings: &RealmSettingsRow, grace_seconds: i64) -> Option<i64> {
    if plan.propagate_mode != PropagateMode::ChangeAll || !plan.is_moved() || plan.is_resolve_toggle() || exempt_from_move_limits(user) {
        return None;
    }
    let topic = plan.topic.as_ref().and(settings.move_messages_within_stream_limit_seconds);
    let channel = plan.stream_id.and(settings.move_messages_between_streams_limit_seconds);
    let deadline = match (topic, channel) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => return None,
    };
    Some(deadline + grace_seconds)
}

/// One message of the topic being moved: id, send time, and whether the mover can access it.
#[derive(Debug, Clone, Copy)]
pub struct TopicMessage {
    pub id: i64,
    pub date_sent: i64,
    pub accessible: bool,
}

/// `MOVE_MESSAGES_TIME_LIMIT_EXCEEDED` when some of the (accessible) messages of the topic
/// are older than the deadline. Counts only accessible messages.
pub fn check_change_all_time_limit(topic: &[TopicMessage], deadline: i64, now: i64) -> ApiResult<()> {
    let requested: Vec<&TopicMessage> = topic.iter().filter(|m| m.accessible).collect();
    let allowed: Vec<&&TopicMessage> = requested.iter().filter(|m| now - m.date_sent <= deadline).collect();
    if allowed.len() == requested.len() {
        return Ok(());
    }
    Err(ApiError::move_messages_time_limit_exceeded(allowed.first().map(|m| m.id), allowed.len() as i64, requested.len() as i64))
}

/// The ids a move changes besides the target: later ones for `change_later`, all for
/// `change_all`; for channel moves only the messages the mover can access (so nobody gains
/// access to messages by moving them), for topic moves all of them (topics stay together).
pub fn other_moved_ids(topic: &[TopicMessage], target_id: i64, plan: &EditPlan) -> Vec<i64> {
    topic
        .iter()
        .filter(|m| m.id != target_id)
        .filter(|m| match plan.propagate_mode {
            PropagateMode::ChangeOne => false,
            PropagateMode::ChangeLater => m.id > target_id,
            PropagateMode::ChangeAll => true,
        })
        .filter(|m| plan.stream_id.is_none() || m.accessible)
        .map(|m| m.id)
        .collect()
}

/// The edit-history entry of the edit (spec "Edit-history entry"): the editor, the time and
/// only what changed. `with_content`: the target message's entry (others only get the move).
pub fn history_entry(user_id: i64, timestamp: i64, message: &MessageRow, plan: &EditPlan, with_content: bool) -> Value {
    let mut entry = Map::new();
    entry.insert("user_id".into(), json!(user_id));
    entry.insert("timestamp".into(), json!(timestamp));
    if with_content && plan.content.is_some() {
        entry.insert("prev_content".into(), json!(message.content));
        entry.insert("prev_rendered_content".into(), json!(message.rendered_content));
    }
    if let (Some(to), Some(from)) = (plan.stream_id, message.channel_id) {
        entry.insert("prev_stream".into(), json!(from));
        entry.insert("stream".into(), json!(to));
    }
    if let Some(topic) = &plan.topic {
        entry.insert("prev_topic".into(), json!(message.topic));
        entry.insert("topic".into(), json!(topic));
    }
    Value::Object(entry)
}

/// Zulip's topic of the announcements of new users.
pub const SIGNUPS_TOPIC: &str = "signups";

/// The notification bot's announcement of a new user.
pub fn new_user_notice(user: &UserRow) -> String {
    format!("{} joined this organization.", silent_mention(user))
}

/// Zulip's silent mention of a user in notification-bot messages.
pub fn silent_mention(user: &UserRow) -> String {
    crate::domain::markdown_syntax::silent_mention(user.id, &user.full_name)
}

/// The Markdown link to a channel's topic, as Zulip writes it in move notifications:
/// `#**channel>topic**`, or a plain link when the names would break that syntax.
pub fn topic_link(base_url: &str, channel_id: i64, channel: &str, topic: &str) -> String {
    let breaks = |s: &str| s.contains("**") || s.contains('>') || s.contains('`') || s.contains('$') || s.contains('*');
    if breaks(channel) || breaks(topic) {
        let shown = if topic.is_empty() { channel.to_string() } else { format!("{channel} > {topic}") };
        format!("[#{}]({})", escape_link_text(&shown), narrow_url(base_url, ChannelId(channel_id), channel, topic, None))
    } else {
        format!("#**{channel}>{topic}**")
    }
}

fn escape_link_text(text: &str) -> String {
    text.replace('[', "\\[").replace(']', "\\]")
}

/// Zulip's hash encoding of a URL fragment component: percent-encoding with `.` for `%`.
fn encode_hash_component(s: &str) -> String {
    let mut out = String::new();
    for byte in s.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'~' => out.push(byte as char),
            _ => out.push_str(&format!(".{byte:02X}")),
        }
    }
    out
}

/// The web app URL of a topic (and optionally one message in it).
pub fn narrow_url(base_url: &str, channel_id: ChannelId, channel: &str, topic: &str, message_id: Option<MessageId>) -> String {
    let mut url = format!(
        "{base_url}/#narrow/channel/{channel_id}-{}/topic/{}",
        encode_hash_component(&channel.replace(' ', "-")),
        encode_hash_component(topic)
    );
    if let Some(id) = message_id {
        url.push_str(&format!("/with/{id}"));
    }
    url
}

/// Zulip's link to a message (`near_message_url`): in its channel's topic (`channel`: id,
/// name, topic) or in its direct-message conversation (`participants`, everyone in it).
pub fn near_message_url(base_url: &str, message_id: i64, channel: Option<(i64, &str, &str)>, participants: &[i64]) -> String {
    if let Some((channel_id, channel, topic)) = channel {
        return format!("{}/near/{message_id}", narrow_url(base_url, ChannelId(channel_id), channel, topic, None));
    }
    let mut ids = participants.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let kind = if ids.len() > 2 { "group" } else { "dm" };
    let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
    format!("{base_url}/#narrow/dm/{}-{kind}/near/{message_id}", ids.join(","))
}

/// The notification of the new thread, if one is sent: never for a pure resolve/unresolve.
#[allow(clippy::too_many_arguments)]
pub fn new_thread_notification(
    plan: &EditPlan,
    moved_all_visible: bool,
    target_had_visible_messages: bool,
    changed_count: usize,
    editor: &UserRow,
    old_location: &str,
    message_link: &str,
) -> Option<String> {
    if !(plan.stream_id.is_some() || (plan.topic.is_some() && !plan.is_resolve_toggle())) {
        return None;
    }
    let user = silent_mention(editor);
    Some(if !target_had_visible_messages && moved_all_visible {
        format!("This topic was moved here from {old_location} by {user}.")
    } else if changed_count == 1 {
        format!("[A message]({message_link}) was moved here from {old_location} by {user}.")
    } else {
        format!("{changed_count} messages were moved here from {old_location} by {user}.")
    })
}

/// The notification of the old thread (sent only when asked for).
pub fn old_thread_notification(moved_all_visible: bool, changed_count: usize, editor: &UserRow, new_location: &str) -> String {
    let user = silent_mention(editor);
    if moved_all_visible {
        format!("This topic was moved to {new_location} by {user}.")
    } else if changed_count == 1 {
        format!("A message was moved from this topic to {new_location} by {user}.")
    } else {
        format!("{changed_count} messages were moved from this topic to {new_location} by {user}.")
    }
}

pub fn resolve_notification(editor: &UserRow, resolved: bool) -> String {
    let state = if resolved { "resolved" } else { "unresolved" };
    format!("{} has marked this topic as {state}.", silent_mention(editor))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    /// Zulip's grace.
    fn zulip_clock(now: i64) -> EditClock {
        EditClock { now, grace_seconds: EDIT_LIMIT_GRACE_SECONDS }
    }

    fn settings() -> RealmSettingsRow {
        RealmSettingsRow {
            move_messages_within_stream_limit_seconds: Some(604800),
            move_messages_between_streams_limit_seconds: Some(604800),
            can_move_messages_between_channels_group: 2,
            can_move_messages_between_topics_group: 3,
            can_mention_many_users_group: 4,
            can_add_custom_emoji_group: 2,
            ..RealmSettingsRow::for_tests(1)
        }
    }

    fn user(id: i64, role: Role) -> UserRow {
        UserRow {
            id,
            realm_id: 1,
            email: "a@x.com".into(),
            delivery_email: "a@x.com".into(),
            full_name: "A".into(),
            role,
            is_active: 1,
            is_bot: 0,
            bot_type: None,
            bot_owner_id: None,
            can_create_users: 0,
            timezone: "".into(),
            date_joined: 0,
            avatar_version: 1,
            email_address_visibility: 1,
            is_imported_stub: 0,
            ..UserRow::default()
        }
    }

    fn message(sender_id: i64, topic: &str, date_sent: i64) -> MessageRow {
        MessageRow { sender_id, topic: topic.into(), date_sent, ..MessageRow::for_tests() }
    }

    fn params() -> EditParams {
        EditParams {
            content: None,
            topic: None,
            stream_id: None,
            propagate_mode: PropagateMode::ChangeOne,
            send_notification_to_old_thread: false,
            send_notification_to_new_thread: true,
            prev_content_sha256: None,
        }
    }

    const ALL_RIGHTS: EditorRights =
        EditorRights { can_move_between_topics: true, can_move_between_channels: true, can_resolve_topics: true };

    #[test]
    fn resolving_adds_the_prefix_to_the_same_name() {
        assert_eq!(resolve_toggle("bug", "✔ bug"), (true, false));
        assert_eq!(resolve_toggle("✔ bug", "bug"), (false, true));
        assert_eq!(resolve_toggle("bug", "✔ other"), (false, false));
        assert_eq!(resolve_toggle("✔ bug", "other"), (false, false));
    }

    #[test]
    fn no_topic_and_display_name_mean_the_empty_topic() {
        for (sent, read) in [("(no topic)", ""), (" general chat ", ""), (" castle ", "castle")] {
            let mut p = params();
            p.topic = Some(sent.into());
            assert_eq!(plan_edit(&message(1, "t", 0), &p, &settings()).unwrap().topic.as_deref(), Some(read));
        }
    }

    #[test]
    fn whitespace_only_content_becomes_deleted() {
        assert_eq!(normalize_content(" \n ", &settings()).unwrap(), "(deleted)");
    }

    #[test]
    fn disabled_message_editing_rejects_content_edits() {
        let mut s = settings();
        s.allow_message_editing = 0;
        let mut p = params();
        p.content = Some("new".into());
        let m = message(1, "t", 1000);
        let plan = plan_edit(&m, &p, &s).unwrap();
        let err = check_edit_permission(&user(1, Role::Member), &m, &plan, &s, ALL_RIGHTS, zulip_clock(1001)).unwrap_err();
        assert_eq!(err.msg, "Your organization has turned off message editing");
    }

    #[test]
    fn disabled_message_editing_still_allows_moves() {
        let mut s = settings();
        s.allow_message_editing = 0;
        let mut p = params();
        p.topic = Some("elsewhere".into());
        let m = message(1, "t", 1000);
        let plan = plan_edit(&m, &p, &s).unwrap();
        assert!(check_edit_permission(&user(2, Role::Member), &m, &plan, &s, ALL_RIGHTS, zulip_clock(1001)).is_ok());
    }

    #[test]
    fn topic_move_past_the_limit_is_rejected_for_members_only() {
        let s = settings();
        let mut p = params();
        p.topic = Some("elsewhere".into());
        let m = message(1, "t", 0);
        let now = 604800 + EDIT_LIMIT_GRACE_SECONDS + 1;
        let plan = plan_edit(&m, &p, &s).unwrap();
        let err = check_edit_permission(&user(1, Role::Member), &m, &plan, &s, ALL_RIGHTS, zulip_clock(now)).unwrap_err();
        assert_eq!(err.msg, "The time limit for editing this message's topic has passed.");
        assert!(check_edit_permission(&user(2, Role::Moderator), &m, &plan, &s, ALL_RIGHTS, zulip_clock(now)).is_ok(), "moderator");
        assert!(check_edit_permission(&user(3, Role::Administrator), &m, &plan, &s, ALL_RIGHTS, zulip_clock(now)).is_ok(), "administrator");
        assert!(check_edit_permission(&user(1, Role::Member), &m, &plan, &s, ALL_RIGHTS, zulip_clock(now - 1)).is_ok(), "within the grace");
    }

    #[test]
    fn content_edit_limit_applies_to_everyone() {
        let s = settings();
        let mut p = params();
        p.content = Some("late".into());
        let m = message(1, "t", 0);
        let plan = plan_edit(&m, &p, &s).unwrap();
        let err = check_edit_permission(&user(1, Role::Owner), &m, &plan, &s, ALL_RIGHTS, zulip_clock(621)).unwrap_err();
        assert_eq!(err.msg, "The time limit for editing this message has passed");
    }

    #[test]
    fn change_all_limit_counts_only_accessible_messages() {
        let topic = [
            TopicMessage { id: 1, date_sent: 0, accessible: false },
            TopicMessage { id: 2, date_sent: 0, accessible: true },
            TopicMessage { id: 3, date_sent: 100, accessible: true },
        ];
        let err = check_change_all_time_limit(&topic, 50, 100).unwrap_err();
        assert_eq!(err.extra["first_message_id_allowed_to_move"], 3);
        assert_eq!(err.extra["total_messages_allowed_to_move"], 1);
        assert_eq!(err.extra["total_messages_in_topic"], 2);
        assert!(check_change_all_time_limit(&topic[2..], 50, 100).is_ok());
    }

    #[test]
    fn channel_moves_take_only_accessible_messages_topic_moves_take_all() {
        let topic = [
            TopicMessage { id: 1, date_sent: 0, accessible: false },
            TopicMessage { id: 2, date_sent: 0, accessible: true },
            TopicMessage { id: 3, date_sent: 0, accessible: true },
        ];
        let mut plan = EditPlan {
            content: None,
            topic: Some("x".into()),
            stream_id: None,
            propagate_mode: PropagateMode::ChangeAll,
            topic_resolved: false,
            topic_unresolved: false,
        };
        assert_eq!(other_moved_ids(&topic, 3, &plan), vec![1, 2]);
        plan.stream_id = Some(9);
        assert_eq!(other_moved_ids(&topic, 3, &plan), vec![2]);
        plan.propagate_mode = PropagateMode::ChangeLater;
        assert_eq!(other_moved_ids(&topic, 2, &plan), vec![3]);
    }

    #[test]
    fn history_entry_has_only_changed_fields() {
        let m = message(1, "old", 0);
        let plan = EditPlan {
            content: Some("new".into()),
            topic: Some("t2".into()),
            stream_id: None,
            propagate_mode: PropagateMode::ChangeOne,
            topic_resolved: false,
            topic_unresolved: false,
        };
        let entry = history_entry(5, 99, &m, &plan, true);
        assert_eq!(
            entry,
            json!({"user_id": 5, "timestamp": 99, "prev_content": "hi", "prev_rendered_content": "<p>hi</p>", "prev_topic": "old", "topic": "t2"})
        );
        let other = history_entry(5, 99, &m, &plan, false);
        assert!(other.get("prev_content").is_none());
    }

    #[test]
    fn topic_links_fall_back_to_markdown_links_for_awkward_names() {
        assert_eq!(topic_link("http://x", 3, "Verona", "lunch"), "#**Verona>lunch**");
        assert!(topic_link("http://x", 3, "Verona", "a>b").starts_with("[#Verona > a>b](http://x/#narrow/channel/3-Verona/topic/a.3Eb)"));
    }
}
