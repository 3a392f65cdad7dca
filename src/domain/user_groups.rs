//! The user group object of the API.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use worker::D1Database;

use crate::db::batch::Batch;
use crate::db::user_groups::{self, GroupIdRow, IsMemberRow, MemberRow, SettingUseRow, SubgroupRow, UserGroupRow};
use crate::db::users::{self, UserIdRow, UserRow};
use crate::domain::group_setting_values::{AnonymousGroup, AnonymousGroups, GroupSettingValue};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{GroupId, RealmId, UserId};

/// Whether the active `user` is a direct member of the system group `group` by role: the
/// group's role, and for `role:fullmembers` past the organization's waiting period
/// (`waiting_period_days` since joining). The rule of `db::user_groups::by_role_sql`.
pub fn member_by_role(group: &UserGroupRow, user: &UserRow, waiting_period_days: i64, now: i64) -> bool {
    let waited = group.name != crate::model::system_groups::FULL_MEMBERS || user.date_joined <= now - 86_400 * waiting_period_days;
    user.is_active() && group.system_role == Some(user.role) && waited
}

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
        "can_add_members_group": permission_value(group, group.can_add_members_group),
        "can_join_group": permission_value(group, group.can_join_group),
        "can_leave_group": permission_value(group, group.can_leave_group),
        "can_manage_group": permission_value(group, group.can_manage_group),
        "can_mention_group": permission_value(group, group.can_mention_group),
        "can_remove_members_group": permission_value(group, group.can_remove_members_group),
    })
}

/// A permission setting as the API shows it: the group id, or for "the creator" the
/// anonymous group of the creator alone.
pub fn permission_value(group: &UserGroupRow, setting: Option<i64>) -> Value {
    current_permission(group, setting).to_json()
}

/// A permission setting's value: its group (an anonymous group as its set), or for "the
/// creator" the anonymous group of the creator alone.
pub fn current_permission(group: &UserGroupRow, setting: Option<i64>) -> GroupSettingValue {
    match setting {
        Some(id) => AnonymousGroups::from_json(group.anonymous_groups.as_deref()).value_of(id),
        None => GroupSettingValue::Anonymous(AnonymousGroup {
            direct_members: group.creator_id.into_iter().collect(),
            direct_subgroups: vec![],
        }),
    }
}

/// One permission setting of a user group.
pub struct GroupPermission {
    pub name: &'static str,
    /// Whether `role:everyone` (which includes guests) is allowed.
    pub allow_everyone: bool,
}

/// Zulip's permission settings of a named group, in its order.
pub const PERMISSIONS: [GroupPermission; 6] = [
    GroupPermission { name: "can_add_members_group", allow_everyone: false },
    GroupPermission { name: "can_join_group", allow_everyone: false },
    GroupPermission { name: "can_leave_group", allow_everyone: true },
    GroupPermission { name: "can_manage_group", allow_everyone: false },
    GroupPermission { name: "can_mention_group", allow_everyone: true },
    GroupPermission { name: "can_remove_members_group", allow_everyone: false },
];

/// The stored value of the setting `name` of `group`.
pub fn permission_of(group: &UserGroupRow, name: &str) -> Option<i64> {
    match name {
        "can_add_members_group" => group.can_add_members_group,
        "can_join_group" => group.can_join_group,
        "can_leave_group" => group.can_leave_group,
        "can_manage_group" => group.can_manage_group,
        "can_mention_group" => group.can_mention_group,
        _ => group.can_remove_members_group,
    }
}

/// Whether `user` holds a permission setting of `group`: is in its group (`my_groups`: every
/// group the user belongs to), or is the creator where the setting is "the creator".
pub fn holds(group: &UserGroupRow, setting: Option<i64>, user: &UserRow, my_groups: &[i64]) -> bool {
    match setting {
        Some(id) => my_groups.contains(&id),
        None => group.creator_id == Some(user.id),
    }
}

