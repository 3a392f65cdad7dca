//! Organization settings: its name and description, and those that govern messages and
//! joining.

use serde_json::{json, Map, Value};

use crate::actions::realm_settings::{check_update_realm_settings, do_change_user_settings_defaults, GroupSetting, RealmSettingsChange};
use crate::auth::Administrator;
use crate::context::RequestContext;
use crate::db::realm_settings::SettingValue;
use crate::db::users::UserRow;
use crate::domain::group_setting_values::GroupChange;
use crate::domain::organizations::{check_realm_name, MAX_REALM_DESCRIPTION_LENGTH};
use crate::domain::{realm_settings, user_settings};
use crate::error::{ApiError, ApiResult};
use crate::model::{EditHistoryPolicy, TopicsPolicy};
use crate::response::Reply;

/// Group-valued settings, and whether `role:everyone` (which includes guests) is allowed.
const GROUP_SETTINGS: &[(&str, bool)] = &[
    ("can_resolve_topics_group", true),
    ("can_move_messages_between_channels_group", false),
    ("can_move_messages_between_topics_group", true),
    ("can_mention_many_users_group", true),
    ("can_add_custom_emoji_group", false),
    ("can_delete_any_message_group", false),
    ("can_delete_own_message_group", true),
    ("can_invite_users_group", false),
    ("create_multiuse_invite_group", false),
    ("can_create_public_channel_group", false),
    ("can_create_private_channel_group", false),
    ("can_create_groups", false),
    ("can_set_topics_policy_group", false),
    ("can_add_subscribers_group", false),
    ("can_manage_all_groups", false),
];

/// The organization's boolean join rules (migration 0024).
const JOIN_RULES: &[&str] = &["invite_required", "emails_restricted_to_domains", "disallow_disposable_email_addresses"];

const TIME_LIMITS: &[&str] = &[
    "message_content_edit_limit_seconds",
    "move_messages_within_stream_limit_seconds",
    "move_messages_between_streams_limit_seconds",
    "message_content_delete_limit_seconds",
];

/// The settings naming the channel where the notification bot announces something (or,
/// `moderation_request_channel_id`, reports messages).
const ANNOUNCEMENT_CHANNELS: [&str; 4] = [
    "new_stream_announcements_stream_id",
    "signup_announcements_stream_id",
    "zulip_update_announcements_stream_id",
    "moderation_request_channel_id",
];

