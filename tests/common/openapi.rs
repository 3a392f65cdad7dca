//! Checks success bodies against Zulip's OpenAPI description
//! (`tests/fixtures/zulip-openapi.yaml`, a copy of `shared/reference/zulip-openapi.yaml`).
//!
//! Like Zulip's own test-suite validator, `allOf` branches are merged before checking, and
//! an object whose schema says `additionalProperties: false` may carry no undocumented key.
//! The spec (`team-chat-api.md`) wins over the OpenAPI file where they differ: the fields it
//! adds are listed in [`SPEC_EXTENSIONS`].

use std::sync::OnceLock;

use serde_json::{Map, Value};

/// Fields the spec documents that this OpenAPI snapshot does not.
const SPEC_EXTENSIONS: &[&str] = &["is_imported_stub", "is_deleted"];

fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/zulip-openapi.yaml");
        let text = std::fs::read_to_string(path).expect("tests/fixtures/zulip-openapi.yaml");
        serde_yaml::from_str(&text).expect("valid YAML")
    })
}

fn resolve(schema: &Value) -> &Value {
    let mut node = schema;
    while let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        let mut target = document();
        for part in reference.trim_start_matches("#/").split('/') {
            target = &target[part];
        }
        assert!(!target.is_null(), "dangling $ref {reference}");
        node = target;
    }
    node
}

/// The schema of an operation's 200 JSON response.
fn response_schema(method: &str, path: &str) -> &'static Value {
    let operation = &document()["paths"][path][method.to_ascii_lowercase()];
    assert!(!operation.is_null(), "no operation {method} {path} in the OpenAPI file");
    let response = resolve(&operation["responses"]["200"]);
    resolve(&response["content"]["application/json"]["schema"])
}

/// Merges `allOf` branches into one object schema.
fn flatten(schema: &Value) -> Map<String, Value> {
    let schema = resolve(schema);
    let mut merged = Map::new();
    if let Some(branches) = schema.get("allOf").and_then(Value::as_array) {
        for branch in branches {
            merge_into(&mut merged, flatten(branch));
        }
    }
    if let Value::Object(own) = schema {
        let mut own = own.clone();
        own.remove("allOf");
        merge_into(&mut merged, own);
    }
    merged
}

fn merge_into(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (key, value) in from {
        match (key.as_str(), into.get_mut(&key)) {
            ("properties", Some(Value::Object(existing))) => {
                if let Value::Object(more) = value {
                    for (k, v) in more {
                        // A later branch narrowing a property (e.g. `nullable: true`) refines it.
                        let merged = match existing.remove(&k) {
                            Some(Value::Object(mut prev)) => {
                                if let Value::Object(next) = v {
                                    prev.extend(next);
                                }
                                Value::Object(prev)
                            }
                            _ => v,
                        };
                        existing.insert(k, merged);
                    }
                }
            }
            ("required", Some(Value::Array(existing))) => {
                if let Value::Array(more) = value {
                    existing.extend(more);
                }
            }
            ("additionalProperties", Some(existing)) => {
                if value == Value::Bool(false) {
                    *existing = value;
                }
            }
            _ => {
                into.insert(key, value);
            }
        }
    }
}

fn validate(schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let schema = flatten(schema);
    if value.is_null() {
        let nullable = schema.get("nullable") == Some(&Value::Bool(true));
        let typed = schema.contains_key("type") || schema.contains_key("properties");
        if !nullable && typed {
            errors.push(format!("{at}: null where the schema does not allow it"));
        }
        return;
    }
    for combinator in ["oneOf", "anyOf"] {
        if let Some(variants) = schema.get(combinator).and_then(Value::as_array) {
            let ok = variants.iter().any(|variant| {
                let mut sub = Vec::new();
                validate(variant, value, at, &mut sub);
                sub.is_empty()
            });
            if !ok {
                errors.push(format!("{at}: matches no {combinator} variant: {value}"));
            }
            return;
        }
    }
    if let Some(Value::Array(choices)) = schema.get("enum") {
        if !choices.contains(value) && value.is_string() {
            errors.push(format!("{at}: {value} not among {choices:?}"));
        }
    }
    let ty = schema.get("type").and_then(Value::as_str).unwrap_or(if schema.contains_key("properties") { "object" } else { "" });
    match ty {
        "object" => {
            let Some(object) = value.as_object() else {
                errors.push(format!("{at}: expected an object, got {value}"));
                return;
            };
            let empty = Map::new();
            let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
            if let Some(Value::Array(required)) = schema.get("required") {
                for name in required.iter().filter_map(Value::as_str) {
                    if !object.contains_key(name) {
                        errors.push(format!("{at}: missing required field `{name}`"));
                    }
                }
            }
            for (key, item) in object {
                let here = format!("{at}.{key}");
                if let Some(property) = properties.get(key) {
                    validate(property, item, &here, errors);
                } else {
                    match schema.get("additionalProperties") {
                        Some(Value::Bool(false)) if !SPEC_EXTENSIONS.contains(&key.as_str()) => {
                            errors.push(format!("{here}: field not in the schema"))
                        }
                        Some(extra @ Value::Object(_)) => validate(extra, item, &here, errors),
                        _ => {}
                    }
                }
            }
        }
        "array" => match value.as_array() {
            None => errors.push(format!("{at}: expected an array, got {value}")),
            Some(items) => {
                if let Some(item_schema) = schema.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        validate(item_schema, item, &format!("{at}[{i}]"), errors);
                    }
                }
            }
        },
        "string" if !value.is_string() => errors.push(format!("{at}: expected a string, got {value}")),
        "integer" if !(value.is_i64() || value.is_u64()) => errors.push(format!("{at}: expected an integer, got {value}")),
        "number" if !value.is_number() => errors.push(format!("{at}: expected a number, got {value}")),
        "boolean" if !value.is_boolean() => errors.push(format!("{at}: expected a boolean, got {value}")),
        _ => {}
    }
}

/// Asserts that `body` is a valid 200 response of `method path` (the OpenAPI path
/// template, e.g. `/users/{user_id}`).
#[track_caller]
pub fn assert_matches_openapi(method: &str, path: &str, body: &Value) {
    let mut errors = Vec::new();
    validate(response_schema(method, path), body, "$", &mut errors);
    assert!(errors.is_empty(), "{method} {path} does not match Zulip's OpenAPI schema:\n  {}\nbody: {body}", errors.join("\n  "));
}
