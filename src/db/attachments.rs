//! `attachments` and `attachment_messages`: uploaded files and the messages linking them.

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::messages::ACCESS_CONDITION;
use crate::db::statement::{statement, Statement};
use crate::model::ids::{MessageId, RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct AttachmentRow {
    pub id: i64,
    pub realm_id: i64,
    pub owner_id: i64,
    pub path_id: String,
    pub file_name: String,
    pub size: i64,
    pub content_type: String,
    pub create_time: i64,
}

const COLUMNS: &str = "a.id, a.realm_id, a.owner_id, a.path_id, a.file_name, a.size, a.content_type, a.create_time";

pub struct NewAttachment<'a> {
    pub realm_id: i64,
    pub owner_id: i64,
    pub path_id: &'a str,
    pub file_name: &'a str,
    pub size: i64,
    pub content_type: &'a str,
    pub create_time: i64,
}

pub fn insert_stmt(a: &NewAttachment<'_>) -> Result<Statement> {
    statement!(
        "INSERT INTO attachments (realm_id, owner_id, path_id, file_name, size, content_type, create_time) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
        a.realm_id,
        a.owner_id,
        a.path_id,
        a.file_name,
        a.size,
        a.content_type,
        a.create_time
    )
}

/// The upload at `path_id` if `user_id` may download it: the uploader, or anyone who may
/// see a message linking it. `None` otherwise, or when there is no such upload.
pub async fn downloadable(
    db: &D1Database,
    realm_id: RealmId,
    user_id: UserId,
    is_guest: bool,
    path_id: &str,
) -> Result<Option<AttachmentRow>> {
    super::first(
        db,
        statement!(
            &format!(
                "SELECT {COLUMNS} FROM attachments a WHERE a.realm_id = ?1 AND a.path_id = ?4 AND (a.owner_id = ?2 OR EXISTS ( \
             SELECT 1 FROM attachment_messages am JOIN messages m ON m.id = am.message_id \
             LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ?2 \
             LEFT JOIN channels c ON c.id = m.channel_id \
             WHERE am.attachment_id = a.id AND {ACCESS_CONDITION}))"
            ),
            realm_id,
            user_id,
            is_guest as i64,
            path_id
        )?,
    )
    .await
}

/// Whether an upload exists at `path_id` (to tell "no such file" from "not yours").
pub async fn exists(db: &D1Database, realm_id: i64, path_id: &str) -> Result<bool> {
    let row: Option<serde_json::Value> =
        super::first(db, statement!("SELECT 1 AS found FROM attachments WHERE realm_id = ?1 AND path_id = ?2", realm_id, path_id)?).await?;
    Ok(row.is_some())
}

/// Links the just-inserted message (the realm's newest, inside the send's write batch) to
/// the sender's own uploads among `path_ids_json` (a JSON list of path_ids).
pub fn link_new_message_stmt(realm_id: RealmId, sender_id: UserId, path_ids_json: &str) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO attachment_messages (attachment_id, message_id) \
         SELECT a.id, (SELECT MAX(id) FROM messages WHERE realm_id = ?1 AND sender_id = ?2) FROM attachments a \
         WHERE a.realm_id = ?1 AND a.owner_id = ?2 AND a.path_id IN (SELECT value FROM json_each(?3))",
        realm_id,
        sender_id,
        path_ids_json
    )
}

/// Bytes of uploads a user owns (`upload_space_used`).
#[derive(Debug, Default, Deserialize)]
pub struct SpaceUsed {
    pub used: i64,
}

pub fn space_used_stmt(owner_id: i64) -> Result<Statement> {
    statement!("SELECT COALESCE(SUM(size), 0) AS used FROM attachments WHERE owner_id = ?1", owner_id)
}

/// Every upload a user owns, newest first.
pub fn owned_stmt(owner_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM attachments a WHERE a.owner_id = ?1 ORDER BY a.id DESC"), owner_id)
}

#[derive(Debug, Clone, Deserialize)]
pub struct LinkRow {
    pub attachment_id: i64,
    pub message_id: i64,
    pub date_sent: i64,
}

/// The messages linking each upload a user owns.
pub fn owned_links_stmt(owner_id: i64) -> Result<Statement> {
    statement!(
        "SELECT am.attachment_id, am.message_id, m.date_sent FROM attachment_messages am \
         JOIN attachments a ON a.id = am.attachment_id JOIN messages m ON m.id = am.message_id \
         WHERE a.owner_id = ?1 ORDER BY am.message_id",
        owner_id
    )
}

/// One upload of a user, by id.
pub async fn owned_by_id(db: &D1Database, owner_id: UserId, id: i64) -> Result<Option<AttachmentRow>> {
    super::first(db, statement!(&format!("SELECT {COLUMNS} FROM attachments a WHERE a.owner_id = ?1 AND a.id = ?2"), owner_id, id)?).await
}

