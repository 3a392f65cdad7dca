//! The initial state of `POST /register`: for each requested event type
//! (`fetch_event_types`, Zulip's `fetch_initial_state_data`), the current data of the
//! organization as the caller may see it. One D1 batch ([`StateReads`]); the sections
//! are built in files of their own: the organization and its users ([`realm`]), channels
//! and groups ([`channels`]), messages and unreads ([`messages`]), settings ([`settings`]).

mod channels;
mod messages;
mod realm;
mod settings;

use crate::model::ids::{RealmId, UserId};
use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::auth::ReadAsUser;
use crate::db::alert_words::{self, WordRow};
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::channel_folders::{self, ChannelFolderRow};
use crate::db::drafts::{self, DraftRow};
use crate::db::linkifiers::LinkifierRow;
use crate::db::muted_users::{self, MutedUserRow};
use crate::db::navigation_views::{self, NavigationViewRow};
use crate::db::presence::{self, MaxUpdateRow, PresenceRow};
use crate::db::profile_fields::{self, ProfileFieldRow, ProfileValueRow};
use crate::db::realm_playgrounds::{self, PlaygroundRow};
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::realms::RealmRow;
use crate::db::register_state::{self as q, ConversationRow, IdRow, MaxId, UnreadRow, UserTopicRow};
use crate::db::saved_snippets::{self, SavedSnippetRow};
use crate::db::scheduled_messages::{self, ScheduledMessageRow};
use crate::db::subscription_settings::{self, SubscriptionRow};
use crate::db::subscriptions::{self, ChannelViewRow};
use crate::db::user_groups::{self, MemberRow, SubgroupRow, UserGroupRow};
use crate::db::user_status::{self, UserStatusRow};
use crate::db::users::{self, UserRow};
use crate::domain::channel_folders::folder_dict;
use crate::domain::channels::SystemGroups;
use crate::domain::drafts::draft_dict;
use crate::domain::navigation_views::view_dict;
use crate::domain::presence::{presences_dict, PRESENCE_HISTORY_LIMIT_DAYS};
use crate::domain::saved_snippets::snippet_dict;
use crate::domain::scheduled_messages::{reminder_dict, scheduled_message_dict};
use crate::domain::user_status::status_dict;
use crate::error::ApiResult;
use crate::platform::event_queues::Capabilities;
use crate::platform::realm_cache::RealmState;

pub use settings::user_settings;

/// Server limits announced by `POST /register` (Zulip's values).
pub const MAX_FILE_UPLOAD_SIZE_MIB: i64 = 25;
pub const MAX_CHANNEL_NAME_LENGTH: i64 = 60;
pub const MAX_CHANNEL_DESCRIPTION_LENGTH: i64 = 1024;
pub const MAX_CHANNEL_FOLDER_NAME_LENGTH: i64 = 60;
pub const MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH: i64 = 1024;
pub const TYPING_STARTED_WAIT_PERIOD_MS: i64 = 10_000;
pub const TYPING_STOPPED_WAIT_PERIOD_MS: i64 = 5_000;
pub const TYPING_STARTED_EXPIRY_PERIOD_MS: i64 = 45_000;
pub const PRESENCE_PING_INTERVAL_SECS: i64 = 60;
pub const PRESENCE_OFFLINE_THRESHOLD_SECS: i64 = 140;

/// What the client asked for.
pub struct StateRequest<'a> {
    /// `None`: every type.
    pub fetch_event_types: Option<&'a [String]>,
    pub capabilities: &'a Capabilities,
    pub client_gravatar: bool,
    pub slim_presence: bool,
    pub include_subscribers: bool,
    pub realm_host: &'a str,
    pub base_url: &'a str,
    pub longpoll_timeout_secs: i64,
    /// A push relay is configured.
    pub push_notifications_enabled: bool,
}

impl StateRequest<'_> {
    pub(super) fn want(&self, kind: &str) -> bool {
        self.fetch_event_types.is_none_or(|types| types.iter().any(|t| t == kind))
    }
}

