//! Building an export's archive in steps, one per alarm of the organization's scheduler,
//! each bounded in the memory and time it takes, however large the organization.
//!
//! The archive is one `.tar.gz` written to R2 as a multipart upload. Each step adds the
//! next members of the tar stream and compresses them as one gzip member (gzip members
//! one after another are one valid gzip file). R2 wants every part but the last of one
//! size, so a step uploads only whole parts and keeps the compressed bytes short of one
//! in R2 for the next step. The export's `progress` (its row) says what the finished steps
//! wrote; a step cut short by a restart runs again from there (a part it uploaded again
//! replaces the earlier one).
//!
//! The steps: the messages, up to 20 files or 16 MiB at a time; the uploaded files, up
//! to 16 MiB at a time; then custom emoji, avatars, the organization's icons and the
//! tables (`realm.json`, `attachment.json`), which end the archive.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use worker::{D1Database, Env, HttpMetadata, MultipartUpload, UploadedPart};

use crate::actions::uploads::{get_object, get_stored_object, put_object, BUCKET};
use crate::db::realm_export_data::{self, RealmTables, Row};
use crate::db::realm_exports::{self, RealmExportRow};
use crate::domain::realm_emoji::storage_key as emoji_storage_key;
use crate::domain::realm_export::{self as rules, Archive, Selection};
use crate::domain::realm_icon::storage_key as realm_image_storage_key;
use crate::domain::users::avatar_storage_key;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{MessageId, RealmId, UserId};

/// R2's smallest part (all parts but the last are this size).
const PART_SIZE: usize = 5 * 1024 * 1024;
/// Message files (of [`rules::MESSAGES_PER_FILE`]) a step writes at most.
const MESSAGE_FILES_PER_STEP: usize = 20;
/// The tar bytes a step writes before it stops (after the file that passes it): with
/// their gzip copy and a part, well within a worker's 128 MB.
const STEP_BYTES: usize = 16 * 1024 * 1024;

/// What the finished steps of a build wrote, kept in the export's row.
#[derive(Serialize, Deserialize)]
struct Progress {
    /// The archive's R2 key and its multipart upload.
    key: String,
    upload_id: String,
    /// The archive's top folder (`zulip-export-<token>`).
    folder: String,
    parts: Vec<Part>,
    /// The R2 key of the compressed bytes short of a whole part, if any.
    carry: Option<String>,
    stage: Stage,
    /// The messages written are the export's up to this id (later ones are left out).
    through_message: i64,
    /// The uploads written are those up to this attachment id.
    through_attachment: i64,
    /// Attachments whose file R2 did not have.
    missing_uploads: Vec<i64>,
    /// The sending clients named so far, in the order Zulip's ids are given.
    clients: Vec<String>,
    next_user_message_id: i64,
}

#[derive(Serialize, Deserialize)]
struct Part {
    number: u16,
    etag: String,
}

#[derive(Serialize, Deserialize, PartialEq)]
enum Stage {
    /// Writing `messages-<file>.json` and on.
    Messages {
        file: usize,
    },
    Uploads,
    /// Everything else, and the end of the archive.
    Last,
}

/// Runs the next step of the export's build; answers the archive's key once it is whole.
pub async fn step(db: &D1Database, env: &Env, row: &RealmExportRow) -> ApiResult<Option<String>> {
    let mut progress = match &row.progress {
        Some(progress) => serde_json::from_str(progress).map_err(ApiError::internal)?,
        None => start(env, row).await?,
    };
    if progress.stage == Stage::Last && env.bucket(BUCKET)?.head(progress.key.clone()).await?.is_some() {
        // The last step completed the upload, and the restart came before the row knew.
        return Ok(Some(progress.key));
    }
    let mut tables = realm_export_data::realm_tables(db, row.realm_id).await?;
    let selection = Selection::new(row.export_type, &tables);
    let mut archive = Archive::new(&progress.folder, row.date_requested);
    let last = progress.stage == Stage::Last;
    let tar = match progress.stage {
        Stage::Messages { file } => {
            progress.stage = write_messages(db, &mut archive, row.realm_id, &selection, &mut progress, file).await?;
            archive.take()
        }
        Stage::Uploads => {
            write_uploads(db, env, &mut archive, row.realm_id, &selection, &mut tables.attachments, &mut progress).await?;
            archive.take()
        }
        Stage::Last => {
            write_last(db, env, &mut archive, row, tables, &selection, &progress).await?;
            archive.end()
        }
    };
    let gzipped = if tar.is_empty() { Vec::new() } else { crate::platform::gzip::gzip(&tar).await.map_err(ApiError::internal)? };
    let upload = env.bucket(BUCKET)?.resume_multipart_upload(progress.key.clone(), progress.upload_id.clone())?;
    if last {
        finish(env, upload, &mut progress, gzipped).await?;
        return Ok(Some(progress.key));
    }
    let old_carry = send_whole_parts(env, &upload, &mut progress, gzipped).await?;
    realm_exports::set_progress(db, row.id, &serde_json::to_string(&progress).map_err(ApiError::internal)?).await?;
    if let Some(key) = old_carry {
        crate::actions::uploads::delete_object(env, &key).await?;
    }
    Ok(None)
}

