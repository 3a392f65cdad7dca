//! Uploading and removing one's own avatar (`POST`/`DELETE /users/me/avatar`). Either bumps
//! `avatar_version`, so clients holding the old URL fetch the new image, and tells everyone
//! with a `realm_user` update (and a `realm_bot` one for a bot), as Zulip's
//! `do_change_avatar_fields` does.

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::actions::uploads::{delete_object, put_object};
use crate::db::batch::Batch;
use crate::db::users::{self, UserRow};
use crate::domain::realm_emoji::{check_emoji_image, new_file_name};
use crate::domain::users::{avatar_person, avatar_storage_key, avatar_url, MAX_AVATAR_FILE_SIZE_MIB};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, RealmBotEvent, RealmUserEvent};
use crate::model::ids::{RealmId, UserId};
use crate::request_body::UploadedFile;

/// An uploaded image (an avatar, the organization's icon or logo), in Zulip's order of
/// checks: exactly one file (else `one_file`), at most `max_mib`, an image type browsers
/// show (declared and actual). Answers the file, its content type and a new random name
/// to store it under (this server stores images as uploaded, without resizing).
pub fn check_one_image<'a>(files: &'a [UploadedFile], one_file: &str, max_mib: i64) -> ApiResult<(&'a UploadedFile, &'static str, String)> {
    let [file] = files else { return Err(ApiError::bad_request(one_file)) };
    if file.bytes.len() as i64 > max_mib * 1024 * 1024 {
        return Err(ApiError::file_over_limit(max_mib));
    }
    let declared = crate::domain::uploads::content_type_for(&file.content_type, &file.name);
    let (content_type, extension) = check_emoji_image(&declared, &file.bytes)?;
    Ok((file, content_type, new_file_name(extension)))
}

/// `POST /users/me/avatar` ([`check_one_image`]): stored in R2 before the row names it.
/// Answers the updated user.
pub async fn check_upload_avatar(db: &D1Database, env: &Env, me: &UserRow, files: &[UploadedFile]) -> ApiResult<UserRow> {
    let (file, content_type, file_name) = check_one_image(files, "You must upload exactly one avatar.", MAX_AVATAR_FILE_SIZE_MIB)?;
    put_object(env, &avatar_storage_key(me.realm_id, &file_name), &file.bytes, content_type).await?;
    do_change_avatar(db, env, me, Some(&file_name)).await
}

/// Sets the uploaded avatar (`Some`) or goes back to Gravatar (`None`); the previous image
/// leaves R2 once no row names it. Answers the updated user.
pub async fn do_change_avatar(db: &D1Database, env: &Env, me: &UserRow, file_name: Option<&str>) -> ApiResult<UserRow> {
    let mut batch = Batch::new();
    batch.add::<Value>(users::set_avatar_file_stmt(RealmId(me.realm_id), UserId(me.id), file_name)?);
    let updated = batch.add::<UserRow>(users::by_id_stmt(RealmId(me.realm_id), UserId(me.id))?);
    let results = batch.run(db).await?;
    let user = results.first(updated)?.ok_or_else(|| ApiError::internal("the user vanished while changing its avatar"))?;
    if let Some(old) = &me.avatar_file {
        // A failed delete leaves an unreachable image behind, never a broken avatar.
        if let Err(err) = delete_object(env, &avatar_storage_key(me.realm_id, old)).await {
            worker::console_error!("could not delete the old avatar {old}: {}", err.msg);
        }
    }
    notify_avatar_changed(env, &user).await;
    Ok(user)
}

async fn notify_avatar_changed(env: &Env, user: &UserRow) {
    let person = avatar_person(user);
    crate::actions::notify_realm(env, user.realm_id, &Event::RealmUser(RealmUserEvent::Update { person })).await;
    if user.is_bot() {
        let bot = json!({ "user_id": user.id, "avatar_url": avatar_url(user) });
        crate::actions::notify_realm(env, user.realm_id, &Event::RealmBot(RealmBotEvent::Update { bot })).await;
    }
}
