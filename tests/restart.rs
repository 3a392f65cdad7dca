//! The runtime dies while clients hold event queues and messages are being sent, and
//! starts again on the same state: every message answered with success exists exactly
//! once, every queue resumes from its `last_event_id` with nothing lost or repeated, and a
//! deleted queue stays deleted.

mod common;
mod event_support;
mod server_support;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use common::*;
use event_support::*;
use serde_json::{json, Value};
use server_support::*;

/// Queues must outlive the restart (the shared test server expires them after 20 s).
const VARS: &[&str] = &["EVENT_QUEUE_IDLE_TIMEOUT_SECS:600", "EVENT_QUEUE_HEARTBEAT_SECS:3"];

/// One `POST /messages` that never panics: `Some(id)` only when the server answered success.
fn try_send(url: &str, client: &Client, content: &str) -> Option<i64> {
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", client.email, client.api_key));
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(10)).build();
    let resp = agent
        .post(&format!("{url}/api/v1/messages"))
        .set("Authorization", &format!("Basic {token}"))
        .send_form(&[("type", "stream"), ("to", "Verona"), ("topic", "restart"), ("content", content)])
        .ok()?;
    let body: Value = serde_json::from_str(&resp.into_string().ok()?).ok()?;
    body["id"].as_i64()
}

fn copies(client: &Client, marker: &str) -> usize {
    let narrow = json!([{"operator": "search", "operand": marker}]).to_string();
    let body = client.get("/messages", &[("anchor", "newest"), ("num_before", "5"), ("num_after", "0"), ("narrow", &narrow)]).success();
    body["messages"].as_array().unwrap().iter().filter(|m| m["content"].as_str().unwrap_or("").contains(marker)).count()
}

/// Polls a queue until every id in `expected` arrived; answers every message id seen, in order.
fn drain(queue: &mut Queue, expected: &HashSet<i64>) -> Vec<i64> {
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !expected.iter().all(|id| seen.contains(id)) {
        assert!(
            Instant::now() < deadline,
            "events missing after the restart: {:?}",
            expected.iter().filter(|id| !seen.contains(id)).collect::<Vec<_>>()
        );
        for event in queue.poll(false) {
            if event["type"] == "message" {
                seen.push(event["message"]["id"].as_i64().unwrap());
            }
        }
    }
    seen
}

#[test]
fn a_crash_during_sends_loses_no_accepted_message_and_no_event() {
    let (state, port) = own_server_address();
    let url = format!("http://127.0.0.1:{port}");
    let server = Server::start(&state, port, VARS);

    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mut hamlet_queue = register_for(&hamlet, r#"["message"]"#);
    let mut othello_queue = register_for(&othello, r#"["message"]"#);
    let deleted = register_for(&othello, r#"["message"]"#);
    deleted.delete().success();

    // A sender that keeps going through the crash; it records what was answered success.
    let accepted: Arc<Mutex<HashMap<i64, String>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let sender = {
        let (accepted, stop, url, hamlet) = (accepted.clone(), stop.clone(), url.clone(), hamlet.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let marker = unique("crashmarker");
                if let Some(id) = try_send(&url, &hamlet, &format!("{marker} number {n}")) {
                    accepted.lock().unwrap().insert(id, marker);
                }
                n += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while accepted.lock().unwrap().len() < 10 {
        assert!(Instant::now() < deadline, "no sends were accepted");
        std::thread::sleep(Duration::from_millis(50));
    }
    server.kill();
    let before_crash = accepted.lock().unwrap().len();
    let server = Server::start(&state, port, VARS);
    let deadline = Instant::now() + Duration::from_secs(60);
    while accepted.lock().unwrap().len() < before_crash + 10 {
        assert!(Instant::now() < deadline, "no sends were accepted after the restart");
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    sender.join().unwrap();

    let accepted = accepted.lock().unwrap().clone();
    for marker in accepted.values() {
        assert_eq!(copies(&othello, marker), 1, "message {marker} answered success must exist exactly once");
    }
    let ids: HashSet<i64> = accepted.keys().copied().collect();
    for queue in [&mut hamlet_queue, &mut othello_queue] {
        let seen = drain(queue, &ids);
        let unique_ids: HashSet<i64> = seen.iter().copied().collect();
        assert_eq!(unique_ids.len(), seen.len(), "no event is delivered twice: {seen:?}");
    }
    deleted.get(true).bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(&deleted.queue_id));
    server.stop();
    let _ = std::fs::remove_dir_all(&state);
}
