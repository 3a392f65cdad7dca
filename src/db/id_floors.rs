//! Id floors: every database after the first hands out ids from its own range, so an id
//! (user, channel, message, ...) names one thing server-wide, as in Zulip, and an id of
//! another organization is never a valid id here by accident.
//!
//! A table with a plain `INTEGER PRIMARY KEY` numbers new rows from its largest id, so it
//! gets one inert floor row at the range's start, all of them in a floor organization no
//! request can reach (`#id-floor`, not a valid subdomain). A table with `AUTOINCREMENT`
//! numbers from `sqlite_sequence`, which is raised to the range's start instead.

use crate::db::statement::{statement, Statement};
use worker::Result;

/// The floor rows, idempotent (`OR IGNORE`); `?1` is the range's first id.
const FLOOR_ROWS: &[&str] = &[
    "INSERT OR IGNORE INTO realms (id, string_id, name, date_created) VALUES (?1, '#id-floor', '', 0)",
    "INSERT OR IGNORE INTO users (id, realm_id, email, delivery_email, full_name, is_active, date_joined) \
     VALUES (?1, ?1, '', '', '', 0, 0)",
    "INSERT OR IGNORE INTO user_groups (id, realm_id, name) VALUES (?1, ?1, '')",
    "INSERT OR IGNORE INTO recipients (id, realm_id, type, type_id) VALUES (?1, ?1, 1, ?1)",
    "INSERT OR IGNORE INTO channels (id, realm_id, name, date_created) VALUES (?1, ?1, '', 0)",
    "INSERT OR IGNORE INTO subscriptions (id, realm_id, user_id, channel_id, active) VALUES (?1, ?1, ?1, ?1, 0)",
    "INSERT OR IGNORE INTO direct_message_groups (id, realm_id, member_key, group_size) VALUES (?1, ?1, '', 0)",
    "INSERT OR IGNORE INTO messages (id, realm_id, sender_id, recipient_id, content, rendered_content, date_sent, client) \
     VALUES (?1, ?1, ?1, ?1, '', '', 0, '')",
    "INSERT OR IGNORE INTO reactions (id, message_id, user_id, emoji_name, emoji_code) VALUES (?1, ?1, ?1, '', '')",
    "INSERT OR IGNORE INTO user_topics (id, realm_id, user_id, channel_id, topic, visibility_policy, last_updated) \
     VALUES (?1, ?1, ?1, ?1, '', 0, 0)",
    "INSERT OR IGNORE INTO custom_profile_fields (id, realm_id, name, field_type, sort_order) VALUES (?1, ?1, '', 0, 0)",
];

pub fn floor_rows_stmts(first_id: i64) -> Result<Vec<Statement>> {
    FLOOR_ROWS.iter().map(|sql| statement!(*sql, first_id)).collect()
}

/// Raises every `AUTOINCREMENT` sequence of the schema to `first_id` (tables not yet
/// written get their sequence row); D1's own tables are left alone.
pub fn sequences_stmts(first_id: i64) -> Result<Vec<Statement>> {
    Ok(vec![
        statement!(
            "INSERT INTO sqlite_sequence (name, seq) SELECT name, ?1 FROM sqlite_master \
             WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%' AND substr(name, 1, 4) <> '_cf_' \
             AND name NOT IN (SELECT name FROM sqlite_sequence)",
            first_id
        )?,
        statement!("UPDATE sqlite_sequence SET seq = ?1 WHERE seq < ?1 AND substr(name, 1, 4) <> '_cf_'", first_id)?,
    ])
}
