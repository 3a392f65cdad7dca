//! The initial state of `POST /register`: for each requested event type
//! (`fetch_event_types`, Zulip's `fetch_initial_state_data`), the current data of the
//! organization as the caller may see it. One D1 batch.

use crate::db::linkifiers::LinkifierRow;
use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Map, Value};
use worker::D1Database;

use crate::db::alert_words::{self, WordRow};
use crate::db::batch::Batch;
use crate::db::channel_folders::{self, ChannelFolderRow};
use crate::db::drafts::{self, DraftRow};
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
use crate::domain::channels::{stream_dict, subscription_dict, GlobalNotifications, SystemGroups};
use crate::domain::drafts::draft_dict;
use crate::domain::message_flags::IS_PRIVATE;
use crate::domain::navigation_views::view_dict;
use crate::domain::presence::{presences_dict, PRESENCE_HISTORY_LIMIT_DAYS};
use crate::domain::realm_playgrounds::playground_dict;
use crate::domain::realm_settings::register_fields;
use crate::domain::recipients::RecipientType;
use crate::domain::saved_snippets::snippet_dict;
use crate::domain::scheduled_messages::scheduled_message_dict;
use crate::domain::topics::VisibilityPolicy;
use crate::domain::user_groups::system_groups;
use crate::domain::user_status::status_dict;
use crate::domain::users::Role;
use crate::domain::users::{avatar_url, user_dict, UserDictOptions};
use crate::error::ApiResult;
use crate::event_queues::Capabilities;

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
    fn want(&self, kind: &str) -> bool {
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
        })
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The user's settings (`defaults`: the organization's defaults for new users), with the
/// choices Zulip lists beside them.
pub fn user_settings(user: &UserRow, defaults: bool) -> Map<String, Value> {
    let mut settings = if defaults { crate::domain::user_settings::defaults() } else { crate::domain::user_settings::all(user) };
    settings.insert("available_notification_sounds".into(), json!(crate::domain::user_settings::NOTIFICATION_SOUNDS));
    settings.insert(
        "emojiset_choices".into(),
        json!([
            {"key": "google", "text": "Google"},
            {"key": "twitter", "text": "Twitter"},
            {"key": "text", "text": "Plain text"},
        ]),
    );
    settings.insert("email_address_visibility".into(), json!(user.email_address_visibility));
    settings
}

/// Zulip's catalogue of custom profile field types.
fn custom_profile_field_types() -> Value {
    json!({
        "SHORT_TEXT": {"id": 1, "name": "Text (short)"},
        "LONG_TEXT": {"id": 2, "name": "Text (long)"},
        "SELECT": {"id": 3, "name": "List of options"},
        "DATE": {"id": 4, "name": "Date picker"},
        "URL": {"id": 5, "name": "Link"},
        "USER": {"id": 6, "name": "Users"},
        "EXTERNAL_ACCOUNT": {"id": 7, "name": "External account"},
        "PRONOUNS": {"id": 8, "name": "Pronouns"},
    })
}

/// The user settings that clients without `user_settings_object` read at the top level.
const LEGACY_TOP_LEVEL_SETTINGS: &[&str] = &[
    "enable_desktop_notifications",
    "enable_digest_emails",
    "enable_login_emails",
    "enable_marketing_emails",
    "email_notifications_batching_period_seconds",
    "enable_offline_email_notifications",
    "enable_offline_push_notifications",
    "enable_online_push_notifications",
    "enable_sounds",
    "enable_stream_desktop_notifications",
    "enable_stream_email_notifications",
    "enable_stream_push_notifications",
    "enable_stream_audible_notifications",
    "wildcard_mentions_notify",
    "message_content_in_email_notifications",
    "notification_sound",
    "pm_content_in_desktop_notifications",
    "desktop_icon_count_display",
    "realm_name_in_email_notifications_policy",
    "presence_enabled",
    "available_notification_sounds",
    "color_scheme",
    "default_language",
    "demote_inactive_streams",
    "emojiset",
    "enable_drafts_synchronization",
    "fluid_layout_width",
    "web_home_view",
    "high_contrast_mode",
    "left_side_userlist",
    "starred_message_counts",
    "timezone",
    "translate_emoticons",
    "twenty_four_hour_time",
    "receives_typing_notifications",
    "enter_sends",
    "emojiset_choices",
];

