//! User settings (`PATCH /settings`): Zulip's catalogue of the settings a user changes for
//! themselves (name, type, allowed values, default), their validation with Zulip's
//! messages, and the settings object of the register response.
//!
//! Storage: `users.settings` holds a JSON object of only the settings the user changed;
//! an absent key is the default below. The few settings other code reads as columns
//! (`timezone`, the automatic topic-follow policies) stay in their columns.

use serde_json::{json, Map, Value};

use crate::db::users::UserRow;
use crate::error::{ApiError, ApiResult};

/// What values a setting takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Bool,
    /// Any integer.
    Int,
    /// One of these integers ("Invalid <name>" otherwise).
    IntIn(&'static [i64]),
    /// One of these strings ("Invalid <name>" otherwise).
    StrIn(&'static [&'static str]),
    /// A language code of [`LANGUAGES`].
    Language,
    /// One of [`NOTIFICATION_SOUNDS`] or `none`.
    NotificationSound,
    /// Seconds, more than 0 and at most a week.
    BatchingPeriod,
    /// An IANA time zone name (or empty: unset).
    Timezone,
}

/// Which legacy event (for clients without `user_settings_object`) a change also sends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Legacy {
    None,
    /// `update_display_settings`.
    Display,
    /// `update_global_notifications`.
    Notification,
}

/// Where a setting is stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Storage {
    /// A key of the `users.settings` JSON object.
    Json,
    /// A column of `users` of the same name.
    Column,
}

pub struct Setting {
    pub name: &'static str,
    pub kind: Kind,
    /// The default as JSON text.
    pub default: &'static str,
    pub legacy: Legacy,
    pub storage: Storage,
}

const fn s(name: &'static str, kind: Kind, default: &'static str, legacy: Legacy) -> Setting {
    Setting { name, kind, default, legacy, storage: Storage::Json }
}

const fn column(name: &'static str, kind: Kind, default: &'static str, legacy: Legacy) -> Setting {
    Setting { name, kind, default, legacy, storage: Storage::Column }
}

use Kind::*;
use Legacy::{Display as D, None as N, Notification as G};

const ONE_TO_THREE: &[i64] = &[1, 2, 3];
const ONE_TO_FOUR: &[i64] = &[1, 2, 3, 4];

/// Zulip's emoji sets (`UserProfile.EMOJISET_CHOICES`).
pub const EMOJISETS: &[&str] = &["google", "twitter", "text"];
/// The notification sounds this server offers.
pub const NOTIFICATION_SOUNDS: &[&str] = &["zulip"];
/// Zulip's translated languages (`get_available_language_codes`).
pub const LANGUAGES: &[&str] = &[
    "ar", "be", "bg", "bn", "ca", "cs", "cy", "da", "de", "el", "en", "en-gb", "eo", "es", "fa", "fi", "fr", "gl", "gu", "hi", "hu", "id",
    "it", "ja", "ko", "lt", "lv", "ml", "mn", "nl", "no", "pl", "pt", "pt-br", "pt-pt", "ro", "ru", "si", "sk", "sr", "sv", "ta", "te",
    "tl", "tr", "uk", "uz", "vi", "zh-hans", "zh-hant",
];

