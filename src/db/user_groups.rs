//! `user_groups`, their members and subgroups.

use super::statement::{statement, Statement};
use serde::Deserialize;
use worker::{D1Database, Result};

use crate::model::ids::{ChannelId, GroupId, RealmId, UserId};
use crate::model::system_groups;
use crate::model::Role;

/// Zulip's system groups: name, the role whose users are direct members, and the direct
/// subgroup (each role group contains the more privileged ones).
pub const SYSTEM_GROUPS: &[(&str, Option<Role>, Option<&str>, &str)] = &[
    (system_groups::OWNERS, Some(Role::Owner), None, "Owners of this organization"),
    (
        system_groups::ADMINISTRATORS,
        Some(Role::Administrator),
        Some(system_groups::OWNERS),
        "Administrators of this organization, including owners",
    ),
    (
        system_groups::MODERATORS,
        Some(Role::Moderator),
        Some(system_groups::ADMINISTRATORS),
        "Moderators of this organization, including administrators",
    ),
    (
        system_groups::FULL_MEMBERS,
        Some(Role::Member),
        Some(system_groups::MODERATORS),
        "Members of this organization, not including new accounts and guests",
    ),
    (system_groups::MEMBERS, Some(Role::Member), Some(system_groups::FULL_MEMBERS), "Members of this organization, not including guests"),
    (system_groups::EVERYONE, Some(Role::Guest), Some(system_groups::MEMBERS), "Everyone in this organization, including guests"),
    (system_groups::INTERNET, None, Some(system_groups::EVERYONE), "Everyone on the Internet"),
    (system_groups::NOBODY, None, None, "Nobody"),
];

/// The SQL condition "the user `u` is a direct member of the system group `g` by role":
/// the group's role, and for `role:fullmembers` past the organization's waiting period
/// (`waiting_period_threshold` days since joining), as Zulip's full members are.
pub(crate) fn by_role_sql(g: &str, u: &str) -> String {
    format!(
        "({g}.system_role IS NOT NULL AND {g}.system_role = {u}.role AND ({g}.name <> '{full}' \
         OR {u}.date_joined <= unixepoch() - 86400 * (SELECT waiting_period_threshold FROM realms WHERE id = {u}.realm_id)))",
        full = system_groups::FULL_MEMBERS
    )
}

#[derive(Debug, Clone, Deserialize)]
pub struct UserGroupRow {
    pub id: i64,
    pub realm_id: i64,
    pub name: String,
    pub description: String,
    pub is_system_group: i64,
    pub system_role: Option<Role>,
    pub creator_id: Option<i64>,
    pub date_created: Option<i64>,
    pub deactivated: i64,
    /// A set of users and groups that only a setting names (migration 0041), never listed.
    #[serde(default)]
    pub is_anonymous: i64,
    /// The permission settings (migration 0035): a group id; `None` for "the creator".
    pub can_add_members_group: Option<i64>,
    pub can_join_group: Option<i64>,
    pub can_leave_group: Option<i64>,
    pub can_manage_group: Option<i64>,
    pub can_mention_group: Option<i64>,
    pub can_remove_members_group: Option<i64>,
    /// The anonymous groups the permission settings name (`anonymous_groups_sql`).
    #[serde(default)]
    pub anonymous_groups: Option<String>,
}

/// Statements creating the system groups of the organization `realm_string_id`
/// (idempotent), to run in the same batch that creates the organization.
pub fn create_system_groups_stmts(realm_string_id: &str) -> Result<Vec<Statement>> {
    let mut stmts = Vec::new();
    for (name, role, _, description) in SYSTEM_GROUPS {
        stmts.push(statement!(
            "INSERT OR IGNORE INTO user_groups (realm_id, name, description, is_system_group, system_role) \
             SELECT id, ?2, ?3, 1, ?4 FROM realms WHERE string_id = ?1",
            realm_string_id,
            *name,
            *description,
            *role
        )?);
    }
    for (name, _, subgroup, _) in SYSTEM_GROUPS {
        if let Some(subgroup) = subgroup {
            stmts.push(statement!(
                "INSERT OR IGNORE INTO user_group_subgroups (supergroup_id, subgroup_id) \
                 SELECT sup.id, sub.id FROM realms r \
                 JOIN user_groups sup ON sup.realm_id = r.id AND sup.name = ?2 \
                 JOIN user_groups sub ON sub.realm_id = r.id AND sub.name = ?3 \
                 WHERE r.string_id = ?1",
                realm_string_id,
                *name,
                *subgroup
            )?);
        }
    }
    Ok(stmts)
}

