//! The initial state of `POST /register`: for each requested event type
//! (`fetch_event_types`, Zulip's `fetch_initial_state_data`), the current data of the
//! organization as the caller may see it. One D1 batch ([`StateData::load`]); the sections
//! are built in files of their own: the organization and its users ([`realm`]), channels
//! and groups ([`channels`]), messages and unreads ([`messages`]), settings ([`settings`]).

mod channels;
mod messages;
mod realm;
mod settings;

use std::collections::HashMap;

use serde_json::{json, Map, Value};
use worker::D1Database;

use crate::db::alert_words::{self, WordRow};
use crate::db::batch::Batch;
use crate::db::channel_folders::{self, ChannelFolderRow};
use crate::db::drafts::{self, DraftRow};
use crate::db::linkifiers::LinkifierRow;
use crate::db::muted_users::{self, MutedUserRow};
use crate::db::navigation_views::{self, NavigationViewRow};
use crate::db::presence::{self, MaxUpdateRow, PresenceRow};
use crate::db::profile_fields::{self, ProfileFieldRow, ProfileValueRow};
use crate::db::realm_playgrounds::{self, PlaygroundRow};
use crate::db::realm_settings::{self, RealmSettingsRow};
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
use crate::domain::scheduled_messages::scheduled_message_dict;
use crate::domain::user_status::status_dict;
use crate::error::ApiResult;
use crate::platform::event_queues::Capabilities;

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

/// Everything the state is built from, loaded in one batch.
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

impl StateData {
    pub async fn load(db: &D1Database, user: &UserRow) -> ApiResult<StateData> {
        let realm_id = user.realm_id;
        let mut batch = Batch::new();
        let settings = batch.add::<RealmSettingsRow>(realm_settings::by_realm_id_stmt(db, realm_id)?);
        let users = batch.add(users::all_in_realm_stmt(db, realm_id)?);
        let channels = batch.add(subscriptions::all_for_user_by_id_stmt(db, realm_id, user.id)?);
        let subscriptions = batch.add(subscription_settings::all_in_realm_stmt(db, realm_id)?);
        let groups = batch.add(user_groups::in_realm_stmt(db, realm_id)?);
        let group_members = batch.add(q::group_members_stmt(db, realm_id)?);
        let subgroups = batch.add(user_groups::subgroups_stmt(db, realm_id)?);
        let unread = batch.add(q::unread_stmt(db, user.id)?);
        let max_message_id = batch.add::<MaxId>(q::max_message_id_stmt(db, user.id)?);
        let starred = batch.add::<IdRow>(q::starred_stmt(db, user.id)?);
        let user_topics = batch.add(q::user_topics_stmt(db, user.id)?);
        let conversations = batch.add(q::private_conversations_stmt(db, user.id)?);
        let direct_group_members = batch.add(q::direct_group_members_stmt(db, user.id)?);
        let profile_fields = batch.add(profile_fields::in_realm_stmt(db, realm_id)?);
        let profile_values = batch.add(q::profile_values_stmt(db, realm_id)?);
        let scheduled = batch.add(scheduled_messages::pending_of_sender_stmt(db, user.id)?);
        let drafts = batch.add(drafts::of_user_stmt(db, user.id)?);
        let alert_words = batch.add::<WordRow>(alert_words::for_user_stmt(db, user.id)?);
        let user_statuses = batch.add(user_status::in_realm_stmt(db, realm_id)?);
        let muted_users = batch.add(muted_users::for_user_stmt(db, user.id)?);
        let presence_since = crate::db::now() - PRESENCE_HISTORY_LIMIT_DAYS * 86_400;
        let presences = batch.add(presence::in_realm_stmt(db, realm_id, -1, presence_since)?);
        let presence_max = batch.add::<MaxUpdateRow>(presence::max_update_id_stmt(db, realm_id)?);
        let linkifiers = batch.add(crate::db::linkifiers::in_realm_stmt(db, realm_id)?);
        let realm_emoji = batch.add(crate::db::realm_emoji::in_realm_stmt(db, realm_id)?);
        let saved_snippets = batch.add(saved_snippets::for_user_stmt(db, user.id)?);
        let navigation_views = batch.add(navigation_views::for_user_stmt(db, user.id)?);
        let channel_folders = batch.add(channel_folders::in_realm_stmt(db, realm_id)?);
        let playgrounds = batch.add(realm_playgrounds::in_realm_stmt(db, realm_id)?);
        let realm_domains = batch.add(crate::db::invites::realm_domains_stmt(db, realm_id)?);
        let default_channels =
            batch.add::<crate::db::default_channels::DefaultChannelRow>(crate::db::default_channels::in_realm_stmt(db, realm_id)?);
        let bot_services = batch.add(crate::db::bot_services::in_realm_stmt(db, realm_id)?);
        let results = batch.run(db).await?;
        Ok(StateData {
            settings: results.first(settings)?.ok_or_else(|| crate::error::ApiError::internal("realm has no settings"))?,
            users: results.rows(users)?,
            channels: results.rows(channels)?,
            subscriptions: results.rows(subscriptions)?,
            groups: results.rows(groups)?,
            group_members: results.rows(group_members)?,
            subgroups: results.rows(subgroups)?,
            unread: results.rows(unread)?,
            max_message_id: results.first(max_message_id)?.and_then(|m| m.max_id),
            starred: results.rows(starred)?.into_iter().map(|r| r.id).collect(),
            user_topics: results.rows(user_topics)?,
            conversations: results.rows(conversations)?,
            direct_group_members: results.rows(direct_group_members)?,
            profile_fields: results.rows(profile_fields)?,
            profile_values: results.rows(profile_values)?,
            scheduled_messages: results.rows(scheduled)?,
            drafts: results.rows(drafts)?,
            alert_words: results.rows(alert_words)?.into_iter().map(|w| w.word).collect(),
            user_statuses: results.rows(user_statuses)?,
            muted_users: results.rows(muted_users)?,
            presences: results.rows(presences)?,
            presence_last_update_id: results.first(presence_max)?.and_then(|m| m.max_id),
            linkifiers: results.rows(linkifiers)?,
            realm_emoji: results.rows(realm_emoji)?,
            saved_snippets: results.rows(saved_snippets)?,
            navigation_views: results.rows(navigation_views)?,
            channel_folders: results.rows(channel_folders)?,
            playgrounds: results.rows(playgrounds)?,
            realm_domains: results.rows(realm_domains)?,
            default_channel_ids: results.rows(default_channels)?.into_iter().map(|r| r.channel_id).collect(),
            bot_services: results.rows(bot_services)?,
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