/// Every setting `PATCH /settings` changes, in Zulip's parameter order.
pub const SETTINGS: &[Setting] = &[
    s("twenty_four_hour_time", Bool, "false", D),
    s("web_mark_read_on_scroll_policy", IntIn(ONE_TO_THREE), "1", N),
    s("web_channel_default_view", IntIn(&[1, 2, 4]), "1", N),
    s("starred_message_counts", Bool, "true", D),
    s("receives_typing_notifications", Bool, "true", N),
    s("web_suggest_update_timezone", Bool, "true", N),
    s("fluid_layout_width", Bool, "false", D),
    s("high_contrast_mode", Bool, "false", D),
    s("web_font_size_px", Int, "16", N),
    s("web_line_height_percent", Int, "140", N),
    s("color_scheme", IntIn(ONE_TO_THREE), "1", D),
    s("enable_drafts_synchronization", Bool, "true", D),
    s("translate_emoticons", Bool, "false", D),
    s("display_emoji_reaction_users", Bool, "true", N),
    s("default_language", Language, "\"en\"", D),
    s("web_home_view", StrIn(&["recent_topics", "inbox", "all_messages"]), "\"inbox\"", D),
    s("web_escape_navigates_to_home_view", Bool, "true", N),
    s("left_side_userlist", Bool, "false", D),
    s("emojiset", StrIn(EMOJISETS), "\"google\"", D),
    s("demote_inactive_streams", IntIn(ONE_TO_THREE), "1", D),
    s("user_list_style", IntIn(ONE_TO_THREE), "2", N),
    s("web_animate_image_previews", StrIn(&["always", "on_hover", "never"]), "\"on_hover\"", N),
    s("web_stream_unreads_count_display_policy", IntIn(ONE_TO_THREE), "2", N),
    s("hide_ai_features", Bool, "false", N),
    s("web_left_sidebar_show_channel_folders", Bool, "true", N),
    s("web_left_sidebar_unreads_count_summary", Bool, "true", N),
    column("timezone", Timezone, "\"\"", D),
    s("enable_stream_desktop_notifications", Bool, "false", G),
    s("enable_stream_email_notifications", Bool, "false", G),
    s("enable_stream_push_notifications", Bool, "false", G),
    s("enable_stream_audible_notifications", Bool, "false", G),
    s("notification_sound", NotificationSound, "\"zulip\"", G),
    s("enable_desktop_notifications", Bool, "true", G),
    s("enable_sounds", Bool, "true", G),
    s("email_notifications_batching_period_seconds", BatchingPeriod, "120", G),
    s("enable_offline_email_notifications", Bool, "true", G),
    s("enable_offline_push_notifications", Bool, "true", G),
    s("enable_online_push_notifications", Bool, "true", G),
    s("enable_followed_topic_desktop_notifications", Bool, "true", N),
    s("enable_followed_topic_email_notifications", Bool, "true", N),
    s("enable_followed_topic_push_notifications", Bool, "true", N),
    s("enable_followed_topic_audible_notifications", Bool, "true", N),
    s("enable_digest_emails", Bool, "true", G),
    s("enable_marketing_emails", Bool, "true", G),
    s("enable_login_emails", Bool, "true", G),
    s("message_content_in_email_notifications", Bool, "true", G),
    s("pm_content_in_desktop_notifications", Bool, "true", G),
    s("wildcard_mentions_notify", Bool, "true", G),
    s("enable_followed_topic_wildcard_mentions_notify", Bool, "true", N),
    s("desktop_icon_count_display", IntIn(ONE_TO_FOUR), "1", G),
    s("realm_name_in_email_notifications_policy", IntIn(ONE_TO_THREE), "1", G),
    column("automatically_follow_topics_policy", IntIn(ONE_TO_FOUR), "3", N),
    column("automatically_unmute_topics_in_muted_streams_policy", IntIn(ONE_TO_FOUR), "2", N),
    column("automatically_follow_topics_where_mentioned", Bool, "true", N),
    s("resolved_topic_notice_auto_read_policy", StrIn(&["always", "except_followed", "never"]), "\"except_followed\"", N),
    s("presence_enabled", Bool, "true", G),
    s("enter_sends", Bool, "false", D),
    s("send_private_typing_notifications", Bool, "true", N),
    s("send_stream_typing_notifications", Bool, "true", N),
    s("send_read_receipts", Bool, "true", N),
    s("allow_private_data_export", Bool, "false", N),
    column("email_address_visibility", IntIn(&[1, 2, 3, 4, 5]), "1", N),
    s("web_navigate_to_sent_message", Bool, "true", N),
];

pub fn setting(name: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.name == name)
}

/// Checks a raw parameter value of `setting`, as Zulip's `PATCH /settings` does;
/// `known_timezone` says whether the platform knows a time zone name.
pub fn parse_value(setting: &Setting, raw: &str, known_timezone: impl Fn(&str) -> bool) -> ApiResult<Value> {
    let name = setting.name;
    let int = || crate::params::parse_int(raw).ok_or_else(|| ApiError::invalid_argument(name, "an integer"));
    Ok(match setting.kind {
        Bool => json!(crate::params::parse_bool(raw).ok_or_else(|| ApiError::invalid_argument(name, "a boolean"))?),
        Int => json!(int()?),
        IntIn(choices) => {
            let n = int()?;
            if !choices.contains(&n) {
                return Err(ApiError::bad_request(format!("Invalid {name}")));
            }
            json!(n)
        }
        StrIn(choices) => {
            if !choices.contains(&raw) {
                return Err(ApiError::bad_request(format!("Invalid {name}")));
            }
            json!(raw)
        }
        Language => {
            if !LANGUAGES.contains(&raw) {
                return Err(ApiError::bad_request("Invalid default_language"));
            }
            json!(raw)
        }
        NotificationSound => {
            if raw != "none" && !NOTIFICATION_SOUNDS.contains(&raw) {
                return Err(ApiError::bad_request(format!("Invalid notification sound '{raw}'")));
            }
            json!(raw)
        }
        BatchingPeriod => {
            let n = int()?;
            if n <= 0 || n > 7 * 24 * 60 * 60 {
                return Err(ApiError::bad_request(format!("Invalid email batching period: {n} seconds")));
            }
            json!(n)
        }
        Timezone => {
            if !raw.is_empty() && !known_timezone(raw) {
                return Err(ApiError::bad_request(format!("{name} is not a recognized time zone")));
            }
            json!(raw)
        }
    })
}

