//! The organization in the register state: its settings (`realm`), emoji, linkifiers,
//! playgrounds, groups, users and bots.

use serde_json::{json, Map, Value};

use super::{
    object, StateData, StateRequest, MAX_CHANNEL_DESCRIPTION_LENGTH, MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH, MAX_CHANNEL_FOLDER_NAME_LENGTH,
    MAX_CHANNEL_NAME_LENGTH, MAX_FILE_UPLOAD_SIZE_MIB, PRESENCE_OFFLINE_THRESHOLD_SECS, PRESENCE_PING_INTERVAL_SECS,
    TYPING_STARTED_EXPIRY_PERIOD_MS, TYPING_STARTED_WAIT_PERIOD_MS, TYPING_STOPPED_WAIT_PERIOD_MS,
};
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::realms::RealmRow;
use crate::db::users::UserRow;
use crate::domain::channels::SystemGroups;
use crate::domain::outgoing_webhooks::services_dicts;
use crate::domain::realm_icon::{image_source, image_url, RealmImage, MAX_ICON_FILE_SIZE_MIB, MAX_LOGO_FILE_SIZE_MIB};
use crate::domain::realm_playgrounds::playground_dict;
use crate::domain::realm_settings::register_fields;
use crate::domain::users::{avatar_source, avatar_url, avatar_url_medium, user_dict, UserDictOptions};
use crate::model::{system_groups, Role};

