//! `narrow` of `GET /messages` and the bulk flag endpoints: Zulip's two wire forms parsed
//! into terms, and the operators and `is:`/`has:` operands they name. `db::narrow` turns
//! terms into SQL.

use serde_json::Value;

use crate::error::{ApiError, ApiResult};

/// One narrow term.
#[derive(Debug, Clone)]
pub struct Term {
    pub operator: String,
    pub operand: Value,
    pub negated: bool,
}

/// A narrow operator, Zulip's legacy names (`stream`, `subject`, `pm-with`) folded into
/// the current ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    Channel,
    Topic,
    Sender,
    Dm,
    Is,
    Search,
    Id,
    Has,
    /// `near:` (a message id the client centres on): selects nothing by itself, as in Zulip,
    /// where the anchor does the centring.
    Near,
}

impl Operator {
    pub fn parse(name: &str) -> ApiResult<Operator> {
        Ok(match name {
            "channel" | "stream" => Operator::Channel,
            "topic" | "subject" => Operator::Topic,
            "sender" => Operator::Sender,
            "dm" | "pm-with" => Operator::Dm,
            "is" => Operator::Is,
            "search" => Operator::Search,
            "id" => Operator::Id,
            "has" => Operator::Has,
            "near" => Operator::Near,
            other => return Err(ApiError::bad_request(format!("Invalid narrow operator: unknown operator {other}"))),
        })
    }
}

/// The operands of `is:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsOperand {
    Starred,
    Mentioned,
    Unread,
    /// Direct messages (legacy `is:private`).
    Dm,
    Alerted,
    Resolved,
    Followed,
}

impl IsOperand {
    pub fn parse(name: &str) -> ApiResult<IsOperand> {
        Ok(match name {
            "starred" => IsOperand::Starred,
            "mentioned" => IsOperand::Mentioned,
            "unread" => IsOperand::Unread,
            "dm" | "private" => IsOperand::Dm,
            "alerted" => IsOperand::Alerted,
            "resolved" => IsOperand::Resolved,
            "followed" => IsOperand::Followed,
            other => return Err(ApiError::bad_request(format!("Invalid narrow operator: unknown 'is' operand {other}"))),
        })
    }
}

/// The operands of `has:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HasOperand {
    Link,
    Image,
    Attachment,
    Reaction,
}

impl HasOperand {
    pub fn parse(name: &str) -> ApiResult<HasOperand> {
        Ok(match name {
            "link" => HasOperand::Link,
            "image" => HasOperand::Image,
            "attachment" => HasOperand::Attachment,
            "reaction" => HasOperand::Reaction,
            other => return Err(ApiError::bad_request(format!("Invalid narrow operator: unknown 'has' operand {other}"))),
        })
    }
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
    fn legacy_operator_names_fold_into_the_current_ones() {
        assert_eq!(Operator::parse("stream").unwrap(), Operator::Channel);
        assert_eq!(Operator::parse("subject").unwrap(), Operator::Topic);
        assert_eq!(Operator::parse("pm-with").unwrap(), Operator::Dm);
        assert_eq!(IsOperand::parse("private").unwrap(), IsOperand::Dm);
        assert_eq!(Operator::parse("nearby").unwrap_err().msg, "Invalid narrow operator: unknown operator nearby");
        assert_eq!(IsOperand::parse("muted").unwrap_err().msg, "Invalid narrow operator: unknown 'is' operand muted");
        assert_eq!(HasOperand::parse("reaction").unwrap(), HasOperand::Reaction);
        assert_eq!(HasOperand::parse("video").unwrap_err().msg, "Invalid narrow operator: unknown 'has' operand video");
    }

    #[test]
    fn a_term_without_an_operand_is_invalid() {
        assert!(parse_narrow(&json!([{"operator": "stream"}])).is_err());
        assert!(parse_narrow(&json!({"operator": "stream"})).is_err());
    }
}