/// The stored JSON object of a user's changed settings (a damaged value reads as none).
pub fn stored(user: &UserRow) -> Map<String, Value> {
    match serde_json::from_str(&user.settings) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// The value of one setting for `user`: the column, the stored change, or the default.
pub fn value_of(user: &UserRow, changed: &Map<String, Value>, setting: &Setting) -> Value {
    match (setting.storage, setting.name) {
        (Storage::Column, "timezone") => json!(user.timezone),
        (Storage::Column, name) => match name {
            "automatically_follow_topics_policy" => json!(user.automatically_follow_topics_policy),
            "automatically_unmute_topics_in_muted_streams_policy" => json!(user.automatically_unmute_topics_in_muted_streams_policy),
            EMAIL_ADDRESS_VISIBILITY => json!(user.email_address_visibility),
            _ => json!(user.automatically_follow_topics_where_mentioned != 0),
        },
        (Storage::Json, name) => changed.get(name).cloned().unwrap_or_else(|| serde_json::from_str(setting.default).unwrap_or(Value::Null)),
    }
}

/// One boolean setting kept in the JSON object `settings_json` (its default when unset).
pub fn flag_in(settings_json: &str, name: &str) -> bool {
    let changed = match serde_json::from_str(settings_json) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let setting = setting(name).filter(|s| s.storage == Storage::Json);
    let value = setting.map(|s| changed.get(s.name).cloned().unwrap_or_else(|| serde_json::from_str(s.default).unwrap_or(Value::Null)));
    value.and_then(|v| v.as_bool()).unwrap_or(false)
}

/// One boolean setting of `user` (its default when unset).
pub fn flag(user: &UserRow, name: &str) -> bool {
    setting(name).map(|s| value_of(user, &stored(user), s)).and_then(|v| v.as_bool()).unwrap_or(false)
}

/// Every setting of `user` by name, as the register response's `user_settings` shows them.
pub fn all(user: &UserRow) -> Map<String, Value> {
    let changed = stored(user);
    SETTINGS.iter().map(|s| (s.name.to_string(), value_of(user, &changed, s))).collect()
}

/// Every setting's default, as the register response's `realm_user_settings_defaults`.
pub fn defaults() -> Map<String, Value> {
    SETTINGS.iter().map(|s| (s.name.to_string(), serde_json::from_str(s.default).unwrap_or(Value::Null))).collect()
}

/// Personal settings Zulip does not offer as organization defaults for new users.
const NOT_ORGANIZATION_DEFAULTS: &[&str] =
    &["timezone", "default_language", "enable_login_emails", "enable_marketing_emails", "allow_private_data_export"];

/// Who sees a user's real email address (`users.email_address_visibility`).
pub const EMAIL_ADDRESS_VISIBILITY: &str = "email_address_visibility";

/// Every setting `PATCH /realm/user_settings_defaults` changes.
pub fn organization_default_settings() -> impl Iterator<Item = &'static Setting> {
    SETTINGS.iter().filter(|s| !NOT_ORGANIZATION_DEFAULTS.contains(&s.name))
}

/// The settings kept in their own `users` columns, which a new user's row takes from the
/// organization's defaults one by one (the others are copied as the JSON object).
pub fn organization_default_columns() -> impl Iterator<Item = &'static Setting> {
    organization_default_settings().filter(|s| s.storage == Storage::Column)
}

/// The organization's defaults for new users (`realm_user_settings_defaults`): the
/// catalogue's, overridden by those an administrator changed (`stored_json`).
pub fn organization_defaults(stored_json: &str) -> Map<String, Value> {
    let changed = match serde_json::from_str(stored_json) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let mut all = defaults();
    for setting in organization_default_settings() {
        if let Some(value) = changed.get(setting.name) {
            all.insert(setting.name.to_string(), value.clone());
        }
    }
    all
}

