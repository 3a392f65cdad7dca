//! `user_status`: each user's status text, emoji and the deprecated `away`.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct UserStatusRow {
    pub user_id: i64,
    pub status_text: String,
    pub emoji_name: String,
    pub emoji_code: String,
    pub reaction_type: String,
    pub away: i64,
}

const COLUMNS: &str = "user_id, status_text, emoji_name, emoji_code, reaction_type, away";

/// One user's status.
pub fn for_user_stmt(user_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM user_status WHERE user_id = ?1"), user_id)
}

/// The statuses of the organization that show anything.
pub fn in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        &format!("SELECT {COLUMNS} FROM user_status WHERE realm_id = ?1 AND (status_text != '' OR emoji_name != '' OR away != 0)"),
        realm_id
    )
}

/// The parts of a status update; `None` keeps the stored value.
pub struct StatusChange<'a> {
    pub status_text: Option<&'a str>,
    pub emoji: Option<(&'a str, &'a str, &'a str)>,
    pub away: Option<bool>,
}

/// Writes the given parts of the user's status.
pub fn upsert_stmt(realm_id: RealmId, user_id: UserId, change: &StatusChange<'_>, now: i64) -> Result<Statement> {
    let (name, code, kind) = match change.emoji {
        Some((n, c, k)) => (Some(n), Some(c), Some(k)),
        None => (None, None, None),
    };
    statement!(
        "INSERT INTO user_status (user_id, realm_id, status_text, emoji_name, emoji_code, reaction_type, away, updated_at) \
         VALUES (?1, ?2, COALESCE(?3, ''), COALESCE(?4, ''), COALESCE(?5, ''), COALESCE(?6, 'unicode_emoji'), COALESCE(?7, 0), ?8) \
         ON CONFLICT (user_id) DO UPDATE SET status_text = COALESCE(?3, status_text), emoji_name = COALESCE(?4, emoji_name), \
         emoji_code = COALESCE(?5, emoji_code), reaction_type = COALESCE(?6, reaction_type), away = COALESCE(?7, away), updated_at = ?8",
        user_id,
        realm_id,
        change.status_text,
        name,
        code,
        kind,
        change.away.map(i64::from),
        now
    )
}
