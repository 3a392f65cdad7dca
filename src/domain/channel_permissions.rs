//! A channel's permission settings (Zulip's `can_*_group`): their defaults, which ones this
//! server stores and enforces, and the group-setting values clients send.
//!
//! A stored setting is a user group id (`channels.<setting>`); NULL keeps the default
//! system group. A set of users and groups (Zulip's anonymous group) is stored as a hidden
//! group (`domain::group_setting_values`).

use crate::db::subscriptions::ChannelViewRow;
use crate::db::user_groups::GroupNameRow;
use crate::db::users::UserRow;
use crate::domain::channels::SystemGroups;
use crate::domain::group_setting_values::{self, AnonymousGroups, GroupSettingValue};
use crate::error::{ApiError, ApiResult};
use crate::model::{system_groups, TopicsPolicy};

/// One permission setting of a channel.
pub struct ChannelGroupSetting {
    /// The wire name, which is also the `channels` column.
    pub name: &'static str,
    /// The system group a channel has until the setting is changed.
    pub default_group: &'static str,
    /// Whether `role:everyone` (which includes guests) is allowed.
    pub allow_everyone: bool,
}

const fn setting(name: &'static str, default_group: &'static str, allow_everyone: bool) -> ChannelGroupSetting {
    ChannelGroupSetting { name, default_group, allow_everyone }
}

/// Who may send to the channel (enforced by sending).
pub const CAN_SEND_MESSAGE: ChannelGroupSetting = setting("can_send_message_group", system_groups::EVERYONE, true);

/// Who administers the channel besides the organization's administrators (enforced by
/// `PATCH` and `DELETE /streams/{stream_id}`); administering also grants the rights below
/// that Zulip gives channel administrators.
pub const CAN_ADMINISTER: ChannelGroupSetting = setting("can_administer_channel_group", system_groups::NOBODY, false);

/// Who may subscribe others (and, to a private channel, themselves).
pub const CAN_ADD_SUBSCRIBERS: ChannelGroupSetting = setting("can_add_subscribers_group", system_groups::NOBODY, false);

/// Who may unsubscribe others.
pub const CAN_REMOVE_SUBSCRIBERS: ChannelGroupSetting = setting("can_remove_subscribers_group", system_groups::ADMINISTRATORS, true);

/// Who may subscribe themselves, notably to a private channel.
pub const CAN_SUBSCRIBE: ChannelGroupSetting = setting("can_subscribe_group", system_groups::NOBODY, false);

/// Who may move messages between the channel's topics.
pub const CAN_MOVE_WITHIN: ChannelGroupSetting = setting("can_move_messages_within_channel_group", system_groups::NOBODY, true);

/// Who may move messages from the channel to another (besides the organization's
/// `can_move_messages_between_channels_group`).
pub const CAN_MOVE_OUT: ChannelGroupSetting = setting("can_move_messages_out_of_channel_group", system_groups::NOBODY, true);

/// Who may resolve and unresolve the channel's topics.
pub const CAN_RESOLVE_TOPICS: ChannelGroupSetting = setting("can_resolve_topics_group", system_groups::NOBODY, true);

/// Who may delete anyone's messages in the channel.
pub const CAN_DELETE_ANY: ChannelGroupSetting = setting("can_delete_any_message_group", system_groups::NOBODY, true);

/// Who may delete their own messages in the channel.
pub const CAN_DELETE_OWN: ChannelGroupSetting = setting("can_delete_own_message_group", system_groups::NOBODY, true);

/// The settings this server stores and enforces (each a `channels` column).
pub const STORED: [&ChannelGroupSetting; 10] = [
    &CAN_SEND_MESSAGE,
    &CAN_ADMINISTER,
    &CAN_ADD_SUBSCRIBERS,
    &CAN_REMOVE_SUBSCRIBERS,
    &CAN_SUBSCRIBE,
    &CAN_MOVE_WITHIN,
    &CAN_MOVE_OUT,
    &CAN_RESOLVE_TOPICS,
    &CAN_DELETE_ANY,
    &CAN_DELETE_OWN,
];

/// Whether a user belongs to a setting's default system group, by role (what a setting
/// left at its default answers).
pub fn in_default_group(setting: &ChannelGroupSetting, user: &UserRow) -> bool {
    match setting.default_group {
        system_groups::EVERYONE => true,
        system_groups::ADMINISTRATORS => user.is_realm_admin(),
        _ => false,
    }
}

/// Zulip's rule for the settings that let someone delete messages: only those who may set
/// the organization's deletion policy (moderators and up) give them to anyone (`found`: the
/// named groups, as for [`check_group`]).
fn check_may_grant(setting: &ChannelGroupSetting, to_nobody: bool, me: &UserRow) -> ApiResult<()> {
    let deletion = setting.name == CAN_DELETE_ANY.name || setting.name == CAN_DELETE_OWN.name;
    if deletion && !to_nobody && !me.is_moderator_or_above() {
        return Err(ApiError::insufficient_permission());
    }
    Ok(())
}

/// The settings whose non-guest members see a private channel (Zulip's metadata access
/// through groups).
pub const GRANTS_ACCESS: [&ChannelGroupSetting; 3] = [&CAN_ADMINISTER, &CAN_ADD_SUBSCRIBERS, &CAN_SUBSCRIBE];

