//! Sending events to the organization's event queues.
//!
//! Actions call [`send_event`] only after their D1 write has committed. Every event of an
//! organization goes through its `RealmHub` Durable Object, which stamps it with the
//! organization's order and forwards it to the queues (in `EventQueueShard`s) whose owner
//! is among `users` and whose `event_types`/narrow ask for it. The hub answers once the
//! event is stored in every target shard, so an event is durable before the action answers.

use serde::Serialize;
use serde_json::Value;
use worker::{Env, Method, Request, RequestInit};

use crate::error::ApiResult;

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
    pub event: &'a Value,
    pub users: &'a [EventUser],
    /// Message events: the queue that sent the message and its `local_id`, so that queue
    /// alone gets `local_message_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sender_queue_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_id: Option<&'a str>,
}

/// Sends an event to the queues of `users`. Call only after the write it reports committed.
/// It never fails the request: the write is committed, and answering a 5xx would make
/// clients (the Python client retries 5xx) repeat it. A failure is logged.
pub async fn send_event(env: &Env, realm_id: i64, dispatch: &Dispatch<'_>) {
    if let Err(err) = try_send_event(env, realm_id, dispatch).await {
        worker::console_error!("event for realm {realm_id} not delivered: {}", err.msg);
    }
}

async fn try_send_event(env: &Env, realm_id: i64, dispatch: &Dispatch<'_>) -> ApiResult<()> {
    let hub = env.durable_object("REALM_HUB")?.id_from_name(&realm_id.to_string())?.get_stub()?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_body(Some(serde_json::to_string(dispatch)?.into()));
    let req = Request::new_with_init(&format!("https://hub/{realm_id}/events"), &init)?;
    let resp = hub.fetch_with_request(req).await?;
    if resp.status_code() != 200 {
        return Err(crate::error::ApiError::internal(format!("RealmHub answered {}", resp.status_code())));
    }
    Ok(())
}