/// Whether an active user belongs to a group, directly or through subgroups at any depth
/// (`direct_only`: directly). One query whatever the depth.
pub fn is_member_stmt(realm_id: RealmId, group_id: GroupId, user_id: UserId, direct_only: bool) -> Result<Statement> {
    statement!(
        &format!(
            "WITH RECURSIVE reachable(id, depth) AS ( \
             SELECT id, 0 FROM user_groups WHERE id = ?2 AND realm_id = ?1 \
             UNION \
             SELECT s.subgroup_id, r.depth + 1 FROM user_group_subgroups s JOIN reachable r ON s.supergroup_id = r.id \
             WHERE ?4 = 0 \
         ) \
         SELECT EXISTS ( \
             SELECT 1 FROM reachable r JOIN user_groups g ON g.id = r.id \
             JOIN users u ON u.id = ?3 AND u.realm_id = ?1 AND u.is_active = 1 \
             WHERE {role} \
                OR EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = g.id AND m.user_id = u.id) \
         ) AS is_member",
            role = by_role_sql("g", "u")
        ),
        realm_id,
        group_id,
        user_id,
        direct_only as i64
    )
}

/// The answer of [`is_member_stmt`].
#[derive(Debug, Clone, Deserialize)]
pub struct IsMemberRow {
    pub is_member: i64,
}

/// The group's columns, its permission settings resolved (see migration 0035): a group id,
/// or null for "the group's creator".
pub(super) const GROUP_BASE_COLUMNS: &str = "g.id, g.realm_id, g.name, g.description, g.is_system_group, g.system_role, g.creator_id, \
    g.date_created, g.deactivated, g.is_anonymous, \
    CASE WHEN g.is_system_group = 1 THEN (SELECT id FROM user_groups WHERE realm_id = g.realm_id AND name = 'role:nobody') \
    ELSE COALESCE(g.can_add_members_group, NULL) END AS can_add_members_group, \
    CASE WHEN g.is_system_group = 1 THEN (SELECT id FROM user_groups WHERE realm_id = g.realm_id AND name = 'role:nobody') \
    ELSE COALESCE(g.can_join_group, (SELECT id FROM user_groups WHERE realm_id = g.realm_id AND name = 'role:nobody')) END AS can_join_group, \
    CASE WHEN g.is_system_group = 1 THEN (SELECT id FROM user_groups WHERE realm_id = g.realm_id AND name = 'role:nobody') \
    ELSE COALESCE(g.can_leave_group, (SELECT id FROM user_groups WHERE realm_id = g.realm_id AND name = 'role:everyone')) END AS can_leave_group, \
    CASE WHEN g.is_system_group = 1 THEN (SELECT id FROM user_groups WHERE realm_id = g.realm_id AND name = 'role:nobody') \
    ELSE COALESCE(g.can_manage_group, NULL) END AS can_manage_group, \
    CASE WHEN g.is_system_group = 1 THEN (SELECT id FROM user_groups WHERE realm_id = g.realm_id AND name = 'role:nobody') \
    ELSE COALESCE(g.can_mention_group, (SELECT id FROM user_groups WHERE realm_id = g.realm_id AND name = 'role:everyone')) END AS can_mention_group, \
    CASE WHEN g.is_system_group = 1 THEN (SELECT id FROM user_groups WHERE realm_id = g.realm_id AND name = 'role:nobody') \
    ELSE COALESCE(g.can_remove_members_group, (SELECT id FROM user_groups WHERE realm_id = g.realm_id AND name = 'role:nobody')) END AS can_remove_members_group";

