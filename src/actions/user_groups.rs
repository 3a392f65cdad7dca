//! User-defined groups: creation, members and subgroups. System groups (`role:*`) are
//! derived from roles and cannot be edited.

use worker::{D1Database, Env};

use crate::actions::notify_realm;
use crate::auth::require_member;
use crate::db::user_groups::{self, NewUserGroup, UserGroupRow};
use crate::db::users::{self, UserRow};
use crate::domain::ids::UserId;
use crate::domain::user_groups::{access_group, group_dict};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, UserGroupEvent};

pub const NAME_MAX_LENGTH: usize = 100;
/// Prefixes reserved for system groups and mention syntax.
const RESERVED_PREFIXES: &[&str] = &["@", "role:", "user:", "stream:", "channel:"];

fn ids_json(ids: &[i64]) -> String {
    serde_json::to_string(ids).unwrap_or_else(|_| "[]".into())
}

fn unique(ids: &[i64]) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    for id in ids {
        if !out.contains(id) {
            out.push(*id);
        }
    }
    out
}

pub fn check_group_name(raw: &str) -> ApiResult<String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(ApiError::bad_request("User group name cannot be empty."));
    }
    if name.chars().count() > NAME_MAX_LENGTH {
        return Err(ApiError::bad_request(format!("User group name cannot exceed {NAME_MAX_LENGTH} characters.")));
    }
    if let Some(prefix) = RESERVED_PREFIXES.iter().find(|p| name.starts_with(**p)) {
        return Err(ApiError::bad_request(format!("User group name cannot start with '{prefix}'.")));
    }
    Ok(name.to_string())
}

/// A group the caller may edit: not a system group; the caller an administrator, the
/// group's creator or one of its direct members.
pub async fn access_group_for_edit(db: &D1Database, user: &UserRow, group_id: i64) -> ApiResult<UserGroupRow> {
    require_member(user)?;
    let group = access_group(db, user.realm_id, group_id).await?;
    if group.is_system_group != 0 || group.deactivated != 0 {
        return Err(ApiError::bad_request("Insufficient permission"));
    }
    let allowed = user.is_realm_admin()
        || group.creator_id == Some(user.id)
        || user_groups::explicit_member_ids(db, group.id).await?.contains(&user.id);
    if !allowed {
        return Err(ApiError::bad_request("Insufficient permission"));
    }
    Ok(group)
}

/// Active users of the organization among `ids` (bots allowed), else "Invalid user ID".
async fn check_users(db: &D1Database, realm_id: i64, ids: &[i64]) -> ApiResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let found = users::by_ids(db, realm_id, ids).await?;
    if let Some(bad) = ids.iter().find(|id| !found.iter().any(|u| u.id == **id && u.is_active())) {
        return Err(ApiError::bad_request(format!("Invalid user ID: {bad}")));
    }
    Ok(())
}

async fn check_groups(db: &D1Database, realm_id: i64, ids: &[i64]) -> ApiResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let found = user_groups::by_ids(db, realm_id, &ids_json(ids)).await?;
    if let Some(bad) = ids.iter().find(|id| !found.iter().any(|g| g.id == **id && g.deactivated == 0)) {
        return Err(ApiError::bad_request(format!("Invalid user group ID: {bad}")));
    }
    Ok(())
}

pub struct NewGroup<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub members: &'a [i64],
    pub subgroups: &'a [i64],
}

/// `POST /user_groups/create`; answers the new group's id.
pub async fn check_create_group(db: &D1Database, env: &Env, creator: &UserRow, group: &NewGroup<'_>) -> ApiResult<i64> {
    require_member(creator)?;
    let name = check_group_name(group.name)?;
    let members = unique(group.members);
    let subgroups = unique(group.subgroups);
    check_users(db, creator.realm_id, &members).await?;
    check_groups(db, creator.realm_id, &subgroups).await?;
    let already = "User group '".to_string() + &name + "' already exists.";
    let new_group = NewUserGroup {
        realm_id: creator.realm_id,
        name: &name,
        description: group.description,
        creator_id: creator.id,
        members_json: &ids_json(&members),
        subgroups_json: &ids_json(&subgroups),
    };
    let id = user_groups::insert(db, &new_group, crate::db::now()).await.map_err(|err| {
        if err.to_string().contains("UNIQUE") {
            ApiError::bad_request(already.clone())
        } else {
            ApiError::from(err)
        }
    })?;
    if let Some(row) = user_groups::by_id(db, creator.realm_id, id).await? {
        notify_realm(env, creator.realm_id, &Event::UserGroup(UserGroupEvent::Add { group: group_dict(&row, &members, &subgroups) })).await;
    }
    Ok(id)
}

