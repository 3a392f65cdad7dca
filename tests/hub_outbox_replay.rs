//! The hub's outbox: a send answers once its event is stored in the hub, and a delivery
//! that its shard refused through every retry is replayed by the hub's alarm. (Its own
//! binary: the test points every request at a server of its own.)

mod common;
mod event_support;
mod server_support;

use std::time::{Duration, Instant};

use common::*;
use event_support::*;
use server_support::*;

/// The hub answers once the event is in its outbox; a delivery its shard refused through
/// every retry stays there, and the hub's alarm hands it on later.
#[test]
fn an_event_its_shard_refused_through_every_retry_arrives_by_the_hubs_replay() {
    let (state, port) = own_server_address();
    // The hub tries a delivery 4 times (`protocol::ATTEMPTS`): the first event's all fail.
    // The hub holds no queue itself, so every delivery crosses to a shard.
    let server =
        Server::start(&state, port, &["EVENT_QUEUE_SHARD_FAULT_FIRST:4", "EVENT_QUEUES_IN_HUB:0", "EVENT_QUEUE_IDLE_TIMEOUT_SECS:600"]);

    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, r#"["message"]"#);
    let sent = hamlet
        .post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", "replay"), ("content", "refused at first")])
        .success()["id"]
        .as_i64()
        .unwrap();
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !seen.contains(&sent) {
        assert!(Instant::now() < deadline, "the refused event never arrived");
        seen.extend(queue.poll(false).iter().filter(|e| e["type"] == "message").map(|e| e["message"]["id"].as_i64().unwrap()));
    }
    assert_eq!(seen, vec![sent], "the event arrived once");
    server.stop();
    let logs = server_logs(&state);
    assert!(logs.contains("the alarm replays it"), "every retry failed and the alarm took over:\n{logs}");
    let _ = std::fs::remove_dir_all(&state);
}