/// Everything the state is built from, read in one batch ([`StateReads`]).
pub struct StateData {
    pub settings: RealmSettingsRow,
    pub users: Vec<UserRow>,
    pub channels: Vec<ChannelViewRow>,
    pub subscriptions: Vec<SubscriptionRow>,
    pub groups: Vec<UserGroupRow>,
    pub group_members: Vec<MemberRow>,
    pub subgroups: Vec<SubgroupRow>,
    pub unread: Vec<UnreadRow>,
    pub max_message_id: Option<i64>,
    pub starred: Vec<i64>,
    pub user_topics: Vec<UserTopicRow>,
    pub conversations: Vec<ConversationRow>,
    pub direct_group_members: Vec<MemberRow>,
    pub profile_fields: Vec<ProfileFieldRow>,
    pub profile_values: Vec<ProfileValueRow>,
    pub scheduled_messages: Vec<ScheduledMessageRow>,
    pub reminders: Vec<ScheduledMessageRow>,
    pub drafts: Vec<DraftRow>,
    pub alert_words: Vec<String>,
    pub user_statuses: Vec<UserStatusRow>,
    pub muted_users: Vec<MutedUserRow>,
    pub presences: Vec<PresenceRow>,
    pub presence_last_update_id: Option<i64>,
    pub linkifiers: Vec<LinkifierRow>,
    pub realm_emoji: Vec<crate::db::realm_emoji::RealmEmojiRow>,
    pub saved_snippets: Vec<SavedSnippetRow>,
    pub navigation_views: Vec<NavigationViewRow>,
    pub channel_folders: Vec<ChannelFolderRow>,
    pub playgrounds: Vec<PlaygroundRow>,
    pub realm_domains: Vec<crate::db::invites::RealmDomainRow>,
    pub default_channel_ids: Vec<i64>,
    /// Outgoing-webhook bots' services (`realm_bots`' `services`).
    pub bot_services: Vec<crate::db::bot_services::BotServiceRow>,
}

/// `POST /register`'s reads, made as the user ([`ReadAsUser`]: in the authentication's
/// batch when the isolate knows the key). Sections the client did not ask for are not read.
pub struct StateReads<'a> {
    /// `None`: every type.
    pub fetch_event_types: Option<&'a [String]>,
}

impl StateReads<'_> {
    fn want(&self, kinds: &[&str]) -> bool {
        self.fetch_event_types.is_none_or(|types| types.iter().any(|t| kinds.contains(&t.as_str())))
    }

    /// `statement` in `batch` when one of `kinds` is wanted.
    fn add_if<T: serde::de::DeserializeOwned>(
        &self,
        batch: &mut Batch,
        kinds: &[&str],
        statement: impl FnOnce() -> worker::Result<crate::db::statement::Statement>,
    ) -> ApiResult<Option<Slot<T>>> {
        add_when(batch, self.want(kinds), statement)
    }
}

fn add_when<T: serde::de::DeserializeOwned>(
    batch: &mut Batch,
    wanted: bool,
    statement: impl FnOnce() -> worker::Result<crate::db::statement::Statement>,
) -> ApiResult<Option<Slot<T>>> {
    Ok(if wanted { Some(batch.add(statement()?)) } else { None })
}

