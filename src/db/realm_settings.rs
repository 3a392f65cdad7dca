//! The message-related settings of an organization (columns of `realms`, migration 0003).

use crate::model::system_groups;
use crate::model::{EditHistoryPolicy, TopicsPolicy};
use serde::Deserialize;
use worker::Result;

use super::user_groups::SettingGroupRef;
use crate::db::statement::statement;
use crate::db::statement::Statement;
use crate::model::ids::{RealmId, UserId};

/// Zulip's default system group of each group-valued setting (used when the column is null).
pub const GROUP_SETTING_DEFAULTS: &[(&str, &str)] = &[
    ("can_resolve_topics_group", system_groups::EVERYONE),
    ("can_move_messages_between_channels_group", system_groups::MEMBERS),
    ("can_move_messages_between_topics_group", system_groups::EVERYONE),
    ("can_mention_many_users_group", system_groups::ADMINISTRATORS),
    ("can_add_custom_emoji_group", system_groups::MEMBERS),
    ("can_invite_users_group", system_groups::MEMBERS),
    ("create_multiuse_invite_group", system_groups::ADMINISTRATORS),
    ("can_create_public_channel_group", system_groups::MEMBERS),
    ("can_create_private_channel_group", system_groups::MEMBERS),
    ("can_create_groups", system_groups::MEMBERS),
    ("can_set_topics_policy_group", system_groups::MODERATORS),
    ("can_add_subscribers_group", system_groups::MEMBERS),
    ("can_manage_all_groups", system_groups::OWNERS),
];

/// Group settings read with their default the same way, which organization creation leaves
/// null (Zulip's default applies while they are).
const DELETE_GROUP_DEFAULTS: &[(&str, &str)] =
    &[("can_delete_any_message_group", system_groups::ADMINISTRATORS), ("can_delete_own_message_group", system_groups::EVERYONE)];

#[derive(Debug, Clone, Deserialize)]
pub struct RealmSettingsRow {
    pub realm_id: i64,
    pub string_id: String,
    pub allow_message_editing: i64,
    pub message_content_edit_limit_seconds: Option<i64>,
    pub move_messages_within_stream_limit_seconds: Option<i64>,
    pub move_messages_between_streams_limit_seconds: Option<i64>,
    /// Group ids, null columns already resolved to the default system group.
    pub can_resolve_topics_group: i64,
    pub can_move_messages_between_channels_group: i64,
    pub can_move_messages_between_topics_group: i64,
    pub can_mention_many_users_group: i64,
    pub can_add_custom_emoji_group: i64,
    /// Who may send email invitations and create reusable links (migration 0024).
    pub can_invite_users_group: i64,
    pub create_multiuse_invite_group: i64,
    pub can_delete_any_message_group: i64,
    pub can_delete_own_message_group: i64,
    /// Who creates channels and groups, and sets a channel's topics policy (migration 0042).
    pub can_create_public_channel_group: i64,
    pub can_create_private_channel_group: i64,
    pub can_create_groups: i64,
    pub can_set_topics_policy_group: i64,
    /// Who subscribes others to channels, besides each channel's own group (migration 0043).
    pub can_add_subscribers_group: i64,
    /// Who manages every user group (migration 0043).
    pub can_manage_all_groups: i64,
    pub message_content_delete_limit_seconds: Option<i64>,
    pub empty_topic_display_name: String,
    pub topics_policy: TopicsPolicy,
    pub message_edit_history_visibility_policy: EditHistoryPolicy,
    pub max_message_length: i64,
    pub max_topic_length: i64,
    /// The join rules (migration 0024).
    pub invite_required: i64,
    pub emails_restricted_to_domains: i64,
    pub disallow_disposable_email_addresses: i64,
    /// The changed defaults for new users' personal settings, a JSON object (migration 0034).
    pub user_settings_defaults: String,
    /// The organization's language and full-member waiting period in days (migration 0034).
    pub default_language: String,
    pub waiting_period_threshold: i64,
    /// Days messages are kept, -1 forever (migration 0037).
    pub message_retention_days: i64,
    /// Where the notification bot announces new channels, new users and Zulip's updates
    /// (migration 0039): a channel id, `None` for nowhere.
    pub new_stream_announcements_stream_id: Option<i64>,
    pub signup_announcements_stream_id: Option<i64>,
    pub zulip_update_announcements_stream_id: Option<i64>,
    /// Where reports of messages go (migration 0047); `None`: reporting is off.
    #[serde(default)]
    pub moderation_request_channel_id: Option<i64>,
    /// 1: read receipts are shown (migration 0048).
    pub enable_read_receipts: i64,
    /// The version these values were read at (`crate::platform::realm_cache`).
    pub settings_version: i64,
    /// The anonymous groups the group settings name (`user_groups::anonymous_groups_sql`).
    #[serde(default)]
    pub anonymous_groups: Option<String>,
}

