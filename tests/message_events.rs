//! Events of the other parts of the API, as event queues deliver them: messages (with the
//! per-queue content, flags, topic and `local_message_id`), edits, deletions, reactions,
//! subscriptions, topic visibility and organization settings.

mod common;
mod event_support;

use std::thread;
use std::time::{Duration, Instant};

use common::{unique, Client};
use event_support::{message_with_id, register, register_for};
use serde_json::Value;

fn send_to_channel(sender: &Client, channel: &str, topic: &str, content: &str, extra: &[(&str, &str)]) -> i64 {
    let mut form = vec![("type", "stream"), ("to", channel), ("topic", topic), ("content", content)];
    form.extend_from_slice(extra);
    sender.post("/messages", &form).success()["id"].as_i64().unwrap()
}

#[test]
fn long_poll_is_woken_by_a_message_from_another_user() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    // Direct messages only, so other tests' channel messages do not wake this poll.
    let queue = register(&cordelia, &[("event_types", r#"["message"]"#), ("narrow", r#"[["is", "dm"]]"#), ("apply_markdown", "true")]);
    let (qid, client) = (queue.queue_id.clone(), cordelia.clone());
    let waiter = thread::spawn(move || {
        let started = Instant::now();
        let body = client.get("/events", &[("queue_id", &qid), ("last_event_id", "-1")]).success();
        (body, started.elapsed())
    });
    thread::sleep(Duration::from_millis(700));
    let to = format!("[{}]", cordelia.user_id);
    let content = format!("**hello** {}", unique("there"));
    let id = hamlet.post("/messages", &[("type", "direct"), ("to", &to), ("content", &content)]).success()["id"].as_i64().unwrap();
    let (body, elapsed) = waiter.join().unwrap();
    let event = body["events"].as_array().unwrap().iter().find(|e| message_with_id(id)(e)).cloned().unwrap_or_else(|| panic!("{body}"));
    assert!(elapsed < Duration::from_secs(3), "answered by the message, not the heartbeat: {elapsed:?}");
    assert!(event["message"]["content"].as_str().unwrap().starts_with("<p><strong>hello</strong> there"), "{event}");
    assert_eq!(event["message"]["content_type"], "text/html");
    assert_eq!(event["message"]["sender_id"], hamlet.user_id);
    assert!(event.get("raw_content").is_none());
    assert!(event["flags"].is_array(), "flags at the event's top level: {event}");
    assert!(event.get("local_message_id").is_none());
}

#[test]
fn apply_markdown_false_delivers_raw_content() {
    let othello = Client::dev("othello@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let mut queue = register(&othello, &[("event_types", r#"["message"]"#), ("apply_markdown", "false")]);
    let id = send_to_channel(&iago, "Verona", &unique("raw"), "*raw* text", &[]);
    let event = queue.wait_for("message", message_with_id(id));
    assert_eq!(event["message"]["content"], "*raw* text");
    assert_eq!(event["message"]["content_type"], "text/x-markdown");
    assert!(event.get("raw_content").is_none());
}

#[test]
fn local_message_id_goes_only_to_the_sending_queue() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut sending = register_for(&hamlet, r#"["message"]"#);
    let mut other = register_for(&hamlet, r#"["message"]"#);
    let id = send_to_channel(
        &hamlet,
        "Denmark",
        &unique("local"),
        "echo",
        &[("queue_id", &sending.queue_id.clone()), ("local_id", "17.01"), ("read_by_sender", "true")],
    );
    let mine = sending.wait_for("own message", message_with_id(id));
    assert_eq!(mine["local_message_id"], "17.01");
    assert!(mine["flags"].as_array().unwrap().iter().any(|f| f == "read"), "{mine}");
    let theirs = other.wait_for("own message", message_with_id(id));
    assert!(theirs.get("local_message_id").is_none());
}

/// The flags of `id` as `client` reads them from `GET /messages/{id}`.
fn stored_flags(client: &Client, id: i64) -> Value {
    client.get(&format!("/messages/{id}"), &[]).success()["message"]["flags"].clone()
}

#[test]
fn flags_are_per_user() {
    let shiva = Client::dev("shiva@zulip.com");
    let prospero = Client::dev("prospero@zulip.com");
    let mut recipient = register_for(&prospero, r#"["message"]"#);
    let mut sender = register_for(&shiva, r#"["message"]"#);
    let id = send_to_channel(&shiva, "Verona", &unique("flags"), "hi @**Prospero from The Tempest**", &[("read_by_sender", "true")]);
    let theirs = recipient.wait_for("mention", message_with_id(id));
    assert_eq!(theirs["flags"], stored_flags(&prospero, id));
    assert!(!theirs["flags"].as_array().unwrap().iter().any(|f| f == "read"), "{theirs}");
    let mine = sender.wait_for("own", message_with_id(id));
    assert_eq!(mine["flags"], stored_flags(&shiva, id));
    assert!(mine["flags"].as_array().unwrap().iter().any(|f| f == "read"), "{mine}");
    assert!(mine.get("message").and_then(|m| m.get("flags")).is_none(), "flags are not inside the message");
}

#[test]
fn empty_topic_reads_as_display_name_without_the_capability() {
    let desdemona = Client::dev("desdemona@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let mut legacy = register(&cordelia, &[("event_types", r#"["message"]"#), ("client_gravatar", "false")]);
    let mut modern = register(
        &cordelia,
        &[("event_types", r#"["message"]"#), ("client_capabilities", r#"{"empty_topic_name": true}"#), ("client_gravatar", "true")],
    );
    let id = send_to_channel(&desdemona, "Verona", "", &unique("empty topic "), &[]);
    let old = legacy.wait_for("message", message_with_id(id));
    assert_eq!(old["message"]["subject"], "general chat");
    assert!(old["message"]["avatar_url"].is_string());
    let new = modern.wait_for("message", message_with_id(id));
    assert_eq!(new["message"]["subject"], "");
    assert!(new["message"]["avatar_url"].is_null(), "client_gravatar: {}", new["message"]["avatar_url"]);
}

#[test]
fn direct_messages_reach_both_participants_only() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let mut recipient = register_for(&othello, r#"["message"]"#);
    let mut bystander = register_for(&iago, r#"["message"]"#);
    let to = format!("[{}]", othello.user_id);
    let id = hamlet.post("/messages", &[("type", "direct"), ("to", &to), ("content", "psst")]).success()["id"].as_i64().unwrap();
    let event = recipient.wait_for("dm", message_with_id(id));
    assert_eq!(event["message"]["type"], "private");
    assert!(!bystander.events_before_sentinel().iter().any(message_with_id(id)));
}

#[test]
fn narrow_limits_message_events() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register(&hamlet, &[("event_types", r#"["message"]"#), ("narrow", r#"[["stream", "Denmark"]]"#)]);
    let verona = send_to_channel(&iago, "Verona", &unique("n"), "not for the narrow", &[]);
    let denmark = send_to_channel(&iago, "Denmark", &unique("n"), "for the narrow", &[]);
    // The Denmark message, sent after the Verona one, is the sentinel.
    let seen = queue.events_until("denmark message", message_with_id(denmark));
    assert!(!seen.iter().any(message_with_id(verona)), "{seen:?}");
}

#[test]
fn edits_deletions_and_reactions_reach_queues() {
    let iago = Client::dev("iago@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let mut bulk = register(
        &cordelia,
        &[
            ("event_types", r#"["update_message", "delete_message", "reaction"]"#),
            ("client_capabilities", r#"{"bulk_message_deletion": true}"#),
        ],
    );
    let mut single = register_for(&cordelia, r#"["delete_message"]"#);
    let id = send_to_channel(&iago, "Verona", &unique("edit"), "before", &[]);
    iago.patch(&format!("/messages/{id}"), &[("content", "after")]).success();
    let edit = bulk.wait_for("update_message", |e| e["type"] == "update_message" && e["message_id"] == id);
    assert!(edit["rendered_content"].as_str().unwrap_or_default().contains("after"), "{edit}");
    cordelia.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "smile")]).success();
    let reaction = bulk.wait_for("reaction", |e| e["type"] == "reaction" && e["message_id"] == id);
    assert_eq!(reaction["op"], "add");
    assert_eq!(reaction["user_id"], cordelia.user_id);
    iago.delete(&format!("/messages/{id}"), &[]).success();
    let deleted = bulk.wait_for("delete_message", |e| {
        e["type"] == "delete_message" && e["message_ids"].as_array().is_some_and(|ids| ids.iter().any(|x| *x == id))
    });
    assert!(deleted.get("message_id").is_none());
    let one = single.wait_for("delete_message", |e| e["type"] == "delete_message" && e["message_id"] == id);
    assert!(one.get("message_ids").is_none());
}

#[test]
fn subscription_add_and_remove_reach_the_subscriber() {
    let othello = Client::dev("othello@zulip.com");
    let mut queue = register_for(&othello, r#"["subscription"]"#);
    let name = unique("events-channel-");
    let subs = format!(r#"[{{"name": "{name}"}}]"#);
    othello.post("/users/me/subscriptions", &[("subscriptions", &subs)]).success();
    let add = queue.wait_for("subscription add", |e| e["type"] == "subscription" && e["op"] == "add");
    assert!(add["subscriptions"].as_array().unwrap().iter().any(|s| s["name"] == name.as_str()), "{add}");
    let names = format!(r#"["{name}"]"#);
    othello.delete("/users/me/subscriptions", &[("subscriptions", &names)]).success();
    let remove = queue.wait_for("subscription remove", |e| e["type"] == "subscription" && e["op"] == "remove");
    assert!(remove["subscriptions"].as_array().unwrap().iter().any(|s| s["name"] == name.as_str()), "{remove}");
}

#[test]
fn user_topic_event_reaches_the_user() {
    let prospero = Client::dev("prospero@zulip.com");
    let channel = prospero
        .post("/register", &[("fetch_event_types", r#"["subscription"]"#), ("event_types", r#"["realm_emoji"]"#)])
        .success()["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Verona")
        .unwrap()["stream_id"]
        .as_i64()
        .unwrap();
    let mut queue = register_for(&prospero, r#"["user_topic"]"#);
    let topic = unique("muted ");
    prospero.post("/user_topics", &[("stream_id", &channel.to_string()), ("topic", &topic), ("visibility_policy", "1")]).success();
    let event = queue.wait_for("user_topic", |e| e["type"] == "user_topic" && e["topic_name"] == topic.as_str());
    assert_eq!(event["visibility_policy"], 1);
    assert_eq!(event["stream_id"], channel);
}

#[test]
fn realm_update_dict_reaches_every_user() {
    let desdemona = Client::dev("desdemona@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, r#"["realm"]"#);
    let current = desdemona.post("/register", &[("fetch_event_types", r#"["realm"]"#), ("event_types", r#"["realm_emoji"]"#)]).success();
    let limit = current["realm_message_content_edit_limit_seconds"].clone();
    desdemona.patch("/realm", &[("message_content_edit_limit_seconds", &limit.to_string())]).success();
    let event = queue.wait_for("realm update_dict", |e| e["type"] == "realm" && e["op"] == "update_dict");
    assert!(event["data"].is_object(), "{event}");
}

#[test]
fn register_state_reflects_unread_messages() {
    let iago = Client::dev("iago@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let topic = unique("unread ");
    let id = send_to_channel(&iago, "Verona", &topic, "read me", &[]);
    let state = othello.post("/register", &[("fetch_event_types", r#"["message", "update_message_flags"]"#)]).success();
    assert!(state["max_message_id"].as_i64().unwrap() >= id);
    let streams = state["unread_msgs"]["streams"].as_array().unwrap();
    let entry = streams.iter().find(|s| s["topic"] == topic.as_str()).unwrap_or_else(|| panic!("{streams:?}"));
    assert!(entry["unread_message_ids"].as_array().unwrap().iter().any(|x| *x == id));
    let to = format!("[{}]", othello.user_id);
    let dm = iago.post("/messages", &[("type", "direct"), ("to", &to), ("content", "hi")]).success()["id"].as_i64().unwrap();
    let state = othello
        .post("/register", &[("fetch_event_types", r#"["message", "update_message_flags", "recent_private_conversations"]"#)])
        .success();
    let pms = state["unread_msgs"]["pms"].as_array().unwrap();
    assert!(
        pms.iter().any(|p| p["other_user_id"] == iago.user_id && p["unread_message_ids"].as_array().unwrap().iter().any(|x| *x == dm)),
        "{pms:?}"
    );
    let recent = state["recent_private_conversations"].as_array().unwrap();
    assert!(
        recent.iter().any(|c| c["user_ids"] == serde_json::json!([iago.user_id]) && c["max_message_id"].as_i64().unwrap() >= dm),
        "{recent:?}"
    );
}

#[test]
fn message_flag_updates_reach_the_user() {
    let iago = Client::dev("iago@zulip.com");
    let shiva = Client::dev("shiva@zulip.com");
    let id = send_to_channel(&iago, "Denmark", &unique("star"), "star me", &[]);
    let mut queue = register_for(&shiva, r#"["update_message_flags"]"#);
    let ids = format!("[{id}]");
    shiva.post("/messages/flags", &[("messages", &ids), ("op", "add"), ("flag", "starred")]).success();
    let event = queue.wait_for("update_message_flags", |e| {
        e["type"] == "update_message_flags" && e["messages"].as_array().is_some_and(|m| m.iter().any(|x| *x == id))
    });
    assert_eq!(event["flag"], "starred");
    assert_eq!(event["op"], "add");
}

#[test]
fn user_group_creation_reaches_the_organization() {
    let iago = Client::dev("iago@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mut queue = register_for(&othello, r#"["user_group"]"#);
    let name = unique("events group ");
    let members = format!("[{}]", othello.user_id);
    iago.post("/user_groups/create", &[("name", &name), ("description", "for events"), ("members", &members)]).success();
    let event = queue.wait_for("user_group add", |e| e["type"] == "user_group" && e["op"] == "add" && e["group"]["name"] == name.as_str());
    assert_eq!(event["group"]["members"], serde_json::json!([othello.user_id]));
}