/// Builds the state for `user` (everything but `queue_id`/`last_event_id`).
pub fn initial_state(user: &UserRow, realm: &RealmRow, data: &StateData, req: &StateRequest<'_>) -> Map<String, Value> {
    let mut state = Map::new();
    let settings = &data.settings;
    let groups_by_name: HashMap<String, i64> =
        data.groups.iter().filter(|g| g.is_system_group != 0).map(|g| (g.name.clone(), g.id)).collect();
    let system = SystemGroups(groups_by_name);
    let empty_topic = |topic: &str| -> String {
        if topic.is_empty() && !req.capabilities.empty_topic_name {
            settings.empty_topic_display_name.clone()
        } else {
            topic.to_string()
        }
    };

    if req.want("alert_words") {
        state.insert("alert_words".into(), json!(data.alert_words));
    }
    if req.want("custom_profile_fields") {
        let fields: Vec<Value> = data.profile_fields.iter().map(crate::domain::profile_fields::field_dict).collect();
        state.insert("custom_profile_fields".into(), json!(fields));
        state.insert("custom_profile_field_types".into(), custom_profile_field_types());
    }
    if req.want("message") {
        state.insert("max_message_id".into(), json!(data.max_message_id.unwrap_or(-1)));
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
    if req.want("realm") {
        state.extend(realm_state(user, realm, settings, &system, req));
    }
    if req.want("realm_emoji") {
        state.insert("realm_emoji".into(), crate::domain::realm_emoji::realm_emoji_dict(&data.realm_emoji));
    }
    if req.want("realm_linkifiers") {
        let list: Vec<Value> = data.linkifiers.iter().map(crate::domain::linkifiers::linkifier_dict).collect();
        state.insert("realm_linkifiers".into(), Value::Array(list));
    }
    if req.want("realm_filters") {
        state.insert("realm_filters".into(), json!([]));
    }
    if req.want("realm_playgrounds") {
        let playgrounds: Vec<Value> = data.playgrounds.iter().map(playground_dict).collect();
        state.insert("realm_playgrounds".into(), json!(playgrounds));
    }
    if req.want("realm_user_groups") {
        state.insert("realm_user_groups".into(), json!(user_groups(data, &system)));
    }
    if req.want("realm_user") {
        state.extend(realm_user_state(user, data, req));
    }
    if req.want("realm_bot") {
        let bots: Vec<Value> = data
            .users
            .iter()
            .filter(|u| u.is_bot() && u.is_active() && (user.is_realm_admin() || u.bot_owner_id == Some(user.id)))
            .map(|b| {
                json!({
                    "user_id": b.id, "full_name": b.full_name, "api_key": "", "avatar_url": avatar_url(b),
                    "default_sending_stream": null, "default_events_register_stream": null, "default_all_public_streams": false,
                    "owner_id": b.bot_owner_id, "bot_type": b.bot_type, "email": b.email, "is_active": true, "services": [],
                })
            })
            .collect();
        state.insert("realm_bots".into(), json!(bots));
    }
    if req.want("recent_private_conversations") {
        state.insert("recent_private_conversations".into(), json!(recent_private_conversations(user, data)));
    }
    if req.want("starred_messages") {
        state.insert("starred_messages".into(), json!(data.starred));
    }
    if req.want("stream") || req.want("subscription") {
        state.extend(channel_state(user, data, &system, req));
    }
    if req.want("update_message_flags") && req.want("message") {
        state.insert("unread_msgs".into(), unread_msgs(user, data, &empty_topic));
    }
    if req.want("user_settings") || req.want("update_display_settings") || req.want("update_global_notifications") {
        let us = user_settings(user, false);
        if req.capabilities.user_settings_object && req.want("user_settings") {
            state.insert("user_settings".into(), Value::Object(us));
        } else {
            // Legacy clients read the older settings at the top level.
            for (k, v) in us {
                if LEGACY_TOP_LEVEL_SETTINGS.contains(&k.as_str()) {
                    state.insert(k, v);
                }
            }
            if req.want("user_settings") {
                state.insert("user_settings".into(), Value::Object(user_settings(user, false)));
            }
        }
    }
    if req.want("user_status") {
        let statuses: Map<String, Value> = data.user_statuses.iter().map(|s| (s.user_id.to_string(), status_dict(s))).collect();
        state.insert("user_status".into(), Value::Object(statuses));
    }
    if req.want("user_topic") {
        let topics: Vec<Value> = data
            .user_topics
            .iter()
            .map(|t| json!({"stream_id": t.channel_id, "topic_name": empty_topic(&t.topic), "last_updated": t.last_updated, "visibility_policy": t.visibility_policy}))
            .collect();
        state.insert("user_topics".into(), json!(topics));
    }
    if req.want("muted_topics") && !req.want("user_topic") {
        let muted: Vec<Value> = data
            .user_topics
            .iter()
            .filter(|t| t.visibility_policy == VisibilityPolicy::Muted)
            .map(|t| json!([t.channel_name, empty_topic(&t.topic), t.last_updated]))
            .collect();
        state.insert("muted_topics".into(), json!(muted));
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
    if req.want("realm_domains") {
        let domains: Vec<Value> = data.realm_domains.iter().map(crate::domain::invites::realm_domain_dict).collect();
        state.insert("realm_domains".into(), json!(domains));
    }
    if req.want("realm_user_settings_defaults") {
        let mut defaults = user_settings(user, true);
        defaults.remove("timezone");
        state.insert("realm_user_settings_defaults".into(), Value::Object(defaults));
    }
    state
}

fn realm_state(
    user: &UserRow,
    realm: &RealmRow,
    settings: &RealmSettingsRow,
    system: &SystemGroups,
    req: &StateRequest<'_>,
) -> Map<String, Value> {
    let g = |name: &str| system.id(name);
    let mut state = object(json!({
        "realm_name": realm.name,
        "realm_description": realm.description,
        "realm_date_created": realm.date_created,
        "realm_url": req.base_url,
        "realm_uri": req.base_url,
        "realm_icon_url": format!("{}/static/images/logo/zulip-icon-128x128.png", req.base_url),
        "realm_icon_source": "G",
        "realm_logo_url": format!("{}/static/images/logo/zulip-org-logo.svg", req.base_url),
        "realm_logo_source": "D",
        "realm_night_logo_url": format!("{}/static/images/logo/zulip-org-logo.svg", req.base_url),
        "realm_night_logo_source": "D",
        "realm_default_language": "en",
        "realm_welcome_message_custom_text": "",
        "realm_digest_emails_enabled": false,
        "realm_digest_weekday": 1,
        "realm_email_changes_disabled": false,
        "realm_name_changes_disabled": false,
        "realm_avatar_changes_disabled": false,
        "realm_inline_image_preview": true,
        "realm_inline_url_embed_preview": false,
        "realm_message_retention_days": -1,
        "realm_require_e2ee_push_notifications": false,
        "realm_require_unique_names": false,
        "realm_send_welcome_emails": true,
        "realm_message_content_allowed_in_email_notifications": true,
        "realm_enable_spectator_access": false,
        "realm_want_advertise_in_communities_directory": false,
        "realm_video_chat_provider": 1,
        "realm_jitsi_server_url": null,
        "realm_giphy_rating": 2,
        "realm_waiting_period_threshold": 0,
        "realm_default_code_block_language": "",
        "realm_message_content_delete_limit_seconds": null,
        "realm_enable_read_receipts": true,
        "realm_presence_disabled": false,
        "realm_is_zephyr_mirror_realm": false,
        "realm_email_auth_enabled": true,
        "realm_password_auth_enabled": true,
        "realm_push_notifications_enabled": req.push_notifications_enabled,
        "realm_push_notifications_enabled_end_timestamp": null,
        "realm_upload_quota_mib": null,
        "realm_org_type": 0,
        "realm_plan_type": 1,
        "realm_enable_guest_user_dm_warning": true,
        "realm_enable_guest_user_indicator": true,
        "realm_wildcard_mention_policy": 5,
        "realm_create_public_stream_policy": 1,
        "realm_create_private_stream_policy": 1,
        "realm_create_web_public_stream_policy": 7,
        "realm_bot_domain": req.realm_host.split(':').next().unwrap_or(req.realm_host),
        "realm_authentication_methods": {
            "Email": {"enabled": true, "available": true},
            "Dev": {"enabled": true, "available": true},
        },
        "realm_available_video_chat_providers": {
            "disabled": {"name": "None", "id": 0},
            "jitsi_meet": {"name": "Jitsi Meet", "id": 1},
        },
        "realm_default_external_accounts": {},
        "realm_moderation_request_channel_id": -1,
        "realm_new_stream_announcements_stream_id": -1,
        "realm_signup_announcements_stream_id": -1,
        "realm_zulip_update_announcements_stream_id": -1,
        "realm_billing": {"has_pending_sponsorship_request": false},
        "realm_can_add_subscribers_group": g(system_groups::MEMBERS),
        "realm_can_delete_any_message_group": g(system_groups::ADMINISTRATORS),
        "realm_can_delete_own_message_group": g(system_groups::EVERYONE),
        "realm_can_set_delete_message_policy_group": g(system_groups::MODERATORS),
        "realm_can_set_topics_policy_group": g(system_groups::MODERATORS),
        "realm_can_create_groups": g(system_groups::MEMBERS),
        "realm_can_create_bots_group": g(system_groups::MEMBERS),
        "realm_can_create_write_only_bots_group": g(system_groups::MEMBERS),
        "realm_can_manage_all_groups": g(system_groups::OWNERS),
        "realm_can_manage_billing_group": g(system_groups::ADMINISTRATORS),
        "realm_can_create_public_channel_group": g(system_groups::MEMBERS),
        "realm_can_create_private_channel_group": g(system_groups::MEMBERS),
        "realm_can_create_web_public_channel_group": g(system_groups::OWNERS),
        "realm_direct_message_initiator_group": g(system_groups::EVERYONE),
        "realm_direct_message_permission_group": g(system_groups::EVERYONE),
        "realm_can_access_all_users_group": g(system_groups::EVERYONE),
        "realm_can_summarize_topics_group": g(system_groups::EVERYONE),
        "zulip_plan_is_not_limited": true,
        "upgrade_text_for_wide_organization_logo": "",
        "jitsi_server_url": "https://meet.jit.si",
        "development_environment": false,
        "server_generation": 1,
        "password_min_length": 6,
        "password_max_length": 100,
        "password_min_guesses": 10000,
        "giphy_rating_options": {"disabled": {"name": "GIPHY integration disabled", "id": -1}},
        "max_avatar_file_size_mib": 5,
        "max_icon_file_size_mib": 5,
        "max_logo_file_size_mib": 5,
        "max_file_upload_size_mib": MAX_FILE_UPLOAD_SIZE_MIB,
        "max_stream_name_length": MAX_CHANNEL_NAME_LENGTH,
        "max_stream_description_length": MAX_CHANNEL_DESCRIPTION_LENGTH,
        "max_channel_folder_name_length": MAX_CHANNEL_FOLDER_NAME_LENGTH,
        "max_channel_folder_description_length": MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH,
        "max_reminder_note_length": 1000,
        "max_bulk_new_subscription_messages": 100,
        "server_typing_started_wait_period_milliseconds": TYPING_STARTED_WAIT_PERIOD_MS,
        "server_typing_stopped_wait_period_milliseconds": TYPING_STOPPED_WAIT_PERIOD_MS,
        "server_typing_started_expiry_period_milliseconds": TYPING_STARTED_EXPIRY_PERIOD_MS,
        "server_presence_ping_interval_seconds": PRESENCE_PING_INTERVAL_SECS,
        "server_presence_offline_threshold_seconds": PRESENCE_OFFLINE_THRESHOLD_SECS,
        "server_min_deactivated_realm_deletion_days": null,
        "server_max_deactivated_realm_deletion_days": null,
        "server_inline_image_preview": true,
        "server_inline_url_embed_preview": false,
        "server_thumbnail_formats": [],
        "server_avatar_changes_disabled": false,
        "server_name_changes_disabled": false,
        "server_needs_upgrade": false,
        "server_web_public_streams_enabled": false,
        "server_emoji_data_url": format!("{}{}", req.base_url, crate::routes::EMOJI_DATA_PATH),
        "server_jitsi_server_url": null,
        "server_can_summarize_topics": false,
        "settings_send_digest_emails": false,
        "event_queue_longpoll_timeout_seconds": req.longpoll_timeout_secs,
        "stop_words": [],
        "realm_default_streams": [],
        "realm_default_stream_groups": [],
        "realm_embedded_bots": [],
        "realm_incoming_webhook_bots": [],
        "server_supported_permission_settings": {"realm": {}, "stream": {}, "group": {}},
    }));
    let _ = user;
    state.extend(register_fields(settings));
    state
}

fn realm_user_state(user: &UserRow, data: &StateData, req: &StateRequest<'_>) -> Map<String, Value> {
    let opts = UserDictOptions { realm_host: req.realm_host, client_gravatar: req.client_gravatar };
    let (active, inactive): (Vec<&UserRow>, Vec<&UserRow>) = data.users.iter().partition(|u| u.is_active());
    let dicts = |list: &[&UserRow]| -> Vec<Value> {
        list.iter()
            .map(|u| {
                let mut d = user_dict(user, u, &opts);
                d["profile_data"] = crate::domain::profile_fields::profile_data(data.profile_values.iter().filter(|v| v.user_id == u.id));
                if let Some(obj) = d.as_object_mut() {
                    // Not a field of the register response's user objects.
                    obj.remove("is_imported_stub");
                }
                d
            })
            .collect()
    };
    object(json!({
        "realm_users": dicts(&active),
        "realm_non_active_users": dicts(&inactive),
        "cross_realm_bots": [],
        "avatar_source": "G",
        "avatar_url_medium": avatar_url(user),
        "avatar_url": avatar_url(user),
        "can_create_streams": user.role.is_at_least(Role::Member),
        "can_create_public_streams": user.role.is_at_least(Role::Member),
        "can_create_private_streams": user.role.is_at_least(Role::Member),
        "can_create_web_public_streams": user.role.is_at_least(Role::Owner),
        "can_subscribe_other_users": user.role.is_at_least(Role::Member),
        "can_invite_others_to_realm": user.role.is_at_least(Role::Member),
        "is_admin": user.role.is_at_least(Role::Administrator),
        "is_owner": user.role == Role::Owner,
        "is_moderator": user.role.is_at_least(Role::Moderator),
        "is_guest": user.is_guest(),
        "user_id": user.id,
        "email": user.email,
        "delivery_email": user.delivery_email,
        "full_name": user.full_name,
    }))
}

/// Members of every group: system groups by role, others by their member rows.
fn user_groups(data: &StateData, system: &SystemGroups) -> Vec<Value> {
    let mut members: HashMap<i64, Vec<i64>> = HashMap::new();
    for m in &data.group_members {
        members.entry(m.group_id).or_default().push(m.user_id);
    }
    let mut subgroups: HashMap<i64, Vec<i64>> = HashMap::new();
    for s in &data.subgroups {
        subgroups.entry(s.supergroup_id).or_default().push(s.subgroup_id);
    }
    data.groups
        .iter()
        .map(|g| {
            let direct: Vec<i64> = match g.system_role {
                Some(role) => data.users.iter().filter(|u| u.is_active() && u.role == role).map(|u| u.id).collect(),
                None => members.get(&g.id).cloned().unwrap_or_default(),
            };
            let (manage, members_group) = if g.is_system_group != 0 {
                (system.id(system_groups::NOBODY), system.id(system_groups::NOBODY))
            } else {
                (system.id(system_groups::ADMINISTRATORS), system.id(system_groups::EVERYONE))
            };
            json!({
                "id": g.id,
                "name": g.name,
                "description": g.description,
                "members": direct,
                "direct_subgroup_ids": subgroups.get(&g.id).cloned().unwrap_or_default(),
                "is_system_group": g.is_system_group != 0,
                "date_created": g.date_created,
                "creator_id": g.creator_id,
                "deactivated": g.deactivated != 0,
                "can_add_members_group": &manage,
                "can_join_group": &manage,
                "can_leave_group": if g.is_system_group != 0 { &manage } else { &members_group },
                "can_manage_group": &manage,
                "can_mention_group": if g.is_system_group != 0 { system.id(system_groups::EVERYONE) } else { members_group.clone() },
                "can_remove_members_group": &manage,
            })
        })
        .collect()
}

/// `subscriptions`, `unsubscribed`, `never_subscribed` and `streams`.
fn channel_state(user: &UserRow, data: &StateData, system: &SystemGroups, req: &StateRequest<'_>) -> Map<String, Value> {
    let mut subscribers: HashMap<i64, Vec<i64>> = HashMap::new();
    let active_users: std::collections::HashSet<i64> = data.users.iter().filter(|u| u.is_active()).map(|u| u.id).collect();
    for s in &data.subscriptions {
        if s.active != 0 && active_users.contains(&s.user_id) {
            subscribers.entry(s.channel_id).or_default().push(s.user_id);
        }
    }
    let us = user_settings(user, false);
    let global = GlobalNotifications {
        desktop: us["enable_stream_desktop_notifications"].as_bool().unwrap_or(false),
        audible: us["enable_stream_audible_notifications"].as_bool().unwrap_or(false),
        push: us["enable_stream_push_notifications"].as_bool().unwrap_or(false),
        email: us["enable_stream_email_notifications"].as_bool().unwrap_or(false),
        wildcard_mentions_notify: us["wildcard_mentions_notify"].as_bool().unwrap_or(true),
    };
    let global = (!req.capabilities.notification_settings_null).then_some(&global);
    let empty: Vec<i64> = Vec::new();
    let (mut subscribed, mut unsubscribed, mut never, mut streams) = (vec![], vec![], vec![], vec![]);
    for c in &data.channels {
        let subs = subscribers.get(&c.id).unwrap_or(&empty);
        let public = !c.is_private();
        let with_list = |list: Option<&[i64]>| {
            let mut d = stream_dict(c, system);
            if let Some(list) = list {
                d["subscribers"] = json!(list);
            }
            d
        };
        match c.sub_active {
            Some(active) if active != 0 => {
                let list = req.include_subscribers.then_some(subs.as_slice());
                subscribed.push(subscription_dict(c, system, list, global));
            }
            Some(_) => {
                // Former subscribers see subscribers of public channels only.
                let list = (req.include_subscribers && (public || user.is_realm_admin())).then_some(subs.as_slice());
                unsubscribed.push(subscription_dict(c, system, list, global));
            }
            None if (public && !user.is_guest()) || user.is_realm_admin() => {
                let list = (req.include_subscribers && public).then_some(subs.as_slice());
                never.push(with_list(list));
            }
            None => {}
        }
        let visible = c.subscribed() || (public && !user.is_guest()) || c.is_web_public != 0;
        if visible && c.is_archived == 0 {
            streams.push(with_list(None));
        }
    }
    let mut state = Map::new();
    if req.want("subscription") {
        state.insert("subscriptions".into(), json!(subscribed));
        state.insert("unsubscribed".into(), json!(unsubscribed));
        state.insert("never_subscribed".into(), json!(never));
    }
    if req.want("stream") {
        state.insert("streams".into(), json!(streams));
    }
    state
}

/// The other participants of a conversation row (none: with oneself).
fn conversation_user_ids(
    user: &UserRow,
    row_peer: i64,
    recipient_type: RecipientType,
    type_id: i64,
    groups: &HashMap<i64, Vec<i64>>,
) -> Vec<i64> {
    if recipient_type == RecipientType::DirectMessageGroup {
        groups.get(&type_id).map(|m| m.iter().copied().filter(|id| *id != user.id).collect()).unwrap_or_default()
    } else if row_peer == user.id {
        vec![]
    } else {
        vec![row_peer]
    }
}

fn direct_groups(data: &StateData) -> HashMap<i64, Vec<i64>> {
    let mut groups: HashMap<i64, Vec<i64>> = HashMap::new();
    for m in &data.direct_group_members {
        groups.entry(m.group_id).or_default().push(m.user_id);
    }
    groups
}

fn recent_private_conversations(user: &UserRow, data: &StateData) -> Vec<Value> {
    let groups = direct_groups(data);
    data.conversations
        .iter()
        .map(|c| {
            let mut ids = conversation_user_ids(user, c.peer, c.recipient_type, c.recipient_type_id, &groups);
            ids.sort_unstable();
            json!({"max_message_id": c.max_message_id, "user_ids": ids})
        })
        .collect()
}

/// Zulip's `unread_msgs`: unread message ids by direct conversation, group, channel topic,
/// and mentions.
fn unread_msgs(user: &UserRow, data: &StateData, empty_topic: &dyn Fn(&str) -> String) -> Value {
    let groups = direct_groups(data);
    let truncated = data.unread.len() as i64 > q::MAX_UNREAD_MESSAGES;
    let mut rows: Vec<&UnreadRow> = data.unread.iter().take(q::MAX_UNREAD_MESSAGES as usize).collect();
    rows.sort_by_key(|r| r.id);
    let mut pms: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    let mut huddles: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    let mut streams: BTreeMap<(i64, String), Vec<i64>> = BTreeMap::new();
    let mut mentions = Vec::new();
    for r in &rows {
        if r.flags & q::MENTION_BITS != 0 {
            mentions.push(r.id);
        }
        match (r.recipient_type, r.channel_id) {
            (RecipientType::Channel, Some(channel_id)) => streams.entry((channel_id, r.topic.clone())).or_default().push(r.id),
            (RecipientType::DirectMessageGroup, _) => {
                let mut ids = groups.get(&r.recipient_type_id).cloned().unwrap_or_default();
                ids.sort_unstable();
                let key = ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
                huddles.entry(key).or_default().push(r.id);
            }
            _ => {
                let other = if r.recipient_type_id == user.id { r.sender_id } else { r.recipient_type_id };
                pms.entry(other).or_default().push(r.id);
            }
        }
        let _ = IS_PRIVATE;
    }
    json!({
        "count": rows.len(),
        "pms": pms.into_iter().map(|(other, ids)| json!({"other_user_id": other, "sender_id": other, "unread_message_ids": ids})).collect::<Vec<_>>(),
        "huddles": huddles.into_iter().map(|(key, ids)| json!({"user_ids_string": key, "unread_message_ids": ids})).collect::<Vec<_>>(),
        "streams": streams.into_iter().map(|((channel_id, topic), ids)| json!({"stream_id": channel_id, "topic": empty_topic(&topic), "unread_message_ids": ids})).collect::<Vec<_>>(),
        "mentions": mentions,
        "old_unreads_missing": truncated,
    })
}