#[cfg(test)]
impl RealmSettingsRow {
    /// An organization for unit tests: Zulip's defaults, every group setting on group 1;
    /// tests override what their rule depends on.
    pub fn for_tests(realm_id: i64) -> RealmSettingsRow {
        RealmSettingsRow {
            realm_id,
            string_id: "zulip".into(),
            allow_message_editing: 1,
            message_content_edit_limit_seconds: Some(600),
            move_messages_within_stream_limit_seconds: None,
            move_messages_between_streams_limit_seconds: None,
            can_resolve_topics_group: 1,
            can_move_messages_between_channels_group: 1,
            can_move_messages_between_topics_group: 1,
            can_mention_many_users_group: 1,
            can_add_custom_emoji_group: 1,
            can_invite_users_group: 1,
            create_multiuse_invite_group: 1,
            can_delete_any_message_group: 1,
            can_delete_own_message_group: 1,
            can_create_public_channel_group: 0,
            can_create_private_channel_group: 0,
            can_create_groups: 0,
            can_set_topics_policy_group: 0,
            can_add_subscribers_group: 0,
            can_manage_all_groups: 0,
            message_content_delete_limit_seconds: None,
            empty_topic_display_name: "general chat".into(),
            topics_policy: TopicsPolicy::AllowEmptyTopic,
            message_edit_history_visibility_policy: EditHistoryPolicy::All,
            max_message_length: 10000,
            max_topic_length: 60,
            invite_required: 1,
            emails_restricted_to_domains: 0,
            disallow_disposable_email_addresses: 1,
            user_settings_defaults: "{}".into(),
            default_language: "en".into(),
            waiting_period_threshold: 0,
            message_retention_days: -1,
            new_stream_announcements_stream_id: None,
            signup_announcements_stream_id: None,
            zulip_update_announcements_stream_id: None,
            moderation_request_channel_id: None,
            enable_read_receipts: 1,
            settings_version: 0,
            anonymous_groups: None,
        }
    }
}

/// One query: the settings with every group-valued setting resolved to a group id.
pub fn by_realm_id_stmt(realm_id: i64) -> Result<Statement> {
    let mut groups = resolved_group_settings_sql("r");
    let columns: Vec<String> = group_setting_columns().iter().map(|column| format!("r.{column}")).collect();
    groups.push(format!("{} AS anonymous_groups", super::user_groups::anonymous_groups_sql(&columns)));
    statement!(
        &format!(
            "SELECT r.id AS realm_id, r.string_id, r.allow_message_editing, r.message_content_edit_limit_seconds, \
             r.move_messages_within_stream_limit_seconds, r.move_messages_between_streams_limit_seconds, {}, \
             r.empty_topic_display_name, r.topics_policy, r.message_edit_history_visibility_policy, \
             r.max_message_length, r.max_topic_length, r.message_content_delete_limit_seconds, r.invite_required, \
             r.emails_restricted_to_domains, r.disallow_disposable_email_addresses, r.user_settings_defaults, \
             r.default_language, r.waiting_period_threshold, r.message_retention_days, r.new_stream_announcements_stream_id, \
             r.signup_announcements_stream_id, r.zulip_update_announcements_stream_id, r.moderation_request_channel_id, \
             r.enable_read_receipts, r.settings_version FROM realms r WHERE r.id = ?1",
            groups.join(", ")
        ),
        realm_id
    )
}

