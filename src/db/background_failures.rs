//! `background_failures`: failed background work, counted per organization and kind.

use crate::db::statement::{statement, Statement};
use serde::Deserialize;
use worker::{D1Database, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct FailureRow {
    pub realm_id: i64,
    pub kind: String,
    pub failures: i64,
    pub last_error: String,
    pub last_at: i64,
}

/// Counts one failure of `kind` in the organization.
pub async fn record(db: &D1Database, realm_id: i64, kind: &str, error: &str, now: i64) -> Result<()> {
    super::run(
        db,
        statement!(
            "INSERT INTO background_failures (realm_id, kind, failures, last_error, last_at) VALUES (?1, ?2, 1, ?3, ?4) \
         ON CONFLICT (realm_id, kind) DO UPDATE SET failures = failures + 1, last_error = ?3, last_at = ?4",
            realm_id,
            kind,
            error,
            now
        )?,
    )
    .await?;
    Ok(())
}

/// Every count, by organization then kind.
pub async fn all(db: &D1Database) -> Result<Vec<FailureRow>> {
    super::all(
        db,
        Statement::new("SELECT realm_id, kind, failures, last_error, last_at FROM background_failures ORDER BY realm_id, kind", Vec::new()),
    )
    .await
}
