//! `saved_snippets`: each user's reusable message texts.

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct SavedSnippetRow {
    pub id: i64,
    pub title: String,
    pub content: String,
    pub date_created: i64,
}

const COLUMNS: &str = "id, title, content, date_created";

/// A user's snippets, oldest first.
pub fn for_user_stmt(user_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM saved_snippets WHERE user_id = ?1 ORDER BY id"), user_id)
}

pub async fn for_user(db: &D1Database, user_id: i64) -> Result<Vec<SavedSnippetRow>> {
    super::all(db, for_user_stmt(user_id)?).await
}

/// Inserts a snippet; answers the new row.
pub async fn insert(
    db: &D1Database,
    realm_id: RealmId,
    user_id: UserId,
    title: &str,
    content: &str,
    now: i64,
) -> Result<Option<SavedSnippetRow>> {
    super::first(
        db,
        statement!(
            &format!(
            "INSERT INTO saved_snippets (realm_id, user_id, title, content, date_created) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING {COLUMNS}"
        ),
            realm_id,
            user_id,
            title,
            content,
            now
        )?,
    )
    .await
}

/// Changes the given fields of the user's own snippet; answers the row, or none when the
/// user has no snippet with this id.
pub async fn update(
    db: &D1Database,
    user_id: UserId,
    id: i64,
    title: Option<&str>,
    content: Option<&str>,
) -> Result<Option<SavedSnippetRow>> {
    super::first(
        db,
        statement!(
            &format!(
                "UPDATE saved_snippets SET title = COALESCE(?3, title), content = COALESCE(?4, content) \
             WHERE id = ?2 AND user_id = ?1 RETURNING {COLUMNS}"
            ),
            user_id,
            id,
            title,
            content
        )?,
    )
    .await
}

/// Deletes the user's own snippet; answers whether there was one.
pub async fn delete(db: &D1Database, user_id: UserId, id: i64) -> Result<bool> {
    #[derive(Deserialize)]
    struct Id {
        #[allow(dead_code)]
        id: i64,
    }
    let row: Option<Id> =
        super::first(db, statement!("DELETE FROM saved_snippets WHERE id = ?2 AND user_id = ?1 RETURNING id", user_id, id)?).await?;
    Ok(row.is_some())
}