/// Where each of [`StateReads`]' statements answers.
pub struct StateSlots {
    users: Slot<UserRow>,
    channels: Slot<ChannelViewRow>,
    subscriptions: Slot<SubscriptionRow>,
    groups: Slot<UserGroupRow>,
    group_members: Slot<MemberRow>,
    subgroups: Slot<SubgroupRow>,
    unread: Option<Slot<UnreadRow>>,
    max_message_id: Slot<MaxId>,
    starred: Option<Slot<IdRow>>,
    user_topics: Option<Slot<UserTopicRow>>,
    conversations: Option<Slot<ConversationRow>>,
    direct_group_members: Option<Slot<MemberRow>>,
    profile_fields: Option<Slot<ProfileFieldRow>>,
    profile_values: Option<Slot<ProfileValueRow>>,
    scheduled: Option<Slot<ScheduledMessageRow>>,
    reminders: Option<Slot<ScheduledMessageRow>>,
    drafts: Option<Slot<DraftRow>>,
    alert_words: Option<Slot<WordRow>>,
    user_statuses: Option<Slot<UserStatusRow>>,
    muted_users: Option<Slot<MutedUserRow>>,
    presences: Option<Slot<PresenceRow>>,
    presence_max: Option<Slot<MaxUpdateRow>>,
    linkifiers: Option<Slot<LinkifierRow>>,
    realm_emoji: Option<Slot<crate::db::realm_emoji::RealmEmojiRow>>,
    saved_snippets: Option<Slot<SavedSnippetRow>>,
    navigation_views: Option<Slot<NavigationViewRow>>,
    channel_folders: Option<Slot<ChannelFolderRow>>,
    playgrounds: Option<Slot<PlaygroundRow>>,
    realm_domains: Option<Slot<crate::db::invites::RealmDomainRow>>,
    default_channels: Option<Slot<crate::db::default_channels::DefaultChannelRow>>,
    bot_services: Option<Slot<crate::db::bot_services::BotServiceRow>>,
}

