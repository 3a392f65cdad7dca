//! Saved snippets: a user's reusable message texts.

use serde_json::{json, Value};

use worker::D1Database;

use crate::db::saved_snippets::{self, SavedSnippetRow};
use crate::domain::strings::required_text;
use crate::error::{ApiError, ApiResult};

/// Zulip's `SavedSnippet.MAX_TITLE_LENGTH`.
pub const MAX_TITLE_LENGTH: i64 = 60;
/// Zulip's server-wide `MAX_MESSAGE_LENGTH`: a snippet is inserted into a message.
pub const MAX_CONTENT_LENGTH: i64 = 10_000;

pub fn check_title(raw: &str) -> ApiResult<String> {
    required_text("title", raw, MAX_TITLE_LENGTH)
}

pub fn check_content(raw: &str) -> ApiResult<String> {
    required_text("content", raw, MAX_CONTENT_LENGTH)
}

/// Another user's snippet answers the same as a missing one.
pub fn snippet_not_found() -> ApiError {
    ApiError::resource_not_found("Saved snippet does not exist.")
}

/// The API object (`saved_snippets` of `GET /saved_snippets`, register and events).
pub fn snippet_dict(row: &SavedSnippetRow) -> Value {
    json!({ "id": row.id, "title": row.title, "content": row.content, "date_created": row.date_created })
}

/// The user's snippets as the API shows them, oldest first. One round trip.
pub async fn snippets_of(db: &D1Database, user_id: i64) -> ApiResult<Vec<Value>> {
    Ok(saved_snippets::for_user(db, user_id).await?.iter().map(snippet_dict).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_over_sixty_characters_is_refused() {
        assert_eq!(check_title(&"a".repeat(61)).unwrap_err().msg, "title is too long (limit: 60 characters)");
        assert!(check_title(&"a".repeat(60)).is_ok());
    }

    #[test]
    fn blank_content_is_refused() {
        assert_eq!(check_content(" \n").unwrap_err().msg, "content cannot be blank");
    }
}
