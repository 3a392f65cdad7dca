//! Code playgrounds: the URL template rule (RFC 6570, exactly one variable, `code`) and the
//! API object.

use iri_string::template::UriTemplateStr;
use serde_json::{json, Value};

use crate::db::realm_playgrounds::PlaygroundRow;
use crate::error::{ApiError, ApiResult};

pub fn check_url_template(template: &str) -> ApiResult<()> {
    let parsed = UriTemplateStr::new(template).map_err(|_| ApiError::bad_request("Invalid URL template."))?;
    let vars: Vec<&str> = parsed.variables().map(|v| v.as_str()).collect();
    if !vars.contains(&"code") {
        return Err(ApiError::bad_request("Missing the required variable \"code\" in the URL template"));
    }
    if vars.iter().any(|v| *v != "code") {
        return Err(ApiError::bad_request("\"code\" should be the only variable present in the URL template"));
    }
    Ok(())
}

/// Zulip's check of a Pygments lexer name: letters, digits, space and `_+-./#`.
pub fn check_pygments_language(language: &str) -> ApiResult<()> {
    if language.trim().is_empty() || !language.chars().all(|c| c.is_ascii_alphanumeric() || " _+-./#".contains(c)) {
        return Err(ApiError::bad_request("Invalid characters in pygments language"));
    }
    Ok(())
}

pub fn playground_dict(row: &PlaygroundRow) -> Value {
    json!({ "id": row.id, "name": row.name, "pygments_language": row.pygments_language, "url_template": row.url_template })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_template_needs_exactly_the_code_variable() {
        assert!(check_url_template("https://play.example.com/?code={code}").is_ok());
        assert_eq!(check_url_template("https://x/{").unwrap_err().msg, "Invalid URL template.");
        assert!(check_url_template("https://x/").unwrap_err().msg.starts_with("Missing the required variable"));
        assert!(check_url_template("https://x/{code}{&lang}").unwrap_err().msg.contains("only variable"));
    }
}
