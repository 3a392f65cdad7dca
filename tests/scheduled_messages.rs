//! Scheduled messages: `POST/GET /scheduled_messages`, `PATCH/DELETE
//! /scheduled_messages/{id}`, their events and register state, and delivery by the
//! organization's scheduler alarm.

mod accounts;
mod chat;
mod common;
mod event_support;

use std::time::{SystemTime, UNIX_EPOCH};

use chat::*;
use common::*;
use event_support::{register, register_for, Queue};
use serde_json::Value;

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

/// A time far enough ahead that no alarm delivers it during the test.
fn later() -> String {
    (now() + 3600).to_string()
}

fn schedule_channel(client: &Client, channel_id: i64, topic: &str, content: &str, at: &str) -> i64 {
    let to = channel_id.to_string();
    let body = client
        .post(
            "/scheduled_messages",
            &[("type", "stream"), ("to", &to), ("topic", topic), ("content", content), ("scheduled_delivery_timestamp", at)],
        )
        .success();
    assert_matches_openapi("post", "/scheduled_messages", &body);
    body["scheduled_message_id"].as_i64().unwrap()
}

fn schedule_direct(client: &Client, to: &[i64], content: &str, at: &str) -> i64 {
    let to = serde_json::to_string(to).unwrap();
    client
        .post("/scheduled_messages", &[("type", "direct"), ("to", &to), ("content", content), ("scheduled_delivery_timestamp", at)])
        .success()["scheduled_message_id"]
        .as_i64()
        .unwrap()
}

fn listed(client: &Client, id: i64) -> Option<Value> {
    let body = client.get("/scheduled_messages", &[]).success();
    assert_matches_openapi("get", "/scheduled_messages", &body);
    body["scheduled_messages"].as_array().unwrap().iter().find(|m| m["scheduled_message_id"] == id).cloned()
}

fn path(id: i64) -> String {
    format!("/scheduled_messages/{id}")
}

fn not_found(resp: Resp) {
    resp.error(404, "BAD_REQUEST", "Scheduled message does not exist");
}

/// Messages of the caller whose content contains `marker`.
fn messages_containing(client: &Client, marker: &str) -> Vec<Value> {
    let narrow = serde_json::json!([{"operator": "search", "operand": marker}]).to_string();
    let body = client.get("/messages", &[("anchor", "newest"), ("num_before", "50"), ("num_after", "0"), ("narrow", &narrow)]).success();
    body["messages"].as_array().unwrap().iter().filter(|m| m["content"].as_str().unwrap_or("").contains(marker)).cloned().collect()
}

fn wait_message(queue: &mut Queue, marker: &str) -> Value {
    let marker = marker.to_string();
    queue.wait_for("delivered message", move |e| e["type"] == "message" && e["message"]["content"].as_str().unwrap_or("").contains(&marker))
}

#[test]
fn scheduling_answers_an_id_and_lists_the_message_in_zulips_shape() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let verona = channel_id(&hamlet, "Verona");
    let at = later();
    let content = unique("scheduled **bold** ");
    let id = schedule_channel(&hamlet, verona, "plans", &content, &at);
    let m = listed(&hamlet, id).expect("listed");
    assert_eq!(m["type"], "stream");
    assert_eq!(m["to"], verona);
    assert_eq!(m["topic"], "plans");
    assert_eq!(m["content"], content.as_str());
    assert!(m["rendered_content"].as_str().unwrap().contains("<strong>bold</strong>"), "{m}");
    assert_eq!(m["scheduled_delivery_timestamp"].to_string(), at);
    assert_eq!(m["failed"], false);
}

#[test]
fn a_direct_scheduled_message_lists_its_recipients() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = user_id("othello@zulip.com");
    let id = schedule_direct(&hamlet, &[othello], &unique("dm "), &later());
    let m = listed(&hamlet, id).expect("listed");
    assert_eq!(m["type"], "private");
    assert_eq!(m["to"], serde_json::json!([othello]));
    assert!(m.get("topic").is_none(), "{m}");
}

#[test]
fn delivery_time_must_be_in_the_future() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let verona = channel_id(&hamlet, "Verona").to_string();
    let past = (now() - 10).to_string();
    hamlet
        .post(
            "/scheduled_messages",
            &[("type", "stream"), ("to", &verona), ("topic", "t"), ("content", "x"), ("scheduled_delivery_timestamp", &past)],
        )
        .bad_request("BAD_REQUEST", "Scheduled delivery time must be in the future.");
}

#[test]
fn scheduling_applies_the_send_rules_unknown_channel() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet
        .post(
            "/scheduled_messages",
            &[("type", "stream"), ("to", "999999"), ("topic", "t"), ("content", "x"), ("scheduled_delivery_timestamp", &later())],
        )
        .bad_request("STREAM_DOES_NOT_EXIST", "Channel with ID '999999' does not exist");
    assert_eq!(body["stream_id"], 999999);
}