/// Gives up a build: its upload and the bytes kept between steps.
pub async fn discard(env: &Env, row: &RealmExportRow) {
    let Some(progress) = row.progress.as_deref().and_then(|p| serde_json::from_str::<Progress>(p).ok()) else { return };
    let bucket = match env.bucket(BUCKET) {
        Ok(bucket) => bucket,
        Err(err) => return worker::console_error!("export {}: {err}", row.id),
    };
    if let Ok(upload) = bucket.resume_multipart_upload(progress.key.clone(), progress.upload_id.clone()) {
        let _ = upload.abort().await;
    }
    delete_carries(env, &progress).await;
}

async fn start(env: &Env, row: &RealmExportRow) -> ApiResult<Progress> {
    let token = crate::secrets::random_alphanumeric(24);
    let key = rules::storage_key(row.realm_id, &token);
    let metadata = HttpMetadata { content_type: Some("application/gzip".to_string()), ..Default::default() };
    let upload = env.bucket(BUCKET)?.create_multipart_upload(key.clone()).http_metadata(metadata).execute().await?;
    Ok(Progress {
        key,
        upload_id: upload.upload_id().await,
        folder: format!("zulip-export-{token}"),
        parts: Vec::new(),
        carry: None,
        stage: Stage::Messages { file: 1 },
        through_message: 0,
        through_attachment: 0,
        missing_uploads: Vec::new(),
        clients: Vec::new(),
        next_user_message_id: 0,
    })
}

/// The compressed bytes the last step kept, then `gzipped`.
async fn pending_bytes(env: &Env, progress: &Progress, gzipped: Vec<u8>) -> ApiResult<Vec<u8>> {
    let Some(carry) = &progress.carry else { return Ok(gzipped) };
    let (mut bytes, _) = get_object(env, carry).await?.ok_or_else(|| ApiError::internal(format!("export: {carry} is gone")))?;
    bytes.extend(gzipped);
    Ok(bytes)
}

/// Uploads the whole parts of what is pending and keeps the rest under a new key; answers
/// the key of the bytes kept before, to remove once the progress is saved.
async fn send_whole_parts(env: &Env, upload: &MultipartUpload, progress: &mut Progress, gzipped: Vec<u8>) -> ApiResult<Option<String>> {
    let pending = pending_bytes(env, progress, gzipped).await?;
    let (whole, rest) = pending.split_at(pending.len() / PART_SIZE * PART_SIZE);
    for part in whole.chunks(PART_SIZE) {
        send_part(upload, progress, part).await?;
    }
    let carry = format!("{}.carry/{}-{}", progress.key, progress.parts.len(), crate::secrets::random_alphanumeric(8));
    put_object(env, &carry, rest, "application/octet-stream").await?;
    Ok(progress.carry.replace(carry))
}

/// Uploads what is pending as the last parts and completes the archive.
async fn finish(env: &Env, upload: MultipartUpload, progress: &mut Progress, gzipped: Vec<u8>) -> ApiResult<()> {
    let pending = pending_bytes(env, progress, gzipped).await?;
    for part in pending.chunks(PART_SIZE) {
        send_part(&upload, progress, part).await?;
    }
    let parts = progress.parts.iter().map(|p| UploadedPart::new(p.number, p.etag.clone()));
    upload.complete(parts).await?;
    delete_carries(env, progress).await;
    Ok(())
}

async fn send_part(upload: &MultipartUpload, progress: &mut Progress, bytes: &[u8]) -> ApiResult<()> {
    let number = u16::try_from(progress.parts.len() + 1).map_err(|_| ApiError::internal("export: too many parts"))?;
    let uploaded = upload.upload_part(number, bytes.to_vec()).await?;
    progress.parts.push(Part { number, etag: uploaded.etag() });
    Ok(())
}

/// Removes every kept piece of the build, those of steps cut short included.
async fn delete_carries(env: &Env, progress: &Progress) {
    let Ok(bucket) = env.bucket(BUCKET) else { return };
    let Ok(listed) = bucket.list().prefix(format!("{}.carry/", progress.key)).execute().await else { return };
    for object in listed.objects() {
        if let Err(err) = bucket.delete(object.key()).await {
            worker::console_error!("export piece {} not removed: {err}", object.key());
        }
    }
}