/// [`GROUP_BASE_COLUMNS`] and the anonymous groups its permission settings name
/// (`anonymous_groups`).
fn group_columns() -> String {
    let columns: Vec<String> = PERMISSION_COLUMNS.iter().map(|column| format!("g.{column}")).collect();
    format!("{GROUP_BASE_COLUMNS}, {} AS anonymous_groups", anonymous_groups_sql(&columns))
}

pub fn by_id_stmt(realm_id: RealmId, group_id: GroupId) -> Result<Statement> {
    statement!(
        &format!("SELECT {} FROM user_groups g WHERE g.realm_id = ?1 AND g.id = ?2 AND g.is_anonymous = 0", group_columns()),
        realm_id,
        group_id
    )
}

/// Renames a group (the organization's names are unique: a taken one fails the write).
pub fn set_name_stmt(realm_id: RealmId, group_id: GroupId, name: &str) -> Result<Statement> {
    statement!("UPDATE user_groups SET name = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, group_id, name)
}

pub fn set_description_stmt(realm_id: RealmId, group_id: GroupId, description: &str) -> Result<Statement> {
    statement!("UPDATE user_groups SET description = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, group_id, description)
}

/// The organization's groups among `ids` (a JSON list).
pub fn by_ids_stmt(realm_id: i64, ids_json: &str) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {} FROM user_groups g WHERE g.realm_id = ?1 AND g.is_anonymous = 0 \
             AND g.id IN (SELECT value FROM json_each(?2))",
            group_columns()
        ),
        realm_id,
        ids_json
    )
}

pub fn in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {} FROM user_groups g WHERE g.realm_id = ?1 ORDER BY g.id", group_columns()), realm_id)
}

/// The active members of the system group `name` by role, as [`MemberRow`]s: read before
/// and after a change of the organization's waiting period to tell who became or stopped
/// being a full member.
pub fn role_group_members_stmt(realm_id: i64, name: &str) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT g.id AS group_id, u.id AS user_id FROM user_groups g \
             JOIN users u ON u.realm_id = g.realm_id AND u.is_active = 1 AND {role} \
             WHERE g.realm_id = ?1 AND g.name = ?2 AND g.is_system_group = 1 ORDER BY u.id",
            role = by_role_sql("g", "u")
        ),
        realm_id,
        name
    )
}

/// The members (role member, active) whose waiting period ended in `(?2, ?3]`, with the
/// organization's `role:fullmembers` group, as [`MemberRow`]s: they became full members
/// then. Nothing while the organization has no waiting period.
pub fn full_member_crossings_stmt(realm_id: i64, since: i64, now: i64) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT g.id AS group_id, u.id AS user_id FROM users u JOIN realms r ON r.id = u.realm_id \
             JOIN user_groups g ON g.realm_id = r.id AND g.name = '{full}' AND g.is_system_group = 1 \
             WHERE u.realm_id = ?1 AND u.is_active = 1 AND u.role = {member} AND r.waiting_period_threshold > 0 \
             AND u.date_joined + 86400 * r.waiting_period_threshold > ?2 \
             AND u.date_joined + 86400 * r.waiting_period_threshold <= ?3 ORDER BY u.id",
            full = system_groups::FULL_MEMBERS,
            member = Role::Member.code()
        ),
        realm_id,
        since,
        now
    )
}

/// The organization's waiting period, and when the next member's ends after `?2` (null
/// when no member is waiting).
#[derive(Debug, Deserialize)]
pub struct NextCrossingRow {
    pub waiting_period_threshold: i64,
    pub next_at: Option<i64>,
}

