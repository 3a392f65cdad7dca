//! A webhook's JSON payload, read field by field with Zulip's wording for what is missing
//! or of the wrong type (`payload['sender']['login'] is missing`), so that a bad payload
//! is a clear 400 and never a server error.

use serde_json::Value;

use crate::error::{ApiError, ApiResult};

/// A value at a path of the payload, or the place where one is missing.
#[derive(Clone)]
pub struct Field<'a> {
    value: Option<&'a Value>,
    path: String,
}

impl<'a> Field<'a> {
    /// The payload itself, named `payload` in errors.
    pub fn root(value: &'a Value) -> Self {
        Field { value: Some(value), path: "payload".into() }
    }

    /// The member `key` (missing when this is not an object or has no such member).
    pub fn get(&self, key: &str) -> Field<'a> {
        Field { value: self.value.and_then(|v| v.get(key)), path: format!("{}['{key}']", self.path) }
    }

    /// Whether the member `key` is present (even as null), Python's `key in payload`.
    pub fn has(&self, key: &str) -> bool {
        self.value.and_then(Value::as_object).is_some_and(|o| o.contains_key(key))
    }

    /// Python's truthiness: present and not null, false, 0, "", [] or {}.
    pub fn truthy(&self) -> bool {
        match self.value {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) => n.as_f64() != Some(0.0),
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::Object(o)) => !o.is_empty(),
        }
    }

    fn present(&self) -> ApiResult<&'a Value> {
        self.value.ok_or_else(|| ApiError::bad_request(format!("{} is missing", self.path)))
    }

    fn wrong(&self, kind: &str) -> ApiError {
        ApiError::bad_request(format!("{} is not {kind}", self.path))
    }

    pub fn str(&self) -> ApiResult<&'a str> {
        self.present()?.as_str().ok_or_else(|| self.wrong("a string"))
    }

    /// A string that may be null or missing.
    pub fn opt_str(&self) -> ApiResult<Option<&'a str>> {
        match self.value {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value.as_str().map(Some).ok_or_else(|| self.wrong("a string")),
        }
    }

    /// A number that may be null or missing.
    pub fn opt_number(&self) -> ApiResult<Option<&'a serde_json::Number>> {
        match self.value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(Some(n)),
            Some(_) => Err(self.wrong("a number")),
        }
    }

    pub fn int(&self) -> ApiResult<i64> {
        self.present()?.as_i64().ok_or_else(|| self.wrong("an integer"))
    }

    pub fn bool(&self) -> ApiResult<bool> {
        self.present()?.as_bool().ok_or_else(|| self.wrong("a boolean"))
    }

    /// The elements of a list (an absent or null one is empty where `optional`).
    pub fn items(&self) -> ApiResult<Vec<Field<'a>>> {
        let list = self.present()?.as_array().ok_or_else(|| self.wrong("a list"))?;
        Ok(list.iter().enumerate().map(|(i, value)| Field { value: Some(value), path: format!("{}[{i}]", self.path) }).collect())
    }

    /// Where this value is in the payload, as errors name it.
    pub fn path(&self) -> &str {
        &self.path
    }
}

/// Parses a webhook's body as JSON: anything else is Zulip's "Malformed JSON".
pub fn parse(body: &str) -> ApiResult<Value> {
    serde_json::from_str(body).map_err(|_| ApiError::bad_request("Malformed JSON"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn missing_members_name_their_path() {
        let payload = json!({"sender": {}});
        let err = Field::root(&payload).get("sender").get("login").str().unwrap_err();
        assert_eq!(err.msg, "payload['sender']['login'] is missing");
        let err = Field::root(&payload).get("sender").int().unwrap_err();
        assert_eq!(err.msg, "payload['sender'] is not an integer");
    }

    #[test]
    fn truthiness_is_pythons() {
        let payload = json!({"a": "", "b": [1], "c": null, "d": 0});
        let root = Field::root(&payload);
        assert_eq!(["a", "b", "c", "d", "e"].map(|k| root.get(k).truthy()), [false, true, false, false, false]);
    }
}
