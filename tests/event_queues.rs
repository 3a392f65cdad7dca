//! Event queues: `POST /register`, `GET /events`, `DELETE /events`.

mod common;
mod event_support;

use std::thread;
use std::time::{Duration, Instant};

use common::{new_dev_member, Client};
use event_support::{bad_queue_msg, register_for, Queue};
use serde_json::{json, Value};

fn typing_to(sender: &Client, to: &[i64], op: &str) {
    let to = serde_json::to_string(to).unwrap();
    sender.post("/typing", &[("op", op), ("to", &to)]).success();
}

fn from(event: &Value, sender: &Client) -> bool {
    event["type"] == "typing" && event["sender"]["user_id"] == sender.user_id
}

#[test]
fn register_answers_queue_versions_and_limits() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.post("/register", &[("client_capabilities", r#"{"user_settings_object": true}"#)]).success();
    assert!(body["queue_id"].is_string());
    assert_eq!(body["last_event_id"], -1);
    assert!(body["zulip_feature_level"].as_i64().unwrap() >= 277);
    assert!(body["zulip_version"].is_string() && body["zulip_merge_base"].is_string());
    assert!(body["event_queue_longpoll_timeout_seconds"].as_i64().unwrap() > 0);
    for limit in [
        "max_message_length",
        "max_topic_length",
        "max_channel_folder_name_length",
        "max_channel_folder_description_length",
        "max_file_upload_size_mib",
        "server_typing_started_wait_period_milliseconds",
        "server_typing_stopped_wait_period_milliseconds",
        "server_typing_started_expiry_period_milliseconds",
    ] {
        assert!(body[limit].as_i64().unwrap() > 0, "{limit}: {}", body[limit]);
    }
    assert_eq!(body["realm_empty_topic_display_name"], "general chat");
    assert!(body["realm_users"].as_array().unwrap().iter().any(|u| u["email"] == "hamlet@zulip.com"));
    assert!(body["unread_msgs"]["count"].is_number());
    assert!(body["user_settings"].is_object());
    assert!(body["subscriptions"].as_array().unwrap().iter().any(|s| s["name"] == "Verona"));
    assert_eq!(body["user_id"], hamlet.user_id);
    common::assert_matches_openapi("post", "/register", &body);
}

#[test]
fn register_response_validates_against_zulip_openapi() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet
        .post(
            "/register",
            &[
                ("client_capabilities", r#"{"notification_settings_null": true, "user_settings_object": true, "empty_topic_name": true}"#),
                ("include_subscribers", "true"),
            ],
        )
        .success();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/validate_register.py");
    let mut child = std::process::Command::new("python3")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    common::assert_matches_openapi("post", "/register", &body);
    use std::io::Write;
    child.stdin.take().unwrap().write_all(body.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

#[test]
fn fetch_event_types_limits_the_initial_state() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.post("/register", &[("fetch_event_types", r#"["realm_user"]"#)]).success();
    assert!(body["realm_users"].is_array());
    assert!(body.get("subscriptions").is_none());
    assert!(body.get("unread_msgs").is_none());
    assert!(body["queue_id"].is_string());
}

#[test]
fn long_poll_is_woken_by_another_users_event() {
    // A receiver no other test of this file sends typing notices to.
    let receiver = Client::dev("polonius@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let queue = register_for(&receiver, r#"["typing"]"#);
    let (qid, last) = (queue.queue_id.clone(), queue.last_event_id.to_string());
    let waiter = thread::spawn(move || {
        let started = Instant::now();
        let body = receiver.get("/events", &[("queue_id", &qid), ("last_event_id", &last)]).success();
        (body, started.elapsed())
    });
    thread::sleep(Duration::from_millis(700));
    typing_to(&hamlet, &[queue.client.user_id], "start");
    let (body, elapsed) = waiter.join().unwrap();
    let events = body["events"].as_array().unwrap();
    assert!(events.iter().any(|e| from(e, &hamlet) && e["op"] == "start"), "{body}");
    assert!(elapsed < Duration::from_secs(3), "answered by the event, not the heartbeat: {elapsed:?}");
}

#[test]
fn idle_long_poll_answers_a_heartbeat_with_a_new_id() {
    let othello = Client::dev("othello@zulip.com");
    let mut queue = register_for(&othello, r#"["realm_emoji"]"#);
    let first = queue.poll(false);
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0]["type"], "heartbeat");
    let first_id = first[0]["id"].as_i64().unwrap();
    assert!(first_id > -1);
    let second = queue.poll(false);
    assert_eq!(second[0]["type"], "heartbeat");
    assert!(second[0]["id"].as_i64().unwrap() > first_id);
}

#[test]
fn dont_block_answers_at_once() {
    let iago = Client::dev("iago@zulip.com");
    let queue = register_for(&iago, r#"["realm_emoji"]"#);
    let started = Instant::now();
    let body = queue.get(true).success();
    assert_eq!(body["events"], json!([]));
    assert_eq!(body["queue_id"], queue.queue_id);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn last_event_id_prunes_acknowledged_events() {
    let prospero = Client::dev("prospero@zulip.com");
    let shiva = Client::dev("shiva@zulip.com");
    let mut queue = register_for(&prospero, r#"["typing"]"#);
    typing_to(&shiva, &[prospero.user_id], "start");
    typing_to(&shiva, &[prospero.user_id], "stop");
    let all: Vec<Value> = queue.get(true).success()["events"].as_array().unwrap().clone();
    let mine: Vec<&Value> = all.iter().filter(|e| from(e, &shiva)).collect();
    assert!(mine.len() >= 2, "{all:?}");
    let first_id = all[0]["id"].as_i64().unwrap();
    // Acknowledge the first event: it is gone, also for a client that asks from the start.
    queue.last_event_id = first_id;
    let after = queue.get(true).success();
    assert!(after["events"].as_array().unwrap().iter().all(|e| e["id"].as_i64().unwrap() > first_id));
    let from_start = prospero.get("/events", &[("queue_id", &queue.queue_id), ("last_event_id", "-1"), ("dont_block", "true")]).success();
    let ids: Vec<i64> = from_start["events"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert!(!ids.contains(&first_id), "{ids:?}");
    assert_eq!(ids.len(), all.len() - 1);
}

#[test]
fn deleted_queue_is_bad_event_queue_id_and_second_delete_too() {
    let desdemona = Client::dev("desdemona@zulip.com");
    let queue = register_for(&desdemona, r#"["typing"]"#);
    queue.delete().success();
    let body = queue.delete().bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(&queue.queue_id));
    assert_eq!(body["queue_id"], queue.queue_id.as_str());
    let body = queue.get(true).bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(&queue.queue_id));
    assert_eq!(body["queue_id"], queue.queue_id.as_str());
}

#[test]
fn unknown_queue_ids_are_bad_event_queue_id() {
    let hamlet = Client::dev("hamlet@zulip.com");
    for queue_id in ["0:doesnotexist", "not-a-queue"] {
        let body = hamlet
            .get("/events", &[("queue_id", queue_id), ("dont_block", "true")])
            .bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(queue_id));
        assert_eq!(body["queue_id"], queue_id);
        hamlet.delete("/events", &[("queue_id", queue_id)]).bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(queue_id));
    }
    hamlet.delete("/events", &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'queue_id' argument");
}

#[test]
fn delete_ends_a_pending_long_poll() {
    let shiva = Client::dev("shiva@zulip.com");
    let queue = register_for(&shiva, r#"["realm_emoji"]"#);
    let (qid, client) = (queue.queue_id.clone(), shiva.clone());
    let waiter = thread::spawn(move || client.get("/events", &[("queue_id", &qid), ("last_event_id", "-1")]));
    thread::sleep(Duration::from_millis(700));
    queue.delete().success();
    // Ended by the delete: the heartbeat would have answered the poll with success.
    waiter.join().unwrap().bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(&queue.queue_id));
    // Nothing reaches a deleted queue.
    typing_to(&Client::dev("iago@zulip.com"), &[shiva.user_id], "start");
    queue.get(true).bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(&queue.queue_id));
}

#[test]
fn another_users_queue_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let queue = register_for(&hamlet, r#"["typing"]"#);
    othello
        .get("/events", &[("queue_id", &queue.queue_id), ("dont_block", "true")])
        .bad_request("BAD_REQUEST", "You are not authorized to get events from this queue");
    othello
        .delete("/events", &[("queue_id", &queue.queue_id)])
        .bad_request("BAD_REQUEST", "You are not authorized to get events from this queue");
    queue.get(true).success();
}

#[test]
fn idle_queue_expires() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let queue = register_for(&cordelia, r#"["realm_emoji"]"#);
    // The test server's idle timeout is 20 s (time enough for a test's requests between
    // polls on a loaded machine); the shard's alarm collects the queue.
    let deadline = Instant::now() + Duration::from_secs(75);
    thread::sleep(Duration::from_secs(23));
    loop {
        let resp = queue.get(true);
        if resp.status == 400 {
            let body = resp.bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(&queue.queue_id));
            assert_eq!(body["queue_id"], queue.queue_id.as_str());
            break;
        }
        assert!(Instant::now() < deadline, "queue did not expire");
        // A poll keeps a queue alive, so wait a whole timeout between checks.
        thread::sleep(Duration::from_secs(21));
    }
    queue.delete().bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(&queue.queue_id));
}

#[test]
fn polled_queue_does_not_expire() {
    let prospero = Client::dev("prospero@zulip.com");
    let mut queue = register_for(&prospero, r#"["realm_emoji"]"#);
    let until = Instant::now() + Duration::from_secs(25);
    while Instant::now() < until {
        queue.poll(false);
    }
    queue.get(true).success();
}

#[test]
fn two_queues_see_concurrent_senders_in_one_order() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let mut q1 = register_for(&cordelia, r#"["typing", "message"]"#);
    let mut q2 = register_for(&iago, r#"["typing", "message"]"#);
    let to = [cordelia.user_id, iago.user_id];
    let senders: Vec<_> = [hamlet.clone(), othello.clone()]
        .into_iter()
        .map(|sender| {
            thread::spawn(move || {
                for i in 0..15 {
                    typing_to(&sender, &to, if i % 2 == 0 { "start" } else { "stop" });
                }
            })
        })
        .collect();
    for s in senders {
        s.join().unwrap();
    }
    // Only this test's notices: other tests send hamlet's typing to cordelia alone.
    let to_both = |e: &Value| {
        let ids: Vec<i64> =
            e["recipients"].as_array().map(|r| r.iter().filter_map(|u| u["user_id"].as_i64()).collect()).unwrap_or_default();
        ids.contains(&cordelia.user_id) && ids.contains(&iago.user_id)
    };
    let pick = |e: &Value| (from(e, &hamlet) || from(e, &othello)) && to_both(e);
    let key = |events: Vec<Value>| -> Vec<(i64, String)> {
        events.iter().map(|e| (e["sender"]["user_id"].as_i64().unwrap(), e["op"].as_str().unwrap().to_string())).collect()
    };
    let seen1 = key(q1.events_before_sentinel().into_iter().filter(pick).collect());
    let seen2 = key(q2.events_before_sentinel().into_iter().filter(pick).collect());
    assert_eq!(seen1.len(), 30, "{seen1:?}");
    assert_eq!(seen1, seen2);
}

#[test]
fn organizations_are_isolated() {
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    let hamlet = Client::dev("hamlet@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let lear_queue = register_for(&king, r#"["typing"]"#);
    let zulip_queue = register_for(&hamlet, r#"["typing"]"#);
    // A queue of one organization does not exist in the other.
    hamlet
        .get("/events", &[("queue_id", &lear_queue.queue_id), ("dont_block", "true")])
        .bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(&lear_queue.queue_id));
    king.get("/events", &[("queue_id", &zulip_queue.queue_id), ("dont_block", "true")])
        .bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(&zulip_queue.queue_id));
    // Users of the other organization are not valid recipients, and events stay home.
    let to = serde_json::to_string(&[king.user_id]).unwrap();
    let resp = cordelia.post("/typing", &[("op", "start"), ("to", &to)]);
    if resp.status == 200 {
        panic!("a user of another organization was accepted: {:?}", resp.body);
    }
    resp.bad_request("BAD_REQUEST", "Invalid user ID 1000000000001");
    typing_to(&cordelia, &[hamlet.user_id], "start");
    let mut zq = zulip_queue;
    zq.wait_for("typing from cordelia", |e| from(e, &cordelia));
    let lear_events = lear_queue.get(true).success();
    assert!(lear_events["events"].as_array().unwrap().iter().all(|e| !from(e, &cordelia)));
}

#[test]
fn queue_ids_route_to_many_queues_of_one_user() {
    let desdemona = Client::dev("desdemona@zulip.com");
    let shiva = Client::dev("shiva@zulip.com");
    let mut queues: Vec<Queue> = (0..5).map(|_| register_for(&desdemona, r#"["typing"]"#)).collect();
    typing_to(&shiva, &[desdemona.user_id], "start");
    for q in &mut queues {
        q.wait_for("typing from shiva", |e| from(e, &shiva));
    }
}

#[test]
fn empty_fetch_event_types_answers_only_the_queue() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.post("/register", &[("event_types", r#"["message"]"#), ("fetch_event_types", "[]")]).success();
    assert!(body["queue_id"].is_string());
    assert!(body.get("realm_users").is_none() && body.get("max_message_id").is_none());
    assert!(body["zulip_feature_level"].is_number());
}

#[test]
fn a_user_deactivated_since_their_last_register_is_refused_with_or_without_state() {
    let iago = Client::dev("iago@zulip.com");
    let user = new_dev_member("regoff", "Reg Off");
    // The server now knows whose key this is, and registers the next queue before checking it.
    user.post("/register", &[]).success();
    iago.delete(&format!("/users/{}", user.user_id), &[]).success();
    user.post("/register", &[]).error(401, "USER_DEACTIVATED", "Account is deactivated");
    user.post("/register", &[("event_types", r#"["message"]"#), ("fetch_event_types", "[]")]).error(
        401,
        "USER_DEACTIVATED",
        "Account is deactivated",
    );
}
