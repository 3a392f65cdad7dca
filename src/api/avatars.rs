//! One's own avatar: uploading and removing it, and serving uploaded avatars.

use serde_json::json;

use crate::actions::avatars::{check_upload_avatar, do_change_avatar};
use crate::actions::uploads::get_object;
use crate::context::RequestContext;
use crate::domain::users::{avatar_storage_key, avatar_url};
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int;
use crate::response::Reply;

/// # `POST /users/me/avatar`
/// Any user (bots too): the image is the one file of a multipart body, under any field
/// name. Answers the new `avatar_url`.
/// - Exactly one file ("You must upload exactly one avatar."), at most
///   `max_avatar_file_size_mib` (5), PNG, GIF, JPEG, WebP or AVIF, declared and actual.
/// - Stored as uploaded: this server does not resize to Zulip's 100 and 500 pixel squares,
///   so `avatar_url_medium` is the same image.
/// - `avatar_source` becomes `U`, `avatar_version` goes up; everyone gets a `realm_user`
///   update with the new URLs.
pub async fn upload_avatar(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let updated = check_upload_avatar(&ctx.db, &ctx.env, &me, &ctx.files).await?;
    Ok(Reply::json(json!({ "avatar_url": avatar_url(&updated) })))
}

/// # `DELETE /users/me/avatar`
/// Any user: back to the Gravatar avatar (`avatar_source` `G`), `avatar_version` up, the
/// same `realm_user` update. Answers the Gravatar `avatar_url`.
pub async fn delete_avatar(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let updated = do_change_avatar(&ctx.db, &ctx.env, &me, None).await?;
    Ok(Reply::json(json!({ "avatar_url": avatar_url(&updated) })))
}

/// # `GET /user_avatars/{realm_id}/avatars/{file_name}` (outside `/api/v1`)
/// Anyone, without credentials (as Zulip serves avatars; the file name is random): the
/// image as uploaded, with its content type. A replaced or removed avatar is gone (404).
pub async fn serve_avatar(ctx: &RequestContext, realm_id: &str, file_name: &str) -> ApiResult<Reply> {
    let realm_id = parse_int(realm_id).ok_or_else(ApiError::upload_not_found)?;
    let key = avatar_storage_key(realm_id, file_name);
    // A new avatar gets a new file name, so the bytes at this URL never change.
    let (bytes, content_type) = get_object(&ctx.env, &key).await?.ok_or_else(ApiError::upload_not_found)?;
    Ok(Reply::immutable_file(bytes, content_type.as_deref())?)
}