#[test]
fn scheduling_applies_the_send_rules_unknown_user_and_missing_topic() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post(
            "/scheduled_messages",
            &[("type", "direct"), ("to", "[999999]"), ("content", "x"), ("scheduled_delivery_timestamp", &later())],
        )
        .bad_request("BAD_REQUEST", "Invalid user ID 999999");
    let verona = channel_id(&hamlet, "Verona").to_string();
    hamlet
        .post("/scheduled_messages", &[("type", "stream"), ("to", &verona), ("content", "x"), ("scheduled_delivery_timestamp", &later())])
        .bad_request("BAD_REQUEST", "Missing topic");
    hamlet
        .post(
            "/scheduled_messages",
            &[("type", "stream"), ("to", &verona), ("topic", "t"), ("content", "  "), ("scheduled_delivery_timestamp", &later())],
        )
        .bad_request("BAD_REQUEST", "Message must not be empty");
}

#[test]
fn another_users_scheduled_message_behaves_as_a_missing_one() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let verona = channel_id(&hamlet, "Verona");
    let id = schedule_channel(&hamlet, verona, "mine", &unique("private plan "), &later());
    assert!(listed(&othello, id).is_none());
    not_found(othello.patch(&path(id), &[("content", "stolen")]));
    not_found(othello.delete(&path(id), &[]));
    not_found(hamlet.patch(&path(999_999_999), &[("content", "x")]));
    not_found(hamlet.delete(&path(999_999_999), &[]));
    assert!(listed(&hamlet, id).expect("still there")["content"].as_str().unwrap().starts_with("private plan "));
}

#[test]
fn deleting_removes_it_and_sends_a_remove_event() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, r#"["scheduled_messages"]"#);
    let verona = channel_id(&hamlet, "Verona");
    let id = schedule_channel(&hamlet, verona, "gone", &unique("to delete "), &later());
    queue.wait_for("add", |e| {
        e["type"] == "scheduled_messages" && e["op"] == "add" && e["scheduled_messages"][0]["scheduled_message_id"] == id
    });
    hamlet.delete(&path(id), &[]).success();
    queue.wait_for("remove", |e| e["type"] == "scheduled_messages" && e["op"] == "remove" && e["scheduled_message_id"] == id);
    assert!(listed(&hamlet, id).is_none());
    not_found(hamlet.delete(&path(id), &[]));
}