/// Each group-valued setting of the organization `r` (an alias of `realms`) as a column of
/// a query: the group's id, a null column read as the setting's default system group.
pub(super) fn resolved_group_settings_sql(r: &str) -> Vec<String> {
    GROUP_SETTING_DEFAULTS
        .iter()
        .chain(DELETE_GROUP_DEFAULTS)
        .map(|(column, default)| {
            format!(
                "COALESCE({r}.{column}, (SELECT g.id FROM user_groups g WHERE g.realm_id = {r}.id AND g.name = '{default}' \
                 AND g.is_system_group = 1), 0) AS {column}"
            )
        })
        .collect()
}

/// A value to write into one settings column.
pub enum SettingValue {
    Int(Option<i64>),
    Text(String),
    Group(SettingGroupRef),
}

/// Statements updating the given columns (names come from the fixed list of settings in
/// `domain::realm_settings`, never from the client).
pub fn update_stmts(realm_id: i64, changes: &[(&'static str, SettingValue)]) -> Result<Vec<Statement>> {
    changes
        .iter()
        .map(|(column, value)| {
            let sql = format!("UPDATE realms SET {column} = ?2 WHERE id = ?1");
            match value {
                SettingValue::Int(v) => statement!(&sql, realm_id, v),
                SettingValue::Text(v) => statement!(&sql, realm_id, v),
                SettingValue::Group(group) => {
                    statement!(&format!("UPDATE realms SET {column} = {} WHERE id = ?1", group.sql(realm_id)), realm_id)
                }
            }
        })
        .collect()
}

/// Merges `changes_json` (a JSON object of setting name to value) into the organization's
/// defaults for new users.
pub fn update_user_settings_defaults_stmt(realm_id: i64, changes_json: &str) -> Result<Statement> {
    statement!("UPDATE realms SET user_settings_defaults = json_patch(user_settings_defaults, ?2) WHERE id = ?1", realm_id, changes_json)
}

/// Every group-valued setting column of `realms`.
pub fn group_setting_columns() -> Vec<&'static str> {
    GROUP_SETTING_DEFAULTS.iter().chain(DELETE_GROUP_DEFAULTS).map(|(c, _)| *c).collect()
}

/// Whether user `?2` is in the organization's group setting `column` (one of
/// [`GROUP_SETTING_DEFAULTS`], its default while unset): a member directly, through a
/// subgroup, or by role (`user_groups::IsMemberRow`).
pub fn in_group_setting_stmt(realm_id: RealmId, column: &str, user_id: UserId) -> Result<Statement> {
    let Some((column, default)) = GROUP_SETTING_DEFAULTS.iter().find(|(c, _)| *c == column) else {
        return Err(worker::Error::RustError(format!("not an organization group setting: {column}")));
    };
    statement!(
        &format!(
            "WITH RECURSIVE reachable(id) AS ( \
               SELECT COALESCE(r.{column}, (SELECT g.id FROM user_groups g WHERE g.realm_id = r.id AND g.name = '{default}' \
                 AND g.is_system_group = 1)) FROM realms r WHERE r.id = ?1 \
               UNION \
               SELECT s.subgroup_id FROM user_group_subgroups s JOIN reachable rr ON s.supergroup_id = rr.id \
             ) \
             SELECT EXISTS ( \
               SELECT 1 FROM reachable r JOIN user_groups g ON g.id = r.id \
               JOIN users u ON u.id = ?2 AND u.realm_id = ?1 AND u.is_active = 1 \
               WHERE {role} OR EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = g.id AND m.user_id = u.id) \
             ) AS is_member",
            role = super::user_groups::by_role_sql("g", "u")
        ),
        realm_id,
        user_id
    )
}
