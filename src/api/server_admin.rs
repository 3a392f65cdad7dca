//! The server operator's endpoints, outside any organization's accounts. They are
//! guarded by the Worker secret `SERVER_ADMIN_SECRET` (`wrangler secret put`), sent as
//! `Authorization: Bearer <secret>`; without the secret they do not exist (404).

use serde_json::json;

use crate::actions::organizations::{check_create_organization, do_set_organization_deactivated, NewOrganization};
use crate::actions::push_relay::announce_organizations;
use crate::actions::realm_import::{self, ImportStart};
use crate::context::RequestContext;
use crate::error::{ApiError, ApiResult};
use crate::response::Reply;
use crate::secrets::{constant_time_eq, sha256_hex};

fn require_server_admin(ctx: &RequestContext) -> ApiResult<()> {
    let secret = crate::settings::secret(&ctx.env, "SERVER_ADMIN_SECRET").filter(|s| !s.is_empty());
    let Some(secret) = secret else { return Err(ApiError::not_found()) };
    let sent = ctx.header("Authorization").and_then(|h| h.strip_prefix("Bearer ").map(str::to_string));
    match sent {
        // Compare digests, so the comparison takes the same time whatever the lengths.
        Some(sent) if constant_time_eq(sha256_hex(sent.as_bytes()).as_bytes(), sha256_hex(secret.as_bytes()).as_bytes()) => Ok(()),
        Some(_) => Err(ApiError::invalid_server_admin_secret()),
        None => Err(ApiError::not_logged_in()),
    }
}

/// # `POST /server_admin/organizations`
/// The server operator only (see the module). Creates a working organization: its
/// system groups and settings, its owner and a `general` channel, in one batch.
/// - `string_id`: the subdomain (Zulip's rules: 3-40 lowercase letters, digits and inner
///   `-`, not reserved, not in use); `name`: at most 40 characters.
/// - `owner_email`, `owner_full_name`: the first owner, who may create users.
///
/// Answers `realm_id`, `realm_url` and the owner's login (`user_id`, `email`, and a random
/// first `password`, shown only here).
pub async fn create_organization(ctx: &RequestContext) -> ApiResult<Reply> {
    require_server_admin(ctx)?;
    let p = &ctx.params;
    let string_id = p.required_str("string_id")?;
    let name = p.required_str("name")?;
    let owner_email = p.required_str("owner_email")?;
    let owner_full_name = p.required_str("owner_full_name")?;
    let new = NewOrganization { string_id: &string_id, name: &name, owner_email: &owner_email, owner_full_name: &owner_full_name };
    let created = check_create_organization(&ctx.env, &new).await?;
    announce_organizations(ctx);
    Ok(Reply::json(json!({
        "realm_id": created.realm_id,
        "realm_url": realm_url(ctx, &string_id),
        "owner": { "user_id": created.owner_id, "email": owner_email, "password": created.owner_password },
    })))
}

/// The organization's URL, on the scheme and port the operator reached the server by.
fn realm_url(ctx: &RequestContext, string_id: &str) -> String {
    let scheme = ctx.base_url.split_once("://").map_or("https", |(scheme, _)| scheme);
    let port = ctx.base_url.rsplit_once(':').and_then(|(_, port)| port.parse::<u16>().ok());
    let host = match port {
        Some(port) => format!("{}:{port}", ctx.settings.organization_host(string_id)),
        None => ctx.settings.organization_host(string_id),
    };
    format!("{scheme}://{host}")
}

/// # `POST /server_admin/organizations/{string_id}/deactivate` and `.../reactivate`
/// The server operator only (see the module). Deactivation keeps every row; from then on
/// every request to the organization, logins included, answers `REALM_DEACTIVATED` until
/// it is reactivated. Unknown organization: "No such organization".
pub async fn set_organization_deactivated(ctx: &RequestContext, string_id: &str, deactivated: bool) -> ApiResult<Reply> {
    require_server_admin(ctx)?;
    do_set_organization_deactivated(&ctx.env, string_id, deactivated).await?;
    announce_organizations(ctx);
    Ok(Reply::ok())
}

/// # `GET /server_admin/background_failures`
/// The server operator only (see the module). Background work that failed (push
/// notifications, scheduled delivery, event hand-off), counted per organization and kind:
/// `failures` with `realm_id`, `kind`, `failures`, `last_error`, `last_at`.
pub async fn get_background_failures(ctx: &RequestContext) -> ApiResult<Reply> {
    require_server_admin(ctx)?;
    let failures = crate::actions::background_failures::all(&ctx.env).await?;
    Ok(Reply::json(json!({ "failures": failures })))
}

