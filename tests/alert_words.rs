//! Alert words: `GET`, `POST`, `DELETE /users/me/alert_words`, the `alert_words` event and
//! register key, and the `has_alert_word` flag of new messages.

mod chat;
mod common;
mod event_support;
use chat::*;
use common::*;
use event_support::*;
use serde_json::{json, Value};

fn words(body: &Value) -> Vec<String> {
    body["alert_words"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect()
}

fn add(client: &Client, list: &[&str]) -> Value {
    let body = client.post("/users/me/alert_words", &[("alert_words", &json!(list).to_string())]).success();
    assert_matches_openapi("post", "/users/me/alert_words", &body);
    body
}

/// Cordelia watching a new word, and a new channel of othello's she is subscribed to.
struct Watched {
    cordelia: Client,
    othello: Client,
    word: String,
    channel: String,
}

fn watched(prefix: &str) -> Watched {
    let cordelia = Client::dev("cordelia@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let word = unique(prefix);
    add(&cordelia, &[&word]);
    let channel = unique("alert-channel");
    create_channel(&othello, &channel, &[], &[othello.user_id, cordelia.user_id]);
    Watched { cordelia, othello, word, channel }
}

#[test]
fn added_words_are_listed_in_order() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let (a, b) = (unique("alerta"), unique("alertb"));
    let body = add(&cordelia, &[&a, &b]);
    let list = words(&body);
    let pa = list.iter().position(|w| *w == a).unwrap();
    let pb = list.iter().position(|w| *w == b).unwrap();
    assert!(pa < pb, "{list:?}");
    let got = cordelia.get("/users/me/alert_words", &[]).success();
    assert_matches_openapi("get", "/users/me/alert_words", &got);
    let listed = words(&got);
    assert!(listed.iter().position(|w| *w == a) < listed.iter().position(|w| *w == b), "{listed:?}");
}

#[test]
fn words_are_trimmed_and_deduplicated_ignoring_case() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let w = unique("dupword");
    add(&cordelia, &[&w]);
    let upper = format!("  {}  ", w.to_uppercase());
    let list = words(&add(&cordelia, &[&upper, "   "]));
    assert_eq!(list.iter().filter(|x| x.eq_ignore_ascii_case(&w)).count(), 1, "{list:?}");
    assert!(!list.iter().any(|x| x.trim().is_empty()), "{list:?}");
}

#[test]
fn a_word_longer_than_100_characters_is_rejected() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let long = "x".repeat(101);
    let list = json!(["fine", long]).to_string();
    cordelia
        .post("/users/me/alert_words", &[("alert_words", &list)])
        .bad_request("BAD_REQUEST", "alert_words[1] is too long (limit: 100 characters)");
    cordelia
        .post("/users/me/alert_words", &[("alert_words", "nope")])
        .bad_request("BAD_REQUEST", "Argument \"alert_words\" is not valid JSON.");
}

#[test]
fn removing_matches_ignoring_case() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let w = unique("removeme");
    add(&cordelia, &[&w]);
    let body = cordelia.delete("/users/me/alert_words", &[("alert_words", &json!([w.to_uppercase()]).to_string())]).success();
    assert_matches_openapi("delete", "/users/me/alert_words", &body);
    assert!(!words(&body).contains(&w));
}

#[test]
fn changes_send_the_new_list_and_register_shows_it() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let w = unique("eventword");
    let mut queue = register_for(&cordelia, r#"["alert_words"]"#);
    add(&cordelia, &[&w]);
    let event = queue.wait_for("alert_words", |e| e["type"] == "alert_words" && words(e).contains(&w));
    assert!(event["alert_words"].is_array());
    let state = cordelia.post("/register", &[("fetch_event_types", r#"["alert_words"]"#)]).success();
    assert!(words(&state).contains(&w));
}

#[test]
fn a_message_with_the_word_is_flagged_for_its_owner() {
    let Watched { cordelia, othello, word: w, channel: name } = watched("flagword");
    let mut queue = register(&cordelia, &[("event_types", r#"["message"]"#), ("narrow", r#"[["is", "alerted"]]"#)]);
    let plain = send_to_channel(&othello, &name, "t", &format!("{w}suffix is not the word"));
    let alerted = send_to_channel(&othello, &name, "t", &format!("About ({}), today", w.to_uppercase()));
    assert!(!flags(&fetch(&cordelia, plain)).contains(&"has_alert_word".to_string()));
    assert!(flags(&fetch(&cordelia, alerted)).contains(&"has_alert_word".to_string()));
    assert!(!flags(&fetch(&othello, alerted)).contains(&"has_alert_word".to_string()));
    // The alerted narrow's queue gets the alerting message first: the plain one never.
    let event = queue.wait_for("message", |e| e["type"] == "message" && e["message"]["display_recipient"] == name);
    assert_eq!(event["message"]["id"], alerted);
    assert!(event["flags"].as_array().unwrap().contains(&json!("has_alert_word")));
}

#[test]
fn a_removed_word_no_longer_flags_the_very_next_message() {
    let Watched { cordelia, othello, word: w, channel: name } = watched("goneword");
    let before = send_to_channel(&othello, &name, "t", &format!("about {w}"));
    assert!(flags(&fetch(&cordelia, before)).contains(&"has_alert_word".to_string()));
    cordelia.delete("/users/me/alert_words", &[("alert_words", &json!([w]).to_string())]).success();
    let after = send_to_channel(&othello, &name, "t", &format!("about {w} again"));
    assert!(!flags(&fetch(&cordelia, after)).contains(&"has_alert_word".to_string()), "a cached copy of the old words was used");
}
