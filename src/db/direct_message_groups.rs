//! `direct_message_groups`: conversations of three or more users (recipient type 3).

use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::recipients::RecipientType;

/// The key of a group: member ids ascending, joined by ','.
pub fn member_key(user_ids: &[i64]) -> String {
    let mut ids = user_ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

/// Idempotent statements creating the group of `user_ids`, its members and its recipient.
pub fn ensure_stmts(realm_id: i64, user_ids: &[i64]) -> Result<Vec<Statement>> {
    let key = member_key(user_ids);
    let ids_json = serde_json::to_string(user_ids).map_err(|e| worker::Error::RustError(e.to_string()))?;
    let group = "(SELECT id FROM direct_message_groups WHERE realm_id = ?1 AND member_key = ?2)";
    Ok(vec![
        statement!(
            "INSERT OR IGNORE INTO direct_message_groups (realm_id, member_key, group_size) VALUES (?1, ?2, ?3)",
            realm_id,
            &key,
            user_ids.len() as i64
        )?,
        statement!(
            &format!("INSERT OR IGNORE INTO direct_message_group_members (group_id, user_id) SELECT {group}, value FROM json_each(?3)"),
            realm_id,
            &key,
            &ids_json
        )?,
        statement!(
            &format!(
                "INSERT OR IGNORE INTO recipients (realm_id, type, type_id) SELECT ?1, {}, {group}",
                RecipientType::DirectMessageGroup.code()
            ),
            realm_id,
            &key
        )?,
    ])
}
