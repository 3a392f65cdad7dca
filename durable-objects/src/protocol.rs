//! The messages exchanged by the worker, the `RealmHub` and the `EventQueueShard`s.
//!
//! Both objects take one typed command per request, the same way: a `POST` whose JSON body
//! is a [`HubCommand`] or a [`ShardCommand`] (tagged by `command`), built with
//! [`command_request`] and read with [`read_command`]. The answers:
//! - hub `register` -> [`Registered`]; `dispatch` -> 200 once stored (in the hub's queues
//!   and its outbox); `unregister`, `ping` -> 200; `poll` and `delete_queue` on a queue the
//!   hub holds answer as a shard's do
//! - shard `create_queue` -> 200; `deliver` -> [`Delivered`]; `poll` -> [`Polled`], or
//!   400/403 [`ShardError`]; `delete_queue` -> 200, or 400/403 [`ShardError`]
//! - shard `bench_*` (development only, `make bench`): the fan-out floor and the count of
//!   waiting polls.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The Durable Object bindings, as `wrangler.toml` names them.
pub mod bindings {
    pub const REALM_HUB: &str = "REALM_HUB";
    pub const EVENT_QUEUE_SHARD: &str = "EVENT_QUEUE_SHARD";
    pub const MESSAGE_SCHEDULER: &str = "MESSAGE_SCHEDULER";
    pub const RATE_LIMITER: &str = "RATE_LIMITER";
}

/// The `client_capabilities` of `POST /register` that change what a queue receives.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Capabilities {
    pub notification_settings_null: bool,
    pub bulk_message_deletion: bool,
    pub user_avatar_url_field_optional: bool,
    pub stream_typing_notifications: bool,
    pub user_settings_object: bool,
    pub empty_topic_name: bool,
    pub archived_channels: bool,
    pub include_deactivated_groups: bool,
}

impl Capabilities {
    /// A flag by its `client_capabilities` name (events gated on one name it, see
    /// `delivery::queue_wants`); unknown names are off.
    pub fn has(&self, name: &str) -> bool {
        match name {
            "archived_channels" => self.archived_channels,
            "include_deactivated_groups" => self.include_deactivated_groups,
            "empty_topic_name" => self.empty_topic_name,
            "bulk_message_deletion" => self.bulk_message_deletion,
            _ => false,
        }
    }
}

/// What a queue asked for at registration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueueSpec {
    pub realm_id: i64,
    pub user_id: i64,
    /// `None`: every event type.
    pub event_types: Option<Vec<String>>,
    /// Zulip narrow terms as `[operator, operand]` pairs; empty: no narrow.
    #[serde(default)]
    pub narrow: Vec<(String, String)>,
    #[serde(default)]
    pub all_public_streams: bool,
    pub apply_markdown: bool,
    pub client_gravatar: bool,
    #[serde(default)]
    pub capabilities: Capabilities,
    /// The organization's `realm_empty_topic_display_name`, shown to clients without the
    /// `empty_topic_name` capability in place of the empty topic.
    pub realm_empty_topic_display_name: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Registered {
    pub queue_id: String,
    pub last_event_id: i64,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Unregister {
    pub queue_ids: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct NewQueue {
    pub queue_id: String,
    pub spec: QueueSpec,
}

/// A user who may receive an event, with per-user data where the event has some.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EventUser {
    pub id: i64,
    /// Message events: this user's flags for the message (`read`, `mentioned`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<Vec<String>>,
}

impl EventUser {
    pub fn plain(id: i64) -> Self {
        EventUser { id, flags: None }
    }
}

/// What the hub receives from the worker: the event as Zulip sends it, without `id` (the
/// queue assigns it). The worker sends its typed event; the hub reads it as JSON.
#[derive(Debug, Serialize, Deserialize)]
pub struct Dispatch<E = Value> {
    /// Chosen by the sender once per event: a retried dispatch reuses the sequence number
    /// of the first try, so shards store it only once.
    #[serde(default)]
    pub dispatch_id: Option<String>,
    pub event: E,
    pub users: Vec<EventUser>,
    /// Every queue of the organization, in place of `users`'s: an organization-wide event
    /// needs no list of its users (no read of them before it is sent). A deactivated user's queues get it too; only its
    /// owner can read a queue, and authentication refuses a deactivated user.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub everyone: bool,
    /// Message events: the queue that sent the message and its `local_id`, so that queue
    /// alone gets `local_message_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_queue_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_id: Option<String>,
}

/// What the `RealmHub` does for one request.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum HubCommand<E = Value> {
    /// Create a queue in a shard with room and record it.
    Register(QueueSpec),
    /// Stamp an event with the organization's order and store it in its queues' shards.
    Dispatch(Dispatch<E>),
    /// Forget queues that a shard removed.
    Unregister(Unregister),
    /// Answer at once (`make bench`'s Durable Object round trip).
    Ping,
    /// `GET /events` on a queue the hub holds (as [`ShardCommand::Poll`]).
    Poll { queue_id: String, user_id: i64, last_event_id: Option<i64>, dont_block: bool },
    /// `DELETE /events` on a queue the hub holds.
    DeleteQueue { queue_id: String, user_id: i64 },
    /// Development only: how many `Poll`s wait in the hub.
    BenchWaitingPolls,
}

