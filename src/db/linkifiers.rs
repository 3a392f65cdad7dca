//! `linkifiers`: the organization's patterns turned into links.

use crate::db::statement::{statement, Statement};
use crate::model::ids::RealmId;
use serde::Deserialize;
use worker::{D1Database, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct LinkifierRow {
    pub id: i64,
    pub pattern: String,
    pub url_template: String,
}

/// The organization's linkifiers in the order they apply.
pub fn in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT id, pattern, url_template FROM linkifiers WHERE realm_id = ?1 ORDER BY sort_order, id", realm_id)
}

pub async fn in_realm(db: &D1Database, realm_id: i64) -> Result<Vec<LinkifierRow>> {
    super::all(db, in_realm_stmt(realm_id)?).await
}

/// Adds a linkifier last in the order; answers its id (`None` if the pattern already exists).
pub fn insert_stmt(realm_id: i64, pattern: &str, url_template: &str) -> Result<Statement> {
    statement!(
        "INSERT INTO linkifiers (realm_id, pattern, url_template, sort_order) \
         VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(sort_order), 0) + 1 FROM linkifiers WHERE realm_id = ?1)) \
         ON CONFLICT (realm_id, pattern) DO NOTHING RETURNING id",
        realm_id,
        pattern,
        url_template
    )
}

/// Changes a linkifier's pattern and template; answers its id if it exists (and the pattern
/// is not another linkifier's).
pub fn update_stmt(realm_id: RealmId, id: i64, pattern: &str, url_template: &str) -> Result<Statement> {
    statement!(
        "UPDATE linkifiers SET pattern = ?3, url_template = ?4 WHERE realm_id = ?1 AND id = ?2 \
         AND NOT EXISTS (SELECT 1 FROM linkifiers o WHERE o.realm_id = ?1 AND o.pattern = ?3 AND o.id != ?2) RETURNING id",
        realm_id,
        id,
        pattern,
        url_template
    )
}

/// Removes a linkifier; answers its id if it existed.
pub fn delete_stmt(realm_id: RealmId, id: i64) -> Result<Statement> {
    statement!("DELETE FROM linkifiers WHERE realm_id = ?1 AND id = ?2 RETURNING id", realm_id, id)
}

/// Rewrites the order: `ids` (a JSON list) lists every linkifier once; position = order.
pub fn reorder_stmt(realm_id: i64, ids: &str) -> Result<Statement> {
    statement!(
        "UPDATE linkifiers SET sort_order = (SELECT CAST(j.key AS INTEGER) FROM json_each(?2) j WHERE j.value = linkifiers.id) \
         WHERE realm_id = ?1 AND id IN (SELECT value FROM json_each(?2))",
        realm_id,
        ids
    )
}
