//! User-defined groups: creation, editing, permission settings, deactivation, members and
//! subgroups. System groups (`role:*`) are derived from roles and cannot be edited.

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::actions::notify_realm;
use crate::auth::require_member;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::statement::Statement;
use crate::db::subscriptions::{self, SeenThroughGroupRow};
use crate::db::user_groups::SettingGroupRef;
use crate::db::user_groups::{self, GroupIdRow, GroupNameRow, IsMemberRow, MemberIdRow, NewUserGroup, SettingUseRow, UserGroupRow};
use crate::db::users::{self, UserRow};
use crate::domain::group_setting_values::{self, GroupChange, GroupSettingValue};
use crate::domain::user_groups::{
    check_group_access, check_membership_access, current_permission, deactivation_objections, group_dict, permission_of, GroupPermission,
    Membership,
};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{CapabilityGate, Event, UserGroupEvent};
use crate::model::ids::{GroupId, RealmId, UserId};
use crate::model::system_groups;

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

/// Every group `user` belongs to (the permission settings name groups) and whether they are
/// in the organization's `can_manage_all_groups`, read in `batch`.
struct MembershipReads {
    groups: Slot<GroupIdRow>,
    manages_all: Slot<IsMemberRow>,
}

impl MembershipReads {
    fn take(self, results: &BatchResults) -> ApiResult<Membership> {
        let manages_all = results.first(self.manages_all)?.is_some_and(|m| m.is_member != 0);
        Ok(Membership { groups: ids_of(results.rows(self.groups)?), manages_all })
    }
}

fn add_my_groups(batch: &mut Batch, user: &UserRow) -> ApiResult<MembershipReads> {
    let manages_all = crate::db::realm_settings::in_group_setting_stmt(RealmId(user.realm_id), "can_manage_all_groups", UserId(user.id))?;
    Ok(MembershipReads {
        groups: batch.add::<GroupIdRow>(user_groups::groups_of_user_stmt(RealmId(user.realm_id), UserId(user.id))?),
        manages_all: batch.add::<IsMemberRow>(manages_all),
    })
}

fn ids_of(rows: Vec<GroupIdRow>) -> Vec<i64> {
    rows.into_iter().map(|g| g.id).collect()
}

/// Active users of the organization among `ids` (bots allowed), else "Invalid user ID";
/// `found`: the organization's users among them.
fn check_users(ids: &[i64], found: &[UserRow]) -> ApiResult<()> {
    if let Some(bad) = ids.iter().find(|id| !found.iter().any(|u| u.id == **id && u.is_active())) {
        return Err(ApiError::bad_request(format!("Invalid user ID: {bad}")));
    }
    Ok(())
}

/// Active groups of the organization among `ids`, else "Invalid user group ID"; `found`:
/// the organization's groups among them.
fn check_groups(ids: &[i64], found: &[UserGroupRow]) -> ApiResult<()> {
    if let Some(bad) = ids.iter().find(|id| !found.iter().any(|g| g.id == **id && g.deactivated == 0)) {
        return Err(ApiError::bad_request(format!("Invalid user group ID: {bad}")));
    }
    Ok(())
}

/// Reads the organization's users among `ids` in `batch`, unless there are none.
fn add_users(batch: &mut Batch, realm_id: i64, ids: &[i64]) -> ApiResult<Option<Slot<UserRow>>> {
    Ok(if ids.is_empty() { None } else { Some(batch.add(users::by_ids_stmt(realm_id, &ids_json(ids))?)) })
}

/// Reads the organization's groups among `ids` in `batch`, unless there are none.
fn add_groups(batch: &mut Batch, realm_id: i64, ids: &[i64]) -> ApiResult<Option<Slot<UserGroupRow>>> {
    Ok(if ids.is_empty() { None } else { Some(batch.add(user_groups::by_ids_stmt(realm_id, &ids_json(ids))?)) })
}

pub struct NewGroup<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub members: &'a [i64],
    pub subgroups: &'a [i64],
    /// Permission settings set at creation (a group id, or Zulip's anonymous group of one
    /// subgroup); the others keep their defaults.
    pub permissions: &'a [(&'static GroupPermission, Value)],
}

