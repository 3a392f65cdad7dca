//! The worker's side of event queues: registering a queue with the organization's
//! `RealmHub`, and reaching the object that holds a queue (the hub, or the
//! `EventQueueShard` the queue id names) to poll or delete it.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use team_chat_durable_objects::protocol::{
    bindings, command_request, home_of_queue_id, shard_name, HubCommand, Polled, QueueHome, QueueSpec, Registered, ShardCommand, ShardError,
};
use worker::{Env, Response, Stub};

use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};

pub use team_chat_durable_objects::protocol::Capabilities;

fn hub(env: &Env, realm_id: i64) -> ApiResult<Stub> {
    Ok(env.durable_object(bindings::REALM_HUB)?.id_from_name(&realm_id.to_string())?.get_stub()?)
}

fn shard(env: &Env, realm_id: i64, shard: u32) -> ApiResult<Stub> {
    Ok(env.durable_object(bindings::EVENT_QUEUE_SHARD)?.id_from_name(&shard_name(realm_id, shard))?.get_stub()?)
}

/// Where `queue_id` lives; a queue id that names no home is a bad queue id.
fn home(queue_id: &str) -> ApiResult<QueueHome> {
    home_of_queue_id(queue_id).ok_or_else(|| ApiError::bad_event_queue_id(queue_id))
}

async fn call<C: Serialize, T: DeserializeOwned>(stub: &Stub, command: &C) -> ApiResult<(u16, Option<T>, Option<ShardError>)> {
    let mut resp: Response = stub.fetch_with_request(command_request(command)?).await?;
    let status = resp.status_code();
    let text = resp.text().await?;
    match status {
        200 => Ok((status, Some(serde_json::from_str(&text)?), None)),
        400 | 403 => Ok((status, None, serde_json::from_str(&text).ok())),
        _ => Err(ApiError::internal(format!("event queue object answered {status}: {text}"))),
    }
}

/// Registers a queue; answers its id and initial `last_event_id`.
pub async fn register(env: &Env, spec: &QueueSpec) -> ApiResult<Registered> {
    let (_, registered, _) = call::<_, Registered>(&hub(env, spec.realm_id)?, &HubCommand::<Value>::Register(spec.clone())).await?;
    registered.ok_or_else(|| ApiError::internal("RealmHub refused to register a queue"))
}

fn refusal(queue_id: &str, status: u16) -> ApiError {
    if status == 403 {
        ApiError::bad_request("You are not authorized to get events from this queue")
    } else {
        ApiError::bad_event_queue_id(queue_id)
    }
}

/// The queue's events after `last_event_id` (acknowledging the older ones), waiting for one
/// until the heartbeat unless `dont_block`.
pub async fn poll(
    env: &Env,
    realm_id: RealmId,
    user_id: UserId,
    queue_id: &str,
    last_event_id: Option<i64>,
    dont_block: bool,
) -> ApiResult<Vec<Value>> {
    let queue_id_s = queue_id.to_string();
    let (status, polled, _) = match home(queue_id)? {
        QueueHome::Hub => {
            let command = HubCommand::<Value>::Poll { queue_id: queue_id_s, user_id: user_id.0, last_event_id, dont_block };
            call::<_, Polled>(&hub(env, realm_id.0)?, &command).await?
        }
        QueueHome::Shard(n) => {
            let command = ShardCommand::Poll { queue_id: queue_id_s, user_id: user_id.0, last_event_id, dont_block };
            call::<_, Polled>(&shard(env, realm_id.0, n)?, &command).await?
        }
    };
    polled.map(|p| p.events).ok_or_else(|| refusal(queue_id, status))
}

/// Deletes the queue (ending a pending long-poll on it) and removes it from the hub.
pub async fn delete(env: &Env, realm_id: RealmId, user_id: UserId, queue_id: &str) -> ApiResult<()> {
    let queue_id_s = queue_id.to_string();
    let (status, done, _) = match home(queue_id)? {
        QueueHome::Hub => {
            call::<_, Value>(&hub(env, realm_id.0)?, &HubCommand::<Value>::DeleteQueue { queue_id: queue_id_s, user_id: user_id.0 }).await?
        }
        QueueHome::Shard(n) => {
            call::<_, Value>(&shard(env, realm_id.0, n)?, &ShardCommand::DeleteQueue { queue_id: queue_id_s, user_id: user_id.0 }).await?
        }
    };
    done.map(|_| ()).ok_or_else(|| refusal(queue_id, status))
}

/// One round trip to the organization's hub (`make bench`'s platform floor).
pub async fn ping_hub(env: &Env, realm_id: i64) -> ApiResult<()> {
    let (_, pong, _) = call::<_, Value>(&hub(env, realm_id)?, &HubCommand::<Value>::Ping).await?;
    pong.map(|_| ()).ok_or_else(|| ApiError::internal("RealmHub did not answer the ping"))
}

/// `make bench`'s fan-out floor: a bare long-poll held in one Durable Object (the shard
/// class, under a name no organization uses), until [`bench_wake`].
fn bench_room(env: &Env, room: &str) -> ApiResult<Stub> {
    Ok(env.durable_object(bindings::EVENT_QUEUE_SHARD)?.id_from_name(&format!("bench:{room}"))?.get_stub()?)
}

pub async fn bench_wait(env: &Env, room: &str) -> ApiResult<()> {
    call::<_, Value>(&bench_room(env, room)?, &ShardCommand::BenchWait).await.map(|_| ())
}

/// How many bare long-polls the room holds.
pub async fn bench_waiting(env: &Env, room: &str) -> ApiResult<Value> {
    let (_, waiting, _) = call::<_, Value>(&bench_room(env, room)?, &ShardCommand::BenchWaiting).await?;
    waiting.ok_or_else(|| ApiError::internal("bench room did not answer"))
}

/// One storage write in the room, then every held long-poll answers.
pub async fn bench_wake(env: &Env, room: &str) -> ApiResult<Value> {
    let (_, woken, _) = call::<_, Value>(&bench_room(env, room)?, &ShardCommand::BenchWake).await?;
    woken.ok_or_else(|| ApiError::internal("bench room did not answer"))
}

/// How many long-polls wait in the organization's hub and its shards `0..shards` (`make
/// bench` sends its fan-out message only once every one waits).
pub async fn bench_waiting_polls(env: &Env, realm_id: i64, shards: u32) -> ApiResult<u64> {
    let (_, counted, _) = call::<_, Value>(&hub(env, realm_id)?, &HubCommand::<Value>::BenchWaitingPolls).await?;
    let mut waiting = counted.and_then(|c| c["waiting"].as_u64()).unwrap_or(0);
    for n in 0..shards {
        let (_, counted, _) = call::<_, Value>(&shard(env, realm_id, n)?, &ShardCommand::BenchWaitingPolls).await?;
        waiting += counted.and_then(|c| c["waiting"].as_u64()).unwrap_or(0);
    }
    Ok(waiting)
}
