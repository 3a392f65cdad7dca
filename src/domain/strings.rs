//! Length rules of free-text parameters, with Zulip's messages (its `StringConstraints`).

use crate::error::{ApiError, ApiResult};

/// A required text: surrounding whitespace stripped, then non-empty and at most `max`
/// characters.
pub fn required_text(name: &str, raw: &str, max: i64) -> ApiResult<String> {
    let text = raw.trim();
    if text.is_empty() {
        return Err(ApiError::bad_request(format!("{name} cannot be blank")));
    }
    bounded_text(name, text, max)
}

/// A text of at most `max` characters, kept as sent.
pub fn bounded_text(name: &str, text: &str, max: i64) -> ApiResult<String> {
    if text.chars().count() as i64 > max {
        return Err(ApiError::too_long(name, max));
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_text_is_refused_and_whitespace_stripped() {
        assert_eq!(required_text("title", "   ", 5).unwrap_err().msg, "title cannot be blank");
        assert_eq!(required_text("title", "  ab ", 5).unwrap(), "ab");
    }

    #[test]
    fn limit_counts_characters_not_bytes() {
        assert_eq!(bounded_text("name", "ééééé", 5).unwrap(), "ééééé");
        assert_eq!(bounded_text("name", "ééééé!", 5).unwrap_err().msg, "name is too long (limit: 5 characters)");
    }
}
