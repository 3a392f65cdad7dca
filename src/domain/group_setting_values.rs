//! Group-setting values (Zulip's `/api/group-setting-values`): who holds a permission, as a
//! user group's id or as an anonymous group, a set of users and groups that only the
//! setting names (stored as a hidden user group, `user_groups.is_anonymous`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::db::user_groups::GroupNameRow;
use crate::db::users::UserRow;
use crate::error::{ApiError, ApiResult};
use crate::model::system_groups;

/// The members of an anonymous group, sorted.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AnonymousGroup {
    pub direct_members: Vec<i64>,
    pub direct_subgroups: Vec<i64>,
}

/// A group-setting value as a client sends it, canonical: a set of no users and one group
/// is that group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupSettingValue {
    Group(i64),
    Anonymous(AnonymousGroup),
}

impl GroupSettingValue {
    /// Parses a value: an integer, or an object with `direct_members` and
    /// `direct_subgroups` (integer lists).
    pub fn parse(setting: &str, value: &Value) -> ApiResult<Self> {
        if let Some(id) = value.as_i64() {
            return Ok(GroupSettingValue::Group(id));
        }
        let invalid = || ApiError::bad_request(format!("Invalid {setting}"));
        let ids = |key: &str| -> ApiResult<Vec<i64>> {
            let list = value.get(key).and_then(Value::as_array).ok_or_else(invalid)?;
            let mut ids = list.iter().map(|v| v.as_i64().ok_or_else(invalid)).collect::<ApiResult<Vec<i64>>>()?;
            ids.sort_unstable();
            ids.dedup();
            Ok(ids)
        };
        if value.as_object().is_some_and(|o| o.keys().any(|k| k != "direct_members" && k != "direct_subgroups")) {
            return Err(invalid());
        }
        let group = AnonymousGroup { direct_members: ids("direct_members")?, direct_subgroups: ids("direct_subgroups")? };
        Ok(match group.direct_subgroups.as_slice() {
            [only] if group.direct_members.is_empty() => GroupSettingValue::Group(*only),
            _ => GroupSettingValue::Anonymous(group),
        })
    }

    /// The value as the API shows it.
    pub fn to_json(&self) -> Value {
        match self {
            GroupSettingValue::Group(id) => json!(id),
            GroupSettingValue::Anonymous(group) => json!(group),
        }
    }

    /// The groups the value names (its own, or the anonymous group's subgroups).
    pub fn group_ids(&self) -> Vec<i64> {
        match self {
            GroupSettingValue::Group(id) => vec![*id],
            GroupSettingValue::Anonymous(group) => group.direct_subgroups.clone(),
        }
    }

    /// The users the value names directly.
    pub fn user_ids(&self) -> &[i64] {
        match self {
            GroupSettingValue::Group(_) => &[],
            GroupSettingValue::Anonymous(group) => &group.direct_members,
        }
    }

    /// Zulip stores a set of nobody as the `role:nobody` group.
    pub fn or_nobody(self, nobody: i64) -> Self {
        match self {
            GroupSettingValue::Anonymous(g) if g.direct_members.is_empty() && g.direct_subgroups.is_empty() => {
                GroupSettingValue::Group(nobody)
            }
            value => value,
        }
    }
}

/// Zulip's checks of a setting's new value, as sent, for the setting `setting` (whether it
/// allows `role:everyone`, which includes guests): each group it names an active group of
/// the organization (`found`), never `role:internet`; each user an active user of the
/// organization (`users`). One rule for channel, user-group and organization settings.
pub fn check_value(
    setting: &str,
    allow_everyone: bool,
    value: &GroupSettingValue,
    found: &[GroupNameRow],
    users: &[UserRow],
) -> ApiResult<()> {
    for group_id in value.group_ids() {
        check_group(setting, allow_everyone, group_id, found)?;
    }
    match value.user_ids().iter().find(|id| !users.iter().any(|u| u.id == **id && u.is_active())) {
        Some(bad) => Err(ApiError::bad_request(format!("Invalid user ID: {bad}"))),
        None => Ok(()),
    }
}