/// What decides which groups a user may change: the groups they belong to, and whether they
/// are in the organization's `can_manage_all_groups` (owners by default).
pub struct Membership {
    pub groups: Vec<i64>,
    pub manages_all: bool,
}

fn manages(user: &UserRow, group: &UserGroupRow, me: &Membership) -> bool {
    me.manages_all || holds(group, group.can_manage_group, user, &me.groups)
}

/// A group `user` may change: not a system group, and the user an administrator, in its
/// `can_manage_group`, or holding the permission setting `permission` when given.
pub fn check_group_access(
    user: &UserRow,
    group: Option<UserGroupRow>,
    me: &Membership,
    permission: Option<&str>,
) -> ApiResult<UserGroupRow> {
    let group = access_group(group)?;
    let permitted = permission.is_some_and(|name| holds(&group, permission_of(&group, name), user, &me.groups));
    if group.is_system_group == 0 && (manages(user, &group, me) || permitted) {
        Ok(group)
    } else {
        Err(ApiError::insufficient_permission())
    }
}

/// A group whose members `user` may change so: managing it allows any change; else adding
/// needs `can_add_members_group` (joining alone: or `can_join_group`) and removing
/// `can_remove_members_group` (leaving alone: or `can_leave_group`).
pub fn check_membership_access(
    user: &UserRow,
    group: Option<UserGroupRow>,
    me: &Membership,
    add: &[i64],
    delete: &[i64],
) -> ApiResult<UserGroupRow> {
    let group = access_group(group)?;
    let may = |name: &str| holds(&group, permission_of(&group, name), user, &me.groups);
    let only_me = |ids: &[i64]| ids == [user.id];
    let adding = add.is_empty() || may("can_add_members_group") || (only_me(add) && may("can_join_group"));
    let removing = delete.is_empty() || may("can_remove_members_group") || (only_me(delete) && may("can_leave_group"));
    if group.is_system_group == 0 && (manages(user, &group, me) || (adding && removing)) {
        Ok(group)
    } else {
        Err(ApiError::insufficient_permission())
    }
}

/// Zulip's `objections` to deactivating a group: the active groups having it as a subgroup,
/// then the unarchived channels, the active groups and the organization whose settings
/// name it.
pub fn deactivation_objections(
    supergroups: &[i64],
    channel_uses: &[SettingUseRow],
    group_uses: &[SettingUseRow],
    realm_uses: &[SettingUseRow],
) -> Vec<Value> {
    let mut objections = Vec::new();
    if !supergroups.is_empty() {
        objections.push(json!({ "type": "subgroup", "supergroup_ids": supergroups }));
    }
    for (kind, key, uses) in [("channel", "channel_id", channel_uses), ("user_group", "group_id", group_uses)] {
        let mut owners: Vec<i64> = uses.iter().filter_map(|u| u.owner_id).collect();
        owners.dedup();
        for owner in owners {
            let settings: Vec<&str> = uses.iter().filter(|u| u.owner_id == Some(owner)).map(|u| u.setting.as_str()).collect();
            objections.push(json!({ "type": kind, key: owner, "settings": settings }));
        }
    }
    if !realm_uses.is_empty() {
        let settings: Vec<&str> = realm_uses.iter().map(|u| u.setting.as_str()).collect();
        objections.push(json!({ "type": "realm", "settings": settings }));
    }
    objections
}

/// Every group of an organization as `GET /user_groups` (and `realm_user_groups` of a
/// register response) lists them, from the rows of `db::user_groups::in_realm_stmt`,
/// `direct_members_stmt` and `subgroups_stmt` (one batch).
pub fn groups_list(groups: &[UserGroupRow], members: &[MemberRow], subgroups: &[SubgroupRow]) -> Vec<Value> {
    let mut members_of: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for m in members {
        members_of.entry(m.group_id).or_default().push(m.user_id);
    }
    let mut subgroups_of: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for s in subgroups {
        subgroups_of.entry(s.supergroup_id).or_default().push(s.subgroup_id);
    }
    groups
        .iter()
        .filter(|g| g.is_anonymous == 0)
        .map(|g| {
            let members = members_of.get(&g.id).map(Vec::as_slice).unwrap_or(&[]);
            let subs = subgroups_of.get(&g.id).map(Vec::as_slice).unwrap_or(&[]);
            group_dict(g, members, subs)
        })
        .collect()
}

