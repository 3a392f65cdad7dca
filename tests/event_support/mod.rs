//! Event-queue helpers for the end-to-end tests: register a queue, poll it, wait for an
//! event matching a predicate.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Client, Resp};

pub struct Queue {
    pub client: Client,
    pub queue_id: String,
    pub last_event_id: i64,
    pub register: Value,
    /// Events a poll returned after the one a wait stopped at: the next wait sees them first.
    unseen: VecDeque<Value>,
}

/// Registers a queue for `client` with extra parameters.
pub fn register(client: &Client, params: &[(&str, &str)]) -> Queue {
    let body = client.post("/register", params).success();
    Queue {
        client: client.clone(),
        queue_id: body["queue_id"].as_str().expect("queue_id").to_string(),
        last_event_id: body["last_event_id"].as_i64().expect("last_event_id"),
        register: body,
        unseen: VecDeque::new(),
    }
}

/// Zulip's message for a queue id that names no live queue of the caller.
pub fn bad_queue_msg(queue_id: &str) -> String {
    format!("Bad event queue ID: {queue_id}")
}

/// Matches the `message` event of message `id`.
pub fn message_with_id(id: i64) -> impl Fn(&Value) -> bool {
    move |e: &Value| e["type"] == "message" && e["message"]["id"] == id
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

    /// Polls once; remembers the newest id. Events a wait left unseen come first, without
    /// a request.
    pub fn poll(&mut self, dont_block: bool) -> Vec<Value> {
        if !self.unseen.is_empty() {
            return self.unseen.drain(..).collect();
        }
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
            let mut batch = VecDeque::from(self.poll(false));
            while let Some(event) = batch.pop_front() {
                if pred(&event) {
                    self.unseen.extend(batch);
                    return event;
                }
            }
        }
        panic!("no {what} event within 30 s on queue {}", self.queue_id);
    }

    /// Polls (blocking) until an event matching `last` arrives; answers every event up to and
    /// including it.
    #[track_caller]
    pub fn events_until(&mut self, what: &str, last: impl Fn(&Value) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        while Instant::now() < deadline {
            let mut batch = VecDeque::from(self.poll(false));
            while let Some(event) = batch.pop_front() {
                let done = last(&event);
                seen.push(event);
                if done {
                    self.unseen.extend(batch);
                    return seen;
                }
            }
        }
        panic!("no {what} event within 30 s on queue {}; saw {seen:?}", self.queue_id);
    }

    /// Every event that reached the queue before a sentinel: a direct message with a unique
    /// marker from the queue's owner to themselves, sent now. The organization's hub orders
    /// all its events, so whatever an earlier request caused arrives before the sentinel:
    /// an event missing from the answer was never sent. The queue must take `message` events.
    #[track_caller]
    pub fn events_before_sentinel(&mut self) -> Vec<Value> {
        let marker = crate::common::unique("sentinel");
        let to = format!("[{}]", self.client.user_id);
        self.client.post("/messages", &[("type", "direct"), ("to", &to), ("content", &marker)]).success();
        let is_sentinel = |e: &Value| e["type"] == "message" && e["message"]["content"].as_str().is_some_and(|c| c.contains(&marker));
        let mut seen = self.events_until("sentinel message", is_sentinel);
        seen.pop();
        seen
    }

    pub fn delete(&self) -> Resp {
        self.client.delete("/events", &[("queue_id", &self.queue_id)])
    }
}