/// Zulip's catalogue of custom profile field types.
pub(super) fn custom_profile_field_types() -> Value {
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

/// `realm` and the other sections about the organization and its users.
pub(super) fn realm_sections(
    state: &mut Map<String, Value>,
    user: &UserRow,
    realm: &RealmRow,
    data: &StateData,
    system: &SystemGroups,
    req: &StateRequest<'_>,
) {
    if req.want("realm") {
        state.extend(realm_state(realm, &data.settings, system, req));
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
        state.insert("realm_user_groups".into(), json!(super::channels::user_groups(data, req.capabilities.include_deactivated_groups)));
    }
    if req.want("realm_user") {
        state.extend(realm_user_state(user, data, req));
    }
    if req.want("realm_bot") {
        state.insert("realm_bots".into(), json!(realm_bots(user, data)));
    }
    if req.want("default_streams") {
        // Guests are not told which channels are defaults, as in Zulip.
        let ids: &[i64] = if user.is_guest() { &[] } else { &data.default_channel_ids };
        state.insert("realm_default_streams".into(), json!(ids));
    }
    if req.want("realm_domains") {
        let domains: Vec<Value> = data.realm_domains.iter().map(crate::domain::invites::realm_domain_dict).collect();
        state.insert("realm_domains".into(), json!(domains));
    }
}

/// The bots the user may manage: every bot for an administrator, else the user's own.
fn realm_bots(user: &UserRow, data: &StateData) -> Vec<Value> {
    let services_of = |id: i64| data.bot_services.iter().filter(|s| s.bot_id == id).cloned().collect::<Vec<_>>();
    data.users
        .iter()
        .filter(|u| u.is_bot() && u.is_active() && (user.is_realm_admin() || u.bot_owner_id == Some(user.id)))
        .map(|b| {
            json!({
                "user_id": b.id, "full_name": b.full_name, "api_key": "", "avatar_url": avatar_url(b),
                "default_sending_stream": null, "default_events_register_stream": null, "default_all_public_streams": false,
                "owner_id": b.bot_owner_id, "bot_type": b.bot_type, "email": b.email, "is_active": true,
                "services": services_dicts(&services_of(b.id)),
            })
        })
        .collect()
}

/// The `realm` section: the organization's settings, and the fixed values of what this
/// server does not offer.
fn realm_state(realm: &RealmRow, settings: &RealmSettingsRow, system: &SystemGroups, req: &StateRequest<'_>) -> Map<String, Value> {
    let mut state = realm_fields(realm, req);
    state.extend(realm_group_fields(system));
    state.extend(server_fields(req));
    state.extend(register_fields(settings));
    state
}

/// The organization's name, description, URL and images.
fn realm_fields(realm: &RealmRow, req: &StateRequest<'_>) -> Map<String, Value> {
    let mut state = object(json!({
        "realm_name": realm.name,
        "realm_description": realm.description,
        "realm_date_created": realm.date_created,
        "realm_url": req.base_url,
        "realm_uri": req.base_url,
        "realm_icon_url": image_url(realm, RealmImage::Icon),
        "realm_icon_source": image_source(realm, RealmImage::Icon),
        "realm_logo_url": image_url(realm, RealmImage::Logo { night: false }),
        "realm_logo_source": image_source(realm, RealmImage::Logo { night: false }),
        "realm_night_logo_url": image_url(realm, RealmImage::Logo { night: true }),
        "realm_night_logo_source": image_source(realm, RealmImage::Logo { night: true }),
        "realm_push_notifications_enabled": req.push_notifications_enabled,
        "realm_bot_domain": req.realm_host.split(':').next().unwrap_or(req.realm_host),
    }));
    state.extend(realm_constants());
    state
}

/// The `realm_*` fields of features this server does not offer, at Zulip's defaults.
fn realm_constants() -> Map<String, Value> {
    object(json!({
        "realm_welcome_message_custom_text": "",
        "realm_digest_emails_enabled": false,
        "realm_digest_weekday": 1,
        "realm_email_changes_disabled": false,
        "realm_name_changes_disabled": false,
        "realm_avatar_changes_disabled": false,
        "realm_inline_image_preview": true,
        "realm_inline_url_embed_preview": false,
        "realm_require_e2ee_push_notifications": false,
        "realm_require_unique_names": false,
        "realm_send_welcome_emails": true,
        "realm_message_content_allowed_in_email_notifications": true,
        "realm_enable_spectator_access": false,
        "realm_want_advertise_in_communities_directory": false,
        "realm_video_chat_provider": 1,
        "realm_jitsi_server_url": null,
        "realm_giphy_rating": 2,
        "realm_default_code_block_language": "",
        "realm_presence_disabled": false,
        "realm_is_zephyr_mirror_realm": false,
        "realm_email_auth_enabled": true,
        "realm_password_auth_enabled": true,
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
        "realm_authentication_methods": {
            "Email": {"enabled": true, "available": true},
            "Dev": {"enabled": true, "available": true},
        },
        "realm_available_video_chat_providers": {
            "disabled": {"name": "None", "id": 0},
            "jitsi_meet": {"name": "Jitsi Meet", "id": 1},
        },
        "realm_default_external_accounts": {},
        "realm_billing": {"has_pending_sponsorship_request": false},
        "realm_default_stream_groups": [],
        "realm_embedded_bots": [],
        "realm_incoming_webhook_bots": [],
    }))
}

/// The group settings at Zulip's default system groups (the stored ones, from
/// `register_fields`, are laid over them), and those this server does not store.
fn realm_group_fields(system: &SystemGroups) -> Map<String, Value> {
    let g = |name: &str| system.id(name);
    let mut fields = object(json!({
        "realm_can_add_subscribers_group": g(system_groups::MEMBERS),
        "realm_can_delete_any_message_group": g(system_groups::ADMINISTRATORS),
        "realm_can_delete_own_message_group": g(system_groups::EVERYONE),
        "realm_can_set_topics_policy_group": g(system_groups::MODERATORS),
        "realm_can_create_groups": g(system_groups::MEMBERS),
        "realm_can_manage_all_groups": g(system_groups::OWNERS),
        "realm_can_create_public_channel_group": g(system_groups::MEMBERS),
        "realm_can_create_private_channel_group": g(system_groups::MEMBERS),
    }));
    for (setting, group) in system_groups::FIXED_REALM_SETTINGS {
        fields.insert(format!("realm_{setting}"), json!(g(group)));
    }
    fields
}

/// The server's fields and the constant lists of the `realm` section.
fn server_fields(req: &StateRequest<'_>) -> Map<String, Value> {
    object(json!({
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
        "max_icon_file_size_mib": MAX_ICON_FILE_SIZE_MIB,
        "max_logo_file_size_mib": MAX_LOGO_FILE_SIZE_MIB,
        "max_file_upload_size_mib": MAX_FILE_UPLOAD_SIZE_MIB,
        "max_stream_name_length": MAX_CHANNEL_NAME_LENGTH,
        "max_stream_description_length": MAX_CHANNEL_DESCRIPTION_LENGTH,
        "max_channel_folder_name_length": MAX_CHANNEL_FOLDER_NAME_LENGTH,
        "max_channel_folder_description_length": MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH,
        "max_reminder_note_length": 1000,
        "max_bulk_new_subscription_messages": crate::domain::channel_settings::MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
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
        "server_supported_permission_settings": {"realm": {}, "stream": {}, "group": {}},
    }))
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
        "avatar_source": avatar_source(user),
        "avatar_url_medium": avatar_url_medium(user),
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
