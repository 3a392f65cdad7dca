//! Message access and the Message object of the API.
//!
//! - [`access_message`]: the message if the user may see it; one error ("Invalid
//!   message(s)") for a missing and an invisible message.
//! - [`MessageContext::load`] + [`message_dict`]: the Message object (spec "Message") of
//!   rows, with senders, direct-message recipients, reactions and channel names fetched in
//!   one batch whatever the number of messages.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{json, Map, Value};
use worker::D1Database;

use crate::auth::ReadAsUser;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::message_window::{add_window, Anchor, PendingWindow, WindowRequest};
use crate::db::messages::ReactionRow;
use crate::db::messages::{self as msgdb, ChannelNameRow, GroupMemberRow, MessageRow, MessageSet};
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::users::UserRow;
use crate::domain::search;
use crate::domain::users::{api_email, avatar_url, client_computes_avatar};
use crate::error::{ApiError, ApiResult};
use crate::markdown::TopicLinker;
use crate::model::ids::{MessageId, RealmId, UserId};
use crate::model::message_flags::flag_names;
use crate::model::narrow::Term;
use crate::model::recipients::RecipientType;
use crate::model::EditHistoryPolicy;
use crate::platform::realm_cache::RealmState;

/// A message the caller may see, with what the access check learned on the way.
#[derive(Debug, Clone)]
pub struct AccessedMessage {
    pub message: MessageRow,
    /// The caller's flags; `None` when the caller has no row (a channel message seen through
    /// the channel's public history).
    pub user_flags: Option<i64>,
    /// Channel messages: the channel's name, `invite_only`, `history_public_to_subscribers`,
    /// and whether the caller is an active subscriber.
    pub channel: Option<ChannelAccess>,
}

#[derive(Debug, Clone)]
pub struct ChannelAccess {
    pub id: i64,
    pub name: String,
    pub invite_only: bool,
    pub history_public_to_subscribers: bool,
    pub subscribed: bool,
}

#[derive(Deserialize)]
struct AccessRow {
    um_flags: Option<i64>,
    channel_name: Option<String>,
    invite_only: Option<i64>,
    history_public_to_subscribers: Option<i64>,
    subscribed: i64,
}

/// Zulip's rule (`has_message_access`): a user sees a message it received (has a row for);
/// otherwise only a channel message whose history it can read: a public channel's if it is
/// not a guest, and a subscribed channel's whose history is public to subscribers. Someone
/// else's direct message and the protected history of a private channel stay invisible.
pub fn can_access(user: &UserRow, has_row: bool, channel: Option<&ChannelAccess>) -> bool {
    if has_row {
        return true;
    }
    let Some(channel) = channel else { return false };
    crate::domain::channels::access::can_read_history(user, channel.subscribed, channel.invite_only, channel.history_public_to_subscribers)
}

/// The message `message_id` if `user` may see it; `BAD_REQUEST` "Invalid message(s)"
/// otherwise, the same for a message that does not exist. One query.
pub async fn access_message(db: &D1Database, user: &UserRow, message_id: i64) -> ApiResult<AccessedMessage> {
    let stmt = crate::db::messages::access_stmt(MessageId(message_id), RealmId(user.realm_id), UserId(user.id))?;
    accessed_from(user, crate::db::first(db, stmt).await?)
}

/// [`access_message`]'s rule over the row of `db::messages::access_stmt`, for a caller
/// that read it in a batch.
pub fn accessed_from(user: &UserRow, row: Option<Value>) -> ApiResult<AccessedMessage> {
    let Some(row) = row else { return Err(invalid_message()) };
    let message = MessageRow::deserialize(&row)?;
    let extra = AccessRow::deserialize(&row)?;
    let channel = match (message.channel_id, extra.channel_name) {
        (Some(id), Some(name)) if message.recipient_type == RecipientType::Channel => Some(ChannelAccess {
            id,
            name,
            invite_only: extra.invite_only.unwrap_or(0) != 0,
            history_public_to_subscribers: extra.history_public_to_subscribers.unwrap_or(1) != 0,
            subscribed: extra.subscribed != 0,
        }),
        _ => None,
    };
    if !can_access(user, extra.um_flags.is_some(), channel.as_ref()) {
        return Err(invalid_message());
    }
    Ok(AccessedMessage { message, user_flags: extra.um_flags, channel })
}

