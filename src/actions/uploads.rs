//! Storing uploaded files (R2 bytes, then the D1 row) and reading them back.

use serde::Deserialize;
use serde_json::json;
use worker::{Env, HttpMetadata, Range};

use crate::context::UploadedFile;
use crate::db::attachments::{self, AttachmentRow, NewAttachment};
use crate::db::users::UserRow;
use crate::domain::register_state::MAX_FILE_UPLOAD_SIZE_MIB;
use crate::domain::uploads;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{AttachmentEvent, Event};
use crate::events::{self, EventUser};

/// The R2 bucket of uploaded files.
pub const BUCKET: &str = "UPLOADS";

/// A stored upload: its path_id and sanitized file name.
pub struct Stored {
    pub path_id: String,
    pub file_name: String,
}

/// A file whose bytes are in R2 at `path_id`, not yet recorded.
pub struct StoredFile<'a> {
    pub path_id: &'a str,
    pub file_name: &'a str,
    pub content_type: &'a str,
    pub size: i64,
}

#[derive(Deserialize)]
struct Inserted {
    id: i64,
}

/// Stores one uploaded file for `me`. The size limit is checked before anything is
/// written; the D1 row follows the R2 object, so a row always has its bytes.
pub async fn do_upload(db: &worker::D1Database, env: &Env, me: &UserRow, file: &UploadedFile) -> ApiResult<Stored> {
    if file.bytes.len() as i64 > MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024 {
        return Err(ApiError::upload_too_large(MAX_FILE_UPLOAD_SIZE_MIB));
    }
    let file_name = uploads::sanitize_name(&file.name);
    let path_id = uploads::new_path_id(me.realm_id, &file_name);
    let content_type = uploads::content_type_for(&file.content_type, &file_name);
    put_object(env, &path_id, &file.bytes, &content_type).await?;
    let stored = StoredFile { path_id: &path_id, file_name: &file_name, content_type: &content_type, size: file.bytes.len() as i64 };
    record_upload(db, env, me, &stored, Vec::new()).await?;
    Ok(Stored { path_id, file_name })
}

/// Records a file already in R2 as `me`'s upload, in one batch after `first` (whose
/// results it answers), then sends the owner's `attachment` event. Every way of uploading
/// ends here, so the row and the event are the same whichever way the file came.
pub async fn record_upload(
    db: &worker::D1Database,
    env: &Env,
    me: &UserRow,
    file: &StoredFile<'_>,
    first: Vec<worker::D1PreparedStatement>,
) -> ApiResult<Vec<worker::D1Result>> {
    let now = crate::db::now();
    let new = NewAttachment {
        realm_id: me.realm_id,
        owner_id: me.id,
        path_id: file.path_id,
        file_name: file.file_name,
        size: file.size,
        content_type: file.content_type,
        create_time: now,
    };
    let mut stmts = first;
    let at = stmts.len();
    stmts.push(attachments::insert_stmt(db, &new)?);
    stmts.push(attachments::space_used_stmt(db, me.id)?);
    let mut results = crate::db::run_batch(db, stmts).await?;
    let inserted: Inserted =
        results[at].results()?.into_iter().next().ok_or_else(|| ApiError::internal("attachment insert returned no id"))?;
    let space: attachments::SpaceUsed = results[at + 1].results()?.into_iter().next().unwrap_or_default();

    let row = AttachmentRow {
        id: inserted.id,
        realm_id: me.realm_id,
        owner_id: me.id,
        path_id: file.path_id.to_string(),
        file_name: file.file_name.to_string(),
        size: file.size,
        content_type: file.content_type.to_string(),
        create_time: now,
    };
    let event =
        Event::Attachment(AttachmentEvent::Add { attachment: uploads::attachment_object(&row, &[]), upload_space_used: space.used });
    send_to_owner(env, me, &event).await;
    results.truncate(at);
    Ok(results)
}

