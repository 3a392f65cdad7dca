//! Reminders: `POST/GET /reminders`, `DELETE /reminders/{id}`, their events and register
//! state, and delivery by the notification bot at the chosen time.

mod chat;
mod common;
mod event_support;

use std::time::{SystemTime, UNIX_EPOCH};

use chat::*;
use common::*;
use event_support::{register, register_for};
use serde_json::{json, Value};

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

/// A time far enough ahead that no alarm delivers it during the test.
fn later() -> String {
    (now() + 3600).to_string()
}

fn remind(client: &Client, message_id: i64, at: &str, note: Option<&str>) -> Resp {
    let id = message_id.to_string();
    let mut form = vec![("message_id", id.as_str()), ("scheduled_delivery_timestamp", at)];
    if let Some(note) = note {
        form.push(("note", note));
    }
    client.post("/reminders", &form)
}

fn reminder_id(body: &Value) -> i64 {
    assert_matches_openapi("post", "/reminders", body);
    body["reminder_id"].as_i64().unwrap()
}

fn listed(client: &Client, id: i64) -> Option<Value> {
    let body = client.get("/reminders", &[]).success();
    assert_matches_openapi("get", "/reminders", &body);
    body["reminders"].as_array().unwrap().iter().find(|r| r["reminder_id"] == id).cloned()
}

#[test]
fn a_reminder_quotes_its_message_and_is_listed_and_announced() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let topic = unique("remind me");
    let message = send_to_channel(&hamlet, "Verona", &topic, "the play's the thing");
    let mut queue = register_for(&hamlet, r#"["reminders"]"#);
    let at = later();
    let id = reminder_id(&remind(&hamlet, message, &at, Some("read it again")).success());
    let reminder = listed(&hamlet, id).expect("the reminder is listed");
    assert_eq!((reminder["type"].clone(), reminder["to"].clone()), (json!("private"), json!([hamlet.user_id])));
    assert_eq!(reminder["reminder_target_message_id"], message);
    assert_eq!(reminder["scheduled_delivery_timestamp"].to_string(), at);
    assert_eq!(reminder["failed"], false);
    let content = reminder["content"].as_str().unwrap();
    let expected_start = format!("You requested a reminder for #**Verona>{topic}@{message}**. Note:\n > read it again\n\n");
    assert!(content.starts_with(&expected_start), "{content}");
    assert!(content.ends_with("):\n```quote\nthe play's the thing\n```"), "{content}");
    assert!(reminder["rendered_content"].as_str().unwrap().contains("<blockquote>"), "{reminder}");
    let event =
        queue.wait_for("the reminder added", |e| e["type"] == "reminders" && e["op"] == "add" && e["reminders"][0]["reminder_id"] == id);
    assert_eq!(event["reminders"], json!([reminder]));
}

#[test]
fn reminders_are_not_scheduled_messages_and_register_lists_them() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let message = send_to_channel(&hamlet, "Verona", &unique("register reminder"), "remember");
    let id = reminder_id(&remind(&hamlet, message, &later(), None).success());
    let scheduled = hamlet.get("/scheduled_messages", &[]).success();
    assert!(!scheduled["scheduled_messages"].as_array().unwrap().iter().any(|m| m["scheduled_message_id"] == id), "{scheduled}");
    let state = hamlet.post("/register", &[("fetch_event_types", r#"["reminders"]"#)]).success();
    assert!(state["reminders"].as_array().unwrap().iter().any(|r| r["reminder_id"] == id), "{}", state["reminders"]);
    hamlet.delete(&format!("/scheduled_messages/{id}"), &[]).error(404, "BAD_REQUEST", "Scheduled message does not exist");
}

#[test]
fn deleting_a_reminder_cancels_it_for_its_owner_only() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let message = send_to_channel(&hamlet, "Verona", &unique("cancel reminder"), "never mind");
    let id = reminder_id(&remind(&hamlet, message, &later(), None).success());
    othello.delete(&format!("/reminders/{id}"), &[]).error(404, "BAD_REQUEST", "Reminder does not exist");
    let mut queue = register(&hamlet, &[("event_types", r#"["reminders"]"#)]);
    let body = hamlet.delete(&format!("/reminders/{id}"), &[]).success();
    assert_matches_openapi("delete", "/reminders/{reminder_id}", &body);
    queue.wait_for("the reminder removed", |e| e["type"] == "reminders" && e["op"] == "remove" && e["reminder_id"] == id);
    assert!(listed(&hamlet, id).is_none());
    hamlet.delete(&format!("/reminders/{id}"), &[]).error(404, "BAD_REQUEST", "Reminder does not exist");
}

#[test]
fn a_reminder_needs_a_readable_message_a_future_time_and_a_short_note() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let private = send_direct(&hamlet, &[othello.user_id], "between two");
    remind(&cordelia, private, &later(), None).bad_request("BAD_REQUEST", "Invalid message(s)");
    remind(&othello, private, &(now() - 10).to_string(), None).bad_request("BAD_REQUEST", "Scheduled delivery time must be in the future.");
    remind(&othello, private, &later(), Some(&"n".repeat(1001)))
        .bad_request("BAD_REQUEST", "Maximum reminder note length: 1000 characters");
    hamlet
        .post("/reminders", &[("message_id", &private.to_string())])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'scheduled_delivery_timestamp' argument");
}

#[test]
fn a_due_reminder_comes_from_the_notification_bot_to_its_owner_alone() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let marker = unique("reminded");
    let private = send_direct(&hamlet, &[othello.user_id], &format!("{marker} see me"));
    let mut owner = register_for(&othello, r#"["message", "reminders"]"#);
    let id = reminder_id(&remind(&othello, private, &(now() + 3).to_string(), None).success());
    let event = owner.wait_for("the reminder", |e| {
        e["type"] == "message" && e["message"]["content"].as_str().is_some_and(|c| c.contains(&marker) && c.contains("reminder"))
    });
    let message = &event["message"];
    assert_eq!(message["sender_email"], "notification-bot@zulip.com");
    let to: Vec<i64> = message["display_recipient"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert!(to.contains(&othello.user_id) && !to.contains(&hamlet.user_id), "{message}");
    assert!(
        message["content"].as_str().unwrap().starts_with("You requested a reminder for the following direct message.\n\n"),
        "{message}"
    );
    owner.wait_for("the reminder removed", |e| e["type"] == "reminders" && e["op"] == "remove" && e["reminder_id"] == id);
    assert!(listed(&othello, id).is_none());
}