pub fn next_full_member_crossing_stmt(realm_id: i64, now: i64) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT r.waiting_period_threshold, \
               (SELECT MIN(u.date_joined + 86400 * r.waiting_period_threshold) FROM users u WHERE u.realm_id = r.id \
                AND u.is_active = 1 AND u.role = {member} AND u.date_joined + 86400 * r.waiting_period_threshold > ?2) AS next_at \
             FROM realms r WHERE r.id = ?1",
            member = Role::Member.code()
        ),
        realm_id,
        now
    )
}

/// A (group, user) pair of direct membership.
#[derive(Debug, Clone, Deserialize)]
pub struct MemberRow {
    pub group_id: i64,
    pub user_id: i64,
}

/// Direct members of every group of the organization: explicit rows, and for system
/// groups the active users of their role. Deactivated users are never members.
pub fn direct_members_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT m.group_id, m.user_id FROM user_group_members m \
         JOIN user_groups g ON g.id = m.group_id AND g.realm_id = ?1 \
         JOIN users u ON u.id = m.user_id AND u.is_active = 1 \
         UNION \
         SELECT g.id AS group_id, u.id AS user_id FROM user_groups g \
         JOIN users u ON u.realm_id = g.realm_id AND {role} AND u.is_active = 1 \
         WHERE g.realm_id = ?1 AND g.system_role IS NOT NULL \
         ORDER BY 1, 2",
            role = by_role_sql("g", "u")
        ),
        realm_id
    )
}

#[derive(Debug, Clone, Deserialize)]
pub struct SubgroupRow {
    pub supergroup_id: i64,
    pub subgroup_id: i64,
}

pub fn subgroups_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        "SELECT s.supergroup_id, s.subgroup_id FROM user_group_subgroups s \
         JOIN user_groups g ON g.id = s.supergroup_id AND g.realm_id = ?1 ORDER BY 1, 2",
        realm_id
    )
}

/// Members of one group (active users, as [`super::users::UserIdRow`]), directly or
/// through subgroups at any depth.
pub fn member_ids_stmt(realm_id: RealmId, group_id: GroupId, direct_only: bool) -> Result<Statement> {
    statement!(
        &format!(
            "WITH RECURSIVE reachable(id) AS ( \
             SELECT id FROM user_groups WHERE id = ?2 AND realm_id = ?1 \
             UNION \
             SELECT s.subgroup_id FROM user_group_subgroups s JOIN reachable r ON s.supergroup_id = r.id WHERE ?3 = 0 \
         ) \
         SELECT DISTINCT u.id FROM reachable r JOIN user_groups g ON g.id = r.id \
         JOIN users u ON u.realm_id = ?1 AND u.is_active = 1 \
         WHERE {role} \
            OR EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = g.id AND m.user_id = u.id) \
         ORDER BY u.id",
            role = by_role_sql("g", "u")
        ),
        realm_id,
        group_id,
        direct_only as i64
    )
}

/// One member of one of several groups, as [`members_by_group_stmt`] answers it.
#[derive(Debug, Deserialize)]
pub struct GroupMemberRow {
    pub group_id: i64,
    pub user_id: i64,
}

/// The members (active users) of each group in `ids_json` and of the groups of channel
/// `channel_id` that grant access to it when it is private (`can_administer_channel_group`,
/// `can_add_subscribers_group`, `can_subscribe_group`), directly or through subgroups at
/// any depth.
pub fn channel_access_group_members_stmt(realm_id: RealmId, channel_id: ChannelId, ids_json: &str) -> Result<Statement> {
    statement!(
        &format!(
            "WITH RECURSIVE reachable(root, id) AS ( \
             SELECT id, id FROM user_groups WHERE realm_id = ?1 AND (id IN (SELECT value FROM json_each(?2)) \
               OR id IN (SELECT value FROM channels c, json_each(json_array(c.can_administer_channel_group, \
                 c.can_add_subscribers_group, c.can_subscribe_group)) WHERE c.realm_id = ?1 AND c.id = ?3)) \
             UNION \
             SELECT r.root, s.subgroup_id FROM user_group_subgroups s JOIN reachable r ON s.supergroup_id = r.id \
         ) \
         SELECT DISTINCT r.root AS group_id, u.id AS user_id FROM reachable r JOIN user_groups g ON g.id = r.id \
         JOIN users u ON u.realm_id = ?1 AND u.is_active = 1 \
         WHERE {role} \
            OR EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = g.id AND m.user_id = u.id)",
            role = by_role_sql("g", "u")
        ),
        realm_id,
        ids_json,
        channel_id
    )
}

