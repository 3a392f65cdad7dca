//! The directory's table (`migrations/0016_realm_directory.sql`), read and written only in
//! the first database (`DB`); `crate::platform::directory` holds the rules.

use crate::db::statement::{statement, Statement};
use serde::Deserialize;
use worker::{D1Database, Result};

/// Where an organization lives.
#[derive(Debug, Clone, Deserialize)]
pub struct PlacementRow {
    pub realm_id: i64,
    pub database: String,
}

pub async fn by_string_id(db: &D1Database, string_id: &str) -> Result<Option<PlacementRow>> {
    super::first(db, statement!("SELECT realm_id, database FROM realm_directory WHERE string_id = ?1", string_id)?).await
}

/// Records the organization in `database` unless it is recorded already, and answers its
/// placement either way (the first placement wins; placements never change).
pub async fn place(db: &D1Database, string_id: &str, database: &str) -> Result<Option<PlacementRow>> {
    super::first(
        db,
        statement!(
            "INSERT INTO realm_directory (string_id, database) VALUES (?1, ?2) \
         ON CONFLICT (string_id) DO UPDATE SET database = database RETURNING realm_id, database",
            string_id,
            database
        )?,
    )
    .await
}

#[derive(Debug, Deserialize)]
pub struct DatabaseCountRow {
    pub database: String,
    pub organizations: i64,
}

/// How many organizations each database holds (databases without any are absent).
pub async fn counts(db: &D1Database) -> Result<Vec<DatabaseCountRow>> {
    super::all(db, Statement::new("SELECT database, COUNT(*) AS organizations FROM realm_directory GROUP BY database", Vec::new())).await
}

/// The databases that hold at least one organization.
pub async fn databases(db: &D1Database) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Database {
        database: String,
    }
    let rows: Vec<Database> =
        super::all(db, Statement::new("SELECT DISTINCT database FROM realm_directory ORDER BY database", Vec::new())).await?;
    Ok(rows.into_iter().map(|r| r.database).collect())
}