/// `POST /user_groups/create`; answers the new group's id.
pub async fn check_create_group(db: &D1Database, env: &Env, creator: &UserRow, group: &NewGroup<'_>) -> ApiResult<i64> {
    require_member(creator)?;
    let name = check_group_name(group.name)?;
    let members = unique(group.members);
    let subgroups = unique(group.subgroups);
    let permissions: Vec<(&'static GroupPermission, GroupSettingValue)> =
        group.permissions.iter().map(|(s, raw)| Ok((*s, GroupSettingValue::parse(s.name, raw)?))).collect::<ApiResult<_>>()?;
    {
        let mut batch = Batch::new();
        let setting = crate::db::realm_settings::in_group_setting_stmt(RealmId(creator.realm_id), "can_create_groups", UserId(creator.id))?;
        let may_create = batch.add::<IsMemberRow>(setting);
        let named_users: Vec<i64> = permissions.iter().flat_map(|(_, v)| v.user_ids().to_vec()).collect();
        let found_users = add_users(&mut batch, creator.realm_id, &unique(&[members.clone(), named_users].concat()))?;
        let found_groups = add_groups(&mut batch, creator.realm_id, &subgroups)?;
        let named: Vec<i64> = permissions.iter().flat_map(|(_, v)| v.group_ids()).collect();
        let found_named = (!named.is_empty()).then(|| user_groups::active_names_stmt(creator.realm_id, &named)).transpose()?;
        let found_named = found_named.map(|stmt| batch.add::<GroupNameRow>(stmt));
        let results = batch.run(db).await?;
        // The organization's `can_create_groups`.
        let may_create = results.first(may_create)?.is_some_and(|m| m.is_member != 0);
        if !may_create {
            return Err(ApiError::insufficient_permission());
        }
        let found_users = results.rows_if_added(found_users)?;
        check_users(&members, &found_users)?;
        check_groups(&subgroups, &results.rows_if_added(found_groups)?)?;
        let found_named = results.rows_if_added(found_named)?;
        for (setting, value) in &permissions {
            group_setting_values::check_value(setting.name, setting.allow_everyone, value, &found_named, &found_users)?;
        }
    }
    let mut setup = Vec::new();
    let mut permission_columns: Vec<(&'static str, SettingGroupRef)> = Vec::new();
    for (setting, value) in &permissions {
        let (stmts, group_ref) = crate::actions::group_setting_values::store(creator.realm_id, value, crate::db::now())?;
        setup.extend(stmts);
        permission_columns.push((setting.name, group_ref));
    }
    let already = "User group '".to_string() + &name + "' already exists.";
    let new_group = NewUserGroup {
        realm_id: creator.realm_id,
        name: &name,
        description: group.description,
        creator_id: creator.id,
        members_json: &ids_json(&members),
        subgroups_json: &ids_json(&subgroups),
        permissions: &permission_columns,
    };
    let row = user_groups::insert(db, &new_group, setup, crate::db::now()).await.map_err(|err| {
        if err.to_string().contains("UNIQUE") {
            ApiError::bad_request(already.clone())
        } else {
            ApiError::from(err)
        }
    })?;
    notify_realm(env, creator.realm_id, &Event::UserGroup(UserGroupEvent::Add { group: group_dict(&row, &members, &subgroups) })).await;
    Ok(row.id)
}

/// What `PATCH /user_groups/{id}` asks to change.
#[derive(Default)]
pub struct GroupUpdate {
    pub name: Option<String>,
    pub description: Option<String>,
    /// `false` reactivates a deactivated group (`true` is `POST .../deactivate`'s job).
    pub deactivated: Option<bool>,
    /// Permission settings: `{"new": ..., "old": ...}` or the bare new value.
    pub permissions: Vec<(&'static GroupPermission, Value)>,
}

/// A permission setting's requested change, checked against the current value later.
struct PermissionChange {
    setting: &'static GroupPermission,
    change: GroupChange,
}

/// Zulip's checks of a permission change: the new value suits the setting
/// (`group_setting_values::check_value`) and `old` is the current value.
fn check_permission_change(group: &UserGroupRow, change: &PermissionChange, found: &[GroupNameRow], users: &[UserRow]) -> ApiResult<()> {
    let setting = change.setting;
    group_setting_values::check_value(setting.name, setting.allow_everyone, &change.change.new, found, users)?;
    change.change.check_old(&current_permission(group, permission_of(group, change.setting.name)))
}

/// `PATCH /user_groups/{id}`: a new `name` (checked like a new group's, unique in the
/// organization), `description`, reactivation and permission settings, by whoever manages
/// the group (deactivated groups included). Each changed field sends its own `user_group`
/// `update`, as Zulip does; an unchanged one sends nothing.
pub async fn check_update_group(db: &D1Database, env: &Env, user: &UserRow, group_id: i64, update: GroupUpdate) -> ApiResult<()> {
    let nothing = update.name.is_none() && update.description.is_none() && update.deactivated.is_none();
    if nothing && update.permissions.is_empty() {
        return Err(ApiError::bad_request("No new data supplied"));
    }
    require_member(user)?;
    let name = update.name.as_deref().map(check_group_name).transpose()?;
    let changes: Vec<PermissionChange> = update
        .permissions
        .iter()
        .map(|(setting, raw)| Ok(PermissionChange { setting, change: GroupChange::parse(setting.name, raw)? }))
        .collect::<ApiResult<_>>()?;
    let mut batch = Batch::new();
    let group = batch.add::<UserGroupRow>(user_groups::by_id_stmt(RealmId(user.realm_id), GroupId(group_id))?);
    let mine = add_my_groups(&mut batch, user)?;
    let new_ids: Vec<i64> = changes.iter().flat_map(|c| c.change.new.group_ids()).collect();
    let system = batch.add::<crate::db::subscriptions::SystemGroupRow>(crate::db::subscriptions::system_groups_stmt(user.realm_id)?);
    let found = batch.add::<GroupNameRow>(user_groups::active_names_stmt(user.realm_id, &new_ids)?);
    let named_users: Vec<i64> = changes.iter().flat_map(|c| c.change.new.user_ids().to_vec()).collect();
    let found_users = add_users(&mut batch, user.realm_id, &unique(&named_users))?;
    let results = batch.run(db).await?;
    let group = check_group_access(user, results.first(group)?, &mine.take(&results)?, None)?;
    let found = results.rows(found)?;
    let found_users = results.rows_if_added(found_users)?;
    for change in &changes {
        check_permission_change(&group, change, &found, &found_users)?;
    }
    let nobody = results.rows(system)?.into_iter().find(|g| g.name == system_groups::NOBODY).map(|g| g.id).unwrap_or_default();
    let changes: Vec<(&GroupPermission, GroupSettingValue)> = changes
        .into_iter()
        .map(|c| (c.setting, c.change.new.or_nobody(nobody)))
        .filter(|(setting, new)| current_permission(&group, permission_of(&group, setting.name)) != *new)
        .collect();
    let name = name.filter(|n| *n != group.name);
    let description = update.description.filter(|d| *d != group.description);
    let reactivate = update.deactivated == Some(false) && group.deactivated != 0;
    let mut stmts = Vec::new();
    if let Some(name) = &name {
        stmts.push(user_groups::set_name_stmt(RealmId(user.realm_id), GroupId(group.id), name)?);
    }
    if let Some(description) = &description {
        stmts.push(user_groups::set_description_stmt(RealmId(user.realm_id), GroupId(group.id), description)?);
    }
    for (setting, value) in &changes {
        let (setup, group_ref) = crate::actions::group_setting_values::store(user.realm_id, value, crate::db::now())?;
        stmts.extend(setup);
        stmts.push(user_groups::set_permission_stmt(RealmId(user.realm_id), GroupId(group.id), setting.name, &group_ref)?);
    }
    if reactivate {
        stmts.push(user_groups::set_deactivated_stmt(RealmId(user.realm_id), GroupId(group.id), false)?);
    }
    crate::db::run_batch(db, stmts).await.map_err(|err| match &name {
        Some(name) if err.to_string().contains("UNIQUE") => ApiError::bad_request(format!("User group '{name}' already exists.")),
        _ => ApiError::from(err),
    })?;
    let mut updates = vec![("name", name.map(Value::from)), ("description", description.map(Value::from))];
    updates.extend(changes.iter().map(|(setting, value)| (setting.name, Some(value.to_json()))));
    for (field, value) in updates {
        if let Some(value) = value {
            let data = json!({ field: value });
            notify_realm(env, user.realm_id, &Event::UserGroup(UserGroupEvent::Update { group_id: group.id, data })).await;
        }
    }
    if reactivate {
        notify_activation(db, env, &group, false).await?;
    }
    Ok(())
}

/// `POST /user_groups/{id}/deactivate`: by whoever manages the group; never a system group,
/// nor a group still named by a setting or by an active supergroup (Zulip's `objections`).
pub async fn check_deactivate_group(db: &D1Database, env: &Env, user: &UserRow, group_id: i64) -> ApiResult<()> {
    let realm_columns = crate::db::realm_settings::group_setting_columns();
    let channel_columns: Vec<&str> = crate::domain::channel_permissions::STORED.iter().map(|s| s.name).collect();
    let mut batch = Batch::new();
    let group = batch.add::<UserGroupRow>(user_groups::by_id_stmt(RealmId(user.realm_id), GroupId(group_id))?);
    let mine = add_my_groups(&mut batch, user)?;
    let supergroups = batch.add::<GroupIdRow>(user_groups::active_supergroups_stmt(group_id)?);
    let channel_uses =
        batch.add::<SettingUseRow>(user_groups::channel_setting_uses_stmt(RealmId(user.realm_id), GroupId(group_id), &channel_columns)?);
    let group_uses = batch.add::<SettingUseRow>(user_groups::group_setting_uses_stmt(RealmId(user.realm_id), GroupId(group_id))?);
    let realm_uses =
        batch.add::<SettingUseRow>(user_groups::realm_setting_uses_stmt(RealmId(user.realm_id), GroupId(group_id), &realm_columns)?);
    let results = batch.run(db).await?;
    let group = results.first(group)?;
    if group.as_ref().is_some_and(|g| g.deactivated != 0) {
        return Err(ApiError::bad_request("User group is deactivated."));
    }
    let group = check_group_access(user, group, &mine.take(&results)?, None)?;
    let objections = deactivation_objections(
        &ids_of(results.rows(supergroups)?),
        &results.rows(channel_uses)?,
        &results.rows(group_uses)?,
        &results.rows(realm_uses)?,
    );
    if !objections.is_empty() {
        return Err(ApiError::group_in_use(objections));
    }
    crate::db::run(db, user_groups::set_deactivated_stmt(RealmId(user.realm_id), GroupId(group.id), true)?).await?;
    notify_activation(db, env, &group, true).await
}

/// Tells everyone of a deactivation or reactivation: an `update` of `deactivated` for
/// clients that show deactivated groups, `remove` (or `add` with the group) for the others.
async fn notify_activation(db: &D1Database, env: &Env, group: &UserGroupRow, deactivated: bool) -> ApiResult<()> {
    let gate = "include_deactivated_groups";
    let update = UserGroupEvent::ActivationChanged {
        group_id: group.id,
        data: json!({ "deactivated": deactivated }),
        audience: CapabilityGate::with(gate),
    };
    notify_realm(env, group.realm_id, &Event::UserGroup(update)).await;
    let other = if deactivated {
        UserGroupEvent::Remove { group_id: group.id, audience: CapabilityGate::without(gate) }
    } else {
        let members = crate::domain::user_groups::group_members(db, RealmId(group.realm_id), GroupId(group.id), true).await?;
        let subgroups = crate::domain::user_groups::group_subgroups(db, RealmId(group.realm_id), GroupId(group.id), true).await?;
        let group = UserGroupRow { deactivated: 0, ..group.clone() };
        UserGroupEvent::Reactivated { group: group_dict(&group, &members, &subgroups), audience: CapabilityGate::without(gate) }
    };
    notify_realm(env, group.realm_id, &Event::UserGroup(other)).await;
    Ok(())
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
    require_member(user)?;
    let (add, delete) = (unique(&add), unique(&delete));
    let mut batch = Batch::new();
    let group = batch.add::<UserGroupRow>(user_groups::by_id_stmt(RealmId(user.realm_id), GroupId(group_id))?);
    let members = batch.add::<MemberIdRow>(user_groups::explicit_member_ids_stmt(group_id)?);
    let found_users = add_users(&mut batch, user.realm_id, &add)?;
    let mine = add_my_groups(&mut batch, user)?;
    let seen_before = batch.add::<SeenThroughGroupRow>(subscriptions::seen_through_groups_stmt(user.realm_id)?);
    let results = batch.run(db).await?;
    let members = results.rows(members)?;
    let group = check_membership_access(user, results.first(group)?, &mine.take(&results)?, &add, &delete)?;
    check_users(&add, &results.rows_if_added(found_users)?)?;
    let current: Vec<i64> = members.iter().map(|m| m.user_id).collect();
    if let Some(id) = add.iter().find(|id| current.contains(id)) {
        return Err(ApiError::bad_request(format!("User {id} is already a member of this group")));
    }
    if let Some(id) = delete.iter().find(|id| !current.contains(id)) {
        return Err(ApiError::bad_request(format!("There is no member '{id}' in this user group")));
    }
    let mut stmts = Vec::new();
    if !add.is_empty() {
        stmts.push(user_groups::add_members_stmt(group.id, &ids_json(&add))?);
    }
    if !delete.is_empty() {
        stmts.push(user_groups::remove_members_stmt(group.id, &ids_json(&delete))?);
    }
    let seen_after = write_then_read_access(db, user.realm_id, stmts).await?;
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
    crate::actions::channel_access::announce(db, env, user.realm_id, user.id, results.rows(seen_before)?, seen_after).await
}

/// Runs a change of groups' members, then reads who sees which private channel through
/// groups now, in one batch.
async fn write_then_read_access(db: &D1Database, realm_id: i64, writes: Vec<Statement>) -> ApiResult<Vec<SeenThroughGroupRow>> {
    let mut batch = Batch::new();
    for write in writes {
        batch.add::<Value>(write);
    }
    let seen = batch.add::<SeenThroughGroupRow>(subscriptions::seen_through_groups_stmt(realm_id)?);
    Ok(batch.run(db).await?.rows(seen)?)
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
    require_member(user)?;
    let (add, delete) = (unique(add), unique(delete));
    let mut batch = Batch::new();
    let group = batch.add::<UserGroupRow>(user_groups::by_id_stmt(RealmId(user.realm_id), GroupId(group_id))?);
    let mine = add_my_groups(&mut batch, user)?;
    let named: Vec<i64> = add.iter().chain(&delete).copied().collect();
    let found_groups = add_groups(&mut batch, user.realm_id, &named)?;
    let current = batch.add::<GroupIdRow>(user_groups::direct_subgroup_ids_stmt(group_id)?);
    // Whether the group is reachable from an addition: read whether or not it exists.
    let reachable =
        if add.is_empty() { None } else { Some(batch.add::<GroupIdRow>(user_groups::recursive_subgroup_ids_stmt(&ids_json(&add))?)) };
    let seen_before = batch.add::<SeenThroughGroupRow>(subscriptions::seen_through_groups_stmt(user.realm_id)?);
    let results = batch.run(db).await?;
    let permission = if add.is_empty() { "can_remove_members_group" } else { "can_add_members_group" };
    let group = check_group_access(user, results.first(group)?, &mine.take(&results)?, Some(permission))?;
    let found_groups = results.rows_if_added(found_groups)?;
    check_groups(&add, &found_groups)?;
    check_groups(&delete, &found_groups)?;
    let current: Vec<i64> = results.rows(current)?.into_iter().map(|g| g.id).collect();
    if let Some(id) = add.iter().find(|id| current.contains(id)) {
        return Err(ApiError::bad_request(format!("User group {id} is already a subgroup of this group.")));
    }
    if let Some(id) = delete.iter().find(|id| !current.contains(id)) {
        return Err(ApiError::bad_request(format!("User group {id} is not a subgroup of this group.")));
    }
    if results.rows_if_added(reachable)?.iter().any(|g| g.id == group.id) {
        return Err(ApiError::bad_request(format!("User group {} is already a subgroup of one of the passed subgroups.", group.id)));
    }
    let mut stmts = Vec::new();
    if !add.is_empty() {
        stmts.push(user_groups::add_subgroups_stmt(group.id, &ids_json(&add))?);
    }
    if !delete.is_empty() {
        stmts.push(user_groups::remove_subgroups_stmt(group.id, &ids_json(&delete))?);
    }
    let seen_after = write_then_read_access(db, user.realm_id, stmts).await?;
    if !add.is_empty() {
        let event = Event::UserGroup(UserGroupEvent::AddSubgroups { group_id: group.id, direct_subgroup_ids: add.to_vec() });
        notify_realm(env, user.realm_id, &event).await;
    }
    if !delete.is_empty() {
        let event = Event::UserGroup(UserGroupEvent::RemoveSubgroups { group_id: group.id, direct_subgroup_ids: delete.to_vec() });
        notify_realm(env, user.realm_id, &event).await;
    }
    crate::actions::channel_access::announce(db, env, user.realm_id, user.id, results.rows(seen_before)?, seen_after).await
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