/// Removes an upload's row and its links (the cascade does not run without foreign keys on).
pub fn delete_stmts(id: i64) -> Result<Vec<Statement>> {
    Ok(vec![
        // The bytes stay in R2 for the grace period (`deleted_uploads`).
        statement!(
            "INSERT OR IGNORE INTO deleted_uploads (path_id, realm_id, deleted_at) \
             SELECT path_id, realm_id, unixepoch() FROM attachments WHERE id = ?1",
            id
        )?,
        statement!("DELETE FROM attachment_messages WHERE attachment_id = ?1", id)?,
        statement!("DELETE FROM upload_tokens WHERE attachment_id = ?1", id)?,
        statement!("DELETE FROM attachments WHERE id = ?1", id)?,
    ])
}

/// After an edit: drops the message's links to uploads its new content no longer names
/// (`path_ids_json`).
pub fn unlink_edited_stmt(realm_id: RealmId, message_id: MessageId, path_ids_json: &str) -> Result<Statement> {
    statement!(
        "DELETE FROM attachment_messages WHERE message_id = ?1 AND attachment_id NOT IN ( \
         SELECT a.id FROM attachments a WHERE a.realm_id = ?2 AND a.path_id IN (SELECT value FROM json_each(?3)))",
        message_id,
        realm_id,
        path_ids_json
    )
}

/// After an edit: links the message to the sender's own uploads its new content names.
pub fn link_edited_stmt(realm_id: RealmId, message_id: MessageId, sender_id: UserId, path_ids_json: &str) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO attachment_messages (attachment_id, message_id) \
         SELECT a.id, ?1 FROM attachments a \
         WHERE a.realm_id = ?2 AND a.owner_id = ?3 AND a.path_id IN (SELECT value FROM json_each(?4))",
        message_id,
        realm_id,
        sender_id,
        path_ids_json
    )
}

/// Uploads of `owner_id` among `path_ids_json` that no message links any more.
pub fn unlinked_stmt(realm_id: RealmId, owner_id: UserId, path_ids_json: &str) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {COLUMNS} FROM attachments a WHERE a.realm_id = ?1 AND a.owner_id = ?2 \
             AND a.path_id IN (SELECT value FROM json_each(?3)) \
             AND NOT EXISTS (SELECT 1 FROM attachment_messages am WHERE am.attachment_id = a.id) ORDER BY a.id"
        ),
        realm_id,
        owner_id,
        path_ids_json
    )
}

/// Deleting messages: their links go (the uploads stay, as in Zulip).
pub fn unlink_messages_stmt(message_ids_json: &str) -> Result<Statement> {
    statement!("DELETE FROM attachment_messages WHERE message_id IN (SELECT value FROM json_each(?1))", message_ids_json)
}

/// The uploads of `owner_id` among `path_ids_json`.
pub fn owned_among_stmt(owner_id: i64, path_ids_json: &str) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {COLUMNS} FROM attachments a WHERE a.owner_id = ?1 AND a.path_id IN (SELECT value FROM json_each(?2)) ORDER BY a.id"
        ),
        owner_id,
        path_ids_json
    )
}

/// The messages linking the uploads of `owner_id` among `path_ids_json`.
pub fn links_among_stmt(owner_id: i64, path_ids_json: &str) -> Result<Statement> {
    statement!(
        "SELECT am.attachment_id, am.message_id, m.date_sent FROM attachment_messages am \
         JOIN attachments a ON a.id = am.attachment_id JOIN messages m ON m.id = am.message_id \
         WHERE a.owner_id = ?1 AND a.path_id IN (SELECT value FROM json_each(?2)) ORDER BY am.message_id",
        owner_id,
        path_ids_json
    )
}

pub fn insert_token_stmt(token: &str, attachment_id: i64, expires: i64) -> Result<Statement> {
    statement!("INSERT INTO upload_tokens (token, attachment_id, expires) VALUES (?1, ?2, ?3)", token, attachment_id, expires)
}

/// The upload a temporary download token grants, if the token is still valid.
pub async fn by_token(db: &D1Database, token: &str, now: i64) -> Result<Option<AttachmentRow>> {
    super::first(
        db,
        statement!(
            &format!(
                "SELECT {COLUMNS} FROM upload_tokens t JOIN attachments a ON a.id = t.attachment_id WHERE t.token = ?1 AND t.expires > ?2"
            ),
            token,
            now
        )?,
    )
    .await
}

/// Deleted uploads whose grace period ended before `cutoff`, oldest first, at most `limit`.
pub async fn deleted_due(db: &D1Database, cutoff: i64, limit: i64) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Due {
        path_id: String,
    }
    let rows: Vec<Due> = super::all(
        db,
        statement!("SELECT path_id FROM deleted_uploads WHERE deleted_at < ?1 ORDER BY deleted_at LIMIT ?2", cutoff, limit)?,
    )
    .await?;
    Ok(rows.into_iter().map(|r| r.path_id).collect())
}

/// Forgets deleted uploads whose bytes are gone (`path_ids_json`: a JSON array).
pub async fn forget_deleted(db: &D1Database, path_ids_json: &str) -> Result<()> {
    super::run(db, statement!("DELETE FROM deleted_uploads WHERE path_id IN (SELECT value FROM json_each(?1))", path_ids_json)?).await?;
    Ok(())
}
