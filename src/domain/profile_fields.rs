//! Custom profile fields: their API shape and the rules a value must follow for each
//! field type (Zulip's CustomProfileField types).

use serde_json::{json, Map, Value};

use worker::D1Database;

use crate::db::profile_fields::{self, ProfileFieldRow, ProfileValueRow};
use crate::error::{ApiError, ApiResult};

pub const SHORT_TEXT: i64 = 1;
pub const LONG_TEXT: i64 = 2;
pub const LIST_OF_OPTIONS: i64 = 3;
pub const DATE: i64 = 4;
pub const URL: i64 = 5;
pub const USER: i64 = 6;
pub const EXTERNAL_ACCOUNT: i64 = 7;
pub const PRONOUNS: i64 = 8;

pub const FIELD_TYPES: &[i64] = &[SHORT_TEXT, LONG_TEXT, LIST_OF_OPTIONS, DATE, URL, USER, EXTERNAL_ACCOUNT, PRONOUNS];
pub const NAME_MAX_LENGTH: usize = 40;
pub const HINT_MAX_LENGTH: usize = 80;
const SHORT_VALUE_MAX: usize = 50;
const LONG_VALUE_MAX: usize = 500;
/// Zulip's built-in external account types.
const EXTERNAL_ACCOUNT_SUBTYPES: &[&str] = &["github", "twitter", "custom"];

/// The field as `GET /realm/profile_fields` and the `custom_profile_fields` event show it
/// (`field_data` is a JSON-encoded string, as in Zulip).
pub fn field_dict(field: &ProfileFieldRow) -> Value {
    json!({
        "id": field.id,
        "name": field.name,
        "type": field.field_type,
        "hint": field.hint,
        "field_data": field.field_data,
        "order": field.sort_order,
        "display_in_profile_summary": field.display_in_profile_summary != 0,
        "required": field.required != 0,
        "editable_by_user": field.editable_by_user != 0,
    })
}

/// Text fields get a rendered HTML value beside the raw one.
pub fn is_renderable(field_type: i64) -> bool {
    field_type == SHORT_TEXT || field_type == LONG_TEXT
}

/// A user's `profile_data`: `{"<field_id>": {"value": .., "rendered_value": ..}}`.
pub fn profile_data<'a>(values: impl Iterator<Item = &'a ProfileValueRow>) -> Value {
    let mut data = Map::new();
    for v in values {
        let mut entry = Map::new();
        entry.insert("value".into(), json!(v.value));
        if let Some(rendered) = &v.rendered_value {
            entry.insert("rendered_value".into(), json!(rendered));
        }
        data.insert(v.field_id.to_string(), Value::Object(entry));
    }
    Value::Object(data)
}

/// Checks `field_data` for a new field of `field_type`; answers what is stored.
pub fn check_field_data(field_type: i64, field_data: &Value) -> ApiResult<String> {
    let obj = match field_data {
        Value::Object(obj) => obj,
        _ => return Err(ApiError::invalid_argument("field_data", "a dict")),
    };
    match field_type {
        LIST_OF_OPTIONS => {
            if obj.is_empty() {
                return Err(ApiError::bad_request("Field must have at least one choice."));
            }
            for (key, choice) in obj {
                let text = choice.get("text").and_then(Value::as_str);
                let order = choice.get("order").and_then(Value::as_str);
                match (text, order) {
                    (Some(text), Some(_)) if !text.trim().is_empty() => {}
                    (Some(_), Some(_)) => return Err(ApiError::bad_request("Choice text cannot be empty.")),
                    _ => {
                        return Err(ApiError::invalid_argument(&format!("field_data[\"{key}\"]"), "a dict with string 'text' and 'order'"))
                    }
                }
            }
            Ok(Value::Object(obj.clone()).to_string())
        }
        EXTERNAL_ACCOUNT => {
            let subtype = obj.get("subtype").and_then(Value::as_str).unwrap_or("");
            if !EXTERNAL_ACCOUNT_SUBTYPES.contains(&subtype) {
                return Err(ApiError::bad_request("Invalid external account type"));
            }
            if subtype == "custom" {
                let pattern = obj.get("url_pattern").and_then(Value::as_str).unwrap_or("");
                if pattern.is_empty() {
                    return Err(ApiError::bad_request("Custom external account must define URL pattern"));
                }
                if pattern.matches("%(username)s").count() != 1 || !is_url(&pattern.replace("%(username)s", "username")) {
                    return Err(ApiError::bad_request("Malformed URL pattern."));
                }
            }
            Ok(Value::Object(obj.clone()).to_string())
        }
        _ => Ok(String::new()),
    }
}

/// A value accepted for a field: what is stored, its rendering, and for users fields the
/// user ids the caller must check exist.
#[derive(Debug, PartialEq)]
pub struct CheckedValue {
    pub value: String,
    pub rendered_value: Option<String>,
    pub user_ids: Vec<i64>,
}

