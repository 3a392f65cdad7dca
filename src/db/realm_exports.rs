//! `realm_exports`: the organization's data exports and their status (migration 0029).

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::statement::statement;
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct RealmExportRow {
    pub id: i64,
    pub realm_id: i64,
    pub acting_user_id: i64,
    pub export_type: i64,
    pub status: i64,
    pub date_requested: i64,
    pub date_failed: Option<i64>,
    pub date_deleted: Option<i64>,
    pub base_url: String,
    pub export_path: Option<String>,
    /// What the build's steps have written so far (JSON), while it is under way.
    pub progress: Option<String>,
}

const COLUMNS: &str =
    "id, realm_id, acting_user_id, export_type, status, date_requested, date_failed, date_deleted, base_url, export_path, progress";

/// Zulip's `RealmExport` statuses.
pub const REQUESTED: i64 = 0;
pub const STARTED: i64 = 1;
pub const SUCCEEDED: i64 = 2;
pub const FAILED: i64 = 3;
pub const DELETED: i64 = 4;

#[derive(Deserialize)]
struct Count {
    n: i64,
}

/// Every export of the organization, oldest first.
pub async fn in_realm(db: &D1Database, realm_id: i64) -> Result<Vec<RealmExportRow>> {
    super::all(db, statement!(&format!("SELECT {COLUMNS} FROM realm_exports WHERE realm_id = ?1 ORDER BY id"), realm_id)?).await
}

pub async fn by_id(db: &D1Database, realm_id: RealmId, id: i64) -> Result<Option<RealmExportRow>> {
    super::first(db, statement!(&format!("SELECT {COLUMNS} FROM realm_exports WHERE realm_id = ?1 AND id = ?2"), realm_id, id)?).await
}

/// How many exports the organization requested since `since` (the rate limit).
pub async fn requested_since(db: &D1Database, realm_id: i64, since: i64) -> Result<i64> {
    let row: Option<Count> = super::first(
        db,
        statement!("SELECT COUNT(*) AS n FROM realm_exports WHERE realm_id = ?1 AND date_requested >= ?2", realm_id, since)?,
    )
    .await?;
    Ok(row.map_or(0, |r| r.n))
}

/// Records a requested export; answers its row.
pub async fn insert(
    db: &D1Database,
    realm_id: RealmId,
    acting_user_id: UserId,
    export_type: i64,
    now: i64,
    base_url: &str,
) -> Result<Option<RealmExportRow>> {
    super::first(
        db,
        statement!(
            &format!(
                "INSERT INTO realm_exports (realm_id, acting_user_id, export_type, status, date_requested, base_url) \
             VALUES (?1, ?2, ?3, 0, ?4, ?5) RETURNING {COLUMNS}"
            ),
            realm_id,
            acting_user_id,
            export_type,
            now,
            base_url
        )?,
    )
    .await
}

/// The oldest export still to build (requested, or started and interrupted).
pub async fn next_pending(db: &D1Database, realm_id: i64) -> Result<Option<RealmExportRow>> {
    super::first(
        db,
        statement!(&format!("SELECT {COLUMNS} FROM realm_exports WHERE realm_id = ?1 AND status IN (0, 1) ORDER BY id LIMIT 1"), realm_id)?,
    )
    .await
}

/// Records how far a pending export's build has come.
pub async fn set_progress(db: &D1Database, id: i64, progress: &str) -> Result<()> {
    super::run(db, statement!("UPDATE realm_exports SET progress = ?2 WHERE id = ?1 AND status IN (0, 1)", id, progress)?).await?;
    Ok(())
}

/// Moves a pending export to `status` (started, succeeded with its archive, or failed);
/// a finished build's progress is dropped.
pub async fn set_status(db: &D1Database, id: i64, status: i64, now: i64, export_path: Option<&str>) -> Result<()> {
    super::run(
        db,
        statement!(
            "UPDATE realm_exports SET status = ?2, export_path = COALESCE(?4, export_path), \
         date_succeeded = CASE WHEN ?2 = 2 THEN ?3 ELSE date_succeeded END, \
         date_failed = CASE WHEN ?2 = 3 THEN ?3 ELSE date_failed END, \
         progress = CASE WHEN ?2 IN (2, 3) THEN NULL ELSE progress END \
         WHERE id = ?1 AND status IN (0, 1)",
            id,
            status,
            now,
            export_path
        )?,
    )
    .await?;
    Ok(())
}

/// Marks a succeeded export deleted; answers whether it was (a concurrent delete loses).
pub async fn mark_deleted(db: &D1Database, id: i64, now: i64) -> Result<bool> {
    let row: Option<Count> = super::first(
        db,
        statement!("UPDATE realm_exports SET status = 4, date_deleted = ?2 WHERE id = ?1 AND status = 2 RETURNING 1 AS n", id, now)?,
    )
    .await?;
    Ok(row.is_some())
}

/// The succeeded export whose archive is stored under `export_path`, if any.
pub async fn succeeded_by_path(db: &D1Database, realm_id: i64, export_path: &str) -> Result<Option<RealmExportRow>> {
    super::first(
        db,
        statement!(
            &format!("SELECT {COLUMNS} FROM realm_exports WHERE realm_id = ?1 AND export_path = ?2 AND status = 2"),
            realm_id,
            export_path
        )?,
    )
    .await
}
