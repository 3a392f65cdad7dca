//! Storing uploaded files (R2 bytes, then the D1 row) and reading them back.

use serde::Deserialize;
use serde_json::json;
use worker::{Env, HttpMetadata, Range};

use crate::db::attachments::{self, AttachmentRow, NewAttachment};
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::users::UserRow;
use crate::domain::register_state::MAX_FILE_UPLOAD_SIZE_MIB;
use crate::domain::uploads;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{AttachmentEvent, Event};
use crate::events::{self, EventUser};
use crate::model::ids::{MessageId, RealmId, UserId};
use crate::request_body::UploadedFile;

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
    record_upload(db, env, me, &stored, None).await?;
    Ok(Stored { path_id, file_name })
}

/// Records a file already in R2 as `me`'s upload, in one batch after `first` (the caller's
/// own change), then sends the owner's `attachment` event. Every way of uploading
/// ends here, so the row and the event are the same whichever way the file came.
pub async fn record_upload(
    db: &worker::D1Database,
    env: &Env,
    me: &UserRow,
    file: &StoredFile<'_>,
    first: Option<crate::db::statement::Statement>,
) -> ApiResult<()> {
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
    let mut batch = Batch::new();
    if let Some(first) = first {
        batch.add::<serde_json::Value>(first);
    }
    let inserted = batch.add::<Inserted>(attachments::insert_stmt(&new)?);
    let space = batch.add::<attachments::SpaceUsed>(attachments::space_used_stmt(me.id)?);
    let results = batch.run(db).await?;
    let inserted = results.first(inserted)?.ok_or_else(|| ApiError::internal("attachment insert returned no id"))?;
    let space = results.first(space)?.unwrap_or_default();

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
    Ok(())
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

/// An R2 object with what an export records of it.
pub struct StoredObject {
    pub bytes: Vec<u8>,
    pub content_type: Option<String>,
    /// When it was stored, UNIX milliseconds.
    pub uploaded_ms: u64,
}

/// [`get_object`] with the time the object was stored.
pub async fn get_stored_object(env: &Env, key: &str) -> ApiResult<Option<StoredObject>> {
    let Some(object) = env.bucket(BUCKET)?.get(key.to_string()).execute().await? else { return Ok(None) };
    let content_type = object.http_metadata().content_type;
    let uploaded_ms = object.uploaded().as_millis();
    let bytes = match object.body() {
        Some(body) => body.bytes().await?,
        None => Vec::new(),
    };
    Ok(Some(StoredObject { bytes, content_type, uploaded_ms }))
}

async fn send_to_owner(env: &Env, me: &UserRow, event: &Event) {
    let users = [EventUser::plain(me.id)];
    events::send_event(env, me.realm_id, event, &users).await;
}

/// The caller's uploads with the messages linking them, and the bytes they use.
pub async fn list_attachments(db: &worker::D1Database, me: &UserRow) -> ApiResult<(Vec<serde_json::Value>, i64)> {
    let mut batch = Batch::new();
    let rows = batch.add::<AttachmentRow>(attachments::owned_stmt(me.id)?);
    let links = batch.add::<attachments::LinkRow>(attachments::owned_links_stmt(me.id)?);
    let space = batch.add::<attachments::SpaceUsed>(attachments::space_used_stmt(me.id)?);
    let results = batch.run(db).await?;
    let rows = results.rows(rows)?;
    let links = results.rows(links)?;
    let space = results.first(space)?.unwrap_or_default();
    Ok((rows.iter().map(|row| uploads::attachment_object(row, &links)).collect(), space.used))
}

/// How long R2 keeps a deleted upload's bytes: D1 Time Travel's window, so a restore to
/// any point it offers finds the files its messages link.
pub const DELETED_UPLOAD_GRACE_SECS: i64 = 30 * 86_400;
/// Objects removed per purge, so a delete never waits on many.
const PURGE_BATCH: i64 = 20;

/// Removes the bytes of uploads deleted more than the grace period ago (a few at a time,
/// each time an upload is deleted).
async fn purge_deleted_uploads(db: &worker::D1Database, env: &Env) -> ApiResult<()> {
    let due = attachments::deleted_due(db, crate::db::now() - DELETED_UPLOAD_GRACE_SECS, PURGE_BATCH).await?;
    if due.is_empty() {
        return Ok(());
    }
    let bucket = env.bucket(BUCKET)?;
    for path_id in &due {
        bucket.delete(path_id.clone()).await?;
    }
    attachments::forget_deleted(db, &serde_json::Value::from(due).to_string()).await?;
    Ok(())
}

/// Deletes one of the caller's uploads: its row and links at once, its bytes after the
/// grace period ([`DELETED_UPLOAD_GRACE_SECS`]).
pub async fn do_delete_attachment(db: &worker::D1Database, env: &Env, me: &UserRow, id: i64) -> ApiResult<()> {
    let row = attachments::owned_by_id(db, UserId(me.id), id).await?.ok_or_else(ApiError::invalid_attachment)?;
    let mut batch = Batch::new();
    for stmt in attachments::delete_stmts(row.id)? {
        batch.add::<serde_json::Value>(stmt);
    }
    let space = batch.add::<attachments::SpaceUsed>(attachments::space_used_stmt(me.id)?);
    let space = batch.run(db).await?.first(space)?.unwrap_or_default();
    purge_deleted_uploads(db, env).await?;
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

/// The upload links a content edit changes: the message links the sender's uploads its
/// new content names and no others; the editor's uploads the edit left unlinked are
/// answered (`detached_uploads`), and the uploads it newly links are announced to their
/// owner. Planned before the edit's write, whose batch holds the statements.
pub struct EditRelink {
    realm_id: i64,
    message_id: i64,
    sender_id: i64,
    editor_id: i64,
    new_json: String,
    removed_json: String,
    /// The uploads newly linked, announced when the editor is the sender.
    added: Vec<String>,
}

/// Where [`EditRelink`]'s statements sit in the edit's batch.
pub struct RelinkSlots {
    detached: Slot<AttachmentRow>,
    linked: Option<LinkedReads>,
}

impl EditRelink {
    /// `None` when neither the old nor the new content links an upload.
    pub fn plan(editor: &UserRow, message: &crate::db::messages::MessageRow, new_content: &str) -> ApiResult<Option<Self>> {
        let old = uploads::linked_path_ids(&message.content);
        let new = uploads::linked_path_ids(new_content);
        if old.is_empty() && new.is_empty() {
            return Ok(None);
        }
        let removed: Vec<&String> = old.iter().filter(|p| !new.contains(p)).collect();
        let added: Vec<String> = match editor.id == message.sender_id {
            true => new.iter().filter(|p| !old.contains(p)).cloned().collect(),
            false => Vec::new(),
        };
        Ok(Some(EditRelink {
            realm_id: message.realm_id,
            message_id: message.id,
            sender_id: message.sender_id,
            editor_id: editor.id,
            new_json: serde_json::to_string(&new)?,
            removed_json: serde_json::to_string(&removed)?,
            added,
        }))
    }

    /// Adds the relinking, then the reads of what it detached and linked, to `batch`.
    pub fn add(&self, batch: &mut Batch) -> ApiResult<RelinkSlots> {
        let EditRelink { realm_id, message_id, sender_id, editor_id, .. } = *self;
        batch.add::<serde_json::Value>(attachments::unlink_edited_stmt(RealmId(realm_id), MessageId(message_id), &self.new_json)?);
        batch.add::<serde_json::Value>(attachments::link_edited_stmt(
            RealmId(realm_id),
            MessageId(message_id),
            UserId(sender_id),
            &self.new_json,
        )?);
        let detached = batch.add(attachments::unlinked_stmt(RealmId(realm_id), UserId(editor_id), &self.removed_json)?);
        let linked = LinkedReads::add(batch, editor_id, &self.added)?;
        Ok(RelinkSlots { detached, linked })
    }
}

/// What the edit's batch read about its uploads, for [`finish_relink`].
pub struct Relinked {
    detached: Vec<AttachmentRow>,
    linked: Option<Linked>,
}

impl RelinkSlots {
    pub fn take(self, results: &BatchResults) -> ApiResult<Relinked> {
        let linked = match self.linked {
            Some(reads) => Some(reads.take(results)?),
            None => None,
        };
        Ok(Relinked { detached: results.rows(self.detached)?, linked })
    }
}

/// After the edit committed: the `attachment` events of the newly linked uploads; answers
/// the detached uploads.
pub async fn finish_relink(env: &Env, editor: &UserRow, relinked: Relinked) -> Vec<serde_json::Value> {
    if let Some(linked) = &relinked.linked {
        send_linked(env, editor, linked).await;
    }
    relinked.detached.iter().map(uploads::detached_upload_object).collect()
}

/// What the `attachment` events of newly linked uploads read: the uploads, the messages
/// linking them, and the bytes their owner uses. Added to the batch that links them, after
/// the link, so the events see it.
pub struct LinkedReads {
    rows: Slot<AttachmentRow>,
    links: Slot<attachments::LinkRow>,
    space: Slot<attachments::SpaceUsed>,
}

pub struct Linked {
    rows: Vec<AttachmentRow>,
    links: Vec<attachments::LinkRow>,
    space: attachments::SpaceUsed,
}

impl LinkedReads {
    /// `None` when no upload was linked.
    pub fn add(batch: &mut Batch, owner_id: i64, path_ids: &[String]) -> ApiResult<Option<Self>> {
        if path_ids.is_empty() {
            return Ok(None);
        }
        let json = serde_json::to_string(path_ids)?;
        Ok(Some(LinkedReads {
            rows: batch.add(attachments::owned_among_stmt(owner_id, &json)?),
            links: batch.add(attachments::links_among_stmt(owner_id, &json)?),
            space: batch.add(attachments::space_used_stmt(owner_id)?),
        }))
    }

    pub fn take(self, results: &BatchResults) -> ApiResult<Linked> {
        Ok(Linked {
            rows: results.rows(self.rows)?,
            links: results.rows(self.links)?,
            space: results.first(self.space)?.unwrap_or_default(),
        })
    }
}

impl Linked {
    /// An `attachment` update event per newly linked upload, carrying its linking
    /// messages: the uploader's.
    pub fn events(&self) -> Vec<Event> {
        let update =
            |row| AttachmentEvent::Update { attachment: uploads::attachment_object(row, &self.links), upload_space_used: self.space.used };
        self.rows.iter().map(|row| Event::Attachment(update(row))).collect()
    }
}

/// [`Linked::events`], sent to the uploader.
pub async fn send_linked(env: &Env, owner: &UserRow, linked: &Linked) {
    for event in linked.events() {
        send_to_owner(env, owner, &event).await;
    }
}

/// How long a temporary download URL works (Zulip: 60 seconds).
const TEMPORARY_URL_SECS: i64 = 60;

/// A fresh temporary download URL for an upload the caller may download.
pub async fn do_create_temporary_url(db: &worker::D1Database, attachment: &AttachmentRow) -> ApiResult<String> {
    let token = crate::secrets::random_alphanumeric(32);
    crate::db::run(db, attachments::insert_token_stmt(&token, attachment.id, crate::db::now() + TEMPORARY_URL_SECS)?).await?;
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
    if let Some(row) = attachments::downloadable(db, RealmId(me.realm_id), UserId(me.id), me.is_guest(), path_id).await? {
        return Ok(row);
    }
    if attachments::exists(db, me.realm_id, path_id).await? {
        Err(ApiError::upload_not_authorized())
    } else {
        Err(ApiError::upload_not_found())
    }
}
