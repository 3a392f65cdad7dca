//! Linkifier rules (Zulip's validation) and API objects.

use std::collections::BTreeSet;

use iri_string::template::UriTemplateStr;
use serde_json::{json, Value};

use worker::D1Database;

use crate::db::linkifiers::{self, LinkifierRow};
use crate::error::{ApiError, ApiResult};
use crate::markdown::{compile_linkifier_pattern, Linkifier};

/// `{pattern, url_template, id}` as `GET /realm/linkifiers`, register and events show it.
pub fn linkifier_dict(row: &LinkifierRow) -> Value {
    json!({ "pattern": row.pattern, "url_template": row.url_template, "id": row.id })
}

/// The legacy `GET /realm/filters` tuple: `[pattern, url_template, id]`.
pub fn legacy_tuple(row: &LinkifierRow) -> Value {
    json!([row.pattern, row.url_template, row.id])
}

/// What the renderer takes.
pub fn for_rendering(rows: &[LinkifierRow]) -> Vec<Linkifier> {
    rows.iter().map(|r| Linkifier { pattern: r.pattern.clone(), url_template: r.url_template.clone() }).collect()
}

/// Checks a pattern and URL template as Zulip does: the pattern must compile, the template
/// must be a valid RFC 6570 template, and the template's variables must be exactly the
/// pattern's named groups. Answers both trimmed.
pub fn check_linkifier(pattern: &str, url_template: &str) -> ApiResult<(String, String)> {
    let (pattern, url_template) = (pattern.trim(), url_template.trim());
    if pattern.is_empty() {
        return Err(ApiError::bad_request("This field cannot be blank."));
    }
    let regex =
        compile_linkifier_pattern(pattern).map_err(|e| ApiError::bad_request(format!("Bad regular expression: {}", regex_message(&e))))?;
    if url_template.is_empty() {
        return Err(ApiError::bad_request("This field cannot be blank."));
    }
    let template = UriTemplateStr::new(url_template).map_err(|_| ApiError::bad_request("Invalid URL template."))?;
    let groups: BTreeSet<&str> = regex.capture_names().flatten().collect();
    let variables: BTreeSet<String> = template.variables().map(|v| v.as_str().to_string()).collect();
    if let Some(name) = variables.iter().find(|v| !groups.contains(v.as_str())) {
        return Err(ApiError::bad_request(format!("Group '{name}' in URL template is not present in linkifier pattern.")));
    }
    if let Some(name) = groups.iter().find(|g| !variables.contains(**g)) {
        return Err(ApiError::bad_request(format!("Group '{name}' in linkifier pattern is not present in URL template.")));
    }
    Ok((pattern.to_string(), url_template.to_string()))
}

/// The regex error's own explanation, on one line.
fn regex_message(err: &regex::Error) -> String {
    match err {
        regex::Error::Syntax(text) => text.lines().last().unwrap_or(text).trim_start_matches("error: ").to_string(),
        regex::Error::CompiledTooBig(_) => "pattern too large - compiled regex too big".to_string(),
        _ => err.to_string(),
    }
}

/// Checks a new order: no duplicates, and exactly the existing linkifiers.
pub fn check_order(ordered: &[i64], existing: &[LinkifierRow]) -> ApiResult<()> {
    let wanted: BTreeSet<i64> = ordered.iter().copied().collect();
    if wanted.len() < ordered.len() {
        return Err(ApiError::bad_request("The ordered list must not contain duplicated linkifiers"));
    }
    if wanted != existing.iter().map(|r| r.id).collect() {
        return Err(ApiError::bad_request("The ordered list must enumerate all existing linkifiers exactly once"));
    }
    Ok(())
}

/// The organization's linkifiers in the order they apply, as the API shows them (`legacy`:
/// `[pattern, url_template, id]` tuples). One round trip.
pub async fn linkifiers_of(db: &D1Database, realm_id: i64, legacy: bool) -> ApiResult<Vec<Value>> {
    let rows = linkifiers::in_realm(db, realm_id).await?;
    Ok(rows.iter().map(if legacy { legacy_tuple } else { linkifier_dict }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(result: ApiResult<(String, String)>) -> String {
        result.unwrap_err().msg
    }

    #[test]
    fn groups_and_template_variables_must_agree() {
        assert!(check_linkifier(" #(?P<id>[0-9]+) ", "https://x.test/{id}").is_ok());
        assert!(message(check_linkifier("#(?P<id>[0-9]+)", "https://x.test/{id}/{other}")).contains("Group 'other' in URL template"));
        assert!(message(check_linkifier("#(?P<id>[0-9]+)(?P<b>x)", "https://x.test/{id}")).contains("Group 'b' in linkifier pattern"));
    }

    #[test]
    fn bad_patterns_and_templates_are_refused() {
        assert!(message(check_linkifier("#(?P<id>[0-9]+", "https://x.test/{id}")).contains("Bad regular expression"));
        assert!(message(check_linkifier("#(?P<id>[0-9]+)", "https://x.test/{id")).contains("Invalid URL template."));
    }

    #[test]
    fn an_order_lists_every_linkifier_once() {
        let rows: Vec<LinkifierRow> =
            [1, 2].iter().map(|id| LinkifierRow { id: *id, pattern: String::new(), url_template: String::new() }).collect();
        assert!(check_order(&[2, 1], &rows).is_ok());
        assert!(check_order(&[1, 1, 2], &rows).is_err());
        assert!(check_order(&[1], &rows).is_err());
    }
}
