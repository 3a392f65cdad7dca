//! A failing event-queue shard loses no event: the hub retries a failed delivery (and the
//! worker a failed dispatch), and a repeated try stores the event once.

mod common;
mod event_support;
mod server_support;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use common::*;
use event_support::*;
use server_support::*;

#[test]
fn every_event_arrives_once_when_every_second_shard_delivery_fails() {
    let (state, port) = own_server_address();
    // The hub holds no queue itself, so every delivery crosses to a shard.
    let server =
        Server::start(&state, port, &["EVENT_QUEUE_SHARD_FAULT_EVERY:2", "EVENT_QUEUES_IN_HUB:0", "EVENT_QUEUE_IDLE_TIMEOUT_SECS:600"]);

    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mut queues = [register_for(&hamlet, r#"["message"]"#), register_for(&othello, r#"["message"]"#)];
    let mut sent = HashSet::new();
    for n in 0..10 {
        let body = hamlet
            .post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "faults"), ("content", &format!("fault {n}"))])
            .success();
        sent.insert(body["id"].as_i64().unwrap());
    }
    for queue in &mut queues {
        let mut seen = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !sent.iter().all(|id| seen.contains(id)) {
            assert!(Instant::now() < deadline, "lost events: {:?}", sent.iter().filter(|id| !seen.contains(id)).collect::<Vec<_>>());
            seen.extend(queue.poll(false).iter().filter(|e| e["type"] == "message").map(|e| e["message"]["id"].as_i64().unwrap()));
        }
        let distinct: HashSet<i64> = seen.iter().copied().collect();
        assert_eq!(distinct.len(), seen.len(), "an event was stored twice: {seen:?}");
    }
    server.stop();
    let logs = server_logs(&state);
    assert!(logs.contains("retrying after"), "the injected faults fired and were retried:\n{logs}");
    let _ = std::fs::remove_dir_all(&state);
}
