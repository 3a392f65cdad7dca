//! A channel's permission settings (Zulip's `can_*_group`): their defaults, which ones this
//! server stores and enforces, and the group-setting values clients send.
//!
//! A stored setting is a user group id (`channels.<setting>`); NULL keeps the default
//! system group. Zulip also takes an anonymous group (`direct_members`,
//! `direct_subgroups`); this server takes one only when it names exactly one group.

use serde_json::Value;

use crate::db::user_groups::GroupNameRow;
use crate::error::{ApiError, ApiResult};
use crate::model::system_groups;

/// One permission setting of a channel.
pub struct ChannelGroupSetting {
    /// The wire name, which is also the `channels` column.
    pub name: &'static str,
    /// The system group a channel has until the setting is changed.
    pub default_group: &'static str,
    /// Whether `role:everyone` (which includes guests) is allowed.
    pub allow_everyone: bool,
}

/// Who may send to the channel (enforced by sending).
pub const CAN_SEND_MESSAGE: ChannelGroupSetting =
    ChannelGroupSetting { name: "can_send_message_group", default_group: system_groups::EVERYONE, allow_everyone: true };

/// Who administers the channel besides the organization's administrators (enforced by
/// `PATCH` and `DELETE /streams/{stream_id}`).
pub const CAN_ADMINISTER: ChannelGroupSetting =
    ChannelGroupSetting { name: "can_administer_channel_group", default_group: system_groups::NOBODY, allow_everyone: false };

/// The settings this server stores and enforces; the others keep their defaults.
pub const STORED: [&ChannelGroupSetting; 2] = [&CAN_SEND_MESSAGE, &CAN_ADMINISTER];

/// The settings every channel object shows with their default group (not stored).
pub const FIXED: [(&str, &str); 8] = [
    ("can_add_subscribers_group", system_groups::NOBODY),
    ("can_remove_subscribers_group", system_groups::ADMINISTRATORS),
    ("can_delete_any_message_group", system_groups::NOBODY),
    ("can_delete_own_message_group", system_groups::NOBODY),
    ("can_move_messages_out_of_channel_group", system_groups::NOBODY),
    ("can_move_messages_within_channel_group", system_groups::NOBODY),
    ("can_subscribe_group", system_groups::NOBODY),
    ("can_resolve_topics_group", system_groups::NOBODY),
];

/// A group-setting value: a user group id, or an anonymous group that is exactly one
/// subgroup.
pub fn group_id_of(setting: &str, value: &Value) -> ApiResult<i64> {
    if let Some(id) = value.as_i64() {
        return Ok(id);
    }
    let members = value.get("direct_members").and_then(Value::as_array);
    let subgroups = value.get("direct_subgroups").and_then(Value::as_array);
    match (members, subgroups) {
        (Some(m), Some(s)) if m.is_empty() && s.len() == 1 && s[0].is_i64() => Ok(s[0].as_i64().unwrap_or_default()),
        (Some(_), Some(_)) => {
            Err(ApiError::bad_request(format!("'{setting}' takes one user group on this server, not a set of users and groups.")))
        }
        _ => Err(ApiError::bad_request(format!("Invalid {setting}"))),
    }
}

/// A change of a setting as `PATCH /streams/{stream_id}` sends it: `{"new": …, "old": …}`
/// (`old` optional), or the bare new value.
pub struct GroupChange {
    pub new: i64,
    pub old: Option<i64>,
}

pub fn group_change_of(setting: &str, value: &Value) -> ApiResult<GroupChange> {
    match value.get("new") {
        Some(new) => {
            let old = value.get("old").map(|old| group_id_of(setting, old)).transpose()?;
            Ok(GroupChange { new: group_id_of(setting, new)?, old })
        }
        None => Ok(GroupChange { new: group_id_of(setting, value)?, old: None }),
    }
}

/// Zulip's checks of a setting's new group among the organization's active groups `found`:
/// it exists, is never `role:internet`, and `role:everyone` only where allowed.
pub fn check_group(setting: &ChannelGroupSetting, group_id: i64, found: &[GroupNameRow]) -> ApiResult<()> {
    let group = found.iter().find(|g| g.id == group_id).ok_or_else(|| ApiError::bad_request("Invalid user group"))?;
    if group.name == system_groups::INTERNET || (!setting.allow_everyone && group.name == system_groups::EVERYONE) {
        return Err(ApiError::bad_request(format!("'{}' setting cannot be set to '{}' group.", setting.name, group.name)));
    }
    Ok(())
}

/// Zulip's check of `old`: the client's idea of the current value must be the current value.
pub fn check_old(change: &GroupChange, current: i64) -> ApiResult<()> {
    match change.old {
        Some(old) if old != current => Err(ApiError::bad_request("'old' value does not match the expected value.")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn named(id: i64, name: &str) -> GroupNameRow {
        GroupNameRow { id, name: name.into() }
    }

    #[test]
    fn values_are_a_group_id_or_an_anonymous_group_of_one_subgroup() {
        assert_eq!(group_id_of("s", &json!(7)).unwrap(), 7);
        assert_eq!(group_id_of("s", &json!({"direct_members": [], "direct_subgroups": [9]})).unwrap(), 9);
        assert!(group_id_of("s", &json!({"direct_members": [3], "direct_subgroups": []})).is_err());
        assert_eq!(group_id_of("s", &json!("x")).unwrap_err().msg, "Invalid s");
    }

    #[test]
    fn changes_carry_new_and_perhaps_old() {
        let change = group_change_of("s", &json!({"new": 4, "old": 5})).unwrap();
        assert_eq!((change.new, change.old), (4, Some(5)));
        assert_eq!(check_old(&change, 6).unwrap_err().msg, "'old' value does not match the expected value.");
        assert!(check_old(&change, 5).is_ok());
        assert_eq!(group_change_of("s", &json!(4)).unwrap().old, None);
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
    }
}
