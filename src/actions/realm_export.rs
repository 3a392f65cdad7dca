//! Data exports: requesting one, deleting one, and building the pending ones on the
//! organization's `MessageScheduler` alarm (`platform::scheduler`). Every change of an
//! export's state sends `realm_export`, with all of the organization's exports, to its
//! administrators, as Zulip's `notify_realm_export` does.
//!
//! The export row in D1 is the truth: a build interrupted by a restart leaves the row
//! `started`, and the next alarm builds it again from the start (the archive goes to R2
//! only once complete, under a fresh key).

use std::collections::BTreeSet;

use serde_json::Value;
use worker::{D1Database, Env};

use crate::actions::notify_users;
use crate::actions::uploads::{delete_object, get_object, get_stored_object, put_object};
use crate::db::realm_export_data::{self, Row};
use crate::db::realm_exports::{self, RealmExportRow};
use crate::db::users::{self, UserIdRow, UserRow};
use crate::domain::realm_emoji::storage_key as emoji_storage_key;
use crate::domain::realm_export::{self as rules, Archive, Selection};
use crate::domain::realm_icon::storage_key as realm_image_storage_key;
use crate::domain::users::avatar_storage_key;
use crate::error::{ApiError, ApiResult};
use crate::event_types::Event;

/// Where a requested export is built and announced.
pub struct ExportRequest<'a> {
    pub export_type: i64,
    /// The organization's URL as the administrator reached it (the download URL's base).
    pub base_url: &'a str,
    /// The D1 binding and host the organization's scheduler alarm needs.
    pub database: &'a str,
    pub realm_host: &'a str,
    /// Whom Zulip tells to ask for a manual export of a large organization.
    pub support_email: &'a str,
}

/// Records an export request (Zulip's rate limit and size limit first), tells the
/// administrators, and wakes the organization's scheduler to build it. Answers its id.
pub async fn do_request_export(db: &D1Database, env: &Env, admin: &UserRow, request: &ExportRequest<'_>) -> ApiResult<i64> {
    let now = crate::db::now();
    let recent = realm_exports::requested_since(db, admin.realm_id, now - rules::RATE_LIMIT_WINDOW_SECS).await?;
    if recent >= rules::EXPORT_LIMIT {
        return Err(rules::rate_limited());
    }
    if realm_export_data::message_count(db, admin.realm_id).await? > rules::MAX_MESSAGE_HISTORY {
        return Err(rules::too_large(request.support_email));
    }
    let row = realm_exports::insert(db, admin.realm_id, admin.id, request.export_type, now, request.base_url)
        .await?
        .ok_or_else(|| ApiError::internal("realm export insert returned no row"))?;
    notify_admins(db, env, admin.realm_id).await?;
    crate::platform::scheduler::arm(env, request.database, admin.realm_id, request.realm_host).await;
    Ok(row.id)
}

/// Every export of the organization as `RealmExport` objects.
pub async fn exports_of(db: &D1Database, realm_id: i64) -> ApiResult<Vec<Value>> {
    Ok(realm_exports::in_realm(db, realm_id).await?.iter().map(rules::export_dict).collect())
}

/// Each active human member's consent to exporting their private data.
pub async fn export_consents(db: &D1Database, realm_id: i64) -> ApiResult<Vec<Value>> {
    let rows = realm_export_data::consents(db, realm_id).await?;
    Ok(rows.iter().map(|c| serde_json::json!({ "user_id": c.user_id, "consented": c.consented != 0 })).collect())
}

/// Deletes a finished export's archive and marks it deleted.
pub async fn do_delete_export(db: &D1Database, env: &Env, admin: &UserRow, id: i64) -> ApiResult<()> {
    let row = realm_exports::by_id(db, admin.realm_id, id).await?.ok_or_else(rules::invalid_export_id)?;
    rules::check_deletable(&row)?;
    if !realm_exports::mark_deleted(db, row.id, crate::db::now()).await? {
        // Another administrator deleted it in the meantime.
        return Err(rules::already_deleted());
    }
    if let Some(path) = &row.export_path {
        delete_object(env, path).await?;
    }
    notify_admins(db, env, admin.realm_id).await
}

/// The archive of a succeeded export, by its storage key, for its download URL.
pub async fn archive_bytes(db: &D1Database, env: &Env, admin: &UserRow, key: &str) -> ApiResult<Vec<u8>> {
    let row = realm_exports::succeeded_by_path(db, admin.realm_id, key).await?.ok_or_else(ApiError::upload_not_found)?;
    let path = row.export_path.unwrap_or_default();
    Ok(get_object(env, &path).await?.ok_or_else(ApiError::upload_not_found)?.0)
}

/// When the scheduler must wake for exports: now while one is pending.
pub async fn next_due(db: &D1Database, realm_id: i64) -> ApiResult<Option<i64>> {
    Ok(realm_exports::next_pending(db, realm_id).await?.map(|_| crate::db::now()))
}

