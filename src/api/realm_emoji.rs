//! The organization's custom emoji.

use serde_json::json;

use crate::actions::realm_emoji::{check_add_realm_emoji, check_remove_realm_emoji};
use crate::actions::uploads::get_object;
use crate::context::RequestContext;
use crate::domain::realm_emoji::{realm_emoji_of, still_storage_key, storage_key};
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int;
use crate::response::Reply;

/// # `GET /realm/emoji`
/// Any user: every custom emoji of the organization, deactivated ones included, keyed by id
/// (`emoji`).
pub async fn list_emoji(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "emoji": realm_emoji_of(&ctx.db, me.realm_id).await? })))
}

/// # `POST /realm/emoji/{emoji_name}`
/// Users in `can_add_custom_emoji_group` (default: members; never guests): uploads the image
/// as the one file of a multipart body, under any field name.
/// - The name is trimmed, spaces become `_`; then only `a-z`, `0-9`, `-`, `_`, ending with a
///   letter or digit.
/// - An active emoji's name is taken; a built-in emoji's name only for administrators.
/// - At most `max_emoji_file_size_mib`; PNG, GIF, JPEG, WebP or AVIF (declared and actual).
/// - Everyone gets `realm_emoji` (`op: update`, the whole dict).
pub async fn upload_emoji(ctx: &RequestContext, path_name: &[&str]) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    // Zulip's route takes the rest of the path, slashes included, and the name check refuses it.
    let name = path_name.join("/");
    let state = ctx.realm_state(me.realm_id).await?;
    check_add_realm_emoji(&ctx.db, &ctx.env, &me, &state.settings, &name, &ctx.files).await?;
    Ok(Reply::ok())
}

/// # `DELETE /realm/emoji/{emoji_name}`
/// The emoji's author or an administrator: deactivates it. It stops rendering in new
/// messages and is no longer offered; reactions with it stay. An unknown (or already
/// deactivated) name is a 404. Everyone gets `realm_emoji`.
pub async fn delete_emoji(ctx: &RequestContext, path_name: &[&str]) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    check_remove_realm_emoji(&ctx.db, &ctx.env, &me, &path_name.join("/")).await?;
    Ok(Reply::ok())
}

/// # `GET /user_avatars/{realm_id}/emoji/images/[still/]{file_name}` (outside `/api/v1`)
/// Anyone, without credentials (emoji images are public, as in Zulip): the image bytes as
/// uploaded (or an animation's still first frame), with their content type. Deactivated
/// emoji keep their image.
pub async fn serve_emoji_image(ctx: &RequestContext, realm_id: &str, file_name: &str, still: bool) -> ApiResult<Reply> {
    let realm_id = parse_int(realm_id).ok_or_else(ApiError::upload_not_found)?;
    let key = if still { still_storage_key(realm_id, file_name) } else { storage_key(realm_id, file_name) };
    let (bytes, content_type) = get_object(&ctx.env, &key).await?.ok_or_else(ApiError::upload_not_found)?;
    Ok(Reply::immutable_file(bytes, content_type.as_deref())?)
}
