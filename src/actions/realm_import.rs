//! Importing an organization from a Zulip export archive, in steps the operator's script
//! (`scripts/import-organization.py`) sends one request each: start (the organization,
//! deactivated, with the tables of `realm.json` and `attachment.json`), chunks of the
//! large tables (channel subscriptions, attachments) when the script holds them back, message chunks,
//! upload, emoji, avatar and organization-image files, then finish, which opens the
//! organization. Until then every sign-in answers `REALM_DEACTIVATED`; an unfinished import
//! can be removed and started again. Each step is one atomic batch and idempotent, so a step sent twice is harmless.

use worker::{D1Database, Env};

use crate::actions::uploads::{delete_object, put_object};
use crate::db::batch::Batch;
use crate::db::realm_imports::{self, ChannelRecipientRow, ImportRow, Kind, Link, MappedId};
use crate::db::realms::RealmImagesRow;
use crate::db::statement::Statement;
use crate::db::{self, organizations, realms};
use crate::domain::organizations::{check_realm_name, check_subdomain};
use crate::domain::realm_emoji::storage_key as emoji_storage_key;
use crate::domain::realm_icon::{storage_key as realm_image_storage_key, RealmImage};
use crate::domain::realm_import::{self as rules, IdMaps, Rows};
use crate::domain::users::avatar_storage_key;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::platform::directory;

/// The largest JSON list bound to one statement (D1 refuses values over 2 MB).
const MAX_ROWS_BYTES: usize = 900_000;

/// The archive's files the first step carries.
pub struct ImportStart<'a> {
    pub string_id: &'a str,
    pub realm_json: &'a str,
    pub attachment_json: &'a str,
}

/// Checks the archive's tables whole, then creates the organization deactivated with all
/// of them, in one batch. Sent again for an import under way, it changes nothing.
/// Answers the new organization's id.
pub async fn do_start_import(env: &Env, start: &ImportStart<'_>) -> ApiResult<i64> {
    check_subdomain(start.string_id)?;
    let archive = rules::check_archive(start.realm_json, start.attachment_json)?;
    let name = check_realm_name(if archive.name.is_empty() { start.string_id } else { &archive.name })?;
    let placement = directory::place(env, start.string_id, None).await?;
    let db = &directory::database(env, &placement.database)?;
    if let Some(import) = realm_imports::by_string_id(db, start.string_id).await? {
        return Ok(import.realm_id);
    }
    if realms::by_string_id(db, start.string_id).await?.is_some() {
        return Err(ApiError::bad_request("Subdomain already in use. Please choose a different one."));
    }
    let realm_id = placement.realm_id;
    let (old_realm_id, description, date_created) = (archive.old_realm_id, archive.description.clone(), archive.date_created);
    let mut batch = organizations::create_stmts(realm_id, start.string_id, &name, &[], &[], db::now())?;
    batch.push(realms::set_deactivated_stmt(start.string_id, true)?);
    batch.push(realm_imports::start_stmt(RealmId(realm_id), old_realm_id, db::now())?);
    let retention = archive.message_retention_days;
    let announcement_channels = archive.announcement_channels;
    let realm_row = archive.realm_row.to_string();
    let defaults = archive.user_settings_defaults.clone();
    batch.push(realm_imports::realm_details_stmt(realm_id, &description, date_created, retention, &defaults)?);
    batch.push(realm_imports::realm_image_versions_stmt(realm_id, archive.image_versions)?);
    for rows in archive.into_rows(realm_id)? {
        batch.extend(rows_stmts(realm_id, rows)?);
    }
    batch.push(realm_imports::announcement_channels_stmt(realm_id, announcement_channels)?);
    batch.push(realm_imports::realm_group_settings_stmt(realm_id, &realm_row)?);
    batch.push(realm_imports::realm_settings_stmt(realm_id, &realm_row)?);
    db::run_batch(db, batch).await?;
    Ok(realm_id)
}

/// The statements writing one table, in slices D1 accepts.
fn rows_stmts(realm_id: i64, rows: Rows) -> ApiResult<Vec<Statement>> {
    let mut stmts = Vec::new();
    match rows {
        Rows::Own(kind, rows) => {
            for slice in rules::split_rows(&rows, MAX_ROWS_BYTES) {
                stmts.push(realm_imports::allocate_stmt(realm_id, kind, &slice)?);
                stmts.push(realm_imports::insert_stmt(realm_id, kind, &slice)?);
            }
        }
        Rows::SystemGroups(rows) => {
            for slice in rules::split_rows(&rows, MAX_ROWS_BYTES) {
                stmts.push(realm_imports::map_system_groups_stmt(realm_id, &slice)?);
            }
        }
        Rows::Links(link, rows) => {
            for slice in rules::split_rows(&rows, MAX_ROWS_BYTES) {
                stmts.push(realm_imports::insert_links_stmt(realm_id, link, &slice)?);
            }
        }
    }
    Ok(stmts)
}