/// Stores `bytes` in R2 under `key`, served later with `content_type`.
pub async fn put_object(env: &Env, key: &str, bytes: &[u8], content_type: &str) -> ApiResult<()> {
    let metadata = HttpMetadata { content_type: Some(content_type.to_string()), ..Default::default() };
    env.bucket(BUCKET)?.put(key.to_string(), bytes.to_vec()).http_metadata(metadata).execute().await?;
    Ok(())
}

/// Removes the R2 object under `key` (nothing if there is none).
pub async fn delete_object(env: &Env, key: &str) -> ApiResult<()> {
    env.bucket(BUCKET)?.delete(key.to_string()).await?;
    Ok(())
}

/// The whole R2 object under `key` and its stored content type, if it exists.
pub async fn get_object(env: &Env, key: &str) -> ApiResult<Option<(Vec<u8>, Option<String>)>> {
    let Some(object) = env.bucket(BUCKET)?.get(key.to_string()).execute().await? else { return Ok(None) };
    let content_type = object.http_metadata().content_type;
    let bytes = match object.body() {
        Some(body) => body.bytes().await?,
        None => Vec::new(),
    };
    Ok(Some((bytes, content_type)))
}

async fn send_to_owner(env: &Env, me: &UserRow, event: &Event) {
    let users = [EventUser::plain(me.id)];
    events::send_event(env, me.realm_id, event, &users).await;
}

/// The caller's uploads with the messages linking them, and the bytes they use.
pub async fn list_attachments(db: &worker::D1Database, me: &UserRow) -> ApiResult<(Vec<serde_json::Value>, i64)> {
    let results = crate::db::run_batch(
        db,
        vec![attachments::owned_stmt(db, me.id)?, attachments::owned_links_stmt(db, me.id)?, attachments::space_used_stmt(db, me.id)?],
    )
    .await?;
    let rows: Vec<AttachmentRow> = results[0].results()?;
    let links: Vec<attachments::LinkRow> = results[1].results()?;
    let space: attachments::SpaceUsed = results[2].results()?.into_iter().next().unwrap_or_default();
    Ok((rows.iter().map(|row| uploads::attachment_object(row, &links)).collect(), space.used))
}

/// Deletes one of the caller's uploads: its row and links, then its bytes.
pub async fn do_delete_attachment(db: &worker::D1Database, env: &Env, me: &UserRow, id: i64) -> ApiResult<()> {
    let row = attachments::owned_by_id(db, me.id, id).await?.ok_or_else(ApiError::invalid_attachment)?;
    let mut stmts = attachments::delete_stmts(db, row.id)?;
    stmts.push(attachments::space_used_stmt(db, me.id)?);
    let results = crate::db::run_batch(db, stmts).await?;
    let space: attachments::SpaceUsed = results[results.len() - 1].results()?.into_iter().next().unwrap_or_default();
    env.bucket(BUCKET)?.delete(row.path_id.clone()).await?;
    let event = Event::Attachment(AttachmentEvent::Remove { attachment: json!({ "id": row.id }), upload_space_used: space.used });
    send_to_owner(env, me, &event).await;
    Ok(())
}

/// The bytes of a download: the whole object, or `(start, end)` inclusive.
pub async fn read_object(env: &Env, attachment: &AttachmentRow, range: Option<(u64, u64)>) -> ApiResult<Vec<u8>> {
    let bucket = env.bucket(BUCKET)?;
    let mut get = bucket.get(attachment.path_id.clone());
    if let Some((start, end)) = range {
        get = get.range(Range::OffsetWithLength { offset: start, length: end - start + 1 });
    }
    let object = get.execute().await?.ok_or_else(ApiError::upload_not_found)?;
    match object.body() {
        Some(body) => Ok(body.bytes().await?),
        None => Ok(Vec::new()),
    }
}