/// A user's id, as the member statements answer it.
#[derive(Debug, Deserialize)]
pub struct MemberIdRow {
    pub user_id: i64,
}

/// Explicit direct member ids of a group (deactivated users included: their rows stay).
pub fn explicit_member_ids_stmt(group_id: i64) -> Result<Statement> {
    statement!("SELECT user_id FROM user_group_members WHERE group_id = ?1", group_id)
}

/// A group's id, as the subgroup statements answer it.
#[derive(Debug, Deserialize)]
pub struct GroupIdRow {
    pub id: i64,
}

pub fn direct_subgroup_ids_stmt(group_id: i64) -> Result<Statement> {
    statement!("SELECT subgroup_id AS id FROM user_group_subgroups WHERE supergroup_id = ?1", group_id)
}

/// A group's subgroups ([`GroupIdRow`]), at any depth unless `direct_only`, in id order.
pub fn subgroup_ids_stmt(group_id: i64, direct_only: bool) -> Result<Statement> {
    statement!(
        "WITH RECURSIVE reachable(id) AS ( \
             SELECT subgroup_id FROM user_group_subgroups WHERE supergroup_id = ?1 \
             UNION \
             SELECT s.subgroup_id FROM user_group_subgroups s JOIN reachable r ON s.supergroup_id = r.id WHERE ?2 = 0 \
         ) SELECT id FROM reachable ORDER BY id",
        group_id,
        direct_only as i64
    )
}

/// Every group reachable downwards from the groups in `ids_json` (themselves included):
/// adding them under a group they reach would make a cycle.
pub fn recursive_subgroup_ids_stmt(ids_json: &str) -> Result<Statement> {
    statement!(
        "WITH RECURSIVE reachable(id) AS ( \
             SELECT value FROM json_each(?1) \
             UNION \
             SELECT s.subgroup_id FROM user_group_subgroups s JOIN reachable r ON s.supergroup_id = r.id \
         ) SELECT id FROM reachable",
        ids_json
    )
}

pub struct NewUserGroup<'a> {
    pub realm_id: i64,
    pub name: &'a str,
    pub description: &'a str,
    pub creator_id: i64,
    pub members_json: &'a str,
    pub subgroups_json: &'a str,
    /// Permission settings given at creation: (column of [`PERMISSION_COLUMNS`], group).
    pub permissions: &'a [(&'static str, SettingGroupRef)],
}

