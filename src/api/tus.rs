//! `/api/v1/tus`: resumable uploads over the tus 1.0 protocol (core and `creation`), as
//! Zulip serves them through tusd. Every answer carries `Tus-Resumable` (added by the
//! route table's caller, [`add_protocol_headers`]), errors included.

use serde_json::json;
use worker::Response;

use crate::actions::tus::{do_append_chunk, do_create_upload, owned_upload, ChunkOutcome};
use crate::context::RequestContext;
use crate::domain::tus::{self, CHUNK_CONTENT_TYPE, TUS_EXTENSIONS, TUS_VERSION};
use crate::domain::uploads;
use crate::error::{ApiError, ApiResult};
use crate::request_body::OctetBody;
use crate::response::{json_response, Reply};

/// # `OPTIONS /tus` (and `/tus/{upload_id}`)
/// Anyone: what the server speaks.
/// - `Tus-Version` 1.0.0, `Tus-Extension` creation, `Tus-Max-Size` the upload limit
///   (`max_file_upload_size_mib`).
pub async fn options(_ctx: &RequestContext) -> ApiResult<Reply> {
    let mut resp = Response::empty()?.with_status(204);
    let headers = resp.headers_mut();
    headers.set("Tus-Version", TUS_VERSION)?;
    headers.set("Tus-Extension", TUS_EXTENSIONS)?;
    headers.set("Tus-Max-Size", &tus::max_size().to_string())?;
    Ok(Reply::Raw(resp))
}

/// # `POST /tus`
/// Any user (HTTP Basic): creates an upload of `Upload-Length` bytes.
/// - `Upload-Metadata` may name the file (`filename`) and its type (`filetype`),
///   base64-encoded; the name is sanitized as for `POST /user_uploads`.
/// - A length over `max_file_upload_size_mib` is refused (413) before anything is stored;
///   a deferred length is not supported (411).
/// - Answers 201 with `Location`, the URL to PATCH and HEAD. An empty file is complete at
///   once, so that answer also carries the body a completing PATCH has.
pub async fn create_upload(ctx: &RequestContext) -> ApiResult<Reply> {
    require_version(ctx)?;
    let me = ctx.user().await?;
    let length = match ctx.header("Upload-Length") {
        Some(value) => tus::parse_size(&value).ok_or_else(|| ApiError::tus_invalid_header("Upload-Length"))?,
        None if ctx.header("Upload-Defer-Length").is_some() => return Err(ApiError::tus_length_required()),
        None => return Err(ApiError::tus_invalid_header("Upload-Length")),
    };
    let metadata = tus::parse_metadata(&ctx.header("Upload-Metadata").unwrap_or_default())
        .ok_or_else(|| ApiError::tus_invalid_header("Upload-Metadata"))?;
    let created = do_create_upload(&ctx.db, &ctx.env, &me, length, &metadata).await?;
    let mut resp = match &created.finished {
        Some((path_id, file_name)) => finished_body(path_id, file_name, 201),
        None => Response::empty()?.with_status(201),
    };
    resp.headers_mut().set("Location", &format!("{}/api/v1/tus/{}", ctx.base_url, created.token))?;
    Ok(Reply::Raw(resp))
}

/// # `HEAD /tus/{upload_id}`
/// The upload's creator: where it stands, so an interrupted client knows where to resume.
/// - `Upload-Offset` (bytes stored), `Upload-Length`, `Cache-Control: no-store`.
/// - Anyone else's upload is unknown (404).
pub async fn upload_status(ctx: &RequestContext, token: &str) -> ApiResult<Reply> {
    require_version(ctx)?;
    let me = ctx.user().await?;
    let row = owned_upload(&ctx.db, &me, token).await?;
    let mut resp = Response::empty()?;
    let headers = resp.headers_mut();
    headers.set("Upload-Offset", &row.upload_offset.to_string())?;
    headers.set("Upload-Length", &row.length.to_string())?;
    headers.set("Cache-Control", "no-store")?;
    Ok(Reply::Raw(resp))
}

/// # `PATCH /tus/{upload_id}`
/// The upload's creator: stores the body (`Content-Type: application/offset+octet-stream`)
/// at `Upload-Offset`.
/// - `Upload-Offset` must equal the upload's offset (409 otherwise); a chunk may not go
///   past `Upload-Length` (413); a body that arrives short of its `Content-Length` is
///   dropped whole (400).
/// - Answers 204 with the new `Upload-Offset`; the chunk that completes the file answers
///   200 with Zulip's `{"url", "filename"}` (as its tusd hook does), and the file is then
///   an upload like one from `POST /user_uploads`.
/// - Anyone else's upload is unknown (404).
pub async fn append_chunk(ctx: &RequestContext, token: &str) -> ApiResult<Reply> {
    require_version(ctx)?;
    let me = ctx.user().await?;
    let content_type = ctx.header("Content-Type").unwrap_or_default();
    if !content_type.trim().eq_ignore_ascii_case(CHUNK_CONTENT_TYPE) {
        return Err(ApiError::tus_invalid_content_type());
    }
    let offset =
        ctx.header("Upload-Offset").and_then(|v| tus::parse_size(&v)).ok_or_else(|| ApiError::tus_invalid_header("Upload-Offset"))?;
    let chunk = match &ctx.octets {
        OctetBody::Bytes(bytes) => bytes.as_slice(),
        OctetBody::Absent | OctetBody::Broken => return Err(ApiError::tus_incomplete_chunk()),
    };
    let declared = ctx.header("Content-Length").and_then(|v| tus::parse_size(&v));
    if declared.is_some_and(|n| n != chunk.len() as i64) {
        return Err(ApiError::tus_incomplete_chunk());
    }
    let (offset, mut resp) = match do_append_chunk(&ctx.db, &ctx.env, &me, token, offset, chunk).await? {
        ChunkOutcome::Progress(offset) => (offset, Response::empty()?.with_status(204)),
        ChunkOutcome::Finished { offset, path_id, file_name } => (offset, finished_body(&path_id, &file_name, 200)),
    };
    resp.headers_mut().set("Upload-Offset", &offset.to_string())?;
    Ok(Reply::Raw(resp))
}

/// What Zulip's tusd hook answers when an upload completes: the file's URL and stored name.
fn finished_body(path_id: &str, file_name: &str, status: u16) -> Response {
    json_response(&json!({ "url": uploads::url_for(path_id), "filename": file_name }), status)
}

/// tus requests other than OPTIONS must name the version spoken.
fn require_version(ctx: &RequestContext) -> ApiResult<()> {
    match ctx.header("Tus-Resumable") {
        Some(version) if version.trim() == TUS_VERSION => Ok(()),
        _ => Err(ApiError::tus_unsupported_version()),
    }
}

/// `Tus-Resumable` on every answer under `/tus`, and `Tus-Version` on a 412 so the client
/// learns what to speak.
pub fn add_protocol_headers(resp: &mut Response) {
    let status = resp.status_code();
    let headers = resp.headers_mut();
    let _ = headers.set("Tus-Resumable", TUS_VERSION);
    if status == 412 {
        let _ = headers.set("Tus-Version", TUS_VERSION);
    }
}
