//! Creating an organization: the statements that make a working one in a single atomic
//! batch (the realm row, its system groups and the group settings that name them, its
//! first users and channels, and every recipient row). The development seed and the
//! server administrator's `POST /server_admin/organizations` both build from these.
//!
//! The organization has no id until the batch runs, so every statement names it by its
//! `string_id` (unique).

use worker::Result;

use super::{realm_settings, realms, user_groups};
use crate::db::statement::{statement, Statement};
use crate::model::recipients::RecipientType;
use crate::model::Role;

/// The organization's id, looked up by `string_id` (the statement's `?1`).
const REALM_ID: &str = "(SELECT id FROM realms WHERE string_id = ?1)";

/// A user created with the organization.
pub struct FirstUser<'a> {
    pub email: &'a str,
    pub full_name: &'a str,
    pub role: Role,
    pub password_hash: &'a str,
    pub can_create_users: bool,
}

/// A channel created with the organization, with the emails of its subscribers.
pub struct FirstChannel<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub invite_only: bool,
    pub color: &'a str,
    pub subscribers: &'a [&'a str],
}

/// Everything of a new organization, in order; idempotent (`OR IGNORE`), so a batch that
/// runs twice (two first requests at once) changes nothing the second time.
pub fn create_stmts(
    realm_id: i64,
    string_id: &str,
    name: &str,
    users: &[FirstUser<'_>],
    channels: &[FirstChannel<'_>],
    now: i64,
) -> Result<Vec<Statement>> {
    let mut batch = vec![realms::insert_stmt(realm_id, string_id, name, now)?];
    batch.extend(user_groups::create_system_groups_stmts(string_id)?);
    for u in users {
        batch.push(first_user_stmt(string_id, u, now)?);
    }
    for c in channels {
        batch.extend(first_channel_stmts(string_id, c, now)?);
    }
    batch.extend(recipients_and_settings_stmts(string_id)?);
    Ok(batch)
}

/// One of the organization's first users.
fn first_user_stmt(string_id: &str, u: &FirstUser<'_>, now: i64) -> Result<Statement> {
    statement!(
        &format!(
            "INSERT OR IGNORE INTO users (realm_id, email, delivery_email, full_name, role, password_hash, \
             can_create_users, timezone, date_joined) VALUES ({REALM_ID}, ?2, ?2, ?3, ?4, ?5, ?6, 'UTC', ?7)"
        ),
        string_id,
        u.email,
        u.full_name,
        u.role,
        u.password_hash,
        u.can_create_users as i64,
        now
    )
}

/// One of the organization's first channels, with its subscribers.
fn first_channel_stmts(string_id: &str, c: &FirstChannel<'_>, now: i64) -> Result<Vec<Statement>> {
    let mut batch = Vec::new();
    batch.push(statement!(
        &format!(
            "INSERT OR IGNORE INTO channels (realm_id, name, description, invite_only, date_created) \
             VALUES ({REALM_ID}, ?2, ?3, ?4, ?5)"
        ),
        string_id,
        c.name,
        c.description,
        c.invite_only as i64,
        now
    )?);
    for email in c.subscribers {
        batch.push(statement!(
            &format!(
                "INSERT OR IGNORE INTO subscriptions (realm_id, user_id, channel_id, color) \
                 SELECT u.realm_id, u.id, c.id, ?4 FROM users u JOIN channels c ON c.realm_id = u.realm_id \
                 WHERE u.realm_id = {REALM_ID} AND u.delivery_email = ?2 AND c.name = ?3"
            ),
            string_id,
            *email,
            c.name,
            c.color
        )?);
    }
    Ok(batch)
}

/// The recipients of every user and channel, and the group settings' default groups.
fn recipients_and_settings_stmts(string_id: &str) -> Result<Vec<Statement>> {
    let mut batch = Vec::new();
    // Every user and channel is a recipient before anyone can message it.
    batch.push(statement!(
        &format!(
            "INSERT OR IGNORE INTO recipients (realm_id, type, type_id) SELECT realm_id, ?2, id FROM users WHERE realm_id = {REALM_ID}"
        ),
        string_id,
        RecipientType::Personal
    )?);
    batch.push(statement!(
        &format!(
            "INSERT OR IGNORE INTO recipients (realm_id, type, type_id) SELECT realm_id, ?2, id FROM channels WHERE realm_id = {REALM_ID}"
        ),
        string_id,
        RecipientType::Channel
    )?);
    // The organization's message settings name their default system groups explicitly.
    for (column, group) in realm_settings::GROUP_SETTING_DEFAULTS {
        batch.push(statement!(
            &format!(
                "UPDATE realms SET {column} = (SELECT g.id FROM user_groups g WHERE g.realm_id = realms.id \
                 AND g.name = ?2 AND g.is_system_group = 1) WHERE string_id = ?1 AND {column} IS NULL"
            ),
            string_id,
            *group
        )?);
    }
    Ok(batch)
}