/// Checks a value against its field's type (Zulip names the field in the message).
pub fn check_value(field: &ProfileFieldRow, value: &Value) -> ApiResult<CheckedValue> {
    let name = field.name.as_str();
    let text = |value: &Value| -> ApiResult<String> {
        value.as_str().map(str::to_string).ok_or_else(|| ApiError::invalid_argument(name, "a string"))
    };
    let plain = |value: String| CheckedValue { value, rendered_value: None, user_ids: vec![] };
    match field.field_type {
        SHORT_TEXT | LONG_TEXT | EXTERNAL_ACCOUNT | PRONOUNS => {
            let s = text(value)?;
            let limit = if field.field_type == LONG_TEXT { LONG_VALUE_MAX } else { SHORT_VALUE_MAX };
            if s.chars().count() > limit {
                return Err(ApiError::too_long(name, limit as i64));
            }
            let rendered_value = is_renderable(field.field_type).then(|| render_markdown(&s));
            Ok(CheckedValue { value: s, rendered_value, user_ids: vec![] })
        }
        LIST_OF_OPTIONS => {
            let s = text(value)?;
            let choices: Value = serde_json::from_str(&field.field_data).unwrap_or(Value::Null);
            if choices.get(&s).is_none() {
                return Err(ApiError::bad_request(format!("'{s}' is not a valid choice for '{name}'.")));
            }
            Ok(plain(s))
        }
        DATE => {
            let s = text(value)?;
            if !is_date(&s) {
                return Err(ApiError::invalid_argument(name, "a date"));
            }
            Ok(plain(s))
        }
        URL => {
            let s = text(value)?;
            if !is_url(&s) {
                return Err(ApiError::invalid_argument(name, "a URL"));
            }
            Ok(plain(s))
        }
        USER => {
            let ids: Vec<i64> =
                serde_json::from_value(value.clone()).map_err(|_| ApiError::invalid_argument(name, "a list of user IDs"))?;
            let mut unique = Vec::new();
            for id in ids {
                if !unique.contains(&id) {
                    unique.push(id);
                }
            }
            // Stored as Zulip stores it (Python's rendering of the list).
            let stored = format!("[{}]", unique.iter().map(i64::to_string).collect::<Vec<_>>().join(", "));
            Ok(CheckedValue { value: stored, rendered_value: None, user_ids: unique })
        }
        _ => Err(ApiError::bad_request("Invalid field type.")),
    }
}

/// `YYYY-MM-DD` naming a real calendar day.
/// A new display order must name every field of the organization (Zulip ignores ids it
/// does not know).
pub fn check_order(fields: &[ProfileFieldRow], order: &[i64]) -> ApiResult<()> {
    if fields.iter().all(|f| order.contains(&f.id)) {
        Ok(())
    } else {
        Err(ApiError::bad_request("Invalid order mapping."))
    }
}

pub fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    if parts.len() != 3 || parts[0].len() != 4 || parts[1].len() != 2 || parts[2].len() != 2 {
        return false;
    }
    let nums: Option<Vec<u32>> = parts.iter().map(|p| p.chars().all(|c| c.is_ascii_digit()).then(|| p.parse().ok()).flatten()).collect();
    let Some(nums) = nums else { return false };
    let (y, m, d) = (nums[0], nums[1], nums[2]);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    y >= 1 && d >= 1 && d <= days
}

/// An absolute http(s)/ftp(s) URL with a host, as Django's URLValidator accepts.
pub fn is_url(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else { return false };
    if !["http", "https", "ftp", "ftps"].contains(&scheme.to_ascii_lowercase().as_str()) {
        return false;
    }
    let host_port = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host_port.rsplit_once('@').map(|(_, h)| h).unwrap_or(host_port);
    let host = host.split(':').next().unwrap_or("");
    !host.is_empty()
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
        && (host == "localhost" || host.contains('.'))
        && host.split('.').all(|label| !label.is_empty())
}

/// Text field values rendered with the message renderer (Zulip renders them with its
/// Markdown processor); mentions are not resolved there.
pub fn render_markdown(s: &str) -> String {
    crate::markdown::render(s, &crate::markdown::Resolved::default()).html
}

/// The organization's custom profile fields in display order, as the API shows them. One
/// round trip.
pub async fn fields_of(db: &D1Database, realm_id: i64) -> ApiResult<Vec<Value>> {
    Ok(profile_fields::in_realm(db, realm_id).await?.iter().map(field_dict).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(field_type: i64, field_data: &str) -> ProfileFieldRow {
        ProfileFieldRow {
            id: 1,
            realm_id: 1,
            name: "Field".into(),
            hint: String::new(),
            field_type,
            field_data: field_data.into(),
            sort_order: 1,
            display_in_profile_summary: 0,
            required: 0,
            editable_by_user: 1,
        }
    }

    #[test]
    fn dates_must_be_real_days() {
        assert!(is_date("2000-02-29"));
        assert!(!is_date("1900-02-29"));
        assert!(!is_date("2024-13-01"));
        assert!(!is_date("yesterday"));
    }

    #[test]
    fn urls_need_a_scheme_and_a_host() {
        assert!(is_url("https://zulip.com/help"));
        assert!(!is_url("zulip.com"));
        assert!(!is_url("https://"));
        assert!(!is_url("javascript://x.y"));
    }

    #[test]
    fn choice_values_must_be_keys() {
        let f = field(LIST_OF_OPTIONS, r#"{"0":{"text":"Vim","order":"1"}}"#);
        assert!(check_value(&f, &json!("0")).is_ok());
        assert_eq!(check_value(&f, &json!("9")).unwrap_err().msg, "'9' is not a valid choice for 'Field'.");
    }

    #[test]
    fn users_values_are_deduplicated_lists() {
        let f = field(USER, "");
        let checked = check_value(&f, &json!([3, 4, 3])).unwrap();
        assert_eq!((checked.value.as_str(), checked.user_ids), ("[3, 4]", vec![3, 4]));
        assert!(check_value(&f, &json!("3")).is_err());
    }

    #[test]
    fn short_text_is_capped_and_rendered() {
        let f = field(SHORT_TEXT, "");
        assert_eq!(check_value(&f, &json!("**hi**")).unwrap().rendered_value.unwrap(), "<p><strong>hi</strong></p>");
        assert!(check_value(&f, &json!("x".repeat(51))).is_err());
    }
}