/// # `POST /server_admin/imports`
/// The server operator only (see the module); `make import-organization` sends each step.
/// Starts importing a Zulip export archive as the new organization `string_id`: `realm`
/// (the text of `realm.json`) and `attachments` (of `attachment.json`) are checked whole
/// (valid JSON, every id they refer to in the archive, upload paths inside their folder),
/// then the organization is created deactivated with their tables. Sent again for the
/// same import, it changes nothing. Answers `realm_id`.
pub async fn start_import(ctx: &RequestContext) -> ApiResult<Reply> {
    require_server_admin(ctx)?;
    let p = &ctx.params;
    let string_id = p.required_str("string_id")?;
    let realm_json = p.required_str("realm")?;
    let attachment_json = p.str("attachments")?.unwrap_or_else(|| "{}".to_string());
    let start = ImportStart { string_id: &string_id, realm_json: &realm_json, attachment_json: &attachment_json };
    let realm_id = realm_import::do_start_import(&ctx.env, &start).await?;
    Ok(Reply::json(json!({ "realm_id": realm_id })))
}

/// # `POST /server_admin/imports/{string_id}/tables`
/// The server operator only. `chunk`: JSON with rows of `zerver_subscription` (of
/// channels) and `zerver_attachment`, which the start left out. Answers `rows`, how many
/// the chunk held.
pub async fn import_tables(ctx: &RequestContext, string_id: &str) -> ApiResult<Reply> {
    require_server_admin(ctx)?;
    let chunk = ctx.params.required_str("chunk")?;
    let count = realm_import::do_import_tables(&ctx.env, string_id, &chunk).await?;
    Ok(Reply::json(json!({ "rows": count })))
}

/// # `POST /server_admin/imports/{string_id}/messages`
/// The server operator only. `chunk`: JSON with `zerver_message`, `zerver_usermessage`,
/// `zerver_reaction` and `attachment_messages` (links `{attachment, message}`) of these
/// messages. Answers `messages`, how many the chunk held.
pub async fn import_messages(ctx: &RequestContext, string_id: &str) -> ApiResult<Reply> {
    require_server_admin(ctx)?;
    let chunk = ctx.params.required_str("chunk")?;
    let count = realm_import::do_import_messages(&ctx.env, string_id, &chunk).await?;
    Ok(Reply::json(json!({ "messages": count })))
}

/// The archive's files an import takes one request each.
#[derive(Clone, Copy)]
pub enum ImportFile {
    /// `uploads/`: with `path_id`, the upload's path in the archive.
    Upload,
    /// `emoji/`: with `file_name`, the custom emoji's.
    Emoji,
    /// `avatars/`: with `user_profile_id` (the archive's user) and `path`.
    Avatar,
    /// `realm_icons/`: with `path` (`<realm_id>/icon.original`, `.../logo.png`, ...).
    RealmImage,
}

/// # `POST /server_admin/imports/{string_id}/uploads`, `.../emoji`, `.../avatars` and `.../realm_icons`
/// The server operator only. Multipart: one file, with the fields of [`ImportFile`]. An
/// avatar or organization image must be an image type this server shows (PNG, GIF, JPEG,
/// WebP, AVIF), else the archive is refused.
pub async fn import_file(ctx: &RequestContext, string_id: &str, kind: ImportFile) -> ApiResult<Reply> {
    require_server_admin(ctx)?;
    let file = ctx.files.first().ok_or_else(|| ApiError::bad_request("You must specify a file to upload"))?;
    let p = &ctx.params;
    match kind {
        ImportFile::Upload => realm_import::do_import_upload(&ctx.env, string_id, &p.required_str("path_id")?, &file.bytes).await?,
        ImportFile::Emoji => realm_import::do_import_emoji(&ctx.env, string_id, &p.required_str("file_name")?, &file.bytes).await?,
        ImportFile::Avatar => {
            let user = p.required_int("user_profile_id")?;
            realm_import::do_import_avatar(&ctx.env, string_id, user, &p.required_str("path")?, &file.bytes).await?
        }
        ImportFile::RealmImage => realm_import::do_import_realm_image(&ctx.env, string_id, &p.required_str("path")?, &file.bytes).await?,
    }
    Ok(Reply::ok())
}

/// # `POST /server_admin/imports/{string_id}/finish`
/// The server operator only. Opens the imported organization: people sign in with a
/// password reset link (no password or API key is imported). Answers `realm_id`,
/// `realm_url`, and `uploads_without_file` (attachments whose file never came; their links
/// stay broken) with `first_upload_without_file`, its path on this server.
pub async fn finish_import(ctx: &RequestContext, string_id: &str) -> ApiResult<Reply> {
    require_server_admin(ctx)?;
    let url = realm_url(ctx, string_id);
    let finished =
        realm_import::do_finish_import(&ctx.env, string_id, url.split_once("://").map_or(url.as_str(), |(_, host)| host)).await?;
    announce_organizations(ctx);
    Ok(Reply::json(json!({
        "realm_id": finished.realm_id,
        "realm_url": url,
        "uploads_without_file": finished.missing_files,
        "first_upload_without_file": finished.first_missing,
    })))
}

/// # `DELETE /server_admin/imports/{string_id}`
/// The server operator only. Removes an unfinished import, its files and every row; the
/// subdomain is free again. A finished organization is refused ("No organization import
/// in progress").
pub async fn remove_import(ctx: &RequestContext, string_id: &str) -> ApiResult<Reply> {
    require_server_admin(ctx)?;
    realm_import::do_remove_import(&ctx.env, string_id).await?;
    Ok(Reply::ok())
}
