//! What message content may name, resolved by name or id within an organization: users,
//! groups and their members, channels. Lists are JSON arrays bound as one parameter.

use serde::Deserialize;
use worker::Result;

use super::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Deserialize)]
pub struct NamedRow {
    pub id: i64,
    pub name: String,
}

/// A group content may mention, and whether the sender may mention it.
#[derive(Deserialize)]
pub struct MentionableGroupRow {
    pub id: i64,
    pub name: String,
    pub may_mention: i64,
}

/// A member of a named group, with their bot type (a group mention triggers the
/// outgoing-webhook bots among its members).
#[derive(Deserialize)]
pub struct GroupMemberRow {
    pub group_id: i64,
    pub user_id: i64,
    #[serde(default)]
    pub bot_type: Option<i64>,
}

/// A user content may mention, with their bot type (an outgoing-webhook bot's mention
/// triggers it).
#[derive(Deserialize)]
pub struct MentionableUserRow {
    pub id: i64,
    pub name: String,
    #[serde(default)]
    pub bot_type: Option<i64>,
}

/// Active users named by full name (any case) in `names_json` or by id in `ids_json`.
pub fn users_stmt(realm_id: i64, names_json: &str, ids_json: &str) -> Result<Statement> {
    statement!(
        "SELECT id, full_name AS name, bot_type FROM users WHERE realm_id = ?1 AND is_active = 1 AND \
         (lower(full_name) IN (SELECT lower(value) FROM json_each(?2)) OR id IN (SELECT value FROM json_each(?3)))",
        realm_id,
        names_json,
        ids_json
    )
}

/// Active groups named (any case) in `names_json`, each with whether user `?3` may
/// mention it: its `can_mention_group` is unset (everyone) or a group `?3` belongs to,
/// directly, through a subgroup or by role.
pub fn groups_stmt(realm_id: RealmId, names_json: &str, sender_id: UserId) -> Result<Statement> {
    statement!(
        format!(
            "{} SELECT id, name, (can_mention_group IS NULL OR can_mention_group IN (SELECT id FROM mine)) AS may_mention \
             FROM user_groups WHERE realm_id = ?1 AND deactivated = 0 AND is_anonymous = 0 \
             AND lower(name) IN (SELECT lower(value) FROM json_each(?2))",
            super::user_groups::groups_of_user_cte("?3")
        ),
        realm_id,
        names_json,
        sender_id
    )
}

/// The active members of each group named in `names_json`, through its subgroups at any
/// depth (a system group's members are the users of its role).
pub fn group_members_stmt(realm_id: i64, names_json: &str) -> Result<Statement> {
    statement!(
        &format!(
            "WITH RECURSIVE reachable(root, id) AS ( \
             SELECT id, id FROM user_groups WHERE realm_id = ?1 AND deactivated = 0 AND is_anonymous = 0 \
             AND lower(name) IN (SELECT lower(value) FROM json_each(?2)) \
             UNION \
             SELECT r.root, s.subgroup_id FROM user_group_subgroups s JOIN reachable r ON s.supergroup_id = r.id \
         ) \
         SELECT DISTINCT r.root AS group_id, u.id AS user_id, u.bot_type FROM reachable r JOIN user_groups g ON g.id = r.id \
         JOIN users u ON u.realm_id = ?1 AND u.is_active = 1 \
         WHERE {role} \
            OR EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = g.id AND m.user_id = u.id)",
            role = super::user_groups::by_role_sql("g", "u")
        ),
        realm_id,
        names_json
    )
}

/// Channels named (any case) in `names_json`.
pub fn channels_stmt(realm_id: i64, names_json: &str) -> Result<Statement> {
    statement!(
        "SELECT id, name FROM channels WHERE realm_id = ?1 AND lower(name) IN (SELECT lower(value) FROM json_each(?2))",
        realm_id,
        names_json
    )
}