/// The next message files; answers the stage after them.
async fn write_messages(
    db: &D1Database,
    archive: &mut Archive,
    realm_id: i64,
    selection: &Selection,
    progress: &mut Progress,
    first_file: usize,
) -> ApiResult<Stage> {
    let channel_ids = selection.channel_ids_json();
    for file in first_file..first_file + MESSAGE_FILES_PER_STEP {
        let after = progress.through_message;
        let page = realm_export_data::message_page(
            db,
            RealmId(realm_id),
            MessageId(after),
            &channel_ids,
            &selection.consenting_ids_json(),
            rules::MESSAGES_PER_FILE,
        )
        .await?;
        // An organization without messages still has its first (empty) file.
        if page.is_empty() && file > 1 {
            return Ok(Stage::Uploads);
        }
        let ids: Vec<i64> = page.iter().filter_map(|m| m.get("id").and_then(Value::as_i64)).collect();
        let user_messages = if selection.with_private_data() {
            realm_export_data::consented_user_messages(
                db,
                realm_id,
                &Value::from(ids.clone()).to_string(),
                &selection.consenting_ids_json(),
            )
            .await?
        } else {
            Vec::new()
        };
        let full = page.len() as i64 == rules::MESSAGES_PER_FILE;
        let written = rules::messages_file(page, user_messages, &mut progress.clients, &mut progress.next_user_message_id);
        archive.add_json(&rules::messages_file_name(file), &written)?;
        progress.through_message = ids.last().copied().unwrap_or(after);
        if !full {
            return Ok(Stage::Uploads);
        }
        if archive.len() >= STEP_BYTES {
            return Ok(Stage::Messages { file: file + 1 });
        }
    }
    Ok(Stage::Messages { file: first_file + MESSAGE_FILES_PER_STEP })
}

/// `attachment.json`'s rows and the attachments whose files the archive holds: those of
/// the exported messages (and of consenting owners), up to the uploads written.
async fn kept_attachments(
    db: &D1Database,
    realm_id: i64,
    selection: &Selection,
    attachments: &[Row],
    through_message: i64,
) -> ApiResult<(Value, Vec<Row>)> {
    let linked: BTreeSet<i64> = attachments
        .iter()
        .filter_map(|a| a.get("messages").and_then(Value::as_str))
        .flat_map(|messages| serde_json::from_str::<Vec<i64>>(messages).unwrap_or_default())
        .collect();
    let exported: BTreeSet<i64> = realm_export_data::exported_among(
        db,
        RealmId(realm_id),
        MessageId(through_message),
        &selection.channel_ids_json(),
        &selection.consenting_ids_json(),
        &Value::from(linked.into_iter().collect::<Vec<_>>()).to_string(),
    )
    .await?
    .into_iter()
    .collect();
    Ok(rules::attachment_file(attachments, &exported, selection))
}

fn attachment_id(a: &Row) -> i64 {
    a.get("id").and_then(Value::as_i64).unwrap_or_default()
}

/// The next uploaded files, at `uploads/<path_id>`, oldest first.
async fn write_uploads(
    db: &D1Database,
    env: &Env,
    archive: &mut Archive,
    realm_id: i64,
    selection: &Selection,
    attachments: &mut Vec<Row>,
    progress: &mut Progress,
) -> ApiResult<()> {
    attachments.retain(|a| attachment_id(a) > progress.through_attachment);
    let (_, kept) = kept_attachments(db, realm_id, selection, attachments, progress.through_message).await?;
    for a in &kept {
        let size = a.get("size").and_then(Value::as_i64).unwrap_or_default() as usize;
        if !archive.is_empty() && archive.len() + size > STEP_BYTES {
            return Ok(());
        }
        let path = a.get("path_id").and_then(Value::as_str).unwrap_or_default();
        match get_object(env, path).await? {
            Some((bytes, _)) => archive.add(&format!("uploads/{path}"), &bytes)?,
            None => progress.missing_uploads.push(attachment_id(a)),
        }
        progress.through_attachment = attachment_id(a);
    }
    progress.stage = Stage::Last;
    // Uploads made from here on are left out, as messages sent from here on are.
    progress.through_attachment = attachments.iter().map(attachment_id).max().unwrap_or(progress.through_attachment);
    Ok(())
}

