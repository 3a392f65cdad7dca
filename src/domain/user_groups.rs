//! The user group object of the API.

use serde_json::{json, Value};

use crate::db::user_groups::UserGroupRow;

/// A group as `GET /user_groups` and the `user_group` add event show it: `members` are the
/// active direct members (for system groups, the users of the role), `direct_subgroup_ids`
/// the groups nested directly inside it.
pub fn group_dict(group: &UserGroupRow, members: &[i64], direct_subgroup_ids: &[i64]) -> Value {
    json!({
        "id": group.id,
        "name": group.name,
        "description": group.description,
        "members": members,
        "direct_subgroup_ids": direct_subgroup_ids,
        "is_system_group": group.is_system_group != 0,
        "creator_id": group.creator_id,
        "date_created": group.date_created,
        "deactivated": group.deactivated != 0,
    })
}