/// What an `EventQueueShard` does for one request.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum ShardCommand {
    CreateQueue(NewQueue),
    Deliver(Delivery),
    /// `GET /events`: acknowledge up to `last_event_id`, answer newer events or wait.
    Poll {
        queue_id: String,
        user_id: i64,
        last_event_id: Option<i64>,
        dont_block: bool,
    },
    DeleteQueue {
        queue_id: String,
        user_id: i64,
    },
    /// Development only: a bare long-poll held until `BenchWake`.
    BenchWait,
    /// Development only: how many bare long-polls wait.
    BenchWaiting,
    /// Development only: one storage write, then every bare long-poll answers.
    BenchWake,
    /// Development only: how many `Poll`s wait.
    BenchWaitingPolls,
}

/// The request carrying one command to a Durable Object (its URL is not read).
pub fn command_request<C: Serialize>(command: &C) -> worker::Result<worker::Request> {
    command_request_from_json(serde_json::to_string(command)?)
}

/// [`command_request`] for a command already serialized (a retried send reuses its body).
pub fn command_request_from_json(body: String) -> worker::Result<worker::Request> {
    let mut init = worker::RequestInit::new();
    init.with_method(worker::Method::Post).with_body(Some(body.into()));
    worker::Request::new_with_init("https://durable-object/command", &init)
}

/// The command of a request made by [`command_request`].
pub async fn read_command<C: serde::de::DeserializeOwned>(req: &mut worker::Request) -> worker::Result<C> {
    req.json().await
}

/// One target queue of a delivery.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Target {
    pub queue_id: String,
    #[serde(default)]
    pub flags: Option<Vec<String>>,
}

/// What the hub sends to one shard: one event for several of its queues.
#[derive(Debug, Serialize, Deserialize)]
pub struct Delivery {
    pub realm_id: i64,
    /// The organization's sequence number of this event: the order of all its events.
    pub seq: i64,
    pub event: Value,
    pub targets: Vec<Target>,
    #[serde(default)]
    pub sender_queue_id: Option<String>,
    #[serde(default)]
    pub local_id: Option<String>,
}

/// The shard's answer: target queues that no longer exist (expired or deleted).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Delivered {
    pub missing: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Polled {
    pub events: Vec<Value>,
}

/// A shard's refusal: `bad_queue` (unknown, deleted or expired) or `not_owner`.
#[derive(Debug, Serialize, Deserialize)]
pub struct ShardError {
    pub error: String,
}

/// Which object holds a queue: the organization's hub, or one of its shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum QueueHome {
    Hub,
    Shard(u32),
}

/// The part of a queue id before its `:` names its home: `h` the hub, a number its shard.
const HUB_PREFIX: &str = "h";

impl QueueHome {
    /// A new queue id in this home.
    pub fn queue_id(self, token: &str) -> String {
        match self {
            QueueHome::Hub => format!("{HUB_PREFIX}:{token}"),
            QueueHome::Shard(shard) => format!("{shard}:{token}"),
        }
    }
}

