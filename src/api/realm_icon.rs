//! The organization's icon and logos: uploading and removing them (administrators),
//! redirecting to them, and serving uploaded ones (`domain::realm_icon` has the URLs).

use serde_json::json;
use worker::Response;

use crate::actions::realm_icon::{check_upload_realm_image, do_change_realm_image};
use crate::actions::uploads::get_object;
use crate::auth::Administrator;
use crate::context::RequestContext;
use crate::domain::realm_icon::{append_query_string, image_url, storage_key, RealmImage};
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int;
use crate::response::Reply;

/// # `POST /realm/icon`
/// Administrators: the icon is the one file of a multipart body, under any field name.
/// - Exactly one file ("You must upload exactly one icon."), at most
///   `max_icon_file_size_mib` (5), an image type avatars accept, declared and actual.
/// - `icon_source` becomes `U`, the icon's version goes up; everyone gets a `realm`
///   `update_dict` with `property` `icon` and `{icon_url, icon_source}`.
/// - Answers the new `icon_url`.
pub async fn upload_icon(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user_as::<Administrator>().await?;
    let realm = check_upload_realm_image(&ctx.db, &ctx.env, &me, RealmImage::Icon, &ctx.files).await?;
    Ok(Reply::json(json!({ "icon_url": image_url(&realm, RealmImage::Icon) })))
}

/// # `DELETE /realm/icon`
/// Administrators: back to Gravatar's identicon (`icon_source` `G`), the version up, the
/// same event; the uploaded image leaves R2. Answers the new `icon_url`.
pub async fn delete_icon(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user_as::<Administrator>().await?;
    let realm = do_change_realm_image(&ctx.db, &ctx.env, me.realm_id, RealmImage::Icon, None).await?;
    Ok(Reply::json(json!({ "icon_url": image_url(&realm, RealmImage::Icon) })))
}

/// # `GET /realm/icon`
/// Any user: a redirect (302) to the icon's URL, the request's query string appended.
pub async fn get_icon(ctx: &RequestContext) -> ApiResult<Reply> {
    ctx.user().await?;
    let realm = ctx.realm().await?;
    redirect(&append_query_string(&image_url(&realm, RealmImage::Icon), &ctx.query))
}

/// # `POST /realm/logo`
/// Administrators: `night` (JSON boolean, required) picks the logo for the dark theme.
/// - Exactly one file ("You must upload exactly one logo."), at most
///   `max_logo_file_size_mib` (5), an image type avatars accept.
/// - Its source becomes `U`, its version goes up; everyone gets a `realm` `update_dict`
///   with `property` `logo` (`{logo_url, logo_source}`) or `night_logo`
///   (`{night_logo_url, night_logo_source}`). Answers plain success, as Zulip does.
pub async fn upload_logo(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user_as::<Administrator>().await?;
    let night = ctx.params.required_bool("night")?;
    check_upload_realm_image(&ctx.db, &ctx.env, &me, RealmImage::Logo { night }, &ctx.files).await?;
    Ok(Reply::ok())
}

/// # `DELETE /realm/logo`
/// Administrators: `night` (JSON boolean, required); that logo goes back to the default
/// (`D`), its version up, the same event; the uploaded image leaves R2. Plain success.
pub async fn delete_logo(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user_as::<Administrator>().await?;
    let night = ctx.params.required_bool("night")?;
    do_change_realm_image(&ctx.db, &ctx.env, me.realm_id, RealmImage::Logo { night }, None).await?;
    Ok(Reply::ok())
}

/// # `GET /realm/logo`
/// Any user: `night` (JSON boolean, required); a redirect (302) to that logo's URL, the
/// request's query string appended.
pub async fn get_logo(ctx: &RequestContext) -> ApiResult<Reply> {
    ctx.user().await?;
    let night = ctx.params.required_bool("night")?;
    let realm = ctx.realm().await?;
    redirect(&append_query_string(&image_url(&realm, RealmImage::Logo { night }), &ctx.query))
}

/// # `GET /user_avatars/{realm_id}/realm/{file_name}` (outside `/api/v1`)
/// Anyone, without credentials (as Zulip serves these images; the file name is random):
/// the image as uploaded. A replaced or removed image is gone (404).
pub async fn serve_realm_image(ctx: &RequestContext, realm_id: &str, file_name: &str) -> ApiResult<Reply> {
    let realm_id = parse_int(realm_id).ok_or_else(ApiError::upload_not_found)?;
    let key = storage_key(realm_id, file_name);
    let (bytes, content_type) = get_object(&ctx.env, &key).await?.ok_or_else(ApiError::upload_not_found)?;
    Ok(Reply::immutable_file(bytes, content_type.as_deref())?)
}

/// A 302 to `location`, relative to the organization's URL or absolute, as Zulip's
/// `redirect` answers.
fn redirect(location: &str) -> ApiResult<Reply> {
    let mut response = Response::empty()?.with_status(302);
    response.headers_mut().set("Location", location)?;
    Ok(Reply::Raw(response))
}
