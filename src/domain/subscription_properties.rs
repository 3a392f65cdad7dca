//! The per-user channel settings of a subscription (spec "Channel subscription
//! properties"): their names, value types and storage columns.

use serde_json::Value;

use crate::db::subscription_settings::PropertyValue;
use crate::error::{ApiError, ApiResult};

/// A validated property change of one subscription.
#[derive(Debug, Clone, PartialEq)]
pub struct PropertyChange {
    pub channel_id: i64,
    /// The property as the client named it.
    pub property: &'static str,
    /// The column written, and the value written there.
    pub column: &'static str,
    pub value: PropertyValue,
}

const BOOLEAN_PROPERTIES: &[&str] = &[
    "is_muted",
    "in_home_view",
    "pin_to_top",
    "desktop_notifications",
    "audible_notifications",
    "push_notifications",
    "email_notifications",
    "wildcard_mentions_notify",
];

/// Zulip's colour check: `#` and 3 or 6 hex digits.
pub fn is_hex_color(value: &str) -> bool {
    let digits = value.strip_prefix('#').unwrap_or("");
    (digits.len() == 3 || digits.len() == 6) && digits.chars().all(|c| c.is_ascii_hexdigit())
}

/// Validates one `{stream_id, property, value}`; `in_home_view` becomes the inverse
/// `is_muted`.
pub fn parse_change(channel_id: i64, property: &str, value: &Value) -> ApiResult<PropertyChange> {
    if property == "color" {
        let color =
            value.as_str().filter(|c| is_hex_color(c)).ok_or_else(|| ApiError::bad_request("color is not a valid hex color code"))?;
        return Ok(PropertyChange { channel_id, property: "color", column: "color", value: PropertyValue::Color(color.to_string()) });
    }
    let Some(name) = BOOLEAN_PROPERTIES.iter().find(|p| **p == property) else {
        return Err(ApiError::bad_request(format!("Unknown subscription property: {property}")));
    };
    let flag = value.as_bool().ok_or_else(|| ApiError::invalid_argument(name, "a boolean"))?;
    Ok(match *name {
        "in_home_view" => PropertyChange { channel_id, property: "in_home_view", column: "is_muted", value: PropertyValue::Flag(!flag) },
        other => PropertyChange { channel_id, property: other, column: other, value: PropertyValue::Flag(flag) },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn colors_are_hex() {
        assert!(is_hex_color("#abcdef") && is_hex_color("#ABC"));
        assert!(!is_hex_color("abcdef") && !is_hex_color("#abcd") && !is_hex_color("#ggg"));
    }

    #[test]
    fn in_home_view_is_inverse_of_is_muted() {
        let change = parse_change(3, "in_home_view", &json!(false)).unwrap();
        assert_eq!(change.column, "is_muted");
        assert_eq!(change.value, PropertyValue::Flag(true));
    }

    #[test]
    fn wrong_types_and_unknown_properties_fail() {
        assert!(parse_change(1, "pin_to_top", &json!("yes")).is_err());
        assert!(parse_change(1, "color", &json!(true)).is_err());
        assert_eq!(parse_change(1, "nope", &json!(true)).unwrap_err().msg, "Unknown subscription property: nope");
    }
}