/// The home a queue id names (`h:<random>` or `<shard>:<random>`), which routes requests
/// on the queue.
pub fn home_of_queue_id(queue_id: &str) -> Option<QueueHome> {
    let (home, rest) = queue_id.split_once(':')?;
    if rest.is_empty() {
        return None;
    }
    if home == HUB_PREFIX {
        return Some(QueueHome::Hub);
    }
    home.parse().ok().map(QueueHome::Shard)
}

/// The name of a shard's Durable Object.
pub fn shard_name(realm_id: i64, shard: u32) -> String {
    format!("{realm_id}:{shard}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_tagged_by_name() {
        let poll = ShardCommand::Poll { queue_id: "0:a".into(), user_id: 3, last_event_id: None, dont_block: true };
        let json = serde_json::to_value(&poll).unwrap();
        assert_eq!(json["command"], "poll");
        assert!(matches!(serde_json::from_value(json).unwrap(), ShardCommand::Poll { user_id: 3, dont_block: true, .. }));
        let unregister = HubCommand::<Value>::Unregister(Unregister { queue_ids: vec!["0:a".into()] });
        let json = serde_json::to_value(&unregister).unwrap();
        assert_eq!(json, serde_json::json!({"command": "unregister", "queue_ids": ["0:a"]}));
        assert!(matches!(serde_json::from_value(json).unwrap(), HubCommand::<Value>::Unregister(_)));
        assert!(matches!(serde_json::from_str(r#"{"command": "ping"}"#).unwrap(), HubCommand::<Value>::Ping));
    }

    #[test]
    fn queue_ids_name_their_home() {
        assert_eq!(home_of_queue_id("3:abcdef"), Some(QueueHome::Shard(3)));
        assert_eq!(home_of_queue_id("h:abcdef"), Some(QueueHome::Hub));
        assert_eq!(home_of_queue_id(&QueueHome::Hub.queue_id("abc")), Some(QueueHome::Hub));
        assert_eq!(home_of_queue_id(&QueueHome::Shard(2).queue_id("abc")), Some(QueueHome::Shard(2)));
        assert_eq!(home_of_queue_id("abcdef"), None);
        assert_eq!(home_of_queue_id("x:abc"), None);
        assert_eq!(home_of_queue_id("3:"), None);
        assert_eq!(home_of_queue_id("h:"), None);
    }
}

/// How many times a request to another Durable Object is tried before its error counts.
pub const ATTEMPTS: u32 = 4;

/// Calls `attempt` until it succeeds, at most [`ATTEMPTS`] times, waiting 25, 100, 400 ms
/// between tries. Only for idempotent requests: a try whose answer was lost may have done
/// its work already.
pub async fn with_retries<T, F, Fut>(mut attempt: F) -> worker::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = worker::Result<T>>,
{
    let mut wait_ms = 25;
    let mut tries = 1;
    loop {
        match attempt().await {
            Ok(value) => return Ok(value),
            Err(err) if tries >= ATTEMPTS => return Err(err),
            Err(err) => {
                worker::console_warn!("retrying after: {err}");
                worker::Delay::from(std::time::Duration::from_millis(wait_ms)).await;
                wait_ms *= 4;
                tries += 1;
            }
        }
    }
}

/// Rate limiter `POST /check`: may one more request of this bucket go through?
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RateLimitCheck {
    /// Requests allowed in the window; 0 refuses every one.
    pub limit: u32,
    pub window_secs: u32,
    /// Count this request (false: only look, as before a login attempt).
    pub count: bool,
}

/// The rate limiter's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RateLimitDecision {
    pub allowed: bool,
    pub limit: u32,
    /// Requests still allowed in the current window.
    pub remaining: u32,
    /// When (UNIX ms) the window next frees a place.
    pub reset_ms: i64,
    /// How long (ms) a refused client should wait; 0 when allowed.
    pub retry_after_ms: i64,
    /// When (UNIX ms) the request was counted, if it was: what a refund names.
    pub counted_at_ms: Option<i64>,
}

/// Rate limiter `POST /refund`: takes back a count (one made for a request before its
/// credentials were checked, which then turned out not to be that user's).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RateLimitRefund {
    pub counted_at_ms: i64,
}