/// The import under way of `string_id` and its database.
async fn import_of(env: &Env, string_id: &str) -> ApiResult<(D1Database, ImportRow)> {
    let db = directory::database(env, &directory::resolve(env, string_id).await?)?;
    let import = realm_imports::by_string_id(&db, string_id).await?.ok_or_else(rules::import_not_found)?;
    Ok((db, import))
}

/// Imports one chunk of messages (JSON `zerver_message`, `zerver_usermessage`,
/// `zerver_reaction`, `attachment_messages`): checked against the ids imported so far,
/// then written in one batch (the full-text index follows through its triggers).
/// Answers how many messages the chunk held.
pub async fn do_import_messages(env: &Env, string_id: &str, chunk_json: &str) -> ApiResult<usize> {
    let (db, import) = import_of(env, string_id).await?;
    let mapped: Vec<MappedId> = db::all(&db, realm_imports::reference_ids_stmt(import.realm_id)?).await?;
    let mut maps = IdMaps::new();
    for m in mapped {
        maps.entry(m.kind).or_default().insert(m.old_id, m.new_id);
    }
    let chunk = rules::check_message_chunk(chunk_json, &maps, import.old_realm_id, RealmId(import.realm_id))?;
    let realm_id = import.realm_id;
    let mut batch = rows_stmts(realm_id, Rows::Own(Kind::Message, chunk.messages))?;
    batch.extend(rows_stmts(realm_id, Rows::Links(Link::UserMessage, chunk.user_messages))?);
    let ids_json = serde_json::Value::from(chunk.message_ids.clone()).to_string();
    batch.push(realm_imports::subscriber_messages_stmt(realm_id, &ids_json, crate::model::message_flags::READ)?);
    batch.extend(rows_stmts(realm_id, Rows::Own(Kind::Reaction, chunk.reactions))?);
    batch.extend(rows_stmts(realm_id, Rows::Links(Link::AttachmentMessage, chunk.attachment_links))?);
    db::run_batch(&db, batch).await?;
    Ok(chunk.message_ids.len())
}

/// Imports one chunk of the organization's large tables (JSON `zerver_subscription` of
/// channels, `zerver_attachment`), sent after the start so that no request carries them
/// whole: checked against the ids imported so far, then written in one batch. Answers how
/// many rows the chunk held.
pub async fn do_import_tables(env: &Env, string_id: &str, chunk_json: &str) -> ApiResult<usize> {
    let (db, import) = import_of(env, string_id).await?;
    let realm_id = import.realm_id;
    let mut batch = Batch::new();
    let mapped = batch.add::<MappedId>(realm_imports::reference_ids_stmt(realm_id)?);
    let channels = batch.add::<ChannelRecipientRow>(realm_imports::channel_recipients_stmt(realm_id)?);
    let results = batch.run(&db).await?;
    let mut maps = IdMaps::new();
    for m in results.rows(mapped)? {
        maps.entry(m.kind).or_default().insert(m.old_id, m.new_id);
    }
    let channel_of_recipient = results.rows(channels)?.into_iter().map(|r| (r.recipient_id, r.channel_id)).collect();
    let chunk = rules::check_table_chunk(chunk_json, &maps, &channel_of_recipient, realm_id)?;
    let count = chunk.subscriptions.len() + chunk.attachments.len();
    let mut writes = rows_stmts(realm_id, Rows::Own(Kind::Subscription, chunk.subscriptions))?;
    writes.extend(rows_stmts(realm_id, Rows::Own(Kind::Attachment, chunk.attachments))?);
    db::run_batch(&db, writes).await?;
    Ok(count)
}

/// Stores an upload's bytes under its new path; `path_id` is the archive's path of an
/// attachment the import holds.
pub async fn do_import_upload(env: &Env, string_id: &str, path_id: &str, bytes: &[u8]) -> ApiResult<()> {
    if !rules::safe_upload_path(path_id) {
        return Err(rules::invalid_archive(format!("the upload path '{path_id}' leaves the uploads folder")));
    }
    let (db, import) = import_of(env, string_id).await?;
    let path = rules::new_upload_path(path_id, import.realm_id);
    let attachment = realm_imports::attachment_by_path(&db, import.realm_id, &path)
        .await?
        .ok_or_else(|| rules::invalid_archive(format!("the upload '{path_id}' has no row in attachment.json")))?;
    put_object(env, &path, bytes, &attachment.content_type).await?;
    db::run_batch(&db, vec![realm_imports::file_stored_stmt(RealmId(import.realm_id), attachment.id)?]).await?;
    Ok(())
}

