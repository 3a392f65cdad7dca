//! `narrow` of `GET /messages` and the bulk flag endpoints: Zulip's two wire forms parsed
//! into terms. `db::narrow` turns terms into SQL.

use serde_json::Value;

use crate::error::{ApiError, ApiResult};

/// One narrow term.
#[derive(Debug, Clone)]
pub struct Term {
    pub operator: String,
    pub operand: Value,
    pub negated: bool,
}

/// Parses Zulip's two narrow forms: `[{"operator", "operand", "negated"?}]` and the legacy
/// `[["operator", "operand"]]`.
pub fn parse_narrow(value: &Value) -> ApiResult<Vec<Term>> {
    let invalid = || ApiError::bad_request("Invalid narrow");
    let list = value.as_array().ok_or_else(invalid)?;
    let mut terms = Vec::new();
    for item in list {
        let term = match item {
            Value::Array(pair) if pair.len() == 2 => {
                Term { operator: pair[0].as_str().ok_or_else(invalid)?.to_string(), operand: pair[1].clone(), negated: false }
            }
            Value::Object(obj) => Term {
                operator: obj.get("operator").and_then(Value::as_str).ok_or_else(invalid)?.to_string(),
                operand: obj.get("operand").cloned().ok_or_else(invalid)?,
                negated: obj.get("negated").and_then(Value::as_bool).unwrap_or(false),
            },
            _ => return Err(invalid()),
        };
        terms.push(term);
    }
    Ok(terms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_narrow_forms_parse() {
        let terms = parse_narrow(&json!([["stream", "Verona"], {"operator": "topic", "operand": "x", "negated": true}])).unwrap();
        assert_eq!(terms.len(), 2);
        assert_eq!(terms[0].operator, "stream");
        assert!(terms[1].negated);
    }

    #[test]
    fn a_term_without_an_operand_is_invalid() {
        assert!(parse_narrow(&json!([{"operator": "stream"}])).is_err());
        assert!(parse_narrow(&json!({"operator": "stream"})).is_err());
    }
}