impl ReadAsUser for StateReads<'_> {
    type Slots = StateSlots;
    type Output = StateData;

    fn add(&self, batch: &mut Batch, user: &UserRow, _realm: &RealmState) -> ApiResult<StateSlots> {
        let (realm_id, user_id) = (user.realm_id, user.id);
        // As in the sections: unread messages need both types, direct-message groups serve
        // unread messages and recent conversations.
        let unread = self.want(&["message"]) && self.want(&["update_message_flags"]);
        let dm_groups = unread || self.want(&["recent_private_conversations"]);
        let presence_since = crate::db::now() - PRESENCE_HISTORY_LIMIT_DAYS * 86_400;
        Ok(StateSlots {
            users: batch.add(users::all_in_realm_stmt(realm_id)?),
            channels: batch.add(subscriptions::all_for_user_by_id_stmt(RealmId(realm_id), UserId(user_id))?),
            subscriptions: batch.add(subscription_settings::all_in_realm_stmt(realm_id)?),
            groups: batch.add(user_groups::in_realm_stmt(realm_id)?),
            group_members: batch.add(q::group_members_stmt(realm_id)?),
            subgroups: batch.add(user_groups::subgroups_stmt(realm_id)?),
            unread: add_when(batch, unread, || q::unread_stmt(user_id))?,
            max_message_id: batch.add(q::max_message_id_stmt(user_id)?),
            starred: self.add_if(batch, &["starred_messages"], || q::starred_stmt(user_id))?,
            user_topics: self.add_if(batch, &["user_topic", "muted_topics"], || q::user_topics_stmt(user_id))?,
            conversations: self.add_if(batch, &["recent_private_conversations"], || q::private_conversations_stmt(user_id))?,
            direct_group_members: add_when(batch, dm_groups, || q::direct_group_members_stmt(user_id))?,
            profile_fields: self.add_if(batch, &["custom_profile_fields"], || profile_fields::in_realm_stmt(realm_id))?,
            profile_values: self.add_if(batch, &["realm_user"], || q::profile_values_stmt(realm_id))?,
            scheduled: self.add_if(batch, &["scheduled_messages"], || {
                scheduled_messages::pending_of_sender_stmt(UserId(user_id), scheduled_messages::SEND_LATER)
            })?,
            reminders: self.add_if(batch, &["reminders"], || {
                scheduled_messages::pending_of_sender_stmt(UserId(user_id), scheduled_messages::REMIND)
            })?,
            drafts: self.add_if(batch, &["drafts"], || drafts::of_user_stmt(user_id))?,
            alert_words: self.add_if(batch, &["alert_words"], || alert_words::for_user_stmt(user_id))?,
            user_statuses: self.add_if(batch, &["user_status"], || user_status::in_realm_stmt(realm_id))?,
            muted_users: self.add_if(batch, &["muted_users"], || muted_users::for_user_stmt(user_id))?,
            presences: self.add_if(batch, &["presence"], || presence::in_realm_stmt(RealmId(realm_id), -1, presence_since))?,
            presence_max: self.add_if(batch, &["presence"], || presence::max_update_id_stmt(realm_id))?,
            linkifiers: self.add_if(batch, &["realm_linkifiers"], || crate::db::linkifiers::in_realm_stmt(realm_id))?,
            realm_emoji: self.add_if(batch, &["realm_emoji"], || crate::db::realm_emoji::in_realm_stmt(realm_id))?,
            saved_snippets: self.add_if(batch, &["saved_snippets"], || saved_snippets::for_user_stmt(user_id))?,
            navigation_views: self.add_if(batch, &["navigation_views"], || navigation_views::for_user_stmt(user_id))?,
            channel_folders: self.add_if(batch, &["channel_folders"], || channel_folders::in_realm_stmt(realm_id))?,
            playgrounds: self.add_if(batch, &["realm_playgrounds"], || realm_playgrounds::in_realm_stmt(realm_id))?,
            realm_domains: self.add_if(batch, &["realm_domains"], || crate::db::invites::realm_domains_stmt(realm_id))?,
            default_channels: self.add_if(batch, &["default_streams"], || crate::db::default_channels::in_realm_stmt(realm_id))?,
            bot_services: self.add_if(batch, &["realm_bot"], || crate::db::bot_services::in_realm_stmt(realm_id))?,
        })
    }

    fn take(&self, results: &BatchResults, s: StateSlots, _user: &UserRow, realm: &RealmState) -> ApiResult<StateData> {
        Ok(StateData {
            settings: realm.settings.clone(),
            users: results.rows(s.users)?,
            channels: results.rows(s.channels)?,
            subscriptions: results.rows(s.subscriptions)?,
            groups: results.rows(s.groups)?,
            group_members: results.rows(s.group_members)?,
            subgroups: results.rows(s.subgroups)?,
            unread: results.rows_if_added(s.unread)?,
            max_message_id: results.first(s.max_message_id)?.and_then(|m| m.max_id),
            starred: results.rows_if_added(s.starred)?.into_iter().map(|r| r.id).collect(),
            user_topics: results.rows_if_added(s.user_topics)?,
            conversations: results.rows_if_added(s.conversations)?,
            direct_group_members: results.rows_if_added(s.direct_group_members)?,
            profile_fields: results.rows_if_added(s.profile_fields)?,
            profile_values: results.rows_if_added(s.profile_values)?,
            scheduled_messages: results.rows_if_added(s.scheduled)?,
            reminders: results.rows_if_added(s.reminders)?,
            drafts: results.rows_if_added(s.drafts)?,
            alert_words: results.rows_if_added(s.alert_words)?.into_iter().map(|w| w.word).collect(),
            user_statuses: results.rows_if_added(s.user_statuses)?,
            muted_users: results.rows_if_added(s.muted_users)?,
            presences: results.rows_if_added(s.presences)?,
            presence_last_update_id: s.presence_max.map(|slot| results.first(slot)).transpose()?.flatten().and_then(|m| m.max_id),
            linkifiers: results.rows_if_added(s.linkifiers)?,
            realm_emoji: results.rows_if_added(s.realm_emoji)?,
            saved_snippets: results.rows_if_added(s.saved_snippets)?,
            navigation_views: results.rows_if_added(s.navigation_views)?,
            channel_folders: results.rows_if_added(s.channel_folders)?,
            playgrounds: results.rows_if_added(s.playgrounds)?,
            realm_domains: results.rows_if_added(s.realm_domains)?,
            default_channel_ids: results.rows_if_added(s.default_channels)?.into_iter().map(|r| r.channel_id).collect(),
            bot_services: results.rows_if_added(s.bot_services)?,
        })
    }
}

