//! `tus_uploads`: resumable uploads, in progress and finished.

use crate::db::statement::{statement, Statement};
use serde::Deserialize;
use worker::{D1Database, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct TusUploadRow {
    pub id: i64,
    pub token: String,
    pub realm_id: i64,
    pub owner_id: i64,
    pub path_id: String,
    pub file_name: String,
    pub content_type: String,
    pub length: i64,
    pub upload_offset: i64,
    pub r2_upload_id: String,
    /// JSON list of part etags.
    pub parts: String,
    pub create_time: i64,
}

pub struct NewTusUpload<'a> {
    pub token: &'a str,
    pub realm_id: i64,
    pub owner_id: i64,
    pub path_id: &'a str,
    pub file_name: &'a str,
    pub content_type: &'a str,
    pub length: i64,
    pub r2_upload_id: &'a str,
    pub create_time: i64,
}

pub fn insert_stmt(u: &NewTusUpload<'_>) -> Result<Statement> {
    statement!(
        "INSERT INTO tus_uploads (token, realm_id, owner_id, path_id, file_name, content_type, length, r2_upload_id, create_time) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        u.token,
        u.realm_id,
        u.owner_id,
        u.path_id,
        u.file_name,
        u.content_type,
        u.length,
        u.r2_upload_id,
        u.create_time
    )
}

/// The upload behind `token` if `owner_id` created it (anyone else's is unknown).
pub async fn owned_by_token(db: &D1Database, owner_id: i64, token: &str) -> Result<Option<TusUploadRow>> {
    super::first(
        db,
        statement!(
        "SELECT id, token, realm_id, owner_id, path_id, file_name, content_type, length, upload_offset, r2_upload_id, parts, create_time \
         FROM tus_uploads WHERE owner_id = ?1 AND token = ?2",
        owner_id,
        token
    )?,
    )
    .await
}

/// Whether a row was changed (`RETURNING id` of a conditional update).
#[derive(Debug, Deserialize)]
pub struct Changed {
    pub id: i64,
}

/// Records a stored chunk, only if the upload is still at `from_offset` (a concurrent
/// PATCH that got there first wins; this one then changes nothing).
pub fn advance_stmt(id: i64, from_offset: i64, to_offset: i64, parts_json: &str) -> Result<Statement> {
    statement!(
        "UPDATE tus_uploads SET upload_offset = ?3, parts = ?4 WHERE id = ?1 AND upload_offset = ?2 RETURNING id",
        id,
        from_offset,
        to_offset,
        parts_json
    )
}