#[test]
fn register_includes_the_pending_scheduled_messages() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let verona = channel_id(&cordelia, "Verona");
    let id = schedule_channel(&cordelia, verona, "reg", &unique("in register "), &later());
    let body = cordelia.post("/register", &[("fetch_event_types", r#"["scheduled_messages"]"#)]).success();
    let list = body["scheduled_messages"].as_array().expect("scheduled_messages in register");
    assert!(list.iter().any(|m| m["scheduled_message_id"] == id && m["topic"] == "reg"));
    assert!(body.get("realm_user").is_none());
}

#[test]
fn a_due_channel_message_is_delivered_by_the_alarm_to_a_waiting_queue() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let verona = channel_id(&hamlet, "Verona");
    let mut receiver = register_for(&othello, r#"["message"]"#);
    let mut owner = register_for(&hamlet, r#"["scheduled_messages"]"#);
    let marker = unique("alarmdelivered");
    let id = schedule_channel(&hamlet, verona, "on time", &format!("{marker} hello"), &(now() + 4).to_string());
    let event = wait_message(&mut receiver, &marker);
    assert_eq!(event["message"]["sender_id"], hamlet.user_id);
    assert_eq!(event["message"]["subject"], "on time");
    assert_eq!(event["message"]["stream_id"], verona);
    assert!(event["message"]["timestamp"].as_i64().unwrap() >= now() - 30);
    owner.wait_for("remove", |e| e["type"] == "scheduled_messages" && e["op"] == "remove" && e["scheduled_message_id"] == id);
    assert!(listed(&hamlet, id).is_none());
    assert_eq!(messages_containing(&othello, &marker).len(), 1);
}

#[test]
fn a_due_direct_message_is_delivered_with_mentions_and_flags() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mut receiver = register(&othello, &[("event_types", r#"["message"]"#), ("apply_markdown", "true")]);
    let marker = unique("dmdelivered");
    schedule_direct(&hamlet, &[othello.user_id], &format!("{marker} @**Othello, the Moor of Venice**"), &(now() + 4).to_string());
    let event = wait_message(&mut receiver, &marker);
    assert_eq!(event["message"]["type"], "private");
    assert!(event["flags"].as_array().unwrap().iter().any(|f| f == "mentioned"), "{event}");
    assert!(event["message"]["content"].as_str().unwrap().contains("user-mention"), "{event}");
}

#[test]
fn editing_needs_something_to_change() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = schedule_direct(&hamlet, &[user_id("othello@zulip.com")], &unique("x "), &later());
    hamlet.patch(&path(id), &[]).bad_request("BAD_REQUEST", "Nothing to change");
}

#[test]
fn changing_the_type_requires_to_and_a_topic_for_channels() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let verona = channel_id(&hamlet, "Verona").to_string();
    let id = schedule_direct(&hamlet, &[user_id("othello@zulip.com")], &unique("x "), &later());
    hamlet
        .patch(&path(id), &[("type", "stream")])
        .bad_request("BAD_REQUEST", "Recipient required when updating type of scheduled message.");
    hamlet
        .patch(&path(id), &[("type", "stream"), ("to", &verona)])
        .bad_request("BAD_REQUEST", "Topic required when updating scheduled message type to stream.");
    hamlet.patch(&path(id), &[("type", "stream"), ("to", &verona), ("topic", "now a channel")]).success();
    let m = listed(&hamlet, id).unwrap();
    assert_eq!(m["type"], "stream");
    assert_eq!(m["to"].to_string(), verona);
    assert_eq!(m["topic"], "now a channel");
}

#[test]
fn a_topic_is_ignored_for_direct_messages() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = user_id("othello@zulip.com");
    let id = schedule_direct(&hamlet, &[othello], &unique("x "), &later());
    hamlet.patch(&path(id), &[("topic", "ignored")]).success();
    let m = listed(&hamlet, id).unwrap();
    assert_eq!(m["type"], "private");
    assert!(m.get("topic").is_none());
    // Changing a channel message to direct ignores the topic sent with it.
    let verona = channel_id(&hamlet, "Verona");
    let id = schedule_channel(&hamlet, verona, "t", &unique("y "), &later());
    let to = format!("[{othello}]");
    hamlet.patch(&path(id), &[("type", "direct"), ("to", &to), ("topic", "ignored too")]).success();
    let m = listed(&hamlet, id).unwrap();
    assert_eq!(m["type"], "private");
    assert_eq!(m["to"], serde_json::json!([othello]));
}

#[test]
fn editing_content_topic_and_time_updates_it_and_sends_an_update_event() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, r#"["scheduled_messages"]"#);
    let verona = channel_id(&hamlet, "Verona");
    let id = schedule_channel(&hamlet, verona, "before", &unique("old "), &later());
    let new_at = (now() + 7200).to_string();
    hamlet.patch(&path(id), &[("content", "new *text*"), ("topic", "after"), ("scheduled_delivery_timestamp", &new_at)]).success();
    let m = listed(&hamlet, id).unwrap();
    assert_eq!(m["content"], "new *text*");
    assert_eq!(m["rendered_content"], "<p>new <em>text</em></p>");
    assert_eq!(m["topic"], "after");
    assert_eq!(m["scheduled_delivery_timestamp"].to_string(), new_at);
    let update = queue.wait_for("update", |e| {
        e["type"] == "scheduled_messages" && e["op"] == "update" && e["scheduled_message"]["scheduled_message_id"] == id
    });
    assert_eq!(update["scheduled_message"]["topic"], "after");
}

#[test]
fn editing_to_without_type_keeps_the_type() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let verona = channel_id(&hamlet, "Verona");
    let denmark = channel_id(&hamlet, "Denmark");
    let id = schedule_channel(&hamlet, verona, "t", &unique("x "), &later());
    hamlet.patch(&path(id), &[("to", &denmark.to_string())]).success();
    let m = listed(&hamlet, id).unwrap();
    assert_eq!(m["to"], denmark);
    assert_eq!(m["topic"], "t");
}

#[test]
fn editing_checks_the_send_rules() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let verona = channel_id(&hamlet, "Verona");
    let id = schedule_channel(&hamlet, verona, "t", &unique("x "), &later());
    let body = hamlet.patch(&path(id), &[("to", "999998")]).bad_request("STREAM_DOES_NOT_EXIST", "Channel with ID '999998' does not exist");
    assert_eq!(body["stream_id"], 999998);
    hamlet.patch(&path(id), &[("type", "direct"), ("to", "[999997]")]).bad_request("BAD_REQUEST", "Invalid user ID 999997");
    let past = (now() - 5).to_string();
    hamlet
        .patch(&path(id), &[("scheduled_delivery_timestamp", &past)])
        .bad_request("BAD_REQUEST", "Scheduled delivery time must be in the future.");
    hamlet.patch(&path(id), &[("content", " ")]).bad_request("BAD_REQUEST", "Message must not be empty");
    let long_topic = "t".repeat(61);
    hamlet.patch(&path(id), &[("topic", &long_topic)]).success();
    assert_eq!(listed(&hamlet, id).unwrap()["topic"].as_str().unwrap().chars().count(), 60, "topics are truncated at max_topic_length");
    assert_eq!(listed(&hamlet, id).unwrap()["to"], verona, "failed edits changed nothing");
}