/// After a content edit: relinks the message to the uploads its new content names and
/// answers the editor's uploads that the edit left unlinked (`detached_uploads`).
pub async fn relink_after_edit(
    db: &worker::D1Database,
    env: &Env,
    editor: &UserRow,
    message: &crate::db::messages::MessageRow,
    new_content: &str,
) -> ApiResult<Vec<serde_json::Value>> {
    let old = uploads::linked_path_ids(&message.content);
    let new = uploads::linked_path_ids(new_content);
    if old.is_empty() && new.is_empty() {
        return Ok(Vec::new());
    }
    let removed: Vec<&String> = old.iter().filter(|p| !new.contains(p)).collect();
    let new_json = serde_json::to_string(&new)?;
    let results = crate::db::run_batch(
        db,
        vec![
            attachments::unlink_edited_stmt(db, message.realm_id, message.id, &new_json)?,
            attachments::link_edited_stmt(db, message.realm_id, message.id, message.sender_id, &new_json)?,
            attachments::unlinked_stmt(db, message.realm_id, editor.id, &serde_json::to_string(&removed)?)?,
        ],
    )
    .await?;
    let detached: Vec<AttachmentRow> = results[2].results()?;
    let added: Vec<String> = new.iter().filter(|p| !old.contains(p)).cloned().collect();
    if editor.id == message.sender_id {
        notify_linked(db, env, editor, &added).await?;
    }
    Ok(detached.iter().map(uploads::detached_upload_object).collect())
}

/// After a send or edit linked the sender's uploads `path_ids`: an `attachment` update
/// event per upload, carrying its linking messages, to the uploader.
pub async fn notify_linked(db: &worker::D1Database, env: &Env, owner: &UserRow, path_ids: &[String]) -> ApiResult<()> {
    if path_ids.is_empty() {
        return Ok(());
    }
    let json = serde_json::to_string(path_ids)?;
    let results = crate::db::run_batch(
        db,
        vec![
            attachments::owned_among_stmt(db, owner.id, &json)?,
            attachments::links_among_stmt(db, owner.id, &json)?,
            attachments::space_used_stmt(db, owner.id)?,
        ],
    )
    .await?;
    let rows: Vec<AttachmentRow> = results[0].results()?;
    let links: Vec<attachments::LinkRow> = results[1].results()?;
    let space: attachments::SpaceUsed = results[2].results()?.into_iter().next().unwrap_or_default();
    for row in &rows {
        let event = Event::Attachment(AttachmentEvent::Update {
            attachment: uploads::attachment_object(row, &links),
            upload_space_used: space.used,
        });
        send_to_owner(env, owner, &event).await;
    }
    Ok(())
}

/// How long a temporary download URL works (Zulip: 60 seconds).
const TEMPORARY_URL_SECS: i64 = 60;

/// A fresh temporary download URL for an upload the caller may download.
pub async fn do_create_temporary_url(db: &worker::D1Database, attachment: &AttachmentRow) -> ApiResult<String> {
    let token = crate::secrets::random_alphanumeric(32);
    crate::db::run(attachments::insert_token_stmt(db, &token, attachment.id, crate::db::now() + TEMPORARY_URL_SECS)?).await?;
    Ok(uploads::temporary_url_for(&token, &attachment.file_name))
}

/// The upload an unexpired temporary download token stands for; "not found" otherwise.
/// One round trip.
pub async fn temporary_attachment(db: &worker::D1Database, token: &str) -> ApiResult<AttachmentRow> {
    attachments::by_token(db, token, crate::db::now()).await?.ok_or_else(ApiError::upload_not_found)
}

/// The upload at `path_id` if the user may download it (the uploader, or a user who may see
/// a message linking it); "not authorized" when it exists but is not theirs to see, else
/// "not found". One round trip, two when refused.
pub async fn downloadable_attachment(db: &worker::D1Database, me: &UserRow, path_id: &str) -> ApiResult<AttachmentRow> {
    if let Some(row) = attachments::downloadable(db, me.realm_id, me.id, me.is_guest(), path_id).await? {
        return Ok(row);
    }
    if attachments::exists(db, me.realm_id, path_id).await? {
        Err(ApiError::upload_not_authorized())
    } else {
        Err(ApiError::upload_not_found())
    }
}
