//! Uploading and removing the organization's icon and logos (`POST`/`DELETE /realm/icon`,
//! `/realm/logo`). Each change bumps the image's version and tells everyone with a `realm`
//! `update_dict` event (`icon`, `logo` or `night_logo`), as Zulip's `do_change_icon_source`
//! and `do_change_logo_source` do.

use serde_json::Value;
use worker::{D1Database, Env};

use crate::actions::avatars::check_one_image;
use crate::actions::uploads::{delete_object, put_object};
use crate::db::batch::Batch;
use crate::db::realms::{self, RealmImagesRow, RealmRow};
use crate::db::users::UserRow;
use crate::domain::realm_icon::{image_event_data, storage_key, RealmImage};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, RealmEvent};
use crate::request_body::UploadedFile;

/// An upload, in Zulip's order of checks: exactly one file, its size, an image type
/// browsers show (declared and actual, as avatars). Stored as uploaded, in R2 before the
/// row names it. Answers the updated organization.
pub async fn check_upload_realm_image(
    db: &D1Database,
    env: &Env,
    admin: &UserRow,
    image: RealmImage,
    files: &[UploadedFile],
) -> ApiResult<RealmRow> {
    let (file, content_type, file_name) = check_one_image(files, image.one_file_message(), image.max_file_size_mib())?;
    put_object(env, &storage_key(admin.realm_id, &file_name), &file.bytes, content_type).await?;
    do_change_realm_image(db, env, admin.realm_id, image, Some(&file_name)).await
}

/// Sets the uploaded image (`Some`) or goes back to the default (`None`), bumps its
/// version and tells everyone; the replaced image leaves R2 once no row names it. Answers
/// the updated organization.
pub async fn do_change_realm_image(
    db: &D1Database,
    env: &Env,
    realm_id: i64,
    image: RealmImage,
    file_name: Option<&str>,
) -> ApiResult<RealmRow> {
    let mut batch = Batch::new();
    // Read in the same atomic batch as the write: the file replaced is the one it finds.
    let before = batch.add::<RealmImagesRow>(realms::images_stmt(realm_id)?);
    let set = match image {
        RealmImage::Icon => realms::set_icon_file_stmt(realm_id, file_name)?,
        RealmImage::Logo { night: false } => realms::set_logo_file_stmt(realm_id, file_name)?,
        RealmImage::Logo { night: true } => realms::set_night_logo_file_stmt(realm_id, file_name)?,
    };
    batch.add::<Value>(set);
    let after = batch.add::<RealmRow>(realms::by_id_stmt(realm_id)?);
    let results = batch.run(db).await?;
    let vanished = || ApiError::internal("the organization vanished while changing its image");
    let before = results.first(before)?.ok_or_else(vanished)?;
    let realm = results.first(after)?.ok_or_else(vanished)?;
    let old = match image {
        RealmImage::Icon => before.icon_file,
        RealmImage::Logo { night: false } => before.logo_file,
        RealmImage::Logo { night: true } => before.night_logo_file,
    };
    if let Some(old) = old.filter(|old| Some(old.as_str()) != file_name) {
        // A failed delete leaves an unreachable image behind, never a broken one.
        if let Err(err) = delete_object(env, &storage_key(realm_id, &old)).await {
            worker::console_error!("could not delete the old organization image {old}: {}", err.msg);
        }
    }
    let event = Event::Realm(RealmEvent::UpdateDict { property: image.event_property(), data: image_event_data(&realm, image) });
    crate::actions::notify_realm(env, realm_id, &event).await;
    Ok(realm)
}