/// # `PATCH /realm`
/// Administrators: changes `allow_message_editing`, the three edit/move time limits (seconds,
/// or `"unlimited"`), the group settings (a user group id), `topics_policy` (or the
/// deprecated `mandatory_topics`), `message_edit_history_visibility_policy` (or the deprecated
/// `allow_edit_history`), and this server's per-organization `max_message_length`,
/// `max_topic_length` and `empty_topic_display_name`; the organization's `name` (not empty,
/// at most 40 characters), `description` (at most 1000), `default_language` and
/// `waiting_period_threshold`; the three announcement channels and
/// `moderation_request_channel_id` (an id the administrator can read, or -1);
/// `enable_read_receipts`; and, owners only, `message_retention_days` (days, or
/// `"unlimited"`; messages older are deleted from then on). Answers the changed values;
/// emits `realm`/`update_dict`, and `realm`/`update` for the name, description, language,
/// waiting period, retention period and read receipts.
pub async fn update_realm(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user_as::<Administrator>().await?;
    let mut changes: Vec<(&'static str, SettingValue)> = Vec::new();
    let mut data = Map::new();

    if let Some(v) = ctx.params.bool("allow_message_editing")? {
        changes.push(("allow_message_editing", SettingValue::Int(Some(v as i64))));
        data.insert("allow_message_editing".into(), json!(v));
    }
    for name in JOIN_RULES {
        if let Some(v) = ctx.params.bool(name)? {
            changes.push((name, SettingValue::Int(Some(v as i64))));
            data.insert(name.to_string(), json!(v));
        }
    }
    for name in TIME_LIMITS {
        if let Some(raw) = ctx.params.json(name)? {
            let value = match &raw {
                Value::String(s) if s == "unlimited" => None,
                Value::Number(n) if n.as_i64().is_some_and(|n| n > 0) => n.as_i64(),
                _ => return Err(ApiError::bad_request(format!("Bad value for '{name}': {raw}"))),
            };
            changes.push((name, SettingValue::Int(value)));
            data.insert(name.to_string(), json!(value));
        }
    }
    let mut groups = Vec::new();
    for (name, allow_everyone) in GROUP_SETTINGS {
        if let Some(raw) = ctx.params.json(name)? {
            groups.push(GroupSetting { name, allow_everyone: *allow_everyone, change: GroupChange::parse(name, &raw)? });
        }
    }
    let mut topics_policy = ctx.params.str("topics_policy")?;
    if let Some(mandatory) = ctx.params.bool("mandatory_topics")? {
        topics_policy.get_or_insert_with(|| if mandatory { "disable_empty_topic" } else { "allow_empty_topic" }.to_string());
    }
    if let Some(policy) = topics_policy {
        let parsed =
            TopicsPolicy::from_code(&policy).filter(|p| matches!(p, TopicsPolicy::AllowEmptyTopic | TopicsPolicy::DisableEmptyTopic));
        let Some(parsed) = parsed else { return Err(ApiError::bad_request("Invalid topics_policy")) };
        data.insert("topics_policy".into(), json!(policy));
        data.insert("mandatory_topics".into(), json!(parsed == TopicsPolicy::DisableEmptyTopic));
        changes.push(("topics_policy", SettingValue::Text(policy)));
    }
    let mut history_policy = ctx.params.str("message_edit_history_visibility_policy")?;
    if let Some(allow) = ctx.params.bool("allow_edit_history")? {
        history_policy.get_or_insert_with(|| if allow { "all" } else { "none" }.to_string());
    }
    if let Some(policy) = history_policy {
        if EditHistoryPolicy::from_code(&policy).is_none() {
            return Err(ApiError::bad_request("Invalid message_edit_history_visibility_policy"));
        }
        data.insert("message_edit_history_visibility_policy".into(), json!(policy));
        changes.push(("message_edit_history_visibility_policy", SettingValue::Text(policy)));
    }
    length_changes(ctx, &mut changes, &mut data)?;

    let mut updates = profile_changes(ctx, &mut changes)?;
    if let Some(v) = ctx.params.bool("enable_read_receipts")? {
        changes.push(("enable_read_receipts", SettingValue::Int(Some(v as i64))));
        updates.push(("enable_read_receipts", json!(v)));
    }
    let retention_changed = retention_change(ctx, &me, &mut changes, &mut updates)?;
    let channels = announcement_changes(ctx, &mut changes, &mut updates)?;
    let moderation_channel = ctx.params.int("moderation_request_channel_id")?.filter(|id| *id != -1);
    let change = RealmSettingsChange { changes, data, groups, updates, channels, moderation_channel };
    let data = check_update_realm_settings(&ctx.db, &ctx.env, &me, change).await?;
    if retention_changed {
        crate::actions::message_retention::sweep_soon(ctx, me.realm_id).await;
    }
    if ctx.params.int("waiting_period_threshold")?.is_some() {
        crate::actions::full_members::watch_from_now(ctx, me.realm_id).await;
    }
    Ok(Reply::Json(data))
}

/// The organization's `name`, `description`, `default_language` (one of Zulip's languages)
/// and `waiting_period_threshold` (days, not negative): written with the other settings,
/// reported one by one (`realm` `update`).
fn profile_changes(ctx: &RequestContext, changes: &mut Vec<(&'static str, SettingValue)>) -> ApiResult<Vec<(&'static str, Value)>> {
    let mut updates = Vec::new();
    if let Some(name) = ctx.params.str("name")? {
        let name = check_realm_name(&name)?;
        changes.push(("name", SettingValue::Text(name.clone())));
        updates.push(("name", json!(name)));
    }
    if let Some(description) = ctx.params.str("description")? {
        if description.chars().count() > MAX_REALM_DESCRIPTION_LENGTH {
            return Err(ApiError::too_long("description", MAX_REALM_DESCRIPTION_LENGTH as i64));
        }
        changes.push(("description", SettingValue::Text(description.clone())));
        updates.push(("description", json!(description)));
    }
    if let Some(language) = ctx.params.str("default_language")? {
        if !user_settings::LANGUAGES.contains(&language.as_str()) {
            return Err(ApiError::bad_request(format!("Invalid language '{language}'")));
        }
        changes.push(("default_language", SettingValue::Text(language.clone())));
        updates.push(("default_language", json!(language)));
    }
    if let Some(days) = ctx.params.int("waiting_period_threshold")? {
        if days < 0 {
            return Err(ApiError::bad_request("waiting_period_threshold is too small"));
        }
        changes.push(("waiting_period_threshold", SettingValue::Int(Some(days))));
        updates.push(("waiting_period_threshold", json!(days)));
    }
    Ok(updates)
}

/// Where the notification bot announces (`new_stream_announcements_stream_id`,
/// `signup_announcements_stream_id`, `zulip_update_announcements_stream_id`): a channel id,
/// or -1 for nowhere. Answers the channels named, still to check.
fn announcement_changes(
    ctx: &RequestContext,
    changes: &mut Vec<(&'static str, SettingValue)>,
    updates: &mut Vec<(&'static str, Value)>,
) -> ApiResult<Vec<i64>> {
    let mut channels = Vec::new();
    for name in ANNOUNCEMENT_CHANNELS {
        if let Some(id) = ctx.params.int(name)? {
            let channel = (id != -1).then_some(id);
            channels.extend(channel);
            changes.push((name, SettingValue::Int(channel)));
            updates.push((name, json!(id)));
        }
    }
    Ok(channels)
}

/// This server's per-organization `max_message_length`, `max_topic_length` and
/// `empty_topic_display_name`.
fn length_changes(ctx: &RequestContext, changes: &mut Vec<(&'static str, SettingValue)>, data: &mut Map<String, Value>) -> ApiResult<()> {
    for (name, max) in [("max_message_length", 10_000), ("max_topic_length", 60)] {
        if let Some(v) = ctx.params.int(name)? {
            // Zulip allows topics as short as 4 characters, other lengths from 30.
            let min = if name == "max_topic_length" { 4 } else { 30 };
            if !(min..=max).contains(&v) {
                return Err(ApiError::bad_request(format!("Bad value for '{name}': {v}")));
            }
            changes.push((name, SettingValue::Int(Some(v))));
            data.insert(name.to_string(), json!(v));
        }
    }
    if let Some(name) = ctx.params.str("empty_topic_display_name")? {
        let name = name.trim().to_string();
        if name.is_empty() || name.chars().count() > 60 {
            return Err(ApiError::bad_request("Invalid empty_topic_display_name"));
        }
        data.insert("empty_topic_display_name".into(), json!(name));
        changes.push(("empty_topic_display_name", SettingValue::Text(name)));
    }
    Ok(())
}

/// `message_retention_days`: owners only, as in Zulip; days or `"unlimited"`. Answers
/// whether it is asked for (a new period is applied right away).
fn retention_change(
    ctx: &RequestContext,
    me: &UserRow,
    changes: &mut Vec<(&'static str, SettingValue)>,
    updates: &mut Vec<(&'static str, Value)>,
) -> ApiResult<bool> {
    let Some(raw) = ctx.params.json("message_retention_days")? else { return Ok(false) };
    if !me.role.is_at_least(crate::model::Role::Owner) {
        return Err(ApiError::must_be_owner());
    }
    let days = realm_settings::parse_retention_days(&raw, false)?.unwrap_or(realm_settings::RETENTION_FOREVER);
    changes.push(("message_retention_days", SettingValue::Int(Some(days))));
    updates.push(("message_retention_days", json!(days)));
    Ok(true)
}

/// # `PATCH /realm/user_settings_defaults`
/// Administrators: changes the organization's defaults for the personal settings of people
/// who join later (`domain::user_settings::organization_default_settings`: the
/// `PATCH /settings` settings but time zone, language, login and marketing emails and export
/// consent, plus `email_address_visibility`), each checked as `PATCH /settings` checks it
/// before anything is stored. Sends `realm_user_settings_defaults` per changed default;
/// unknown names are `ignored_parameters_unsupported`. Existing users keep their settings.
pub async fn update_user_settings_defaults(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user_as::<Administrator>().await?;
    let mut requested = Vec::new();
    for setting in user_settings::organization_default_settings() {
        if let Some(raw) = ctx.params.str(setting.name)? {
            // No time zone is an organization default: nothing to look up.
            requested.push((setting, user_settings::parse_value(setting, &raw, |_| false)?));
        }
    }
    let realm = ctx.realm_state(me.realm_id).await?;
    do_change_user_settings_defaults(&ctx.db, &ctx.env, &me, &realm.settings.user_settings_defaults, requested).await?;
    Ok(Reply::ok())
}