pub(super) fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Builds the state for `user` (everything but `queue_id`/`last_event_id`).
pub fn initial_state(user: &UserRow, realm: &RealmRow, data: &StateData, req: &StateRequest<'_>) -> Map<String, Value> {
    let groups_by_name: HashMap<String, i64> =
        data.groups.iter().filter(|g| g.is_system_group != 0).map(|g| (g.name.clone(), g.id)).collect();
    let system = SystemGroups(groups_by_name);
    let mut state = Map::new();
    account_state(&mut state, data, req);
    realm::realm_sections(&mut state, user, realm, data, &system, req);
    messages::message_sections(&mut state, user, data, req);
    if req.want("stream") || req.want("subscription") {
        state.extend(channels::channel_state(user, data, &system, req));
    }
    settings::settings_sections(&mut state, user, &data.settings.user_settings_defaults, req);
    state
}

/// The caller's own things: alert words, profile fields, mutes, presence, statuses,
/// scheduled messages, drafts, snippets, views and folders.
fn account_state(state: &mut Map<String, Value>, data: &StateData, req: &StateRequest<'_>) {
    if req.want("alert_words") {
        state.insert("alert_words".into(), json!(data.alert_words));
    }
    if req.want("custom_profile_fields") {
        let fields: Vec<Value> = data.profile_fields.iter().map(crate::domain::profile_fields::field_dict).collect();
        state.insert("custom_profile_fields".into(), json!(fields));
        state.insert("custom_profile_field_types".into(), realm::custom_profile_field_types());
    }
    if req.want("muted_users") {
        let muted: Vec<Value> = data.muted_users.iter().map(|m| json!({ "id": m.id, "timestamp": m.timestamp })).collect();
        state.insert("muted_users".into(), json!(muted));
    }
    if req.want("presence") {
        state.insert("presences".into(), presences_dict(&data.presences, req.slim_presence));
        state.insert("presence_last_update_id".into(), json!(data.presence_last_update_id.unwrap_or(-1)));
        state.insert("server_timestamp".into(), json!(worker::Date::now().as_millis() as f64 / 1000.0));
    }
    if req.want("user_status") {
        let statuses: Map<String, Value> = data.user_statuses.iter().map(|s| (s.user_id.to_string(), status_dict(s))).collect();
        state.insert("user_status".into(), Value::Object(statuses));
    }
    if req.want("video_calls") {
        state.insert("has_zoom_token".into(), json!(false));
    }
    if req.want("scheduled_messages") {
        let list: Vec<Value> = data.scheduled_messages.iter().map(scheduled_message_dict).collect();
        state.insert("scheduled_messages".into(), json!(list));
    }
    if req.want("reminders") {
        let list: Vec<Value> = data.reminders.iter().map(reminder_dict).collect();
        state.insert("reminders".into(), json!(list));
    }
    if req.want("drafts") {
        let list: Vec<Value> = data.drafts.iter().map(draft_dict).collect();
        state.insert("drafts".into(), json!(list));
    }
    if req.want("onboarding_steps") {
        state.insert("onboarding_steps".into(), json!([]));
    }
    if req.want("channel_folders") {
        let folders: Vec<Value> = data.channel_folders.iter().map(folder_dict).collect();
        state.insert("channel_folders".into(), json!(folders));
    }
    if req.want("navigation_views") {
        let views: Vec<Value> = data.navigation_views.iter().map(view_dict).collect();
        state.insert("navigation_views".into(), json!(views));
    }
    if req.want("saved_snippets") {
        let snippets: Vec<Value> = data.saved_snippets.iter().map(snippet_dict).collect();
        state.insert("saved_snippets".into(), json!(snippets));
    }
}