/// `POST /user_groups/{id}/members`: every addition must be new and every removal a
/// current direct member; all checked before the one batch of writes.
pub async fn check_update_members(
    db: &D1Database,
    env: &Env,
    user: &UserRow,
    group_id: i64,
    add: &[UserId],
    delete: &[UserId],
) -> ApiResult<()> {
    let add: Vec<i64> = add.iter().map(|u| u.0).collect();
    let delete: Vec<i64> = delete.iter().map(|u| u.0).collect();
    if add.is_empty() && delete.is_empty() {
        return Err(ApiError::bad_request("Nothing to do. Specify at least one of \"add\" or \"delete\"."));
    }
    let group = access_group_for_edit(db, user, group_id).await?;
    let (add, delete) = (unique(&add), unique(&delete));
    check_users(db, user.realm_id, &add).await?;
    let current = user_groups::explicit_member_ids(db, group.id).await?;
    if let Some(id) = add.iter().find(|id| current.contains(id)) {
        return Err(ApiError::bad_request(format!("User {id} is already a member of this group")));
    }
    if let Some(id) = delete.iter().find(|id| !current.contains(id)) {
        return Err(ApiError::bad_request(format!("There is no member '{id}' in this user group")));
    }
    let mut stmts = Vec::new();
    if !add.is_empty() {
        stmts.push(user_groups::add_members_stmt(db, group.id, &ids_json(&add))?);
    }
    if !delete.is_empty() {
        stmts.push(user_groups::remove_members_stmt(db, group.id, &ids_json(&delete))?);
    }
    crate::db::run_batch(db, stmts).await?;
    if !add.is_empty() {
        notify_realm(env, user.realm_id, &Event::UserGroup(UserGroupEvent::AddMembers { group_id: group.id, user_ids: add.to_vec() }))
            .await;
    }
    if !delete.is_empty() {
        notify_realm(
            env,
            user.realm_id,
            &Event::UserGroup(UserGroupEvent::RemoveMembers { group_id: group.id, user_ids: delete.to_vec() }),
        )
        .await;
    }
    Ok(())
}

/// `POST /user_groups/{id}/subgroups`: additions must be new and must not make a cycle
/// (the group may not be reachable from a new subgroup); removals must be direct subgroups.
pub async fn check_update_subgroups(
    db: &D1Database,
    env: &Env,
    user: &UserRow,
    group_id: i64,
    add: &[i64],
    delete: &[i64],
) -> ApiResult<()> {
    if add.is_empty() && delete.is_empty() {
        return Err(ApiError::bad_request("Nothing to do. Specify at least one of \"add\" or \"delete\"."));
    }
    let group = access_group_for_edit(db, user, group_id).await?;
    let (add, delete) = (unique(add), unique(delete));
    check_groups(db, user.realm_id, &add).await?;
    check_groups(db, user.realm_id, &delete).await?;
    let current = user_groups::direct_subgroup_ids(db, group.id).await?;
    if let Some(id) = add.iter().find(|id| current.contains(id)) {
        return Err(ApiError::bad_request(format!("User group {id} is already a subgroup of this group.")));
    }
    if let Some(id) = delete.iter().find(|id| !current.contains(id)) {
        return Err(ApiError::bad_request(format!("User group {id} is not a subgroup of this group.")));
    }
    if !add.is_empty() && user_groups::recursive_subgroup_ids(db, &ids_json(&add)).await?.contains(&group.id) {
        return Err(ApiError::bad_request(format!("User group {} is already a subgroup of one of the passed subgroups.", group.id)));
    }
    let mut stmts = Vec::new();
    if !add.is_empty() {
        stmts.push(user_groups::add_subgroups_stmt(db, group.id, &ids_json(&add))?);
    }
    if !delete.is_empty() {
        stmts.push(user_groups::remove_subgroups_stmt(db, group.id, &ids_json(&delete))?);
    }
    crate::db::run_batch(db, stmts).await?;
    if !add.is_empty() {
        let event = Event::UserGroup(UserGroupEvent::AddSubgroups { group_id: group.id, direct_subgroup_ids: add.to_vec() });
        notify_realm(env, user.realm_id, &event).await;
    }
    if !delete.is_empty() {
        let event = Event::UserGroup(UserGroupEvent::RemoveSubgroups { group_id: group.id, direct_subgroup_ids: delete.to_vec() });
        notify_realm(env, user.realm_id, &event).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_group_name;

    #[test]
    fn group_names_are_trimmed_bounded_and_not_reserved() {
        assert_eq!(check_group_name("  support ").unwrap(), "support");
        assert_eq!(check_group_name("").unwrap_err().msg, "User group name cannot be empty.");
        assert_eq!(check_group_name(&"x".repeat(101)).unwrap_err().msg, "User group name cannot exceed 100 characters.");
        assert_eq!(check_group_name("role:admins").unwrap_err().msg, "User group name cannot start with 'role:'.");
    }
}
