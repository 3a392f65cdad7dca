//! The one parameter layer of every endpoint.
//!
//! Like Zulip, a parameter may come from the query string or the body (form-encoded or
//! multipart) whatever the method; the body wins when both carry it. Lists and objects
//! arrive as one field holding JSON; booleans are `true`/`false`. Each getter records the
//! name it read, so that the names nobody read become `ignored_parameters_unsupported`.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{ApiError, ApiResult};

#[derive(Debug, Default)]
pub struct Params {
    values: HashMap<String, String>,
    /// Names in the order they first appeared, for a stable `ignored_parameters_unsupported`.
    order: Vec<String>,
    read: RefCell<BTreeSet<String>>,
}

impl Params {
    /// Builds the reader from the query-string pairs and the body pairs.
    pub fn new(query: Vec<(String, String)>, body: Vec<(String, String)>) -> Self {
        let mut params = Params::default();
        for (name, value) in query.into_iter().chain(body) {
            if !params.values.contains_key(&name) {
                params.order.push(name.clone());
            }
            // Later sources (the body) override earlier ones (the query string).
            params.values.insert(name, value);
        }
        params
    }

    /// Parses an `application/x-www-form-urlencoded` string (query string or body):
    /// invalid escapes are kept literally and invalid UTF-8 is replaced, so a hostile body
    /// cannot make parsing fail.
    pub fn parse_urlencoded(input: &str) -> Vec<(String, String)> {
        form_urlencoded::parse(input.as_bytes()).map(|(name, value)| (name.into_owned(), value.into_owned())).collect()
    }

    fn take(&self, name: &str) -> Option<&str> {
        self.read.borrow_mut().insert(name.to_string());
        self.values.get(name).map(String::as_str)
    }

    /// Marks a parameter as understood without reading it (e.g. a parameter every client
    /// sends that this endpoint deliberately ignores).
    pub fn accept(&self, name: &str) {
        self.read.borrow_mut().insert(name.to_string());
    }

    /// A parameter's value without reading it (the request's context looks at a webhook's
    /// `api_key` before any handler runs; the handler still reads it).
    pub fn peek(&self, name: &str) -> Option<String> {
        self.values.get(name).cloned()
    }

    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// Names sent by the client that no getter read.
    pub fn ignored(&self) -> Vec<String> {
        let read = self.read.borrow();
        self.order.iter().filter(|n| !read.contains(*n)).cloned().collect()
    }

    pub fn str(&self, name: &str) -> ApiResult<Option<String>> {
        Ok(self.take(name).map(str::to_string))
    }

    pub fn required_str(&self, name: &str) -> ApiResult<String> {
        self.str(name)?.ok_or_else(|| ApiError::missing_argument(name))
    }

    /// A parameter with a deprecated alias (`topic`/`subject`): either may be sent, not both
    /// with different values.
    pub fn str_with_alias(&self, name: &str, alias: &str) -> ApiResult<Option<String>> {
        match (self.str(name)?, self.str(alias)?) {
            (Some(a), Some(b)) if a != b => Err(ApiError::conflicting_aliases(name, alias)),
            (Some(a), _) => Ok(Some(a)),
            (None, b) => Ok(b),
        }
    }

