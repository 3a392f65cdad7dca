//! Where a queue lives: the hub holds an organization's first queues itself, shards the
//! rest, and an event reaches every queue alike wherever it lives. (Its own binary: the
//! test points every request at a server of its own, with one queue per home.)

mod common;
mod event_support;
mod server_support;

use std::time::{Duration, Instant};

use common::*;
use event_support::*;
use server_support::*;

#[test]
fn events_reach_queues_in_the_hub_and_in_shards_alike_in_one_order() {
    let (state, port) = own_server_address();
    let server = Server::start(&state, port, &["EVENT_QUEUES_IN_HUB:1", "EVENT_QUEUES_PER_SHARD:1", "EVENT_QUEUE_IDLE_TIMEOUT_SECS:600"]);

    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queues: Vec<Queue> = (0..3).map(|_| register_for(&hamlet, r#"["message"]"#)).collect();
    let homes: Vec<&str> = queues.iter().map(|q| q.queue_id.split(':').next().unwrap()).collect();
    assert_eq!(homes, ["h", "0", "1"], "the hub fills first, then shards open in order");

    let sent: Vec<i64> = (0..5)
        .map(|n| {
            hamlet
                .post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "homes"), ("content", &format!("home {n}"))])
                .success()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    for queue in &mut queues {
        let mut seen = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        while seen.len() < sent.len() {
            assert!(Instant::now() < deadline, "queue {} saw only {seen:?} of {sent:?}", queue.queue_id);
            seen.extend(queue.poll(false).iter().filter(|e| e["type"] == "message").map(|e| e["message"]["id"].as_i64().unwrap()));
        }
        assert_eq!(seen, sent, "queue {} got every message once, in the order sent", queue.queue_id);
    }
    for queue in &queues {
        queue.delete().success();
        // Gone from its home: polling it is a bad queue id.
        queue.get(true).bad_request("BAD_EVENT_QUEUE_ID", &bad_queue_msg(&queue.queue_id));
    }
    server.stop();
    let _ = std::fs::remove_dir_all(&state);
}
