//! Data exports of the organization (administrators only), and the archive's download.

use serde_json::json;
use worker::Response;

use crate::actions::realm_export::{archive_body, do_delete_export, do_request_export, export_consents, exports_of, ExportRequest};
use crate::auth::Administrator;
use crate::context::RequestContext;
use crate::domain::realm_export::{check_export_type, invalid_export_id};
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int;
use crate::response::Reply;

/// # `POST /export/realm`
/// Administrators. Answers `id`; emits `realm_export` to the administrators now and when
/// the archive is built (in the background).
/// - `export_type`: 1 public data (default), 2 with the private data of consenting members;
/// - at most 5 exports a week (`Exceeded rate limit.`); over 250,000 messages needs a
///   manual export.
pub async fn export_realm(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?.into_user();
    let export_type = check_export_type(ctx.params.int("export_type")?)?;
    let request = ExportRequest {
        export_type,
        base_url: &ctx.base_url,
        database: &ctx.database,
        realm_host: &ctx.realm_host,
        support_email: &ctx.settings.administrator_email(),
    };
    let id = do_request_export(&ctx.db, &ctx.env, &admin, &request).await?;
    Ok(Reply::json(json!({ "id": id })))
}

/// # `GET /export/realm`
/// Administrators: every export of the organization (`exports`), oldest first.
pub async fn get_realm_exports(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?.into_user();
    Ok(Reply::json(json!({ "exports": exports_of(&ctx.db, admin.realm_id).await? })))
}

/// # `DELETE /export/realm/{export_id}`
/// Administrators: deletes a finished export's archive; emits `realm_export`.
/// Unknown id: `Invalid data export ID`; deleted, failed or pending exports are refused.
pub async fn delete_realm_export(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?.into_user();
    let id = parse_int(id).ok_or_else(invalid_export_id)?;
    do_delete_export(&ctx.db, &ctx.env, &admin, id).await?;
    Ok(Reply::ok())
}

/// # `GET /export/realm/consents`
/// Administrators: whether each active human member consented to exporting their private
/// data (`export_consents`: `user_id`, `consented`).
pub async fn get_export_consents(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?.into_user();
    Ok(Reply::json(json!({ "export_consents": export_consents(&ctx.db, admin.realm_id).await? })))
}

/// # `GET /user_avatars/exports/{realm_id}/{token}/{file name}` (outside `/api/v1`)
/// Administrators of the organization: the archive of a succeeded, undeleted export.
pub async fn serve_export(ctx: &RequestContext, realm_id: &str, token: &str, file_name: &str) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?.into_user();
    if parse_int(realm_id) != Some(admin.realm_id) {
        return Err(ApiError::upload_not_found());
    }
    let key = format!("exports/{realm_id}/{token}/{file_name}");
    let (body, size) = archive_body(&ctx.db, &ctx.env, &admin, &key).await?;
    let mut resp = Response::from_stream(body)?;
    let headers = resp.headers_mut();
    headers.set("Content-Type", "application/gzip")?;
    headers.set("Content-Length", &size.to_string())?;
    headers.set("Content-Disposition", &format!("attachment; filename=\"{file_name}\""))?;
    headers.set("Cache-Control", "private, no-store")?;
    Ok(Reply::Raw(resp))
}