/// Creates a group with its members and subgroups in one atomic batch, after `setup` (the
/// anonymous groups its settings name); answers its row.
pub async fn insert(db: &D1Database, group: &NewUserGroup<'_>, setup: Vec<Statement>, now: i64) -> Result<UserGroupRow> {
    // Only columns of the fixed list, never a client's name, reach the SQL.
    let permissions: Vec<&(&str, SettingGroupRef)> = group.permissions.iter().filter(|(c, _)| PERMISSION_COLUMNS.contains(c)).collect();
    let columns: String = permissions.iter().map(|(column, _)| format!(", {column}")).collect();
    let values: String = permissions.iter().map(|(_, group_ref)| format!(", {}", group_ref.sql(group.realm_id))).collect();
    let insert_group = statement!(
        &format!(
            "INSERT INTO user_groups (realm_id, name, description, is_system_group, creator_id, date_created{columns}) \
             VALUES (?1, ?2, ?3, 0, ?4, ?5{values})"
        ),
        group.realm_id,
        group.name,
        group.description,
        group.creator_id,
        now
    )?;
    let group_id = "(SELECT id FROM user_groups WHERE realm_id = ?1 AND name = ?2)";
    let insert_members = statement!(
        &format!("INSERT OR IGNORE INTO user_group_members (group_id, user_id) SELECT {group_id}, value FROM json_each(?3)"),
        group.realm_id,
        group.name,
        group.members_json
    )?;
    let insert_subgroups = statement!(
        &format!("INSERT OR IGNORE INTO user_group_subgroups (supergroup_id, subgroup_id) SELECT {group_id}, value FROM json_each(?3)"),
        group.realm_id,
        group.name,
        group.subgroups_json
    )?;
    let created = statement!(
        &format!("SELECT {} FROM user_groups g WHERE g.realm_id = ?1 AND g.name = ?2", group_columns()),
        group.realm_id,
        group.name
    )?;
    let mut batch = super::batch::Batch::new();
    for write in setup.into_iter().chain([insert_group, insert_members, insert_subgroups]) {
        batch.add::<serde_json::Value>(write);
    }
    let created = batch.add::<UserGroupRow>(created);
    batch.run(db).await?.first(created)?.ok_or_else(|| worker::Error::RustError("user group insert left no row".into()))
}

pub fn add_members_stmt(group_id: i64, ids_json: &str) -> Result<Statement> {
    statement!("INSERT OR IGNORE INTO user_group_members (group_id, user_id) SELECT ?1, value FROM json_each(?2)", group_id, ids_json)
}

pub fn remove_members_stmt(group_id: i64, ids_json: &str) -> Result<Statement> {
    statement!("DELETE FROM user_group_members WHERE group_id = ?1 AND user_id IN (SELECT value FROM json_each(?2))", group_id, ids_json)
}

pub fn add_subgroups_stmt(group_id: i64, ids_json: &str) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO user_group_subgroups (supergroup_id, subgroup_id) SELECT ?1, value FROM json_each(?2)",
        group_id,
        ids_json
    )
}

pub fn remove_subgroups_stmt(group_id: i64, ids_json: &str) -> Result<Statement> {
    statement!(
        "DELETE FROM user_group_subgroups WHERE supergroup_id = ?1 AND subgroup_id IN (SELECT value FROM json_each(?2))",
        group_id,
        ids_json
    )
}

#[derive(Deserialize)]
pub struct GroupNameRow {
    pub id: i64,
    pub name: String,
}

/// Names of the realm's active groups `ids`.
pub fn active_names_stmt(realm_id: i64, ids: &[i64]) -> Result<Statement> {
    statement!(
        "SELECT id, name FROM user_groups WHERE realm_id = ?1 AND deactivated = 0 AND is_anonymous = 0 \
         AND id IN (SELECT value FROM json_each(?2))",
        realm_id,
        serde_json::to_string(ids)?
    )
}

/// The permission-setting columns of `user_groups` (migration 0035).
pub const PERMISSION_COLUMNS: [&str; 6] =
    ["can_add_members_group", "can_join_group", "can_leave_group", "can_manage_group", "can_mention_group", "can_remove_members_group"];

/// Sets one permission setting (`column`, one of [`PERMISSION_COLUMNS`]) to a group.
pub fn set_permission_stmt(realm_id: RealmId, group_id: GroupId, column: &str, value: &SettingGroupRef) -> Result<Statement> {
    if !PERMISSION_COLUMNS.contains(&column) {
        return Err(worker::Error::RustError(format!("not a group permission setting: {column}")));
    }
    statement!(&format!("UPDATE user_groups SET {column} = {} WHERE realm_id = ?1 AND id = ?2", value.sql(realm_id.0)), realm_id, group_id)
}

