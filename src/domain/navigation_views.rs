//! Navigation views: the built-in views' settings and custom views (any other fragment,
//! with a name).

use serde_json::{json, Value};

use worker::D1Database;

use crate::db::navigation_views::{self, NavigationViewRow};
use crate::error::{ApiError, ApiResult};

/// Fragments of Zulip's built-in views, which take no name.
pub const BUILT_IN_FRAGMENTS: &[&str] =
    &["inbox", "recent", "feed", "drafts", "narrow/has/reaction/sender/me", "narrow/is/mentioned", "narrow/is/starred"];

pub fn is_built_in(fragment: &str) -> bool {
    BUILT_IN_FRAGMENTS.contains(&fragment)
}

/// A stripped, non-blank text parameter (`fragment`, `name`).
pub fn non_blank(name: &str, raw: &str) -> ApiResult<String> {
    let text = raw.trim();
    if text.is_empty() {
        return Err(ApiError::bad_request(format!("{name} cannot be blank")));
    }
    Ok(text.to_string())
}

/// Built-in views take no name; custom ones need one.
pub fn check_name_for_new_view(fragment: &str, name: Option<&str>) -> ApiResult<()> {
    match (is_built_in(fragment), name) {
        (true, Some(_)) => Err(built_in_has_no_name()),
        (false, None) => Err(ApiError::bad_request("Custom views must have a valid name.")),
        _ => Ok(()),
    }
}

pub fn built_in_has_no_name() -> ApiError {
    ApiError::bad_request("Built-in views cannot have a custom name.")
}

pub fn view_exists() -> ApiError {
    ApiError::bad_request("Navigation view already exists.")
}

pub fn view_not_found() -> ApiError {
    ApiError::resource_not_found("Navigation view does not exist.")
}

pub fn view_dict(row: &NavigationViewRow) -> Value {
    json!({ "fragment": row.fragment, "is_pinned": row.is_pinned != 0, "name": row.name })
}

/// The user's navigation views as the API shows them. One round trip.
pub async fn views_of(db: &D1Database, user_id: i64) -> ApiResult<Vec<Value>> {
    Ok(navigation_views::for_user(db, user_id).await?.iter().map(view_dict).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_views_take_no_name_and_custom_ones_need_one() {
        assert!(check_name_for_new_view("inbox", None).is_ok());
        assert_eq!(check_name_for_new_view("inbox", Some("x")).unwrap_err().msg, "Built-in views cannot have a custom name.");
        assert_eq!(check_name_for_new_view("narrow/channel/1", None).unwrap_err().msg, "Custom views must have a valid name.");
        assert!(check_name_for_new_view("narrow/channel/1", Some("Mine")).is_ok());
    }

    #[test]
    fn blank_fragment_is_refused() {
        assert_eq!(non_blank("fragment", "  ").unwrap_err().msg, "fragment cannot be blank");
    }
}
