//! The rules of sending that need nothing read: the content's normalization and which
//! clients' messages start read for their sender. The rules over what sending reads are
//! `actions::message_send::plan`.

use crate::domain::topics::truncate;
use crate::error::{ApiError, ApiResult};

/// Zulip's `normalize_body`: trailing whitespace and leading blank lines go; empty and
/// NUL-containing content is refused; content over the limit is truncated.
pub fn normalize_content(content: &str, max_len: i64) -> ApiResult<String> {
    let body = content.trim_end().trim_start_matches('\n');
    if body.is_empty() {
        return Err(ApiError::bad_request("Message must not be empty"));
    }
    if body.contains('\0') {
        return Err(ApiError::bad_request("Message must not contain null bytes"));
    }
    Ok(truncate(body, max_len.max(30) as usize, "\n[message truncated]"))
}

/// Zulip's `Client.default_read_by_sender`: messages from interactive clients start read
/// for their sender; API clients (bots, integrations) do not.
pub fn default_read_by_sender(client: &str) -> bool {
    let name = client.to_lowercase();
    [
        "zulipandroid",
        "zulipios",
        "zulipdesktop",
        "zulipmobile",
        "zulipelectron",
        "zulipterminal",
        "snipe",
        "website",
        "ios",
        "android",
        "zulipflutter",
    ]
    .contains(&name.as_str())
        || name.contains("desktop app")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_by_sender_heuristic() {
        assert!(default_read_by_sender("website"));
        assert!(default_read_by_sender("ZulipTerminal"));
        assert!(!default_read_by_sender("ZulipPython"));
        assert!(!default_read_by_sender("API"));
    }

    #[test]
    fn content_is_normalized_and_truncated() {
        assert_eq!(normalize_content("\n\nhi  \n", 100).unwrap(), "hi");
        assert!(normalize_content("   ", 100).is_err());
        let long = "x".repeat(200);
        assert!(normalize_content(&long, 100).unwrap().ends_with("[message truncated]"));
        assert_eq!(normalize_content(&long, 100).unwrap().chars().count(), 100);
    }
}