/// A group of the organization; one error for missing and invisible.
fn access_group(group: Option<UserGroupRow>) -> ApiResult<UserGroupRow> {
    group.ok_or_else(ApiError::invalid_user_group)
}

/// The active members of a group of the organization, through subgroups unless
/// `direct_only`: the group and its members read together, the group checked first.
pub async fn group_members(db: &D1Database, realm_id: RealmId, group_id: GroupId, direct_only: bool) -> ApiResult<Vec<i64>> {
    let mut batch = Batch::new();
    let group = batch.add::<UserGroupRow>(user_groups::by_id_stmt(realm_id, group_id)?);
    let members = batch.add::<UserIdRow>(user_groups::member_ids_stmt(realm_id, group_id, direct_only)?);
    let results = batch.run(db).await?;
    access_group(results.first(group)?)?;
    Ok(results.rows(members)?.into_iter().map(|m| m.id).collect())
}

/// The subgroups of a group of the organization, at any depth unless `direct_only`,
/// sorted: the group and its subgroups read together, the group checked first.
pub async fn group_subgroups(db: &D1Database, realm_id: RealmId, group_id: GroupId, direct_only: bool) -> ApiResult<Vec<i64>> {
    let mut batch = Batch::new();
    let group = batch.add::<UserGroupRow>(user_groups::by_id_stmt(realm_id, group_id)?);
    let subgroups = batch.add::<GroupIdRow>(user_groups::subgroup_ids_stmt(group_id.0, direct_only)?);
    let results = batch.run(db).await?;
    access_group(results.first(group)?)?;
    Ok(results.rows(subgroups)?.into_iter().map(|g| g.id).collect())
}

/// Whether the user is a member of the group (through subgroups at any depth unless
/// `direct_only`); a deactivated user never is. "Invalid user group" / "No such user" for
/// unknown ids: the group, the user, then the membership, read together.
pub async fn is_group_member(db: &D1Database, realm_id: RealmId, group_id: GroupId, user_id: UserId, direct_only: bool) -> ApiResult<bool> {
    let mut batch = Batch::new();
    let group = batch.add::<UserGroupRow>(user_groups::by_id_stmt(RealmId(realm_id.0), group_id)?);
    let user = batch.add::<UserRow>(users::by_id_stmt(realm_id, user_id)?);
    let member = batch.add::<IsMemberRow>(user_groups::is_member_stmt(realm_id, group_id, user_id, direct_only)?);
    let results = batch.run(db).await?;
    access_group(results.first(group)?)?;
    results.first(user)?.ok_or_else(ApiError::no_such_user)?;
    // The statement counts active users only.
    Ok(results.first(member)?.is_some_and(|m| m.is_member != 0))
}

/// Every group of the organization (system groups included) with its direct members and
/// subgroups, as `GET /user_groups` lists them (deactivated ones only when asked). One
/// batch.
pub async fn groups_of(db: &D1Database, realm_id: i64, include_deactivated: bool) -> ApiResult<Vec<Value>> {
    let mut batch = Batch::new();
    let groups = batch.add::<UserGroupRow>(user_groups::in_realm_stmt(realm_id)?);
    let members = batch.add::<MemberRow>(user_groups::direct_members_stmt(realm_id)?);
    let subgroups = batch.add::<SubgroupRow>(user_groups::subgroups_stmt(realm_id)?);
    let results = batch.run(db).await?;
    let mut groups: Vec<UserGroupRow> = results.rows(groups)?;
    groups.retain(|g| include_deactivated || g.deactivated == 0);
    Ok(groups_list(&groups, &results.rows(members)?, &results.rows(subgroups)?))
}