/// The organization defaults a `PATCH /realm/user_settings_defaults` call changes: those
/// whose new value differs from the current default.
pub fn organization_default_changes(stored_json: &str, requested: Vec<(&'static Setting, Value)>) -> Vec<(&'static Setting, Value)> {
    let current = organization_defaults(stored_json);
    requested.into_iter().filter(|(s, v)| current.get(s.name) != Some(v)).collect()
}

/// The settings a `PATCH /settings` call changes: those whose new value differs.
pub fn changes(user: &UserRow, requested: Vec<(&'static Setting, Value)>) -> Vec<(&'static Setting, Value)> {
    let changed = stored(user);
    requested.into_iter().filter(|(s, v)| value_of(user, &changed, s) != *v).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any_tz(_: &str) -> bool {
        true
    }

    #[test]
    fn defaults_are_valid_json_of_their_kind() {
        for s in SETTINGS {
            let v: Value = serde_json::from_str(s.default).unwrap_or_else(|_| panic!("{}", s.name));
            match s.kind {
                Bool => assert!(v.is_boolean(), "{}", s.name),
                Int | IntIn(_) | BatchingPeriod => assert!(v.is_i64(), "{}", s.name),
                _ => assert!(v.is_string(), "{}", s.name),
            }
        }
    }

    #[test]
    fn values_are_checked_with_zulips_messages() {
        let msg = |name: &str, raw: &str| parse_value(setting(name).unwrap(), raw, |t: &str| t == "Europe/Paris").unwrap_err().msg;
        assert_eq!(msg("translate_emoticons", "maybe"), "translate_emoticons is not a boolean");
        assert_eq!(msg("color_scheme", "7"), "Invalid color_scheme");
        assert_eq!(msg("color_scheme", "dark"), "color_scheme is not an integer");
        assert_eq!(msg("emojiset", "apple"), "Invalid emojiset");
        assert_eq!(msg("default_language", "xx"), "Invalid default_language");
        assert_eq!(msg("notification_sound", "boom"), "Invalid notification sound 'boom'");
        assert_eq!(msg("email_notifications_batching_period_seconds", "0"), "Invalid email batching period: 0 seconds");
        assert_eq!(msg("timezone", "Mars/Olympus"), "timezone is not a recognized time zone");
        assert_eq!(parse_value(setting("timezone").unwrap(), "Europe/Paris", any_tz).unwrap(), json!("Europe/Paris"));
        assert_eq!(parse_value(setting("notification_sound").unwrap(), "none", any_tz).unwrap(), json!("none"));
        assert_eq!(parse_value(setting("enter_sends").unwrap(), "true", any_tz).unwrap(), json!(true));
    }

    #[test]
    fn organization_defaults_leave_out_identity_settings() {
        let names: Vec<&str> = organization_default_settings().map(|s| s.name).collect();
        assert!(names.contains(&"emojiset") && names.contains(&"email_address_visibility"));
        assert!(!names.contains(&"timezone") && !names.contains(&"default_language"));
        let defaults = organization_defaults(r#"{"emojiset": "text", "timezone": "Asia/Tokyo"}"#);
        assert_eq!(defaults["emojiset"], "text");
        assert_eq!(defaults["email_address_visibility"], 1);
        assert_eq!(defaults["timezone"], "", "not an organization default: never taken from storage");
        let changes = organization_default_changes(
            r#"{"emojiset": "text"}"#,
            vec![(setting("emojiset").unwrap(), json!("text")), (setting("enter_sends").unwrap(), json!(true))],
        );
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].0.name, "enter_sends");
    }

    #[test]
    fn stored_changes_override_defaults() {
        let user = UserRow { settings: r#"{"enable_sounds": false}"#.into(), ..UserRow::default() };
        let all = all(&user);
        assert_eq!(all["enable_sounds"], false);
        assert_eq!(all["emojiset"], "google");
        assert!(!flag(&user, "enable_sounds"));
        assert!(flag(&user, "enable_desktop_notifications"));
        let changes =
            changes(&user, vec![(setting("enable_sounds").unwrap(), json!(false)), (setting("emojiset").unwrap(), json!("text"))]);
        assert_eq!(changes.len(), 1);
    }
}
