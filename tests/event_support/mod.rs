//! Event-queue helpers for the end-to-end tests: register a queue, poll it, wait for an
//! event matching a predicate.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Client, Resp};

pub struct Queue {
    pub client: Client,
    pub queue_id: String,
    pub last_event_id: i64,
    pub register: Value,
}

/// Registers a queue for `client` with extra parameters.
pub fn register(client: &Client, params: &[(&str, &str)]) -> Queue {
    let body = client.post("/register", params).success();
    Queue {
        client: client.clone(),
        queue_id: body["queue_id"].as_str().expect("queue_id").to_string(),
        last_event_id: body["last_event_id"].as_i64().expect("last_event_id"),
        register: body,
    }
}

/// Zulip's message for a queue id that names no live queue of the caller.
pub fn bad_queue_msg(queue_id: &str) -> String {
    format!("Bad event queue ID: {queue_id}")
}

/// Registers a queue for these event types only.
pub fn register_for(client: &Client, event_types: &str) -> Queue {
    register(client, &[("event_types", event_types)])
}

impl Queue {
    /// One `GET /events` acknowledging what was seen so far.
    pub fn get(&self, dont_block: bool) -> Resp {
        let last = self.last_event_id.to_string();
        let block = if dont_block { "true" } else { "false" };
        self.client.get("/events", &[("queue_id", &self.queue_id), ("last_event_id", &last), ("dont_block", block)])
    }

    /// Polls once; remembers the newest id.
    pub fn poll(&mut self, dont_block: bool) -> Vec<Value> {
        let body = self.get(dont_block).success();
        let events = body["events"].as_array().cloned().unwrap_or_default();
        for event in &events {
            let id = event["id"].as_i64().expect("every event has an integer id");
            assert!(id > self.last_event_id, "ids increase: {id} after {}", self.last_event_id);
            self.last_event_id = id;
        }
        events
    }

    /// Polls (blocking) until an event matching `pred` arrives; answers it.
    #[track_caller]
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            for event in self.poll(false) {
                if pred(&event) {
                    return event;
                }
            }
        }
        panic!("no {what} event within 30 s on queue {}", self.queue_id);
    }

    /// Every event matching `pred` among those that arrive until a quiet non-blocking poll
    /// after `settle`.
    pub fn collect(&mut self, settle: Duration, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        std::thread::sleep(settle);
        let mut out = Vec::new();
        loop {
            let events = self.poll(true);
            if events.is_empty() {
                return out;
            }
            out.extend(events.into_iter().filter(|e| pred(e)));
        }
    }

    pub fn delete(&self) -> Resp {
        self.client.delete("/events", &[("queue_id", &self.queue_id)])
    }
}
