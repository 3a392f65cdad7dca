//! Sending events to the organization's event queues.
//!
//! Actions call [`send_event`] only after their D1 write has committed. Every event of an
//! organization goes through its `RealmHub` Durable Object, which stamps it with the
//! organization's order and gives it to the queues whose owner is among `users` and whose
//! `event_types`/narrow ask for it: those it holds itself, and those in `EventQueueShard`s.
//! The hub answers once it has stored the event (in its own queues and its outbox), so an
//! event is durable before the action answers; it hands the event on to the shards after
//! answering and replays what they did not take.

use worker::Env;

pub use team_chat_durable_objects::protocol::EventUser;
use team_chat_durable_objects::protocol::{bindings, command_request_from_json, with_retries, Dispatch, HubCommand};

pub use crate::event_types::Event;

/// Sends an event to the queues of `users`. Call only after the write it reports committed.
pub async fn send_event(env: &Env, realm_id: i64, event: &Event, users: &[EventUser]) {
    dispatch(env, realm_id, event, Audience::Users(users), None, None).await;
}

/// Sends an event to every queue of the organization (its hub knows them all, so the
/// sender reads no list of users). Call only after the write it reports committed.
pub async fn send_realm_event(env: &Env, realm_id: i64, event: &Event) {
    dispatch(env, realm_id, event, Audience::Everyone, None, None).await;
}

enum Audience<'a> {
    Users(&'a [EventUser]),
    Everyone,
}

/// Sends an event; for a message event, `sender_queue_id` and `local_id` name the queue
/// that sent the message, so that queue alone gets `local_message_id`.
///
/// A failed try (the hub, or a shard behind it) is retried with the same dispatch id, so a
/// passing fault loses no event and a try whose answer was lost stores it only once. It
/// never fails the request: the write is committed, and answering a 5xx would make clients
/// (the Python client retries 5xx) repeat it. A lasting failure is logged.
pub async fn send_message_event(
    env: &Env,
    realm_id: i64,
    event: &Event,
    users: &[EventUser],
    sender_queue_id: Option<&str>,
    local_id: Option<&str>,
) {
    dispatch(env, realm_id, event, Audience::Users(users), sender_queue_id, local_id).await;
}

async fn dispatch(env: &Env, realm_id: i64, event: &Event, audience: Audience<'_>, sender_queue_id: Option<&str>, local_id: Option<&str>) {
    let (users, everyone) = match audience {
        Audience::Users(users) => (users.to_vec(), false),
        Audience::Everyone => (Vec::new(), true),
    };
    let dispatch = HubCommand::Dispatch(Dispatch {
        dispatch_id: Some(crate::secrets::random_alphanumeric(24)),
        event,
        users,
        everyone,
        sender_queue_id: sender_queue_id.map(str::to_string),
        local_id: local_id.map(str::to_string),
    });
    let body = match serde_json::to_string(&dispatch) {
        Ok(body) => body,
        Err(err) => return worker::console_error!("event for realm {realm_id} not serialized: {err}"),
    };
    if let Err(err) = with_retries(|| try_send_event(env, realm_id, &body)).await {
        let error = format!("event not handed to the organization's hub: {err}");
        crate::actions::background_failures::record(env, realm_id, crate::actions::background_failures::Kind::EventDelivery, &error).await;
    }
}

async fn try_send_event(env: &Env, realm_id: i64, body: &str) -> worker::Result<()> {
    let hub = env.durable_object(bindings::REALM_HUB)?.id_from_name(&realm_id.to_string())?.get_stub()?;
    let resp = hub.fetch_with_request(command_request_from_json(body.to_string())?).await?;
    if resp.status_code() != 200 {
        return Err(worker::Error::RustError(format!("RealmHub answered {}", resp.status_code())));
    }
    Ok(())
}