    pub fn int(&self, name: &str) -> ApiResult<Option<i64>> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) => parse_int(raw).map(Some).ok_or_else(|| ApiError::invalid_argument(name, "an integer")),
        }
    }

    pub fn required_int(&self, name: &str) -> ApiResult<i64> {
        self.int(name)?.ok_or_else(|| ApiError::missing_argument(name))
    }

    pub fn bool(&self, name: &str) -> ApiResult<Option<bool>> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) => parse_bool(raw).map(Some).ok_or_else(|| ApiError::invalid_argument(name, "a boolean")),
        }
    }

    pub fn bool_or(&self, name: &str, default: bool) -> ApiResult<bool> {
        Ok(self.bool(name)?.unwrap_or(default))
    }

    pub fn required_bool(&self, name: &str) -> ApiResult<bool> {
        self.bool(name)?.ok_or_else(|| ApiError::missing_argument(name))
    }

    /// A JSON-encoded field, as raw JSON.
    pub fn json(&self, name: &str) -> ApiResult<Option<Value>> {
        match self.take(name) {
            None => Ok(None),
            Some(raw) => {
                let value: Value = serde_json::from_str(raw).map_err(|_| ApiError::invalid_json(name))?;
                check_json_bounds(name, &value)?;
                Ok(Some(value))
            }
        }
    }

    /// A JSON-encoded field decoded into `T`; a shape mismatch names the parameter.
    pub fn json_as<T: DeserializeOwned>(&self, name: &str, expected: &str) -> ApiResult<Option<T>> {
        match self.json(name)? {
            None => Ok(None),
            Some(value) => serde_json::from_value(value).map(Some).map_err(|_| ApiError::invalid_argument(name, expected)),
        }
    }

    pub fn required_json_as<T: DeserializeOwned>(&self, name: &str, expected: &str) -> ApiResult<T> {
        self.json_as(name, expected)?.ok_or_else(|| ApiError::missing_argument(name))
    }
}

/// The largest magnitude an integer parameter may have. D1 binds numbers as JavaScript
/// doubles, which are exact only up to 2^53 - 1; a larger id cannot name any row anyway.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Integers as Zulip accepts them: decimal, optionally signed, surrounding JSON quotes not
/// allowed, within [`MAX_SAFE_INTEGER`]. Every integer of a request (parameter, path
/// segment, narrow operand) is read through here.
pub fn parse_int(raw: &str) -> Option<i64> {
    raw.trim().parse::<i64>().ok().filter(|n| n.abs() <= MAX_SAFE_INTEGER)
}

/// A JSON value as a parameter may hold one, or `None` when `raw` is not JSON or is out of
/// [`check_json_bounds`] (for parameters that fall back to plain text).
pub fn json_value(raw: &str) -> Option<Value> {
    serde_json::from_str(raw).ok().filter(|v| check_json_bounds("", v).is_ok())
}

/// The most items a JSON list parameter may hold (recipients, message ids, keys, ...).
pub const MAX_JSON_LIST_LENGTH: usize = 10_000;
/// The deepest nesting a JSON parameter may have (a narrow, the deepest the API takes, is 3).
pub const MAX_JSON_DEPTH: usize = 16;

/// Every JSON parameter's bounds, checked before any work: lists of at most
/// [`MAX_JSON_LIST_LENGTH`] items, at most [`MAX_JSON_DEPTH`] levels, and integers within
/// [`MAX_SAFE_INTEGER`] (a float is fine: no id is a float, so it fails the caller's own
/// type check).
fn check_json_bounds(name: &str, value: &Value) -> ApiResult<()> {
    fn walk(name: &str, value: &Value, depth: usize) -> ApiResult<()> {
        if depth > MAX_JSON_DEPTH {
            return Err(ApiError::bad_request(format!("{name} is nested too deeply (limit: {MAX_JSON_DEPTH} levels)")));
        }
        match value {
            Value::Number(n) => {
                let unsafe_integer = n.as_u64().is_some_and(|v| v > MAX_SAFE_INTEGER as u64)
                    || n.as_i64().is_some_and(|v| v.abs() > MAX_SAFE_INTEGER)
                    || n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() > MAX_SAFE_INTEGER as f64);
                if unsafe_integer {
                    return Err(ApiError::bad_request(format!("Invalid {name}: integers must be within ±{MAX_SAFE_INTEGER}")));
                }
                Ok(())
            }
            Value::Array(items) => {
                if items.len() > MAX_JSON_LIST_LENGTH {
                    return Err(ApiError::bad_request(format!("{name} has too many items (limit: {MAX_JSON_LIST_LENGTH})")));
                }
                items.iter().try_for_each(|item| walk(name, item, depth + 1))
            }
            Value::Object(map) => {
                if map.len() > MAX_JSON_LIST_LENGTH {
                    return Err(ApiError::bad_request(format!("{name} has too many items (limit: {MAX_JSON_LIST_LENGTH})")));
                }
                map.values().try_for_each(|item| walk(name, item, depth + 1))
            }
            _ => Ok(()),
        }
    }
    walk(name, value, 1)
}

