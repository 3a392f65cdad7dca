//! The user's settings in the register state: the `user_settings` object, or the legacy
//! top-level fields, and the organization's defaults for new users.

use serde_json::{json, Map, Value};

use super::StateRequest;
use crate::db::users::UserRow;

/// The user's settings, with the choices Zulip lists beside them.
pub fn user_settings(user: &UserRow) -> Map<String, Value> {
    let mut settings = crate::domain::user_settings::all(user);
    add_choices(&mut settings);
    settings
}

/// The organization's defaults for new users (`organization_defaults_json`: those changed),
/// with the same choices beside them.
fn organization_defaults(organization_defaults_json: &str) -> Map<String, Value> {
    let mut defaults = crate::domain::user_settings::organization_defaults(organization_defaults_json);
    defaults.remove("timezone");
    add_choices(&mut defaults);
    defaults
}

fn add_choices(settings: &mut Map<String, Value>) {
    settings.insert("available_notification_sounds".into(), json!(crate::domain::user_settings::NOTIFICATION_SOUNDS));
    settings.insert(
        "emojiset_choices".into(),
        json!([
            {"key": "google", "text": "Google"},
            {"key": "twitter", "text": "Twitter"},
            {"key": "text", "text": "Plain text"},
        ]),
    );
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

/// `user_settings` (or, for clients without `user_settings_object`, the legacy top-level
/// fields) and `realm_user_settings_defaults`.
pub(super) fn settings_sections(state: &mut Map<String, Value>, user: &UserRow, organization_defaults_json: &str, req: &StateRequest<'_>) {
    if req.want("user_settings") || req.want("update_display_settings") || req.want("update_global_notifications") {
        let us = user_settings(user);
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
                state.insert("user_settings".into(), Value::Object(user_settings(user)));
            }
        }
    }
    if req.want("realm_user_settings_defaults") {
        state.insert("realm_user_settings_defaults".into(), Value::Object(organization_defaults(organization_defaults_json)));
    }
}