/// Zulip's `can_set_topics_policy_group` (moderators and up by default): only its members
/// (`in_group`) give a channel a topics policy of its own; anyone may leave it to `inherit`.
pub fn check_may_set_topics_policy(policy: TopicsPolicy, in_group: bool) -> ApiResult<()> {
    if policy != TopicsPolicy::Inherit && !in_group {
        return Err(ApiError::insufficient_permission());
    }
    Ok(())
}

/// The caller's membership in a channel's subscription settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct SubscriptionRights {
    pub administer: bool,
    pub add_subscribers: bool,
    pub remove_subscribers: bool,
    pub subscribe: bool,
}

/// The settings [`SubscriptionRights`] holds, in its order.
pub const SUBSCRIPTION_SETTINGS: [&ChannelGroupSetting; 4] =
    [&CAN_ADMINISTER, &CAN_ADD_SUBSCRIBERS, &CAN_REMOVE_SUBSCRIBERS, &CAN_SUBSCRIBE];

impl SubscriptionRights {
    /// From memberships in [`SUBSCRIPTION_SETTINGS`] order.
    pub fn from_memberships(m: [bool; 4]) -> Self {
        SubscriptionRights { administer: m[0], add_subscribers: m[1], remove_subscribers: m[2], subscribe: m[3] }
    }

    /// Zulip's content access through groups: a non-guest in `can_add_subscribers_group` or
    /// `can_subscribe_group` may join the channel even when it is private (`can_join`: what
    /// the channel's privacy allows the user anyway).
    pub fn may_join(&self, user: &UserRow, can_join: bool) -> bool {
        can_join || (!user.is_guest() && (self.add_subscribers || self.subscribe))
    }

    /// Zulip's rule for unsubscribing others: organization administrators; otherwise a
    /// non-guest who administers the channel, or sees it (`can_see`, or through a group
    /// granting metadata access) and is in its `can_remove_subscribers_group`.
    pub fn may_remove_subscribers(&self, user: &UserRow, can_see: bool) -> bool {
        if user.is_realm_admin() {
            return true;
        }
        if user.is_guest() {
            return false;
        }
        let sees = can_see || self.administer || self.add_subscribers || self.subscribe;
        self.administer || (sees && self.remove_subscribers)
    }
}

/// Zulip's checks of a setting's new group among the organization's active groups `found`:
/// it exists, is never `role:internet`, and `role:everyone` only where allowed.
pub fn check_group(setting: &ChannelGroupSetting, group_id: i64, found: &[GroupNameRow]) -> ApiResult<()> {
    group_setting_values::check_group(setting.name, setting.allow_everyone, group_id, found)
}

/// Zulip's checks of a setting's new value, as sent (an empty set is nobody):
/// `group_setting_values::check_value`, and the right to grant it ([`check_may_grant`]).
pub fn check_value(
    setting: &ChannelGroupSetting,
    value: &GroupSettingValue,
    found: &[GroupNameRow],
    users: &[UserRow],
    me: &UserRow,
) -> ApiResult<()> {
    group_setting_values::check_value(setting.name, setting.allow_everyone, value, found, users)?;
    let to_nobody = match value {
        GroupSettingValue::Group(id) => found.iter().any(|g| g.id == *id && g.name == system_groups::NOBODY),
        GroupSettingValue::Anonymous(g) => g.direct_members.is_empty() && g.direct_subgroups.is_empty(),
    };
    check_may_grant(setting, to_nobody, me)
}

/// A setting's current value on channel `c`: its group (an anonymous group as its set), or
/// the default system group.
pub fn current_value(c: &ChannelViewRow, setting: &ChannelGroupSetting, groups: &SystemGroups) -> GroupSettingValue {
    let anonymous = AnonymousGroups::from_json(c.anonymous_groups.as_deref());
    match c.group_setting(setting.name) {
        Some(id) => anonymous.value_of(id),
        None => GroupSettingValue::Group(groups.0.get(setting.default_group).copied().unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(id: i64, name: &str) -> GroupNameRow {
        GroupNameRow { id, name: name.into() }
    }

    #[test]
    fn the_stored_settings_are_the_channel_views_columns() {
        let names: Vec<&str> = STORED.iter().map(|s| s.name).collect();
        assert_eq!(names, crate::db::subscriptions::GROUP_SETTING_COLUMNS);
    }

    #[test]
    fn groups_must_exist_and_suit_the_setting() {
        let found = [named(1, system_groups::EVERYONE), named(2, system_groups::INTERNET), named(3, "support")];
        assert!(check_group(&CAN_SEND_MESSAGE, 1, &found).is_ok());
        assert_eq!(
            check_group(&CAN_ADMINISTER, 1, &found).unwrap_err().msg,
            "'can_administer_channel_group' setting cannot be set to 'role:everyone' group."
        );
        assert!(check_group(&CAN_SEND_MESSAGE, 2, &found).is_err());
        assert!(check_group(&CAN_ADMINISTER, 3, &found).is_ok());
        assert_eq!(check_group(&CAN_ADMINISTER, 4, &found).unwrap_err().msg, "Invalid user group");
        assert!(check_group(&CAN_SUBSCRIBE, 1, &found).is_err());
        assert!(check_group(&CAN_ADD_SUBSCRIBERS, 1, &found).is_err());
        assert!(check_group(&CAN_DELETE_OWN, 1, &found).is_ok());
    }

    #[test]
    fn every_stored_setting_is_a_distinct_column() {
        let names: std::collections::HashSet<&str> = STORED.iter().map(|s| s.name).collect();
        assert_eq!(names.len(), STORED.len());
    }
}