pub fn invalid_message() -> ApiError {
    ApiError::bad_request("Invalid message(s)")
}

/// How the caller asked to see messages.
#[derive(Debug, Clone, Copy)]
pub struct MessageOptions {
    /// Content as HTML (true) or raw Markdown.
    pub apply_markdown: bool,
    /// Keep the empty topic as ""; otherwise it reads as the realm's display name.
    pub allow_empty_topic_name: bool,
    /// `avatar_url` null where the client can compute it.
    pub client_gravatar: bool,
}

impl Default for MessageOptions {
    fn default() -> Self {
        MessageOptions { apply_markdown: true, allow_empty_topic_name: false, client_gravatar: false }
    }
}

/// Everything besides the message rows that Message objects show.
pub struct MessageContext {
    pub viewer: UserRow,
    pub settings: RealmSettingsRow,
    /// `host[:port]` of the organization, for placeholder email addresses.
    pub realm_host: String,
    pub users: HashMap<i64, UserRow>,
    pub group_members: HashMap<i64, Vec<i64>>,
    pub reactions: HashMap<i64, Vec<ReactionRow>>,
    pub channel_names: HashMap<i64, String>,
    /// The organization's linkifiers, for `topic_links`.
    pub topic_linker: TopicLinker,
}

/// Where the context of a [`MessageSet`] will be in a batch's results.
pub struct ContextSlots {
    group_members: Slot<GroupMemberRow>,
    reactions: Slot<ReactionRow>,
    channel_names: Slot<ChannelNameRow>,
    users: Slot<UserRow>,
}

impl MessageContext {
    /// Adds the statements reading the context of `set` to `batch` (four statements,
    /// whatever the number of messages).
    pub fn add_to(batch: &mut Batch, set: &MessageSet) -> worker::Result<ContextSlots> {
        let stmts = msgdb::context_stmts(set)?;
        Ok(ContextSlots {
            group_members: batch.add(stmts.group_members),
            reactions: batch.add(stmts.reactions),
            channel_names: batch.add(stmts.channel_names),
            users: batch.add(stmts.users),
        })
    }

    /// The context [`Self::add_to`] read, for `viewer`, with the organization's settings
    /// and linkifiers.
    pub fn from_results(
        results: &BatchResults,
        slots: ContextSlots,
        viewer: &UserRow,
        realm: &RealmState,
        realm_host: &str,
    ) -> ApiResult<MessageContext> {
        let mut group_members: HashMap<i64, Vec<i64>> = HashMap::new();
        for row in results.rows(slots.group_members)? {
            group_members.entry(row.group_id).or_default().push(row.user_id);
        }
        let mut reactions: HashMap<i64, Vec<ReactionRow>> = HashMap::new();
        for row in results.rows(slots.reactions)? {
            reactions.entry(row.message_id).or_default().push(row);
        }
        Ok(MessageContext {
            viewer: viewer.clone(),
            settings: realm.settings.clone(),
            realm_host: realm_host.to_string(),
            users: results.rows(slots.users)?.into_iter().map(|u| (u.id, u)).collect(),
            group_members,
            reactions,
            channel_names: results.rows(slots.channel_names)?.into_iter().map(|c| (c.id, c.name)).collect(),
            topic_linker: TopicLinker::new(&realm.linkifiers),
        })
    }

    /// Loads the context of `messages`, and the organization's linkifiers, in one batch.
    pub async fn load(
        db: &D1Database,
        viewer: &UserRow,
        settings: &RealmSettingsRow,
        realm_host: &str,
        messages: &[MessageRow],
    ) -> ApiResult<MessageContext> {
        let ids: Vec<i64> = messages.iter().map(|m| m.id).collect();
        let mut batch = Batch::new();
        let slots = Self::add_to(&mut batch, &MessageSet::ids(viewer.realm_id, &ids)?)?;
        let linkifiers = batch.add(crate::db::linkifiers::in_realm_stmt(viewer.realm_id)?);
        let results = batch.run(db).await?;
        let linkifiers = crate::domain::linkifiers::for_rendering(&results.rows(linkifiers)?);
        // Message objects need no alert words.
        let realm = RealmState { version: settings.settings_version, settings: settings.clone(), linkifiers, alert_words: Vec::new() };
        Self::from_results(&results, slots, viewer, &realm, realm_host)
    }