/// The rest of the archive: the uploads' records and `attachment.json`, custom emoji,
/// avatars, the organization's icons and `realm.json`.
async fn write_last(
    db: &D1Database,
    env: &Env,
    archive: &mut Archive,
    row: &RealmExportRow,
    mut tables: RealmTables,
    selection: &Selection,
    progress: &Progress,
) -> ApiResult<()> {
    let realm_id = row.realm_id;
    let mut attachments = std::mem::take(&mut tables.attachments);
    attachments.retain(|a| attachment_id(a) <= progress.through_attachment);
    let (attachment_json, kept) = kept_attachments(db, realm_id, selection, &attachments, progress.through_message).await?;
    let records: Vec<Value> =
        kept.iter().filter(|a| !progress.missing_uploads.contains(&attachment_id(a))).map(rules::upload_record).collect();
    archive.add_json("uploads/records.json", &Value::Array(records))?;
    archive.add_json("attachment.json", &attachment_json)?;
    write_emoji(env, archive, &tables.realm_emoji).await?;
    write_avatars(env, archive, &tables.users).await?;
    if let Some(realm) = tables.realm.first() {
        write_realm_icons(env, archive, realm_id, realm).await?;
    }
    let reactions = realm_export_data::exported_reactions(
        db,
        RealmId(realm_id),
        MessageId(progress.through_message),
        &selection.channel_ids_json(),
        &selection.consenting_ids_json(),
    )
    .await?;
    archive.add_json("realm.json", &rules::realm_file(tables, selection, reactions, &progress.clients, &rules::email_domain(&row.base_url)))
}

/// `emoji/records.json` and each custom emoji image at `emoji/<realm_id>/emoji/images/<file>`.
async fn write_emoji(env: &Env, archive: &mut Archive, emoji: &[Row]) -> ApiResult<()> {
    let mut records = Vec::new();
    for e in emoji {
        let (Some(realm_id), Some(file_name)) = (e.get("realm").and_then(Value::as_i64), e.get("file_name").and_then(Value::as_str)) else {
            continue;
        };
        let path = emoji_storage_key(realm_id, file_name);
        let Some((bytes, _)) = get_object(env, &path).await? else { continue };
        archive.add(&format!("emoji/{path}"), &bytes)?;
        records.push(rules::emoji_record(e, &path));
    }
    archive.add_json("emoji/records.json", &Value::Array(records))
}

/// Adds one stored image at both of its archive paths under `folder/` (as uploaded and as
/// served, [`rules::image_paths`]); answers each file's record made by `record`. An image
/// missing from R2 is left out.
async fn add_image(
    env: &Env,
    archive: &mut Archive,
    folder: &str,
    key: &str,
    base: &str,
    record: impl Fn(&rules::ImageFile) -> Value,
) -> ApiResult<Vec<Value>> {
    let Some(stored) = get_stored_object(env, key).await? else { return Ok(Vec::new()) };
    let content_type = stored.content_type.as_deref().unwrap_or("application/octet-stream");
    let mut records = Vec::new();
    for (path, original) in rules::image_paths(base) {
        archive.add(&format!("{folder}/{path}"), &stored.bytes)?;
        let last_modified = stored.uploaded_ms as f64 / 1000.0;
        records.push(record(&rules::ImageFile { path: &path, original, content_type, size: stored.bytes.len(), last_modified }));
    }
    Ok(records)
}

/// `avatars/records.json` and the uploaded avatars at `avatars/<realm_id>/<hash>.original`
/// and `.png`, as Zulip's export writes them (Gravatar avatars have no file).
async fn write_avatars(env: &Env, archive: &mut Archive, users: &[Row]) -> ApiResult<()> {
    let mut records = Vec::new();
    for user in users {
        let (Some(realm_id), Some(user_id), Some(file)) = (
            user.get("realm").and_then(Value::as_i64),
            user.get("id").and_then(Value::as_i64),
            user.get("avatar_file").and_then(Value::as_str),
        ) else {
            continue;
        };
        let version = user.get("avatar_version").and_then(Value::as_i64).unwrap_or(1);
        let base = rules::avatar_base_path(RealmId(realm_id), UserId(user_id), version);
        let key = avatar_storage_key(realm_id, file);
        records.extend(add_image(env, archive, "avatars", &key, &base, |f| rules::avatar_record(user, f)).await?);
    }
    archive.add_json("avatars/records.json", &Value::Array(records))
}

/// `realm_icons/records.json` and the organization's uploaded icon and logos at
/// `realm_icons/<realm_id>/icon.original`, `icon.png`, `logo.*`, `night_logo.*`.
async fn write_realm_icons(env: &Env, archive: &mut Archive, realm_id: i64, realm: &Row) -> ApiResult<()> {
    let mut records = Vec::new();
    for (image, file) in rules::uploaded_realm_images(realm) {
        let key = realm_image_storage_key(realm_id, &file);
        let base = format!("{realm_id}/{image}");
        records.extend(add_image(env, archive, "realm_icons", &key, &base, |f| rules::realm_image_record(realm_id, f)).await?);
    }
    archive.add_json("realm_icons/records.json", &Value::Array(records))
}