pub fn set_deactivated_stmt(realm_id: RealmId, group_id: GroupId, deactivated: bool) -> Result<Statement> {
    statement!("UPDATE user_groups SET deactivated = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, group_id, deactivated as i64)
}

/// Every group a user belongs to (as [`GroupIdRow`]): those naming them or their role, and
/// every group containing one of those, at any depth. Nothing for a deactivated user.
pub fn groups_of_user_stmt(realm_id: RealmId, user_id: UserId) -> Result<Statement> {
    statement!(&format!("{} SELECT id FROM mine", groups_of_user_cte("?2")), realm_id, user_id)
}

/// `WITH RECURSIVE mine(id)`: the groups of the organization `?1` that the active user
/// `user` (a placeholder) belongs to, as [`groups_of_user_stmt`] answers them.
pub(super) fn groups_of_user_cte(user: &str) -> String {
    format!(
        "WITH RECURSIVE mine(id) AS ( \
             SELECT g.id FROM user_groups g JOIN users u ON u.id = {user} AND u.realm_id = ?1 AND u.is_active = 1 \
             WHERE g.realm_id = ?1 AND ({role} \
                OR EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = g.id AND m.user_id = u.id)) \
             UNION \
             SELECT s.supergroup_id FROM user_group_subgroups s JOIN mine ON s.subgroup_id = mine.id \
         )",
        role = by_role_sql("g", "u")
    )
}

/// One use of a group by a setting: the object holding the setting (`owner_id`: a channel or
/// a group; absent for the organization) and the setting's name.
#[derive(Debug, Clone, Deserialize)]
pub struct SettingUseRow {
    pub owner_id: Option<i64>,
    pub setting: String,
}

/// The settings among `columns` of `table` (`t`) naming `group_id` (or an anonymous group
/// holding it), on the organization's
/// rows that are in use (`active`: a condition on `t`, e.g. not archived). `table` and
/// `columns` come from the server's fixed lists, never from a client. One query without a
/// compound SELECT (D1 allows few terms).
fn uses_stmt(table: &str, owner: &str, active: &str, columns: &[&str], realm_id: RealmId, group_id: GroupId) -> Result<Statement> {
    let cases: Vec<String> = columns.iter().map(|c| format!("WHEN '{c}' THEN t.{c}")).collect();
    statement!(
        &format!(
            "SELECT {owner} AS owner_id, j.value AS setting FROM {table} t, json_each(?3) j \
             WHERE {active} AND (CASE j.value {} END) IN (SELECT ?2 UNION ALL \
               SELECT s.supergroup_id FROM user_group_subgroups s JOIN user_groups a ON a.id = s.supergroup_id \
               AND a.is_anonymous = 1 WHERE s.subgroup_id = ?2) ORDER BY 1, j.key",
            cases.join(" ")
        ),
        realm_id,
        group_id,
        serde_json::to_string(columns)?
    )
}

/// Active groups' permission settings naming `group_id`.
pub fn group_setting_uses_stmt(realm_id: RealmId, group_id: GroupId) -> Result<Statement> {
    uses_stmt("user_groups", "t.id", "t.realm_id = ?1 AND t.deactivated = 0", &PERMISSION_COLUMNS, realm_id, group_id)
}

/// Unarchived channels' permission settings (`columns`) naming `group_id`.
pub fn channel_setting_uses_stmt(realm_id: RealmId, group_id: GroupId, columns: &[&str]) -> Result<Statement> {
    uses_stmt("channels", "t.id", "t.realm_id = ?1 AND t.is_archived = 0", columns, realm_id, group_id)
}

/// The organization's settings (`columns` of `realms`) naming `group_id`.
pub fn realm_setting_uses_stmt(realm_id: RealmId, group_id: GroupId, columns: &[&str]) -> Result<Statement> {
    uses_stmt("realms", "NULL", "t.id = ?1", columns, realm_id, group_id)
}

/// The active groups that have `group_id` as a direct subgroup (as [`GroupIdRow`]).
pub fn active_supergroups_stmt(group_id: i64) -> Result<Statement> {
    statement!(
        "SELECT s.supergroup_id AS id FROM user_group_subgroups s \
         JOIN user_groups g ON g.id = s.supergroup_id AND g.deactivated = 0 AND g.is_anonymous = 0 WHERE s.subgroup_id = ?1 ORDER BY 1",
        group_id
    )
}

/// What a permission setting is set to: a group by id, or the anonymous group that
/// [`insert_anonymous_stmts`] creates under `key` earlier in the same batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingGroupRef {
    Id(i64),
    /// The organization's `role:nobody` (Zulip's value for an empty set).
    Nobody,
    Anonymous(String),
}

