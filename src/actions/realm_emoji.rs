//! Adding and deactivating custom emoji. Each change sends everyone the organization's
//! whole emoji dict (`realm_emoji` event, op `update`), read in the same batch as the write.

use worker::{D1Database, Env};

use crate::actions::uploads::{delete_object, put_object};
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::realm_emoji::{self, NewRealmEmoji, RealmEmojiRow};
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::user_groups::{self, IsMemberRow};
use crate::db::users::UserRow;
use crate::domain::realm_emoji::MAX_EMOJI_FILE_SIZE_MIB;
use crate::domain::realm_emoji::{
    check_emoji_image, check_emoji_name, check_may_remove, new_file_name, realm_emoji_dict, still_image, still_storage_key, storage_key,
};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, RealmEmojiEvent};
use crate::model::ids::{GroupId, RealmId, UserId};
use crate::request_body::UploadedFile;

/// Sends the organization's emoji dict to every queue of the organization.
async fn notify_realm_emoji(env: &Env, realm_id: i64, results: &BatchResults, all: Slot<RealmEmojiRow>) -> ApiResult<()> {
    let rows = results.rows(all)?;
    let event = Event::RealmEmoji(RealmEmojiEvent::Update { realm_emoji: realm_emoji_dict(&rows) });
    crate::actions::notify_realm(env, realm_id, &event).await;
    Ok(())
}

/// `POST /realm/emoji/{emoji_name}`, in Zulip's order of checks: guests, the name, the
/// `can_add_custom_emoji_group` setting, a taken name, exactly one file, built-in names
/// (administrators only), the size, the image type. The image goes to R2 before its row, so
/// a row always has its image.
pub async fn check_add_realm_emoji(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    settings: &RealmSettingsRow,
    raw_name: &str,
    files: &[UploadedFile],
) -> ApiResult<()> {
    if me.is_guest() {
        return Err(ApiError::not_allowed_for_guests());
    }
    let name = check_emoji_name(raw_name)?;
    let mut batch = Batch::new();
    let allowed = batch.add::<IsMemberRow>(user_groups::is_member_stmt(
        RealmId(me.realm_id),
        GroupId(settings.can_add_custom_emoji_group),
        UserId(me.id),
        false,
    )?);
    let existing = batch.add::<RealmEmojiRow>(realm_emoji::active_by_name_stmt(me.realm_id, &name)?);
    let results = batch.run(db).await?;
    if results.first(allowed)?.is_none_or(|m| m.is_member == 0) {
        return Err(ApiError::insufficient_permission());
    }
    if results.first(existing)?.is_some() {
        return Err(ApiError::custom_emoji_exists());
    }
    let [file] = files else { return Err(ApiError::emoji_file_count()) };
    if crate::emoji::code_for_name(&name).is_some() && !me.is_realm_admin() {
        return Err(ApiError::bad_request("Only administrators can override default emoji."));
    }
    if file.bytes.len() as i64 > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024 {
        return Err(ApiError::file_over_limit(MAX_EMOJI_FILE_SIZE_MIB));
    }
    let declared = crate::domain::uploads::content_type_for(&file.content_type, &file.name);
    let (content_type, extension) = check_emoji_image(&declared, &file.bytes)?;

    let file_name = new_file_name(extension);
    let key = storage_key(me.realm_id, &file_name);
    put_object(env, &key, &file.bytes, content_type).await?;
    // An animation also gets its first frame, for clients that show it still.
    let still = still_image(content_type, &file.bytes).map(|bytes| (new_file_name(extension), bytes));
    if let Some((still_name, bytes)) = &still {
        put_object(env, &still_storage_key(me.realm_id, still_name), bytes, content_type).await?;
    }
    let new = NewRealmEmoji {
        realm_id: me.realm_id,
        name: &name,
        author_id: me.id,
        file_name: &file_name,
        still_file_name: still.as_ref().map(|(n, _)| n.as_str()),
        content_type,
    };
    let mut batch = Batch::new();
    let inserted = batch.add::<serde_json::Value>(realm_emoji::insert_stmt(&new)?);
    let all = batch.add::<RealmEmojiRow>(realm_emoji::in_realm_stmt(me.realm_id)?);
    let results = batch.run(db).await?;
    if results.first(inserted)?.is_none() {
        // Another upload took the name between the check and the insert.
        delete_object(env, &key).await?;
        if let Some((still_name, _)) = &still {
            delete_object(env, &still_storage_key(me.realm_id, still_name)).await?;
        }
        return Err(ApiError::custom_emoji_exists());
    }
    notify_realm_emoji(env, me.realm_id, &results, all).await
}

/// `DELETE /realm/emoji/{emoji_name}`: deactivates the active emoji of that name (its image
/// stays, for the reactions that use it), by its author or an administrator.
pub async fn check_remove_realm_emoji(db: &D1Database, env: &Env, me: &UserRow, name: &str) -> ApiResult<()> {
    let emoji: Option<RealmEmojiRow> = crate::db::first(db, realm_emoji::active_by_name_stmt(me.realm_id, name)?).await?;
    let emoji = emoji.ok_or_else(|| ApiError::emoji_does_not_exist(name))?;
    check_may_remove(me, &emoji)?;
    let mut batch = Batch::new();
    let deactivated = batch.add::<serde_json::Value>(realm_emoji::deactivate_stmt(me.realm_id, name)?);
    let all = batch.add::<RealmEmojiRow>(realm_emoji::in_realm_stmt(me.realm_id)?);
    let results = batch.run(db).await?;
    if results.first(deactivated)?.is_none() {
        return Err(ApiError::emoji_does_not_exist(name));
    }
    notify_realm_emoji(env, me.realm_id, &results, all).await
}
