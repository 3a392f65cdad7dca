//! Uploading files and downloading them.

use serde_json::json;
use worker::Response;

use crate::actions::uploads::{
    do_create_temporary_url, do_delete_attachment, do_upload, downloadable_attachment, list_attachments, read_object, temporary_attachment,
};
use crate::context::RequestContext;
use crate::db::attachments::AttachmentRow;
use crate::domain::uploads::{self, ByteRange};
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;

/// # `POST /user_uploads`
/// Any user: stores the one file of a multipart body.
/// - The file may come under any field name; no file or two files is an error.
/// - Over `max_file_upload_size_mib` is refused before anything is stored.
/// - Answers `url` (and its deprecated alias `uri`) and the stored, sanitized `filename`.
/// - Only the uploader may download it until a message linking it is sent.
pub async fn upload_file(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let [file] = ctx.files.as_slice() else { return Err(ApiError::upload_file_count(ctx.files.len())) };
    let stored = do_upload(&ctx.db, &ctx.env, &me, file).await?;
    let url = uploads::url_for(&stored.path_id);
    Ok(Reply::json(json!({ "uri": url, "url": url, "filename": stored.file_name })))
}

/// # `GET /user_uploads/{realm_id}/{a}/{b}/{file name}` (outside `/api/v1`)
/// The uploader, or any user who may see a message linking the file (HTTP Basic):
/// - Answers the bytes with their `Content-Type`, `Content-Disposition` (inline only for
///   safe images, audio and video), `ETag`, and honours a single `Range`.
/// - Anyone else, anonymous requests included, gets an error and never the bytes.
pub async fn serve_file(ctx: &RequestContext, path: &[&str]) -> ApiResult<Reply> {
    let attachment = downloadable(ctx, path).await?;
    respond_with_file(ctx, &attachment).await
}

/// # `GET /thumbnail?url=…&size=…` (outside `/api/v1`; also `GET /api/v1/thumbnail`)
/// Any user (HTTP Basic): where inline image previews point their `src` and
/// `data-src-fullsize`. Without an image proxy, as Zulip without Camo:
/// - `url` naming an upload (`user_uploads/{path_id}`): that file, under the download rules
///   of `GET /user_uploads/{path_id}` (there are no smaller copies; `size` is not checked).
/// - An external `http(s)` URL: a redirect (302) to it.
/// - Anything else: not authorized (403).
pub async fn serve_thumbnail(ctx: &RequestContext) -> ApiResult<Reply> {
    let url = ctx.params.required_str("url")?;
    ctx.params.required_str("size")?;
    if let Some(path_id) = url.trim_start_matches('/').strip_prefix("user_uploads/") {
        let segments: Vec<String> = path_id.split('/').map(crate::params::percent_decode_path).collect();
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        return serve_file(ctx, &segments).await;
    }
    ctx.user().await?;
    let external = url.starts_with("https://") || url.starts_with("http://");
    match worker::Url::parse(&url).ok().filter(|_| external) {
        Some(target) => Ok(Reply::Raw(Response::redirect(target)?)),
        None => Err(ApiError::upload_not_authorized()),
    }
}

/// # `GET /user_uploads/temporary/{token}/{file name}` (outside `/api/v1`)
/// Anyone holding an unexpired token from `GET /api/v1/user_uploads/...`: the file, served
/// as above, without credentials.
pub async fn serve_temporary_file(ctx: &RequestContext, token: &str) -> ApiResult<Reply> {
    let attachment = temporary_attachment(&ctx.db, token).await?;
    respond_with_file(ctx, &attachment).await
}

async fn respond_with_file(ctx: &RequestContext, attachment: &AttachmentRow) -> ApiResult<Reply> {
    let size = attachment.size.max(0) as u64;
    let range = uploads::parse_range(ctx.header("Range").as_deref(), size);
    let part = match range {
        ByteRange::Whole => None,
        ByteRange::Part(start, end) => Some((start, end)),
        ByteRange::Unsatisfiable => {
            let err = ApiError::range_not_satisfiable();
            let mut resp = crate::response::error_response(&err);
            resp.headers_mut().set("Content-Range", &format!("bytes */{size}"))?;
            return Ok(Reply::Raw(resp));
        }
    };
    let bytes = read_object(&ctx.env, attachment, part).await?;
    let mut resp = Response::from_bytes(bytes)?;
    let headers = resp.headers_mut();
    headers.set("Content-Type", &attachment.content_type)?;
    headers.set("Content-Disposition", &uploads::content_disposition(&attachment.content_type, &attachment.file_name))?;
    headers.set("ETag", &format!("\"{}-{}\"", attachment.id, attachment.size))?;
    headers.set("Accept-Ranges", "bytes")?;
    headers.set("Cache-Control", "private, max-age=86400")?;
    headers.set("X-Content-Type-Options", "nosniff")?;
    // Files share the web client's origin: a file opened in the browser runs no script
    // and reaches nothing of the page's.
    headers.set("Content-Security-Policy", "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox")?;
    let resp = match part {
        Some((start, end)) => {
            resp.headers_mut().set("Content-Range", &format!("bytes {start}-{end}/{size}"))?;
            resp.with_status(206)
        }
        None => resp,
    };
    Ok(Reply::Raw(resp))
}

/// # `GET /user_uploads/{realm_id}/{a}/{b}/{file name}` (under `/api/v1`)
/// The uploader, or any user who may see a message linking the file: answers `url`, a
/// temporary URL that downloads the file without credentials for 60 seconds.
pub async fn get_file_url(ctx: &RequestContext, path: &[&str]) -> ApiResult<Reply> {
    let attachment = downloadable(ctx, path).await?;
    let url = do_create_temporary_url(&ctx.db, &attachment).await?;
    Ok(Reply::json(json!({ "url": url })))
}

/// The upload at `path` (the segments after `user_uploads`) if the caller may download it.
async fn downloadable(ctx: &RequestContext, path: &[&str]) -> ApiResult<AttachmentRow> {
    let me = ctx.user().await?;
    if path.len() != 4 || path.iter().any(|s| s.is_empty()) {
        return Err(ApiError::upload_not_found());
    }
    downloadable_attachment(&ctx.db, &me, &path.join("/")).await
}

/// # `GET /attachments`
/// Any user: their own uploads, each with the messages linking it, and `upload_space_used`.
pub async fn get_attachments(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let (attachments, used) = list_attachments(&ctx.db, &me).await?;
    Ok(Reply::json(json!({ "attachments": attachments, "upload_space_used": used })))
}

/// # `DELETE /attachments/{attachment_id}`
/// The uploader only: deletes the upload and its bytes; links to it stop working.
pub async fn delete_attachment(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let id = crate::params::parse_int(id).ok_or_else(ApiError::invalid_attachment)?;
    do_delete_attachment(&ctx.db, &ctx.env, &me, id).await?;
    Ok(Reply::ok())
}
