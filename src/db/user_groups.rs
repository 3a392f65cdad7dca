//! `user_groups`, their members and subgroups.

use serde::Deserialize;
use worker::{query, D1Database, D1PreparedStatement, Result};

use crate::db::users::{ROLE_ADMINISTRATOR, ROLE_GUEST, ROLE_MEMBER, ROLE_MODERATOR, ROLE_OWNER};

/// Zulip's system groups: name, the role whose users are direct members, and the direct
/// subgroup (each role group contains the more privileged ones).
pub const SYSTEM_GROUPS: &[(&str, Option<i64>, Option<&str>, &str)] = &[
    ("role:owners", Some(ROLE_OWNER), None, "Owners of this organization"),
    ("role:administrators", Some(ROLE_ADMINISTRATOR), Some("role:owners"), "Administrators of this organization, including owners"),
    ("role:moderators", Some(ROLE_MODERATOR), Some("role:administrators"), "Moderators of this organization, including administrators"),
    ("role:fullmembers", Some(ROLE_MEMBER), Some("role:moderators"), "Members of this organization, not including new accounts and guests"),
    ("role:members", Some(ROLE_MEMBER), Some("role:fullmembers"), "Members of this organization, not including guests"),
    ("role:everyone", Some(ROLE_GUEST), Some("role:members"), "Everyone in this organization, including guests"),
    ("role:internet", None, Some("role:everyone"), "Everyone on the Internet"),
    ("role:nobody", None, None, "Nobody"),
];

#[derive(Debug, Clone, Deserialize)]
pub struct UserGroupRow {
    pub id: i64,
    pub realm_id: i64,
    pub name: String,
    pub description: String,
    pub is_system_group: i64,
    pub system_role: Option<i64>,
    pub creator_id: Option<i64>,
    pub date_created: Option<i64>,
    pub deactivated: i64,
}

/// Statements creating the system groups of the organization `realm_string_id`
/// (idempotent), to run in the same batch that creates the organization.
pub fn create_system_groups_stmts(db: &D1Database, realm_string_id: &str) -> Result<Vec<D1PreparedStatement>> {
    let mut stmts = Vec::new();
    for (name, role, _, description) in SYSTEM_GROUPS {
        stmts.push(query!(
            db,
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
            stmts.push(query!(
                db,
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

/// The id of a system group (`role:administrators`, ...) of an organization.
pub async fn system_group_id(db: &D1Database, realm_id: i64, name: &str) -> Result<Option<i64>> {
    #[derive(Deserialize)]
    struct Id {
        id: i64,
    }
    let row: Option<Id> = super::first(query!(
        db,
        "SELECT id FROM user_groups WHERE realm_id = ?1 AND name = ?2 AND is_system_group = 1",
        realm_id,
        name
    )?)
    .await?;
    Ok(row.map(|r| r.id))
}

/// Whether an active user belongs to a group, directly or through subgroups at any depth
/// (`direct_only`: directly). One query whatever the depth.
pub fn is_member_stmt(db: &D1Database, realm_id: i64, group_id: i64, user_id: i64, direct_only: bool) -> Result<D1PreparedStatement> {
    query!(
        db,
        "WITH RECURSIVE reachable(id, depth) AS ( \
             SELECT id, 0 FROM user_groups WHERE id = ?2 AND realm_id = ?1 \
             UNION \
             SELECT s.subgroup_id, r.depth + 1 FROM user_group_subgroups s JOIN reachable r ON s.supergroup_id = r.id \
             WHERE ?4 = 0 \
         ) \
         SELECT EXISTS ( \
             SELECT 1 FROM reachable r JOIN user_groups g ON g.id = r.id \
             JOIN users u ON u.id = ?3 AND u.realm_id = ?1 AND u.is_active = 1 \
             WHERE (g.system_role IS NOT NULL AND g.system_role = u.role) \
                OR EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = g.id AND m.user_id = u.id) \
         ) AS is_member",
        realm_id,
        group_id,
        user_id,
        direct_only as i64
    )
}

pub async fn is_member(db: &D1Database, realm_id: i64, group_id: i64, user_id: i64, direct_only: bool) -> Result<bool> {
    #[derive(Deserialize)]
    struct Row {
        is_member: i64,
    }
    let row: Option<Row> = super::first(is_member_stmt(db, realm_id, group_id, user_id, direct_only)?).await?;
    Ok(row.map(|r| r.is_member != 0).unwrap_or(false))
}