/// [`check_value`]'s rule for one group.
pub fn check_group(setting: &str, allow_everyone: bool, group_id: i64, found: &[GroupNameRow]) -> ApiResult<()> {
    let group = found.iter().find(|g| g.id == group_id).ok_or_else(ApiError::invalid_user_group)?;
    if group.name == system_groups::INTERNET || (!allow_everyone && group.name == system_groups::EVERYONE) {
        return Err(ApiError::bad_request(format!("'{setting}' setting cannot be set to '{}' group.", group.name)));
    }
    Ok(())
}

/// A change as `PATCH` endpoints take it: `{"new": …, "old": …}` (`old` optional), or the
/// bare new value.
#[derive(Debug, Clone)]
pub struct GroupChange {
    pub new: GroupSettingValue,
    pub old: Option<GroupSettingValue>,
}

impl GroupChange {
    pub fn parse(setting: &str, value: &Value) -> ApiResult<Self> {
        match value.get("new") {
            Some(new) => {
                let old = value.get("old").map(|old| GroupSettingValue::parse(setting, old)).transpose()?;
                Ok(GroupChange { new: GroupSettingValue::parse(setting, new)?, old })
            }
            None => Ok(GroupChange { new: GroupSettingValue::parse(setting, value)?, old: None }),
        }
    }

    /// Zulip's check of `old`: the client's idea of the current value must be the current
    /// value.
    pub fn check_old(&self, current: &GroupSettingValue) -> ApiResult<()> {
        match &self.old {
            Some(old) if old != current => Err(ApiError::bad_request("'old' value does not match the expected value.")),
            _ => Ok(()),
        }
    }
}

/// The anonymous groups that stored settings name, by id, as the database answers them (a
/// JSON object of id -> [`AnonymousGroup`]).
#[derive(Debug, Clone, Default)]
pub struct AnonymousGroups(HashMap<i64, AnonymousGroup>);

impl AnonymousGroups {
    pub fn from_json(raw: Option<&str>) -> Self {
        let parsed: HashMap<String, AnonymousGroup> = raw.and_then(|raw| serde_json::from_str(raw).ok()).unwrap_or_default();
        AnonymousGroups(parsed.into_iter().filter_map(|(id, g)| Some((id.parse().ok()?, g))).collect())
    }

    pub fn insert(&mut self, id: i64, group: AnonymousGroup) {
        self.0.insert(id, group);
    }

    /// The value a stored group id stands for.
    pub fn value_of(&self, id: i64) -> GroupSettingValue {
        match self.0.get(&id) {
            Some(group) => GroupSettingValue::Anonymous(group.clone()),
            None => GroupSettingValue::Group(id),
        }
    }

    /// The stored group id as the API shows it.
    pub fn json_of(&self, id: i64) -> Value {
        self.value_of(id).to_json()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_of_one_group_and_no_users_is_that_group() {
        let value = GroupSettingValue::parse("s", &json!({"direct_members": [], "direct_subgroups": [9]})).unwrap();
        assert_eq!(value, GroupSettingValue::Group(9));
    }

    #[test]
    fn a_set_of_users_is_an_anonymous_group_sorted() {
        let value = GroupSettingValue::parse("s", &json!({"direct_members": [5, 3, 5], "direct_subgroups": [2]})).unwrap();
        assert_eq!(value.to_json(), json!({"direct_members": [3, 5], "direct_subgroups": [2]}));
    }

    #[test]
    fn an_empty_set_is_nobody() {
        let value = GroupSettingValue::parse("s", &json!({"direct_members": [], "direct_subgroups": []})).unwrap();
        assert_eq!(value.or_nobody(7), GroupSettingValue::Group(7));
    }

    #[test]
    fn malformed_values_are_refused() {
        for bad in [json!("x"), json!({"direct_members": [1]}), json!({"direct_members": ["a"], "direct_subgroups": []})] {
            assert!(GroupSettingValue::parse("can_x_group", &bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn stored_anonymous_groups_show_as_their_sets() {
        let groups = AnonymousGroups::from_json(Some(r#"{"12": {"direct_members": [4], "direct_subgroups": []}}"#));
        assert_eq!(groups.json_of(12), json!({"direct_members": [4], "direct_subgroups": []}));
        assert_eq!(groups.json_of(13), json!(13));
    }
}
