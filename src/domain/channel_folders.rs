//! Channel folders: name and description rules, the API object.

use serde_json::{json, Value};

use worker::D1Database;

use crate::db::channel_folders::{self, ChannelFolderRow};
use crate::domain::register_state::{MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH, MAX_CHANNEL_FOLDER_NAME_LENGTH};
use crate::domain::strings::bounded_text;
use crate::error::{ApiError, ApiResult};

/// Zulip's order of checks: the length, then blank, then unprintable characters. (The
/// uniqueness is checked against the database.)
pub fn check_folder_name(name: &str) -> ApiResult<()> {
    bounded_text("name", name, MAX_CHANNEL_FOLDER_NAME_LENGTH)?;
    if name.trim().is_empty() {
        return Err(ApiError::bad_request("Channel folder name can't be empty."));
    }
    if let Some(pos) = name.chars().position(|c| c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}') {
        return Err(ApiError::bad_request(format!("Invalid character in channel folder name, at position {}.", pos + 1)));
    }
    Ok(())
}

pub fn check_folder_description(description: &str) -> ApiResult<()> {
    bounded_text("description", description, MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH).map(|_| ())
}

pub fn folder_name_taken(name: &str) -> ApiError {
    ApiError::bad_request(format!("Channel folder '{name}' already exists"))
}

pub fn invalid_folder_id() -> ApiError {
    ApiError::bad_request("Invalid channel folder ID")
}

pub fn folder_in_use() -> ApiError {
    ApiError::bad_request("You need to remove all the channels from this folder to archive it.")
}

pub fn invalid_order() -> ApiError {
    ApiError::bad_request("Invalid order mapping.")
}

/// A reordering must list every folder of the organization exactly once.
pub fn check_order(order: &[i64], folder_ids: &[i64]) -> ApiResult<()> {
    let mut sorted_order = order.to_vec();
    sorted_order.sort_unstable();
    let mut sorted_ids = folder_ids.to_vec();
    sorted_ids.sort_unstable();
    if sorted_order != sorted_ids {
        return Err(invalid_order());
    }
    Ok(())
}

pub fn folder_dict(row: &ChannelFolderRow) -> Value {
    json!({
        "id": row.id,
        "name": row.name,
        "description": row.description,
        "rendered_description": row.rendered_description,
        "creator_id": row.creator_id,
        "date_created": row.date_created,
        "is_archived": row.is_archived != 0,
        "order": row.sort_order,
    })
}

/// The organization's folders in display order as the API shows them; archived ones only
/// when asked for. One round trip.
pub async fn folders_of(db: &D1Database, realm_id: i64, include_archived: bool) -> ApiResult<Vec<Value>> {
    let rows = channel_folders::in_realm(db, realm_id).await?;
    Ok(rows.iter().filter(|f| include_archived || f.is_archived == 0).map(folder_dict).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_follow_zulips_rules() {
        assert_eq!(check_folder_name("  ").unwrap_err().msg, "Channel folder name can't be empty.");
        assert_eq!(check_folder_name("a\u{7}b").unwrap_err().msg, "Invalid character in channel folder name, at position 2.");
        assert_eq!(check_folder_name(&"x".repeat(61)).unwrap_err().msg, "name is too long (limit: 60 characters)");
        assert!(check_folder_name("Frontend").is_ok());
    }

    #[test]
    fn an_order_must_list_every_folder_once() {
        assert!(check_order(&[3, 1, 2], &[1, 2, 3]).is_ok());
        assert!(check_order(&[1, 2], &[1, 2, 3]).is_err());
        assert!(check_order(&[1, 2, 2], &[1, 2, 3]).is_err());
        assert!(check_order(&[1, 2, 4], &[1, 2, 3]).is_err());
    }
}