/// `true`/`false` as sent by every client (the Python client sends JSON, so also accept
/// the JSON spellings).
pub fn parse_bool(raw: &str) -> Option<bool> {
    match raw.trim() {
        "true" | "True" => Some(true),
        "false" | "False" => Some(false),
        _ => None,
    }
}

/// Decodes `%XX` escapes of a path segment (`+` stays a plus there); invalid escapes are
/// kept literally and invalid UTF-8 is replaced.
pub fn percent_decode_path(segment: &str) -> String {
    percent_encoding::percent_decode_str(segment).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(query: &str, body: &str) -> Params {
        Params::new(Params::parse_urlencoded(query), Params::parse_urlencoded(body))
    }

    #[test]
    fn json_parameters_are_bounded() {
        let list = format!("[{}]", vec!["1"; MAX_JSON_LIST_LENGTH + 1].join(","));
        let deep = format!("{}{}", "[".repeat(MAX_JSON_DEPTH + 1), "]".repeat(MAX_JSON_DEPTH + 1));
        let p = Params::new(vec![], vec![("to".into(), list), ("narrow".into(), deep), ("ids".into(), "[9007199254740992]".into())]);
        assert_eq!(p.json("to").unwrap_err().msg, "to has too many items (limit: 10000)");
        assert_eq!(p.json("narrow").unwrap_err().msg, "narrow is nested too deeply (limit: 16 levels)");
        assert_eq!(p.json("ids").unwrap_err().msg, "Invalid ids: integers must be within ±9007199254740991");
        assert!(json_value("[9007199254740991, -9007199254740991]").is_some());
    }

    #[test]
    fn integers_beyond_2_pow_53_are_not_integers() {
        assert_eq!(parse_int("9007199254740991"), Some(MAX_SAFE_INTEGER));
        assert_eq!(parse_int("9007199254740992"), None);
        assert_eq!(parse_int("-9007199254740992"), None);
    }

    #[test]
    fn body_overrides_query_string() {
        let p = params("a=1&b=2", "a=3");
        assert_eq!(p.required_int("a").unwrap(), 3);
        assert_eq!(p.required_int("b").unwrap(), 2);
    }

    #[test]
    fn form_decoding_handles_plus_utf8_and_bad_escapes() {
        let decoded = Params::parse_urlencoded("a=a+b%20c&b=%E2%9C%94&c=100%&d=%zz%4&e=%FF");
        let values: Vec<&str> = decoded.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(values, vec!["a b c", "✔", "100%", "%zz%4", "\u{FFFD}"]);
    }

    #[test]
    fn a_path_segment_keeps_its_plus() {
        assert_eq!(percent_decode_path("a+b%2Fc"), "a+b/c");
    }

    #[test]
    fn unread_parameters_are_ignored_in_order() {
        let p = params("z=1", "content=x&extra=2");
        p.required_str("content").unwrap();
        assert_eq!(p.ignored(), vec!["z".to_string(), "extra".to_string()]);
    }

    #[test]
    fn missing_required_names_the_parameter() {
        let err = params("", "").required_str("op").unwrap_err();
        assert_eq!(err.msg, "Missing 'op' argument");
    }

    #[test]
    fn wrong_types_are_bad_requests() {
        let p = params("n=abc&b=yes&j=[1,", "");
        assert_eq!(p.int("n").unwrap_err().msg, "n is not an integer");
        assert_eq!(p.bool("b").unwrap_err().msg, "b is not a boolean");
        assert_eq!(p.json("j").unwrap_err().msg, "Argument \"j\" is not valid JSON.");
    }

    #[test]
    fn alias_conflict_is_an_error() {
        let p = params("", "topic=a&subject=b");
        assert!(p.str_with_alias("topic", "subject").is_err());
        let p = params("", "subject=b");
        assert_eq!(p.str_with_alias("topic", "subject").unwrap().as_deref(), Some("b"));
    }

    #[test]
    fn json_shape_mismatch_names_the_parameter() {
        let p = params("", "to=%7B%7D");
        let err = p.json_as::<Vec<i64>>("to", "a list").unwrap_err();
        assert_eq!(err.msg, "to is not a list");
    }
}
