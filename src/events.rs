//! Sending events to the organization's event queues.
//!
//! Actions call [`send_event`] only after their D1 write has committed. Every event of an
//! organization goes through its `RealmHub` Durable Object, which stamps it with the
//! organization's order and forwards it to the queues (in `EventQueueShard`s) whose owner
//! is among `users` and whose `event_types`/narrow ask for it. The hub answers once the
//! event is stored in every target shard, so an event is durable before the action answers.

use serde::Serialize;
use worker::{Env, Method, Request, RequestInit};

use team_chat_durable_objects::protocol::with_retries;

pub use crate::event_types::Event;

/// A user who may receive an event, with per-user data where the event has some.
#[derive(Debug, Clone, Serialize)]
pub struct EventUser {
    pub id: i64,
    /// Message events: this user's flags for the message (`read`, `mentioned`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<Vec<String>>,
}

impl EventUser {
    pub fn plain(id: i64) -> Self {
        EventUser { id, flags: None }
    }
}

/// What the hub receives.
#[derive(Debug, Serialize)]
pub struct Dispatch<'a> {
    /// The event as Zulip sends it, without `id` (the queue assigns it).
    pub event: &'a Event,
    pub users: &'a [EventUser],
    /// Message events: the queue that sent the message and its `local_id`, so that queue
    /// alone gets `local_message_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sender_queue_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_id: Option<&'a str>,
}

/// What goes to the hub: the dispatch and its id. The id is the same on every try, so a
/// try whose answer was lost and is repeated stores the event only once.
#[derive(Serialize)]
struct Envelope<'a> {
    dispatch_id: &'a str,
    #[serde(flatten)]
    dispatch: &'a Dispatch<'a>,
}

/// Sends an event to the queues of `users`. Call only after the write it reports committed.
/// A failed try (the hub, or a shard behind it) is retried, so a passing fault loses no
/// event. It never fails the request: the write is committed, and answering a 5xx would
/// make clients (the Python client retries 5xx) repeat it. A lasting failure is logged.
pub async fn send_event(env: &Env, realm_id: i64, dispatch: &Dispatch<'_>) {
    let dispatch_id = crate::secrets::random_alphanumeric(24);
    let body = match serde_json::to_string(&Envelope { dispatch_id: &dispatch_id, dispatch }) {
        Ok(body) => body,
        Err(err) => return worker::console_error!("event for realm {realm_id} not serialized: {err}"),
    };
    if let Err(err) = with_retries(|| try_send_event(env, realm_id, &body)).await {
        worker::console_error!("event for realm {realm_id} not delivered: {err}");
    }
}

async fn try_send_event(env: &Env, realm_id: i64, body: &str) -> worker::Result<()> {
    let hub = env.durable_object("REALM_HUB")?.id_from_name(&realm_id.to_string())?.get_stub()?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_body(Some(body.into()));
    let req = Request::new_with_init(&format!("https://hub/{realm_id}/events"), &init)?;
    let resp = hub.fetch_with_request(req).await?;
    if resp.status_code() != 200 {
        return Err(worker::Error::RustError(format!("RealmHub answered {}", resp.status_code())));
    }
    Ok(())
}
