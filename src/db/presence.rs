//! `presence`: each user's last active and last connected times.

use serde::Deserialize;
use worker::Result;

use super::users::NamedUser;
use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct PresenceRow {
    pub user_id: i64,
    pub email: String,
    pub last_active_time: i64,
    pub last_connected_time: i64,
    pub last_update_id: i64,
}

const SELECT: &str = "SELECT p.user_id, u.email, p.last_active_time, p.last_connected_time, p.last_update_id \
    FROM presence p JOIN users u ON u.id = p.user_id";

/// One user's presence.
pub fn for_user_stmt(user_id: i64) -> Result<Statement> {
    statement!(&format!("{SELECT} WHERE p.user_id = ?1"), user_id)
}

/// The presence of the user a path names.
pub fn for_named_user_stmt(realm_id: i64, who: NamedUser<'_>) -> Result<Statement> {
    super::users::about_named_stmt(realm_id, who, &format!("{SELECT} WHERE p.user_id = {{user_id}}"))
}

/// The presence of the organization's active humans changed after `after_update_id` and
/// connected since `since` (UNIX seconds).
pub fn in_realm_stmt(realm_id: RealmId, after_update_id: i64, since: i64) -> Result<Statement> {
    statement!(
        &format!(
            "{SELECT} WHERE p.realm_id = ?1 AND u.is_active = 1 AND u.is_bot = 0 AND p.last_update_id > ?2 \
             AND p.last_connected_time >= ?3 ORDER BY p.user_id"
        ),
        realm_id,
        after_update_id,
        since
    )
}

/// The organization's newest presence change id (`None`: none yet).
#[derive(Debug, Clone, Deserialize)]
pub struct MaxUpdateRow {
    pub max_id: Option<i64>,
}

pub fn max_update_id_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT MAX(last_update_id) AS max_id FROM presence WHERE realm_id = ?1", realm_id)
}

/// Stores the user's new times under the organization's next update id.
pub fn upsert_stmt(realm_id: RealmId, user_id: UserId, last_active: i64, last_connected: i64) -> Result<Statement> {
    statement!(
        "INSERT INTO presence (user_id, realm_id, last_active_time, last_connected_time, last_update_id) \
         VALUES (?1, ?2, ?3, ?4, (SELECT COALESCE(MAX(last_update_id), 0) + 1 FROM presence WHERE realm_id = ?2)) \
         ON CONFLICT (user_id) DO UPDATE SET last_active_time = excluded.last_active_time, \
         last_connected_time = excluded.last_connected_time, last_update_id = excluded.last_update_id",
        user_id,
        realm_id,
        last_active,
        last_connected
    )
}
