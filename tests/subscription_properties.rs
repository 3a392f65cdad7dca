//! `POST /users/me/subscriptions/properties` and
//! `PATCH /users/me/subscriptions/{stream_id}`.

mod common;
mod event_support;

use common::Client;
use event_support::{register_for, Queue};
use serde_json::{json, Value};

/// The caller's subscription object of a channel, from a fresh register.
fn subscription(client: &Client, name: &str) -> Value {
    let body = client
        .post("/register", &[("fetch_event_types", r#"["subscription", "message"]"#), ("event_types", r#"["realm_emoji"]"#)])
        .success();
    client.delete("/events", &[("queue_id", body["queue_id"].as_str().unwrap())]).success();
    body["subscriptions"].as_array().unwrap().iter().find(|s| s["name"] == name).cloned().expect("subscribed")
}

fn updates_of(queue: &mut Queue, stream_id: i64) -> Vec<(String, Value)> {
    queue
        .events_before_sentinel()
        .into_iter()
        .filter(|e| e["type"] == "subscription" && e["op"] == "update" && e["stream_id"] == stream_id)
        .map(|e| (e["property"].as_str().unwrap().to_string(), e["value"].clone()))
        .collect()
}

fn set(client: &Client, data: Value) -> common::Resp {
    client.post("/users/me/subscriptions/properties", &[("subscription_data", &data.to_string())])
}

#[test]
fn one_update_event_per_changed_property() {
    let othello = Client::dev("othello@zulip.com");
    let rome = subscription(&othello, "Rome")["stream_id"].as_i64().unwrap();
    let mut queue = register_for(&othello, r#"["subscription", "message"]"#);
    set(
        &othello,
        json!([
            {"stream_id": rome, "property": "color", "value": "#123abc"},
            {"stream_id": rome, "property": "pin_to_top", "value": true},
            {"stream_id": rome, "property": "desktop_notifications", "value": false},
        ]),
    )
    .success();
    let seen = updates_of(&mut queue, rome);
    assert_eq!(
        seen,
        vec![
            ("color".to_string(), json!("#123abc")),
            ("pin_to_top".to_string(), json!(true)),
            ("desktop_notifications".to_string(), json!(false)),
        ]
    );
    let sub = subscription(&othello, "Rome");
    assert_eq!(sub["color"], "#123abc");
    assert_eq!(sub["pin_to_top"], true);
    assert_eq!(sub["desktop_notifications"], false);
}

#[test]
fn muting_sends_is_muted_and_in_home_view() {
    let iago = Client::dev("iago@zulip.com");
    let rome = subscription(&iago, "Rome")["stream_id"].as_i64().unwrap();
    let mut queue = register_for(&iago, r#"["subscription", "message"]"#);
    set(&iago, json!([{"stream_id": rome, "property": "is_muted", "value": true}])).success();
    assert_eq!(updates_of(&mut queue, rome), vec![("in_home_view".to_string(), json!(false)), ("is_muted".to_string(), json!(true))]);
    let sub = subscription(&iago, "Rome");
    assert_eq!((sub["is_muted"].clone(), sub["in_home_view"].clone()), (json!(true), json!(false)));
    set(&iago, json!([{"stream_id": rome, "property": "in_home_view", "value": true}])).success();
    assert_eq!(updates_of(&mut queue, rome), vec![("in_home_view".to_string(), json!(true)), ("is_muted".to_string(), json!(false))]);
    assert_eq!(subscription(&iago, "Rome")["is_muted"], false);
}

#[test]
fn one_bad_entry_changes_nothing() {
    let desdemona = Client::dev("desdemona@zulip.com");
    let rome = subscription(&desdemona, "Rome");
    let id = rome["stream_id"].as_i64().unwrap();
    let before = rome["pin_to_top"].clone();
    let flipped = !before.as_bool().unwrap();
    for (bad, msg) in [
        (json!({"stream_id": id, "property": "not_a_property", "value": true}), "Unknown subscription property: not_a_property"),
        (json!({"stream_id": id, "property": "push_notifications", "value": "yes"}), "push_notifications is not a boolean"),
        (json!({"stream_id": id, "property": "color", "value": "red"}), "color is not a valid hex color code"),
        (json!({"stream_id": 99999999, "property": "pin_to_top", "value": true}), "Invalid channel ID"),
        (json!({"property": "pin_to_top", "value": true}), "subscription_data[1] is missing stream_id"),
    ] {
        set(&desdemona, json!([{"stream_id": id, "property": "pin_to_top", "value": flipped}, bad])).bad_request("BAD_REQUEST", msg);
        assert_eq!(subscription(&desdemona, "Rome")["pin_to_top"], before);
    }
}

#[test]
fn unknown_property_names_itself() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = subscription(&hamlet, "Venice")["stream_id"].as_i64().unwrap();
    set(&hamlet, json!([{"stream_id": id, "property": "volume", "value": true}]))
        .bad_request("BAD_REQUEST", "Unknown subscription property: volume");
}

#[test]
fn channel_the_caller_is_not_subscribed_to_is_an_error() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let venice = subscription(&iago, "Venice")["stream_id"].as_i64().unwrap();
    set(&cordelia, json!([{"stream_id": venice, "property": "pin_to_top", "value": true}]))
        .bad_request("BAD_REQUEST", &format!("Not subscribed to channel ID {venice}"));
    cordelia
        .post("/users/me/subscriptions/properties", &[])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'subscription_data' argument");
    cordelia
        .post("/users/me/subscriptions/properties", &[("subscription_data", "{}")])
        .bad_request("BAD_REQUEST", "subscription_data is not a list");
}

#[test]
fn every_property_of_the_spec_is_accepted() {
    let shiva = Client::dev("shiva@zulip.com");
    let id = subscription(&shiva, "Scotland")["stream_id"].as_i64().unwrap();
    let mut queue = register_for(&shiva, r#"["subscription", "message"]"#);
    let props = [
        "pin_to_top",
        "desktop_notifications",
        "audible_notifications",
        "push_notifications",
        "email_notifications",
        "wildcard_mentions_notify",
    ];
    let data: Vec<Value> = props.iter().map(|p| json!({"stream_id": id, "property": p, "value": true})).collect();
    set(&shiva, json!(data)).success();
    let seen = updates_of(&mut queue, id);
    assert_eq!(seen.len(), props.len());
    let sub = subscription(&shiva, "Scotland");
    for p in props {
        assert_eq!(sub[p], true, "{p}");
    }
}

#[test]
fn single_channel_patch_sets_one_property() {
    let prospero = Client::dev("prospero@zulip.com");
    let id = subscription(&prospero, "Scotland")["stream_id"].as_i64().unwrap();
    let mut queue = register_for(&prospero, r#"["subscription", "message"]"#);
    let path = format!("/users/me/subscriptions/{id}");
    prospero.patch(&path, &[("property", "color"), ("value", "#0a0b0c")]).success();
    prospero.patch(&path, &[("property", "is_muted"), ("value", "false")]).success();
    assert_eq!(
        updates_of(&mut queue, id),
        vec![("color".to_string(), json!("#0a0b0c")), ("in_home_view".to_string(), json!(true)), ("is_muted".to_string(), json!(false)),]
    );
    assert_eq!(subscription(&prospero, "Scotland")["color"], "#0a0b0c");
    prospero.patch(&path, &[("property", "pin_to_top"), ("value", "maybe")]).bad_request("BAD_REQUEST", "pin_to_top is not a boolean");
}
