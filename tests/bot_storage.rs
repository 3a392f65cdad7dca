//! Bot storage: `PUT`, `GET` and `DELETE /bot_storage`, for bots only.

mod accounts;
mod common;

use accounts::{new_bot, new_user};
use common::*;
use serde_json::json;

fn bot() -> Client {
    new_bot(&new_user("storer"), "1", &[])
}

fn put(bot: &Client, storage: serde_json::Value) -> Resp {
    request("PUT", "/bot_storage", &[], Some(Body::Form(&[("storage", &storage.to_string())])), Some((&bot.email, &bot.api_key)), None)
}

fn stored(bot: &Client) -> serde_json::Value {
    bot.get("/bot_storage", &[]).success()["storage"].clone()
}

#[test]
fn stored_entries_are_read_back() {
    let bot = bot();
    put(&bot, json!({ "color": "blue", "size": "large" })).success();
    put(&bot, json!({ "size": "small" })).success();
    assert_eq!(stored(&bot), json!({ "color": "blue", "size": "small" }));
    let some = bot.get("/bot_storage", &[("keys", "[\"color\"]")]).success();
    assert_eq!(some["storage"], json!({ "color": "blue" }));
}

#[test]
fn each_bot_has_its_own_storage() {
    let (first, second) = (bot(), bot());
    put(&first, json!({ "mine": "1" })).success();
    assert_eq!(stored(&second), json!({}));
}

#[test]
fn reading_an_unknown_key_is_an_error() {
    let bot = bot();
    put(&bot, json!({ "known": "yes" })).success();
    bot.get("/bot_storage", &[("keys", "[\"known\", \"unknown\"]")]).bad_request("BAD_REQUEST", "Key does not exist.");
}

#[test]
fn deleting_listed_keys_removes_only_them() {
    let bot = bot();
    put(&bot, json!({ "a": "1", "b": "2", "c": "3" })).success();
    bot.delete("/bot_storage", &[("keys", "[\"a\", \"b\"]")]).success();
    assert_eq!(stored(&bot), json!({ "c": "3" }));
}

#[test]
fn deleting_a_missing_key_removes_nothing() {
    let bot = bot();
    put(&bot, json!({ "a": "1", "b": "2" })).success();
    bot.delete("/bot_storage", &[("keys", "[\"a\", \"missing\"]")]).bad_request("BAD_REQUEST", "Key does not exist.");
    assert_eq!(stored(&bot), json!({ "a": "1", "b": "2" }));
}

#[test]
fn deleting_without_keys_removes_everything() {
    let bot = bot();
    put(&bot, json!({ "a": "1", "b": "2" })).success();
    bot.delete("/bot_storage", &[]).success();
    assert_eq!(stored(&bot), json!({}));
}

#[test]
fn humans_are_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    for resp in [
        hamlet.delete("/bot_storage", &[]),
        hamlet.delete("/bot_storage", &[("keys", "[\"a\"]")]),
        hamlet.get("/bot_storage", &[]),
        request(
            "PUT",
            "/bot_storage",
            &[],
            Some(Body::Form(&[("storage", "{\"a\":\"1\"}")])),
            Some((&hamlet.email, &hamlet.api_key)),
            None,
        ),
    ] {
        resp.bad_request("PERMISSION_DENIED", "Must be a bot user");
    }
}

#[test]
fn storage_must_map_strings_to_strings() {
    let bot = bot();
    put(&bot, json!({ "n": 1 })).bad_request("BAD_REQUEST", "storage is not a dict");
    put(&bot, json!(["a"])).bad_request("BAD_REQUEST", "storage is not a dict");
    bot.get("/bot_storage", &[("keys", "\"a\"")]).bad_request("BAD_REQUEST", "keys is not a list");
    assert_eq!(stored(&bot), json!({}));
}

#[test]
fn storage_size_limit_is_enforced() {
    let bot = bot();
    // Zulip's limit: 10,000,000 characters of keys and values per bot.
    let chunk = "x".repeat(999_990);
    let mut storage = serde_json::Map::new();
    for i in 0..11 {
        storage.insert(format!("k{i:02}"), json!(chunk));
    }
    let over = 11 * (999_990 + 3) - 10_000_000;
    put(&bot, serde_json::Value::Object(storage))
        .bad_request("BAD_REQUEST", &format!("Request exceeds storage limit by {over} characters. The limit is 10000000 characters."));
    assert_eq!(stored(&bot), json!({}));
}

#[test]
fn one_entry_cannot_exceed_what_the_database_stores() {
    let bot = bot();
    put(&bot, json!({ "big": "x".repeat(1_000_001) }))
        .bad_request("BAD_REQUEST", "Storage entry 'big' is too large. The limit is 1000000 bytes per entry.");
}