impl SettingGroupRef {
    /// The value as an SQL expression. An anonymous group's key is server-made (hex), never
    /// a client's text, so it can stand in the SQL.
    pub fn sql(&self, realm_id: i64) -> String {
        match self {
            SettingGroupRef::Id(id) => id.to_string(),
            SettingGroupRef::Nobody => {
                format!("(SELECT id FROM user_groups WHERE realm_id = {realm_id} AND name = '{}')", system_groups::NOBODY)
            }
            SettingGroupRef::Anonymous(key) => {
                let key: String = key.chars().filter(|c| c.is_ascii_alphanumeric() || *c == ':' || *c == '@').collect();
                format!("(SELECT id FROM user_groups WHERE realm_id = {realm_id} AND name = '{key}' AND is_anonymous = 1)")
            }
        }
    }
}

/// A new anonymous group's unique key: it names the group until its id is known.
pub fn new_anonymous_key() -> String {
    let bytes: [u8; 12] = crate::secrets::random_bytes();
    let hex: String = crate::secrets::hex(&bytes);
    format!("@anonymous:{hex}")
}

/// Creates an anonymous group (users `members`, groups `subgroups`) under `key`.
pub fn insert_anonymous_stmts(realm_id: i64, key: &str, members: &[i64], subgroups: &[i64], now: i64) -> Result<Vec<Statement>> {
    let group_id = "(SELECT id FROM user_groups WHERE realm_id = ?1 AND name = ?2)";
    Ok(vec![
        statement!(
            "INSERT INTO user_groups (realm_id, name, description, is_system_group, date_created, is_anonymous) \
             VALUES (?1, ?2, '', 0, ?3, 1)",
            realm_id,
            key,
            now
        )?,
        statement!(
            &format!(
                "INSERT OR IGNORE INTO user_group_members (group_id, user_id) \
                 SELECT {group_id}, u.id FROM json_each(?3) j JOIN users u ON u.id = j.value AND u.realm_id = ?1"
            ),
            realm_id,
            key,
            serde_json::to_string(members)?
        )?,
        statement!(
            &format!(
                "INSERT OR IGNORE INTO user_group_subgroups (supergroup_id, subgroup_id) \
                 SELECT {group_id}, g.id FROM json_each(?3) j JOIN user_groups g ON g.id = j.value AND g.realm_id = ?1"
            ),
            realm_id,
            key,
            serde_json::to_string(subgroups)?
        )?,
    ])
}

/// The SQL expression (a JSON object text, `{}` when none) of the anonymous groups among
/// the group ids `columns` name: id -> `{direct_members, direct_subgroups}`, active users
/// only, sorted. Read as `domain::group_setting_values::AnonymousGroups`.
pub fn anonymous_groups_sql(columns: &[String]) -> String {
    format!(
        "(SELECT json_group_object(ag.id, json_object( \
            'direct_members', json((SELECT json_group_array(x.user_id) FROM (SELECT am.user_id FROM user_group_members am \
               JOIN users au ON au.id = am.user_id AND au.is_active = 1 WHERE am.group_id = ag.id ORDER BY am.user_id) x)), \
            'direct_subgroups', json((SELECT json_group_array(y.subgroup_id) FROM (SELECT asg.subgroup_id FROM user_group_subgroups asg \
               WHERE asg.supergroup_id = ag.id ORDER BY asg.subgroup_id) y)))) \
          FROM user_groups ag WHERE ag.is_anonymous = 1 AND ag.id IN ({}))",
        columns.join(", ")
    )
}