    /// The display_recipient entry of one user.
    fn recipient_user(&self, user_id: i64) -> Value {
        match self.users.get(&user_id) {
            Some(user) => json!({
                "id": user.id,
                "email": api_email(&self.viewer, user, &self.realm_host),
                "full_name": user.full_name,
                "is_mirror_dummy": false,
            }),
            None => json!({ "id": user_id, "email": "", "full_name": "", "is_mirror_dummy": false }),
        }
    }

    /// The user ids of a direct message's conversation, ascending.
    pub fn direct_message_user_ids(&self, message: &MessageRow) -> Vec<i64> {
        let mut ids = match message.recipient_type {
            RecipientType::Personal => vec![message.sender_id, message.recipient_type_id],
            RecipientType::DirectMessageGroup => self.group_members.get(&message.recipient_type_id).cloned().unwrap_or_default(),
            _ => Vec::new(),
        };
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The topic as the client asked to see it.
    pub fn topic_for_display<'a>(&'a self, topic: &'a str, opts: &MessageOptions) -> &'a str {
        if topic.is_empty() && !opts.allow_empty_topic_name {
            &self.settings.empty_topic_display_name
        } else {
            topic
        }
    }
}

/// The reactions of a message as the API shows them, oldest first, with the legacy `user`
/// object Zulip still sends beside `user_id` (older clients read only that).
pub fn reaction_dicts(reactions: &[ReactionRow], ctx: &MessageContext) -> Vec<Value> {
    reactions
        .iter()
        .map(|r| {
            let user = match ctx.users.get(&r.user_id) {
                Some(u) => json!({ "id": u.id, "email": api_email(&ctx.viewer, u, &ctx.realm_host), "full_name": u.full_name }),
                None => json!({ "id": r.user_id, "email": "", "full_name": "" }),
            };
            json!({
                "emoji_name": r.emoji_name,
                "emoji_code": r.emoji_code,
                "reaction_type": r.reaction_type,
                "user_id": r.user_id,
                "user": user,
            })
        })
        .collect()
}

/// The edit history as the viewer may see it (`None`: absent). Zulip's
/// `message_edit_history_visibility_policy`: `all`, `moves` (only move entries, without
/// content fields), `none`.
pub fn visible_edit_history(message: &MessageRow, ctx: &MessageContext, opts: &MessageOptions) -> Option<Vec<Value>> {
    let raw = message.edit_history.as_deref()?;
    let policy = ctx.settings.message_edit_history_visibility_policy;
    if policy == EditHistoryPolicy::None {
        return None;
    }
    let entries: Vec<Value> = serde_json::from_str(raw).ok()?;
    let mut out = Vec::new();
    for entry in entries {
        let Value::Object(mut entry) = entry else { continue };
        if policy == EditHistoryPolicy::Moves {
            entry.remove("prev_content");
            entry.remove("prev_rendered_content");
            if !entry.contains_key("prev_topic") && !entry.contains_key("prev_stream") {
                continue;
            }
        }
        for key in ["prev_topic", "topic"] {
            if let Some(Value::String(t)) = entry.get(key) {
                let shown = ctx.topic_for_display(t, opts).to_string();
                entry.insert(key.to_string(), json!(shown));
            }
        }
        out.push(Value::Object(entry));
    }
    if out.is_empty() && policy == EditHistoryPolicy::Moves {
        return None;
    }
    Some(out)
}

/// `topic_links` of a topic: `{text, url}` for each linkifier match and bare URL.
pub fn topic_links(linker: &TopicLinker, topic: &str) -> Vec<Value> {
    linker.links(topic).into_iter().map(|l| json!({ "text": l.text, "url": l.url })).collect()
}

/// The Message object (spec "Message") of `message` for the context's viewer, whose flags
/// are `user_flags` (`None`: no row, shown as `read` + `historical`).
pub fn message_dict(message: &MessageRow, user_flags: Option<i64>, ctx: &MessageContext, opts: &MessageOptions) -> Value {
    let mut d = Map::new();
    let sender = ctx.users.get(&message.sender_id);
    d.insert("id".into(), json!(message.id));
    d.insert("sender_id".into(), json!(message.sender_id));
    d.insert("sender_full_name".into(), json!(sender.map(|s| s.full_name.as_str()).unwrap_or("")));
    d.insert("sender_email".into(), json!(sender.map(|s| api_email(&ctx.viewer, s, &ctx.realm_host)).unwrap_or_default()));
    d.insert("sender_realm_str".into(), json!(ctx.settings.string_id));
    let avatar = match sender {
        Some(s) if opts.client_gravatar && client_computes_avatar(&ctx.viewer, s) => Value::Null,
        Some(s) => json!(avatar_url(s)),
        None => Value::Null,
    };
    d.insert("avatar_url".into(), avatar);
    d.insert("client".into(), json!(message.client));
    if opts.apply_markdown {
        d.insert("content".into(), json!(message.rendered_content));
        d.insert("content_type".into(), json!("text/html"));
    } else {
        d.insert("content".into(), json!(message.content));
        d.insert("content_type".into(), json!("text/x-markdown"));
    }
    d.insert("recipient_id".into(), json!(message.recipient_id));
    if message.is_channel_message() {
        let channel_id = message.channel_id.unwrap_or(message.recipient_type_id);
        d.insert("type".into(), json!("stream"));
        d.insert("stream_id".into(), json!(channel_id));
        d.insert("display_recipient".into(), json!(ctx.channel_names.get(&channel_id).cloned().unwrap_or_default()));
        d.insert("subject".into(), json!(ctx.topic_for_display(&message.topic, opts)));
    } else {
        d.insert("type".into(), json!("private"));
        let recipients: Vec<Value> = ctx.direct_message_user_ids(message).into_iter().map(|id| ctx.recipient_user(id)).collect();
        d.insert("display_recipient".into(), Value::Array(recipients));
        d.insert("subject".into(), json!(""));
    }
    let topic_links: Vec<Value> = if message.is_channel_message() { topic_links(&ctx.topic_linker, &message.topic) } else { Vec::new() };
    d.insert("topic_links".into(), Value::Array(topic_links));
    d.insert("timestamp".into(), json!(message.date_sent));
    d.insert("is_me_message".into(), json!(message.is_me_message != 0));
    d.insert("flags".into(), json!(flag_names(user_flags)));
    let reactions = ctx.reactions.get(&message.id).map(|r| reaction_dicts(r, ctx)).unwrap_or_default();
    d.insert("reactions".into(), Value::Array(reactions));
    d.insert("submessages".into(), json!([]));
    if let Some(history) = visible_edit_history(message, ctx, opts) {
        d.insert("edit_history".into(), Value::Array(history));
    }
    if let Some(ts) = message.last_edit_timestamp {
        d.insert("last_edit_timestamp".into(), json!(ts));
    }
    if let Some(ts) = message.last_moved_timestamp {
        d.insert("last_moved_timestamp".into(), json!(ts));
    }
    Value::Object(d)
}

/// `GET /messages/{id}`: the message's access row and its context, read as `me`; answers
/// `message` and the deprecated `raw_content`, or "Invalid message(s)" when `me` may not
/// see it.
pub struct OneMessage {
    pub message_id: i64,
    pub opts: MessageOptions,
    pub realm_host: String,
}

impl ReadAsUser for OneMessage {
    type Slots = (Slot<Value>, ContextSlots);
    type Output = Value;
    fn add(&self, batch: &mut Batch, me: &UserRow, _realm: &RealmState) -> ApiResult<Self::Slots> {
        let access = batch.add::<Value>(msgdb::access_stmt(MessageId(self.message_id), RealmId(me.realm_id), UserId(me.id))?);
        let context = MessageContext::add_to(batch, &MessageSet::ids(me.realm_id, &[self.message_id])?)?;
        Ok((access, context))
    }
    fn take(&self, results: &BatchResults, (access, context): Self::Slots, me: &UserRow, realm: &RealmState) -> ApiResult<Value> {
        let accessed = accessed_from(me, results.first(access)?)?;
        let mctx = MessageContext::from_results(results, context, me, realm, &self.realm_host)?;
        Ok(message_body(&accessed, &mctx, &self.opts))
    }
}

/// The body of `GET /messages/{id}`: `message` and the deprecated `raw_content`.
pub fn message_body(accessed: &AccessedMessage, mctx: &MessageContext, opts: &MessageOptions) -> Value {
    json!({ "message": message_dict(&accessed.message, accessed.user_flags, mctx, opts), "raw_content": accessed.message.content })
}

/// `GET /messages`: the window of the narrow with its messages' context in one batch, read
/// as `me`, answered as the endpoint's body (`messages`, `anchor`, `found_*`,
/// `history_limited`); search narrows add `match_content` and `match_subject`.
pub struct MessageWindow {
    pub terms: Vec<Term>,
    pub anchor: Anchor,
    pub num_before: i64,
    pub num_after: i64,
    pub include_anchor: bool,
    pub opts: MessageOptions,
    pub realm_host: String,
}

impl ReadAsUser for MessageWindow {
    type Slots = (PendingWindow, ContextSlots);
    type Output = Value;
    fn add(&self, batch: &mut Batch, me: &UserRow, realm: &RealmState) -> ApiResult<Self::Slots> {
        let req = WindowRequest {
            terms: &self.terms,
            anchor: self.anchor,
            num_before: self.num_before,
            num_after: self.num_after,
            include_anchor: self.include_anchor,
            empty_topic_display_name: &realm.settings.empty_topic_display_name,
            with_matches: true,
        };
        let window = add_window(batch, me, &req)?;
        let context = MessageContext::add_to(batch, window.message_set())?;
        Ok((window, context))
    }
    fn take(&self, results: &BatchResults, (window, context): Self::Slots, me: &UserRow, realm: &RealmState) -> ApiResult<Value> {
        let window = window.take(results)?;
        let mctx = MessageContext::from_results(results, context, me, realm, &self.realm_host)?;
        let messages: Vec<Value> = window
            .rows
            .iter()
            .map(|(m, flags)| {
                let mut d = message_dict(m, *flags, &mctx, &self.opts);
                if window.has_search {
                    let matched = window.matches.get(&m.id);
                    let marked_content = matched.and_then(|s| s.content.as_deref());
                    let marked_topic = matched.and_then(|s| s.topic.as_deref());
                    d["match_content"] = json!(search::match_content(&m.rendered_content, marked_content));
                    d["match_subject"] = json!(search::match_subject(mctx.topic_for_display(&m.topic, &self.opts), marked_topic));
                }
                d
            })
            .collect();
        Ok(json!({
            "messages": messages,
            "anchor": window.anchor,
            "found_anchor": window.found_anchor,
            "found_newest": window.found_newest,
            "found_oldest": window.found_oldest,
            "history_limited": false,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    fn user(role: Role) -> UserRow {
        UserRow {
            id: 1,
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

    fn channel(invite_only: bool, history_public: bool, subscribed: bool) -> ChannelAccess {
        ChannelAccess { id: 1, name: "c".into(), invite_only, history_public_to_subscribers: history_public, subscribed }
    }

    fn settings(policy: &str) -> RealmSettingsRow {
        RealmSettingsRow {
            move_messages_within_stream_limit_seconds: Some(604800),
            move_messages_between_streams_limit_seconds: Some(604800),
            can_move_messages_between_channels_group: 2,
            can_mention_many_users_group: 3,
            can_add_custom_emoji_group: 2,
            message_edit_history_visibility_policy: EditHistoryPolicy::from_code(policy).unwrap(),
            ..RealmSettingsRow::for_tests(1)
        }
    }

    fn channel_message(edit_history: Option<&str>) -> MessageRow {
        MessageRow {
            id: 7,
            recipient_id: 20,
            recipient_type_id: 5,
            channel_id: Some(5),
            topic: "".into(),
            content: "raw".into(),
            rendered_content: "<p>raw</p>".into(),
            date_sent: 100,
            last_edit_timestamp: Some(150),
            last_moved_timestamp: Some(160),
            edit_history: edit_history.map(str::to_string),
            ..MessageRow::for_tests()
        }
    }

    fn context(policy: &str) -> MessageContext {
        let mut users = HashMap::new();
        users.insert(1, user(Role::Member));
        let mut channel_names = HashMap::new();
        channel_names.insert(5, "Verona".to_string());
        MessageContext {
            viewer: user(Role::Member),
            settings: settings(policy),
            realm_host: "localhost".into(),
            users,
            group_members: HashMap::new(),
            reactions: HashMap::new(),
            channel_names,
            topic_linker: TopicLinker::default(),
        }
    }

    const HISTORY: &str = r#"[{"user_id":1,"timestamp":160,"prev_topic":"","topic":"moved"},
        {"user_id":1,"timestamp":150,"prev_content":"old","prev_rendered_content":"<p>old</p>"}]"#;

    #[test]
    fn edited_message_shows_history_and_timestamps() {
        let opts = MessageOptions::default();
        let d = message_dict(&channel_message(Some(HISTORY)), Some(0), &context("all"), &opts);
        assert_eq!(d["last_edit_timestamp"], 150);
        assert_eq!(d["last_moved_timestamp"], 160);
        let history = d["edit_history"].as_array().unwrap();
        assert_eq!(history.len(), 2);
        assert_eq!(history[0]["prev_topic"], "general chat", "empty topic shown by its display name");
        assert_eq!(history[1]["prev_content"], "old");
        assert_eq!(d["subject"], "general chat");
        assert_eq!(d["stream_id"], 5);
        assert_eq!(d["display_recipient"], "Verona");
    }

    #[test]
    fn unedited_message_has_no_history_fields() {
        let mut m = channel_message(None);
        m.last_edit_timestamp = None;
        m.last_moved_timestamp = None;
        let d = message_dict(&m, None, &context("all"), &MessageOptions::default());
        for absent in ["edit_history", "last_edit_timestamp", "last_moved_timestamp"] {
            assert!(d.get(absent).is_none(), "{absent}");
        }
        assert_eq!(d["flags"], json!(["read", "historical"]));
    }

    #[test]
    fn history_policy_moves_keeps_only_moves_and_none_hides_it() {
        let opts = MessageOptions { allow_empty_topic_name: true, ..MessageOptions::default() };
        let d = message_dict(&channel_message(Some(HISTORY)), Some(0), &context("moves"), &opts);
        let history = d["edit_history"].as_array().unwrap();
        assert_eq!(history.len(), 1);
        assert_eq!(history[0]["prev_topic"], "");
        let d = message_dict(&channel_message(Some(HISTORY)), Some(0), &context("none"), &opts);
        assert!(d.get("edit_history").is_none());
    }

    #[test]
    fn raw_content_without_markdown() {
        let opts = MessageOptions { apply_markdown: false, ..MessageOptions::default() };
        let d = message_dict(&channel_message(None), Some(0), &context("all"), &opts);
        assert_eq!(d["content"], "raw");
        assert_eq!(d["content_type"], "text/x-markdown");
    }

    #[test]
    fn received_messages_are_always_visible() {
        assert!(can_access(&user(Role::Member), true, None));
        assert!(can_access(&user(Role::Guest), true, Some(&channel(true, false, false))));
    }

    #[test]
    fn others_direct_messages_are_invisible() {
        assert!(!can_access(&user(Role::Owner), false, None));
    }

    #[test]
    fn public_channel_history_is_visible_to_members_not_guests() {
        assert!(can_access(&user(Role::Member), false, Some(&channel(false, true, false))));
        assert!(!can_access(&user(Role::Guest), false, Some(&channel(false, true, false))));
        assert!(can_access(&user(Role::Guest), false, Some(&channel(false, true, true))));
    }

    #[test]
    fn private_channel_needs_subscription_and_public_history() {
        assert!(!can_access(&user(Role::Member), false, Some(&channel(true, true, false))));
        assert!(can_access(&user(Role::Member), false, Some(&channel(true, true, true))));
        assert!(!can_access(&user(Role::Member), false, Some(&channel(true, false, true))));
    }
}
