//! Exactly-once delivery across a restart: this test runs its own `wrangler dev` on its own
//! `--persist-to` state, schedules a message, stops the server before the message is due,
//! restarts it on the same state after the due time, and checks the message arrives once.

mod common;
mod server_support;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::*;
use serde_json::{json, Value};
use server_support::{own_server_address, Server};

/// The shared test server's queue timeouts.
const VARS: &[&str] = &["EVENT_QUEUE_IDLE_TIMEOUT_SECS:6", "EVENT_QUEUE_HEARTBEAT_SECS:3"];

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

fn delivered(client: &Client, marker: &str) -> Vec<Value> {
    let narrow = json!([{"operator": "search", "operand": marker}]).to_string();
    let body = client.get("/messages", &[("anchor", "newest"), ("num_before", "20"), ("num_after", "0"), ("narrow", &narrow)]).success();
    body["messages"].as_array().unwrap().iter().filter(|m| m["content"].as_str().unwrap_or("").contains(marker)).cloned().collect()
}

#[test]
fn a_message_due_while_the_server_is_down_is_delivered_exactly_once_after_restart() {
    let (state, port) = own_server_address();

    let server = Server::start(&state, port, VARS);
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let marker = unique("restartonce");
    let to = format!("[{}]", othello.user_id);
    let due = now() + 6;
    hamlet
        .post(
            "/scheduled_messages",
            &[
                ("type", "direct"),
                ("to", &to),
                ("content", &format!("{marker} across a restart")),
                ("scheduled_delivery_timestamp", &due.to_string()),
            ],
        )
        .success();
    server.stop();

    // Down past the due time, then up again on the same state.
    while now() < due + 2 {
        std::thread::sleep(Duration::from_millis(500));
    }
    let server = Server::start(&state, port, VARS);
    let deadline = Instant::now() + Duration::from_secs(60);
    while delivered(&othello, &marker).is_empty() {
        assert!(Instant::now() < deadline, "the scheduled message was not delivered after the restart");
        std::thread::sleep(Duration::from_millis(500));
    }
    // A second restart right after delivery must not send it again.
    server.stop();
    let server = Server::start(&state, port, VARS);
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(delivered(&othello, &marker).len(), 1, "delivered exactly once");
    assert_eq!(delivered(&hamlet, &marker).len(), 1);
    let pending = hamlet.get("/scheduled_messages", &[]).success();
    assert!(pending["scheduled_messages"].as_array().unwrap().is_empty(), "{pending}");
    server.stop();
    let _ = std::fs::remove_dir_all(&state);
}
