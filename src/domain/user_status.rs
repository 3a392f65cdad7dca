//! User status as the API shows it: only the parts that are set.

use serde_json::{json, Map, Value};
use worker::D1Database;

use crate::db::batch::Batch;
use crate::db::user_status::{self, UserStatusRow};
use crate::db::users::{self, UserRow};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};

/// Zulip's limit on `status_text`.
pub const MAX_STATUS_TEXT_LENGTH: usize = 60;

/// Zulip's `format_user_status`: `away` when true, `status_text` when not empty, the
/// emoji fields when an emoji is set.
pub fn status_dict(row: &UserStatusRow) -> Value {
    let mut d = Map::new();
    if row.away != 0 {
        d.insert("away".into(), json!(true));
    }
    if !row.status_text.is_empty() {
        d.insert("status_text".into(), json!(row.status_text));
    }
    if !row.emoji_name.is_empty() {
        d.insert("emoji_name".into(), json!(row.emoji_name));
        d.insert("emoji_code".into(), json!(row.emoji_code));
        d.insert("reaction_type".into(), json!(row.reaction_type));
    }
    Value::Object(d)
}

/// The status text as stored: trimmed, at most 60 characters.
pub fn clean_status_text(text: &str) -> ApiResult<String> {
    let text = text.trim();
    if text.chars().count() > MAX_STATUS_TEXT_LENGTH {
        return Err(ApiError::bad_request(format!("status_text is too long (limit: {MAX_STATUS_TEXT_LENGTH} characters)")));
    }
    Ok(text.to_string())
}

/// The status of the organization's user `user_id` ("No such user" when it has none), the
/// user and the status read in one batch.
pub async fn status_of_user_in(db: &D1Database, realm_id: RealmId, user_id: UserId) -> ApiResult<Value> {
    let mut batch = Batch::new();
    let user = batch.add::<UserRow>(users::by_id_stmt(RealmId(realm_id.0), UserId(user_id.0))?);
    let status = batch.add::<UserStatusRow>(user_status::for_user_stmt(user_id.0)?);
    let results = batch.run(db).await?;
    if results.first(user)?.is_none() {
        return Err(ApiError::no_such_user());
    }
    Ok(results.first(status)?.as_ref().map(status_dict).unwrap_or_else(|| json!({})))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> UserStatusRow {
        UserStatusRow {
            user_id: 1,
            status_text: String::new(),
            emoji_name: String::new(),
            emoji_code: String::new(),
            reaction_type: "unicode_emoji".into(),
            away: 0,
        }
    }

    #[test]
    fn empty_status_is_an_empty_object() {
        assert_eq!(status_dict(&row()), json!({}));
    }

    #[test]
    fn set_parts_are_shown() {
        let mut r = row();
        r.status_text = "lunch".into();
        r.emoji_name = "car".into();
        r.emoji_code = "1f697".into();
        assert_eq!(
            status_dict(&r),
            json!({"status_text": "lunch", "emoji_name": "car", "emoji_code": "1f697", "reaction_type": "unicode_emoji"})
        );
    }

    #[test]
    fn text_is_trimmed_and_limited() {
        assert_eq!(clean_status_text("  hi ").unwrap(), "hi");
        assert_eq!(clean_status_text(&"x".repeat(61)).unwrap_err().msg, "status_text is too long (limit: 60 characters)");
    }
}
