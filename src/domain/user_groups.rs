//! The user group object of the API.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use worker::D1Database;

use crate::db::batch::Batch;
use crate::db::user_groups::{self, GroupIdRow, IsMemberRow, MemberRow, SubgroupRow, UserGroupRow};
use crate::db::users::{self, UserIdRow, UserRow};
use crate::error::{ApiError, ApiResult};

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
        .map(|g| {
            let members = members_of.get(&g.id).map(Vec::as_slice).unwrap_or(&[]);
            let subs = subgroups_of.get(&g.id).map(Vec::as_slice).unwrap_or(&[]);
            group_dict(g, members, subs)
        })
        .collect()
}

/// A group of the organization; one error for missing and invisible.
fn access_group(group: Option<UserGroupRow>) -> ApiResult<UserGroupRow> {
    group.ok_or_else(|| ApiError::bad_request("Invalid user group"))
}

/// The active members of a group of the organization, through subgroups unless
/// `direct_only`: the group and its members read together, the group checked first.
pub async fn group_members(db: &D1Database, realm_id: i64, group_id: i64, direct_only: bool) -> ApiResult<Vec<i64>> {
    let mut batch = Batch::new();
    let group = batch.add::<UserGroupRow>(user_groups::by_id_stmt(db, realm_id, group_id)?);
    let members = batch.add::<UserIdRow>(user_groups::member_ids_stmt(db, realm_id, group_id, direct_only)?);
    let results = batch.run(db).await?;
    access_group(results.first(group)?)?;
    Ok(results.rows(members)?.into_iter().map(|m| m.id).collect())
}

/// The subgroups of a group of the organization, at any depth unless `direct_only`,
/// sorted: the group and its subgroups read together, the group checked first.
pub async fn group_subgroups(db: &D1Database, realm_id: i64, group_id: i64, direct_only: bool) -> ApiResult<Vec<i64>> {
    let mut batch = Batch::new();
    let group = batch.add::<UserGroupRow>(user_groups::by_id_stmt(db, realm_id, group_id)?);
    let subgroups = batch.add::<GroupIdRow>(user_groups::subgroup_ids_stmt(db, group_id, direct_only)?);
    let results = batch.run(db).await?;
    access_group(results.first(group)?)?;
    Ok(results.rows(subgroups)?.into_iter().map(|g| g.id).collect())
}

/// Whether the user is a member of the group (through subgroups at any depth unless
/// `direct_only`); a deactivated user never is. "Invalid user group" / "No such user" for
/// unknown ids: the group, the user, then the membership, read together.
pub async fn is_group_member(db: &D1Database, realm_id: i64, group_id: i64, user_id: i64, direct_only: bool) -> ApiResult<bool> {
    let mut batch = Batch::new();
    let group = batch.add::<UserGroupRow>(user_groups::by_id_stmt(db, realm_id, group_id)?);
    let user = batch.add::<UserRow>(users::by_id_stmt(db, realm_id, user_id)?);
    let member = batch.add::<IsMemberRow>(user_groups::is_member_stmt(realm_id, group_id, user_id, direct_only)?);
    let results = batch.run(db).await?;
    access_group(results.first(group)?)?;
    results.first(user)?.ok_or_else(ApiError::no_such_user)?;
    // The statement counts active users only.
    Ok(results.first(member)?.is_some_and(|m| m.is_member != 0))
}

/// Every group of the organization (system groups included) with its direct members and
/// subgroups, as `GET /user_groups` lists them. One batch.
pub async fn groups_of(db: &D1Database, realm_id: i64) -> ApiResult<Vec<Value>> {
    let mut batch = Batch::new();
    let groups = batch.add::<UserGroupRow>(user_groups::in_realm_stmt(db, realm_id)?);
    let members = batch.add::<MemberRow>(user_groups::direct_members_stmt(db, realm_id)?);
    let subgroups = batch.add::<SubgroupRow>(user_groups::subgroups_stmt(db, realm_id)?);
    let results = batch.run(db).await?;
    Ok(groups_list(&results.rows(groups)?, &results.rows(members)?, &results.rows(subgroups)?))
}
