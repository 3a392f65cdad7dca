//! Storing a group-setting value: a group is named by its id; a set of users and groups
//! becomes a new anonymous group, created in the same batch as the setting that names it.

use crate::db::statement::Statement;
use crate::db::user_groups::{self, SettingGroupRef};
use crate::domain::group_setting_values::GroupSettingValue;
use crate::error::ApiResult;

/// The statements to run first (an anonymous group's creation, if `value` is one) and what
/// the setting's column is then set to.
pub fn store(realm_id: i64, value: &GroupSettingValue, now: i64) -> ApiResult<(Vec<Statement>, SettingGroupRef)> {
    Ok(match value {
        GroupSettingValue::Group(id) => (Vec::new(), SettingGroupRef::Id(*id)),
        GroupSettingValue::Anonymous(g) if g.direct_members.is_empty() && g.direct_subgroups.is_empty() => {
            (Vec::new(), SettingGroupRef::Nobody)
        }
        GroupSettingValue::Anonymous(g) => {
            let key = user_groups::new_anonymous_key();
            let stmts = user_groups::insert_anonymous_stmts(realm_id, &key, &g.direct_members, &g.direct_subgroups, now)?;
            (stmts, SettingGroupRef::Anonymous(key))
        }
    })
}