/// Stores a custom emoji's image; `file_name` names an emoji the import holds.
pub async fn do_import_emoji(env: &Env, string_id: &str, file_name: &str, bytes: &[u8]) -> ApiResult<()> {
    let (db, import) = import_of(env, string_id).await?;
    let emoji = realm_imports::emoji_by_file_name(&db, import.realm_id, file_name)
        .await?
        .ok_or_else(|| rules::invalid_archive(format!("the emoji image '{file_name}' has no row in zerver_realmemoji")))?;
    put_object(env, &emoji_storage_key(import.realm_id, file_name), bytes, &emoji.content_type).await
}

/// Stores a user's uploaded avatar (a file of `avatars/`, `path` naming it in errors) and
/// makes it theirs: `user_profile_id` is the archive's id of a user the import holds.
pub async fn do_import_avatar(env: &Env, string_id: &str, user_profile_id: i64, path: &str, bytes: &[u8]) -> ApiResult<()> {
    let (db, import) = import_of(env, string_id).await?;
    let user_id = realm_imports::mapped_id(&db, RealmId(import.realm_id), Kind::User, user_profile_id).await?.ok_or_else(|| {
        rules::invalid_archive(format!("the avatar '{path}' belongs to user {user_profile_id}, who is not in the archive"))
    })?;
    let (content_type, file_name) = rules::imported_image(&format!("the avatar '{path}'"), bytes)?;
    put_object(env, &avatar_storage_key(import.realm_id, &file_name), bytes, content_type).await?;
    db::run_batch(&db, vec![realm_imports::set_avatar_stmt(RealmId(import.realm_id), UserId(user_id), &file_name)?]).await?;
    Ok(())
}

/// Stores the organization's uploaded icon, logo or night logo (a file of `realm_icons/`,
/// which one told by its name: `icon.original`, `logo.png`, ...).
pub async fn do_import_realm_image(env: &Env, string_id: &str, path: &str, bytes: &[u8]) -> ApiResult<()> {
    let image =
        rules::realm_image_of(path).ok_or_else(|| rules::invalid_archive(format!("'{path}' is not the organization's icon or logo")))?;
    let (db, import) = import_of(env, string_id).await?;
    let (content_type, file_name) = rules::imported_image(&format!("the organization image '{path}'"), bytes)?;
    put_object(env, &realm_image_storage_key(import.realm_id, &file_name), bytes, content_type).await?;
    let set = match image {
        RealmImage::Icon => realm_imports::set_icon_stmt(import.realm_id, &file_name)?,
        RealmImage::Logo { night: false } => realm_imports::set_logo_stmt(import.realm_id, &file_name)?,
        RealmImage::Logo { night: true } => realm_imports::set_night_logo_stmt(import.realm_id, &file_name)?,
    };
    db::run_batch(&db, vec![set]).await?;
    Ok(())
}

/// What finishing an import found.
pub struct FinishedImport {
    pub realm_id: i64,
    /// Attachments of `attachment.json` whose file never came (their links stay broken),
    /// and the path of the first.
    pub missing_files: i64,
    pub first_missing: Option<String>,
}

/// Opens the imported organization, and says how many of its attachments have no file.
pub async fn do_finish_import(env: &Env, string_id: &str, realm_host: &str) -> ApiResult<FinishedImport> {
    let (db, import) = import_of(env, string_id).await?;
    let missing = db::first::<realm_imports::MissingFilesRow>(&db, realm_imports::missing_files_stmt(import.realm_id)?).await?;
    db::run_batch(&db, realm_imports::finish_stmts(import.realm_id)?).await?;
    // The imported scheduled messages fall due on the organization's scheduler.
    crate::platform::scheduler::arm(env, &directory::resolve(env, string_id).await?, import.realm_id, realm_host).await;
    let (missing_files, first_missing) = missing.map_or((0, None), |m| (m.count, m.first_path));
    Ok(FinishedImport { realm_id: import.realm_id, missing_files, first_missing })
}

/// Removes an unfinished import: its files, then every row it wrote. A finished
/// organization is not an import and stays.
pub async fn do_remove_import(env: &Env, string_id: &str) -> ApiResult<()> {
    let (db, import) = import_of(env, string_id).await?;
    for upload in realm_imports::stored_uploads(&db, import.realm_id).await? {
        delete_object(env, &upload.path_id).await?;
    }
    for emoji in realm_imports::stored_emoji(&db, import.realm_id).await? {
        delete_object(env, &emoji_storage_key(import.realm_id, &emoji.file_name)).await?;
    }
    for avatar in realm_imports::stored_avatars(&db, import.realm_id).await? {
        delete_object(env, &avatar_storage_key(import.realm_id, &avatar.avatar_file)).await?;
    }
    if let Some(images) = db::first::<RealmImagesRow>(&db, realms::images_stmt(import.realm_id)?).await? {
        for file in [images.icon_file, images.logo_file, images.night_logo_file].into_iter().flatten() {
            delete_object(env, &realm_image_storage_key(import.realm_id, &file)).await?;
        }
    }
    db::run_batch(&db, realm_imports::remove_stmts(import.realm_id)?).await?;
    Ok(())
}
