//! Resumable (tus) uploads: creating one, storing its chunks in an R2 multipart upload,
//! and recording the finished file exactly as `POST /user_uploads` does.
//!
//! D1 holds the progress (`tus_uploads`: offset, part etags, R2 upload id); R2 holds the
//! bytes: full [`PART_SIZE`] parts in the multipart upload, the bytes past the last part
//! in a temporary object named by the offset (see `domain::tus` for why). A PATCH writes
//! to R2 first and records its progress last, with a conditional update: a PATCH that
//! dies before that changed nothing the recorded offset points to, so the client asks
//! HEAD and sends the same bytes again. A chunk that arrives incomplete is dropped whole
//! (tus lets a server keep less than it was sent).

use worker::{Env, HttpMetadata, UploadedPart};

use crate::actions::uploads::{record_upload, StoredFile, BUCKET};
use crate::db::tus_uploads::{self, Changed, NewTusUpload, TusUploadRow};
use crate::db::users::UserRow;
use crate::domain::register_state::MAX_FILE_UPLOAD_SIZE_MIB;
use crate::domain::tus::{self, Metadata, PART_SIZE};
use crate::domain::uploads;
use crate::error::{ApiError, ApiResult};

/// Where an upload stands after a chunk.
pub enum ChunkOutcome {
    /// More bytes are expected; the new offset.
    Progress(i64),
    /// The chunk completed the file, now an upload like any other.
    Finished { offset: i64, path_id: String, file_name: String },
}

/// A new upload: its token (the id in its URL), and the stored file when it is already
/// complete (an empty file).
pub struct Created {
    pub token: String,
    pub finished: Option<(String, String)>,
}

/// Creates `me`'s upload of `length` bytes. Over the size limit is refused before anything
/// is stored. An empty file is finished at once: no chunk will come for it.
pub async fn do_create_upload(db: &worker::D1Database, env: &Env, me: &UserRow, length: i64, metadata: &Metadata) -> ApiResult<Created> {
    if length > tus::max_size() {
        return Err(ApiError::tus_upload_too_large(MAX_FILE_UPLOAD_SIZE_MIB));
    }
    let file_name = uploads::sanitize_name(&metadata.filename);
    let path_id = uploads::new_path_id(me.realm_id, &file_name);
    let content_type = uploads::content_type_for(&metadata.filetype, &file_name);
    let token = crate::secrets::random_alphanumeric(32);
    let http_metadata = HttpMetadata { content_type: Some(content_type.clone()), ..Default::default() };
    let bucket = env.bucket(BUCKET)?;
    let r2_upload_id = if length == 0 {
        bucket.put(path_id.clone(), Vec::<u8>::new()).http_metadata(http_metadata).execute().await?;
        String::new()
    } else {
        bucket.create_multipart_upload(path_id.clone()).http_metadata(http_metadata).execute().await?.upload_id().await
    };
    let new = NewTusUpload {
        token: &token,
        realm_id: me.realm_id,
        owner_id: me.id,
        path_id: &path_id,
        file_name: &file_name,
        content_type: &content_type,
        length,
        r2_upload_id: &r2_upload_id,
        create_time: crate::db::now(),
    };
    let insert = tus_uploads::insert_stmt(&new)?;
    if length == 0 {
        let stored = StoredFile { path_id: &path_id, file_name: &file_name, content_type: &content_type, size: 0 };
        record_upload(db, env, me, &stored, Some(insert)).await?;
        return Ok(Created { token, finished: Some((path_id, file_name)) });
    }
    crate::db::run(db, insert).await?;
    Ok(Created { token, finished: None })
}

/// `me`'s upload behind `token`; anyone else's is unknown.
pub async fn owned_upload(db: &worker::D1Database, me: &UserRow, token: &str) -> ApiResult<TusUploadRow> {
    tus_uploads::owned_by_token(db, me.id, token).await?.ok_or_else(ApiError::tus_upload_not_found)
}

/// Stores `chunk` at `offset` of `me`'s upload `token`.
/// - `offset` must be where the upload stands (409 otherwise, nothing stored).
/// - The chunk may not go past the upload's length.
/// - Full parts go to R2 now, the rest waits for the next chunk; the last chunk completes
///   the R2 object and records the attachment.
pub async fn do_append_chunk(
    db: &worker::D1Database,
    env: &Env,
    me: &UserRow,
    token: &str,
    offset: i64,
    chunk: &[u8],
) -> ApiResult<ChunkOutcome> {
    let row = owned_upload(db, me, token).await?;
    if offset != row.upload_offset {
        return Err(ApiError::tus_offset_mismatch());
    }
    let new_offset = offset + chunk.len() as i64;
    if new_offset > row.length {
        return Err(ApiError::tus_chunk_past_length());
    }
    if chunk.is_empty() {
        return Ok(ChunkOutcome::Progress(offset));
    }
    let bucket = env.bucket(BUCKET)?;
    let mut etags: Vec<String> = serde_json::from_str(&row.parts)?;
    let waiting = (offset - (etags.len() * PART_SIZE) as i64) as usize;
    let mut buffer = Vec::with_capacity(waiting + chunk.len());
    if waiting > 0 {
        let object = bucket.get(tus::pending_key(token, offset)).execute().await?;
        let bytes = match object.as_ref().and_then(|o| o.body()) {
            Some(body) => body.bytes().await?,
            None => Vec::new(),
        };
        if bytes.len() != waiting {
            return Err(ApiError::internal("tus upload: the bytes waiting for a part are missing"));
        }
        buffer.extend_from_slice(&bytes);
    }
    buffer.extend_from_slice(chunk);

    let is_final = new_offset == row.length;
    let plan = tus::plan_chunk(etags.len(), buffer.len(), is_final);
    let multipart = bucket.resume_multipart_upload(row.path_id.clone(), row.r2_upload_id.clone())?;
    for (number, range) in &plan.parts {
        let part = multipart.upload_part(*number, buffer[range.clone()].to_vec()).await?;
        etags.push(part.etag());
    }
    if !plan.pending.is_empty() {
        bucket.put(tus::pending_key(token, new_offset), buffer[plan.pending.clone()].to_vec()).execute().await?;
    }
    let advance = tus_uploads::advance_stmt(row.id, offset, new_offset, &serde_json::to_string(&etags)?)?;

    let outcome = if is_final {
        let parts = etags.iter().enumerate().map(|(i, etag)| UploadedPart::new(i as u16 + 1, etag.clone()));
        multipart.complete(parts).await?;
        let stored = StoredFile { path_id: &row.path_id, file_name: &row.file_name, content_type: &row.content_type, size: row.length };
        record_upload(db, env, me, &stored, Some(advance)).await?;
        ChunkOutcome::Finished { offset: new_offset, path_id: row.path_id.clone(), file_name: row.file_name.clone() }
    } else {
        let changed: Option<Changed> = crate::db::first(db, advance).await?;
        if changed.is_none() {
            // Another PATCH at the same offset got there first.
            return Err(ApiError::tus_offset_mismatch());
        }
        ChunkOutcome::Progress(new_offset)
    };
    if waiting > 0 {
        // The bytes it held are in a part now, or in the next pending object.
        let _ = bucket.delete(tus::pending_key(token, offset)).await;
    }
    Ok(outcome)
}