/// The alarm's part: builds the oldest pending export, stores it, and tells the
/// administrators; a failed build is marked failed (Zulip's `failed_timestamp`), not
/// retried. Answers when to run again (now while more are pending).
pub async fn build_pending(env: &Env, database: &str, realm_id: i64) -> ApiResult<Option<i64>> {
    let db = env.d1(database)?;
    let Some(row) = realm_exports::next_pending(&db, realm_id).await? else { return Ok(None) };
    realm_exports::set_status(&db, row.id, realm_exports::STARTED, crate::db::now(), None).await?;
    match build_archive(&db, env, &row).await {
        Ok(key) => realm_exports::set_status(&db, row.id, realm_exports::SUCCEEDED, crate::db::now(), Some(&key)).await?,
        Err(err) => {
            worker::console_error!("export {} of realm {realm_id} failed: {}", row.id, err.msg);
            realm_exports::set_status(&db, row.id, realm_exports::FAILED, crate::db::now(), None).await?;
        }
    }
    notify_admins(&db, env, realm_id).await?;
    next_due(&db, realm_id).await
}

/// Writes the whole archive and puts it in R2; answers its key.
async fn build_archive(db: &D1Database, env: &Env, row: &RealmExportRow) -> ApiResult<String> {
    let mut tables = realm_export_data::realm_tables(db, row.realm_id).await?;
    let selection = Selection::new(row.export_type, &tables);
    let token = crate::secrets::random_alphanumeric(24);
    let mut archive = Archive::new(&format!("zulip-export-{token}"), row.date_requested);

    let (exported, reactions, clients) = write_messages(db, &mut archive, row.realm_id, &selection).await?;
    let attachments = std::mem::take(&mut tables.attachments);
    let (attachment_json, kept) = rules::attachment_file(&attachments, &exported, &selection);
    archive.add_json("attachment.json", &attachment_json)?;
    write_uploads(env, &mut archive, &kept).await?;
    write_emoji(env, &mut archive, &tables.realm_emoji).await?;
    write_avatars(env, &mut archive, &tables.users).await?;
    if let Some(realm) = tables.realm.first() {
        write_realm_icons(env, &mut archive, row.realm_id, realm).await?;
    }
    archive.add_json("realm.json", &rules::realm_file(tables, &selection, reactions, &clients))?;

    let key = rules::storage_key(row.realm_id, &token);
    let gzipped = crate::platform::gzip::gzip(&archive.finish()).await.map_err(ApiError::internal)?;
    put_object(env, &key, &gzipped, "application/gzip").await?;
    Ok(key)
}

/// `messages-000001.json` and on, a page of messages each; answers the exported message
/// ids, their reactions and the sending clients' names.
async fn write_messages(
    db: &D1Database,
    archive: &mut Archive,
    realm_id: i64,
    selection: &Selection,
) -> ApiResult<(BTreeSet<i64>, Vec<Row>, Vec<String>)> {
    let channel_ids = selection.channel_ids_json();
    let (mut exported, mut reactions, mut clients) = (BTreeSet::new(), Vec::new(), Vec::new());
    let (mut after, mut next_user_message_id) = (0, 0);
    for number in 1.. {
        let page =
            realm_export_data::message_page(db, realm_id, after, &channel_ids, selection.with_private_data(), rules::MESSAGES_PER_FILE)
                .await?;
        if page.is_empty() && number > 1 {
            break;
        }
        let ids: Vec<i64> = page.iter().filter_map(|m| m.get("id").and_then(Value::as_i64)).collect();
        let ids_json = Value::from(ids.clone()).to_string();
        let user_messages = if selection.with_private_data() {
            realm_export_data::consented_user_messages(db, realm_id, &ids_json).await?
        } else {
            Vec::new()
        };
        reactions.extend(realm_export_data::reactions(db, &ids_json).await?);
        let full = page.len() as i64 == rules::MESSAGES_PER_FILE;
        archive.add_json(
            &rules::messages_file_name(number),
            &rules::messages_file(page, user_messages, &mut clients, &mut next_user_message_id),
        )?;
        after = ids.last().copied().unwrap_or(after);
        exported.extend(ids);
        if !full {
            break;
        }
    }
    Ok((exported, reactions, clients))
}

/// `uploads/records.json` and each upload's bytes at `uploads/<path_id>`.
async fn write_uploads(env: &Env, archive: &mut Archive, attachments: &[Row]) -> ApiResult<()> {
    let mut records = Vec::new();
    for a in attachments {
        let path = a.get("path_id").and_then(Value::as_str).unwrap_or_default();
        let Some((bytes, _)) = get_object(env, path).await? else { continue };
        archive.add(&format!("uploads/{path}"), &bytes)?;
        records.push(rules::upload_record(a));
    }
    archive.add_json("uploads/records.json", &Value::Array(records))
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
        let base = rules::avatar_base_path(realm_id, user_id, version);
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

/// Sends `realm_export` with every export of the organization to its administrators.
async fn notify_admins(db: &D1Database, env: &Env, realm_id: i64) -> ApiResult<()> {
    let exports = exports_of(db, realm_id).await?;
    let admins: Vec<UserIdRow> = crate::db::all(db, users::active_admin_ids_stmt(realm_id)?).await?;
    let ids: Vec<i64> = admins.iter().map(|a| a.id).collect();
    notify_users(env, realm_id, &ids, &Event::RealmExport { exports }).await;
    Ok(())
}