#[test]
fn a_message_that_cannot_be_sent_is_marked_failed_and_can_be_rescheduled() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("sched-private-");
    let private = create_channel(&hamlet, &name, &[("invite_only", "true")], &[]);
    let verona = channel_id(&hamlet, "Verona");
    let mut owner = register_for(&hamlet, r#"["scheduled_messages", "message"]"#);
    let marker = unique("failedthenok");
    // Five seconds: time enough to unsubscribe first on a loaded machine.
    let id = schedule_channel(&hamlet, private, "t", &format!("{marker} retry"), &(now() + 5).to_string());
    // Losing access before the time makes the send fail.
    let subs = serde_json::json!([name]).to_string();
    hamlet.delete("/users/me/subscriptions", &[("subscriptions", &subs)]).success();
    let failed =
        owner.wait_for("failed", |e| e["type"] == "scheduled_messages" && e["op"] == "update" && e["scheduled_message"]["failed"] == true);
    assert_eq!(failed["scheduled_message"]["scheduled_message_id"], id);
    assert_eq!(listed(&hamlet, id).expect("kept")["failed"], true);
    // A failed message needs a new time.
    hamlet.patch(&path(id), &[("to", &verona.to_string())]).bad_request("BAD_REQUEST", "Scheduled delivery time must be in the future.");
    hamlet.patch(&path(id), &[("to", &verona.to_string()), ("scheduled_delivery_timestamp", &(now() + 4).to_string())]).success();
    if let Some(m) = listed(&hamlet, id) {
        assert_eq!(m["failed"], false, "editing clears failed");
    }
    let event = wait_message(&mut owner, &marker);
    assert_eq!(event["message"]["stream_id"], verona);
    assert!(listed(&hamlet, id).is_none());
}

#[test]
fn read_by_sender_sets_the_senders_read_flag_at_delivery() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = user_id("othello@zulip.com");
    let mut own = register_for(&hamlet, r#"["message"]"#);
    let to = format!("[{othello}]");
    for read in ["true", "false"] {
        let marker = unique("readbysender");
        let at = (now() + 4).to_string();
        hamlet
            .post(
                "/scheduled_messages",
                &[("type", "direct"), ("to", &to), ("content", &marker), ("scheduled_delivery_timestamp", &at), ("read_by_sender", read)],
            )
            .success();
        let event = wait_message(&mut own, &marker);
        let is_read = event["flags"].as_array().unwrap().iter().any(|f| f == "read");
        assert_eq!(is_read.to_string(), read, "{event}");
    }
}

#[test]
fn a_deactivated_senders_message_is_marked_failed_and_kept() {
    let iago = Client::dev("iago@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let sender = accounts::new_user("schedgone");
    let marker = unique("fromthegone");
    // Five seconds: time enough to deactivate the sender first on a loaded machine.
    let due = now() + 5;
    let id = schedule_direct(&sender, &[othello.user_id], &marker, &due.to_string());
    iago.delete(&format!("/users/{}", sender.user_id), &[]).success();
    while now() < due + 4 {
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    iago.post(&format!("/users/{}/reactivate", sender.user_id), &[]).success();
    let m = listed(&sender, id).expect("a failed message is kept");
    assert_eq!(m["failed"], true);
    assert!(messages_containing(&othello, &marker).is_empty());
}

#[test]
fn a_deleted_scheduled_message_is_never_delivered() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mut receiver = register_for(&othello, r#"["message"]"#);
    let deleted_marker = unique("deletedbeforedue");
    let sentinel_marker = unique("sentinelafter");
    // Five seconds: time enough to delete it first on a loaded machine.
    let at = (now() + 5).to_string();
    let id = schedule_direct(&hamlet, &[othello.user_id], &deleted_marker, &at);
    hamlet.delete(&path(id), &[]).success();
    schedule_direct(&hamlet, &[othello.user_id], &sentinel_marker, &(now() + 6).to_string());
    let sentinel = sentinel_marker.clone();
    let deleted = deleted_marker.clone();
    let first = receiver.wait_for("either message", move |e| {
        e["type"] == "message" && {
            let c = e["message"]["content"].as_str().unwrap_or("");
            c.contains(&sentinel) || c.contains(&deleted)
        }
    });
    assert!(first["message"]["content"].as_str().unwrap().contains(&sentinel_marker), "the deleted message was sent: {first}");
    assert!(messages_containing(&othello, &deleted_marker).is_empty());
}
