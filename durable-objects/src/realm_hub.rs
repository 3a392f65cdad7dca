//! `RealmHub`: one per organization (named by realm id). Every event of the organization
//! passes through it, which fixes one order of events for all of its queues.
//!
//! It keeps the registry of the organization's live queues in its SQLite storage (and a
//! copy in memory), stamps each event with the organization's next sequence number, picks
//! the queues that want it, and forwards it with ONE awaited request per shard holding
//! target queues (at most [`FAN_OUT_CONCURRENCY`] at a time). It answers only when every
//! shard has stored the event. Dispatches are serialised, so shards receive events in
//! sequence order.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, VecDeque};

use futures_channel::oneshot;
use futures_util::stream::{self, StreamExt};
use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, SqlStorageValue as V, State};

use crate::delivery::queue_wants;
use crate::protocol::{
    bindings, command_request, command_request_from_json, read_command, shard_name, with_retries, Delivered, Delivery, Dispatch,
    HubCommand, NewQueue, QueueSpec, Registered, ShardCommand, Target,
};
use crate::storage::{json_response, now_ms, rows, run, var_secs};

/// Queues a shard holds before the hub opens the next shard.
const DEFAULT_QUEUES_PER_SHARD: u64 = 250;
/// Shard subrequests in flight at once during one fan-out.
const FAN_OUT_CONCURRENCY: usize = 6;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS queues (
    queue_id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL,
    shard INTEGER NOT NULL,
    spec TEXT NOT NULL             -- QueueSpec as JSON
);
CREATE TABLE IF NOT EXISTS dispatches (
    dispatch_id TEXT PRIMARY KEY,  -- the sender's id of one event (a retry repeats it)
    seq INTEGER NOT NULL,          -- the sequence number the event got on its first try
    at INTEGER NOT NULL            -- ms; forgotten after DISPATCH_MEMORY_MS
);
";

/// How long the hub remembers a dispatch id: longer than any sender keeps retrying.
const DISPATCH_MEMORY_MS: i64 = 10 * 60 * 1000;

#[derive(Clone)]
struct Entry {
    queue_id: String,
    shard: u32,
    spec: QueueSpec,
}

#[derive(Default)]
struct Registry {
    by_user: HashMap<i64, Vec<Entry>>,
    per_shard: HashMap<u32, usize>,
}

impl Registry {
    fn add(&mut self, entry: Entry) {
        *self.per_shard.entry(entry.shard).or_default() += 1;
        self.by_user.entry(entry.spec.user_id).or_default().push(entry);
    }

    fn remove(&mut self, queue_id: &str) {
        for list in self.by_user.values_mut() {
            if let Some(pos) = list.iter().position(|e| e.queue_id == queue_id) {
                let entry = list.remove(pos);
                if let Some(n) = self.per_shard.get_mut(&entry.shard) {
                    *n = n.saturating_sub(1);
                }
                return;
            }
        }
    }

    /// The lowest-numbered shard with room: shards open as queues grow.
    fn pick_shard(&self, per_shard: usize) -> u32 {
        (0..).find(|s| self.per_shard.get(s).copied().unwrap_or(0) < per_shard).unwrap_or(0)
    }
}

#[durable_object]
pub struct RealmHub {
    state: State,
    env: Env,
    registry: RefCell<Option<Registry>>,
    /// One dispatch at a time: the order of sequence numbers is the order shards see.
    busy: Cell<bool>,
    waiting: RefCell<VecDeque<oneshot::Sender<()>>>,
}

#[derive(Deserialize)]
struct QueueRow {
    queue_id: String,
    shard: u32,
    spec: String,
}

#[derive(Deserialize)]
struct Seq {
    value: i64,
}

impl DurableObject for RealmHub {
    fn new(state: State, env: Env) -> Self {
        if let Err(err) = state.storage().sql().exec(SCHEMA, None) {
            worker::console_error!("RealmHub schema: {err}");
        }
        RealmHub { state, env, registry: RefCell::new(None), busy: Cell::new(false), waiting: RefCell::new(VecDeque::new()) }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        self.load_registry()?;
        match read_command::<HubCommand>(&mut req).await? {
            HubCommand::Register(spec) => json_response(&self.register(spec).await?, 200),
            HubCommand::Dispatch(dispatch) => {
                let _turn = self.lock().await;
                self.dispatch(dispatch).await?;
                json_response(&serde_json::json!({}), 200)
            }
            HubCommand::Ping => json_response(&serde_json::json!({}), 200),
            HubCommand::Unregister(unregister) => {
                self.unregister(&unregister.queue_ids)?;
                json_response(&serde_json::json!({}), 200)
            }
        }
    }
}

impl RealmHub {
    fn sql(&self) -> SqlStorage {
        self.state.storage().sql()
    }

    fn load_registry(&self) -> Result<()> {
        if self.registry.borrow().is_some() {
            return Ok(());
        }
        let mut registry = Registry::default();
        let rows: Vec<QueueRow> = rows(&self.sql(), "SELECT queue_id, shard, spec FROM queues", vec![])?;
        for row in rows {
            registry.add(Entry { queue_id: row.queue_id, shard: row.shard, spec: serde_json::from_str(&row.spec)? });
        }
        *self.registry.borrow_mut() = Some(registry);
        Ok(())
    }

    /// Waits for this dispatch's turn; the turn passes on when the guard drops (also when
    /// the request is cancelled).
    async fn lock(&self) -> Turn<'_> {
        if self.busy.get() {
            let (tx, rx) = oneshot::channel();
            self.waiting.borrow_mut().push_back(tx);
            // Handed over by `unlock`, which leaves `busy` set.
            let _ = rx.await;
        } else {
            self.busy.set(true);
        }
        Turn { hub: self }
    }

    fn unlock(&self) {
        loop {
            let next = self.waiting.borrow_mut().pop_front();
            match next {
                None => {
                    self.busy.set(false);
                    return;
                }
                Some(tx) => {
                    if tx.send(()).is_ok() {
                        return;
                    }
                }
            }
        }
    }

    /// Creates the queue in the shard with room, then records it here.
    async fn register(&self, spec: QueueSpec) -> Result<Registered> {
        let per_shard = var_secs(&self.env, "EVENT_QUEUES_PER_SHARD", DEFAULT_QUEUES_PER_SHARD) as usize;
        let shard = self.registry.borrow().as_ref().map(|r| r.pick_shard(per_shard.max(1))).unwrap_or(0);
        let queue_id = format!("{shard}:{}", random_token()?);
        let stub = self.shard_stub(spec.realm_id, shard)?;
        let new = ShardCommand::CreateQueue(NewQueue { queue_id: queue_id.clone(), spec: spec.clone() });
        let resp = stub.fetch_with_request(command_request(&new)?).await?;
        if resp.status_code() != 200 {
            return Err(worker::Error::RustError(format!("shard {shard} refused the queue: {}", resp.status_code())));
        }
        run(
            &self.sql(),
            "INSERT INTO queues (queue_id, user_id, shard, spec) VALUES (?, ?, ?, ?)",
            vec![V::from(queue_id.as_str()), V::from(spec.user_id), V::from(shard as i64), V::from(serde_json::to_string(&spec)?)],
        )?;
        if let Some(registry) = self.registry.borrow_mut().as_mut() {
            registry.add(Entry { queue_id: queue_id.clone(), shard, spec });
        }
        Ok(Registered { queue_id, last_event_id: -1 })
    }

    fn unregister(&self, queue_ids: &[String]) -> Result<()> {
        let sql = self.sql();
        for queue_id in queue_ids {
            run(&sql, "DELETE FROM queues WHERE queue_id = ?", vec![V::from(queue_id.as_str())])?;
            if let Some(registry) = self.registry.borrow_mut().as_mut() {
                registry.remove(queue_id);
            }
        }
        Ok(())
    }

    /// Stamps the event, picks its queues, and stores it in their shards.
    async fn dispatch(&self, dispatch: Dispatch) -> Result<()> {
        let seq = self.sequence_number(dispatch.dispatch_id.as_deref())?;
        let mut by_shard: BTreeMap<u32, Vec<Target>> = BTreeMap::new();
        let mut realm = None;
        {
            let registry = self.registry.borrow();
            let Some(registry) = registry.as_ref() else { return Ok(()) };
            for user in &dispatch.users {
                for entry in registry.by_user.get(&user.id).into_iter().flatten() {
                    if queue_wants(&entry.spec, &dispatch.event, user.flags.as_deref()) {
                        realm = Some(entry.spec.realm_id);
                        by_shard
                            .entry(entry.shard)
                            .or_default()
                            .push(Target { queue_id: entry.queue_id.clone(), flags: user.flags.clone() });
                    }
                }
            }
        }
        let Some(realm_id) = realm else { return Ok(()) };
        let deliveries = by_shard.into_iter().map(|(shard, targets)| {
            let delivery = Delivery {
                realm_id,
                seq: seq.value,
                event: dispatch.event.clone(),
                targets,
                sender_queue_id: dispatch.sender_queue_id.clone(),
                local_id: dispatch.local_id.clone(),
            };
            async move { self.deliver(shard, delivery).await }
        });
        let results: Vec<Result<Delivered>> = stream::iter(deliveries).buffer_unordered(FAN_OUT_CONCURRENCY).collect().await;
        let mut missing = Vec::new();
        for result in results {
            missing.extend(result?.missing);
        }
        if !missing.is_empty() {
            self.unregister(&missing)?;
        }
        Ok(())
    }

    /// The event's place in the organization's order: a new number, or the one a first
    /// try of the same dispatch got.
    fn sequence_number(&self, dispatch_id: Option<&str>) -> Result<Seq> {
        let sql = self.sql();
        if let Some(id) = dispatch_id {
            let known: Vec<Seq> = rows(&sql, "SELECT seq AS value FROM dispatches WHERE dispatch_id = ?", vec![id.into()])?;
            if let Some(seq) = known.into_iter().next() {
                return Ok(seq);
            }
        }
        let seq: Seq = sql
            .exec(
                "INSERT INTO meta (key, value) VALUES ('seq', 1) \
                 ON CONFLICT (key) DO UPDATE SET value = value + 1 RETURNING value",
                None,
            )?
            .one()?;
        if let Some(id) = dispatch_id {
            let now = now_ms();
            run(&sql, "DELETE FROM dispatches WHERE at < ?", vec![(now - DISPATCH_MEMORY_MS).into()])?;
            run(&sql, "INSERT INTO dispatches (dispatch_id, seq, at) VALUES (?, ?, ?)", vec![id.into(), seq.value.into(), now.into()])?;
        }
        Ok(seq)
    }

    /// Stores the event in one shard, retrying a failed try (a shard stores an event for a
    /// queue at most once, so a repeat is harmless).
    async fn deliver(&self, shard: u32, delivery: Delivery) -> Result<Delivered> {
        let realm_id = delivery.realm_id;
        let body = serde_json::to_string(&ShardCommand::Deliver(delivery))?;
        with_retries(|| async {
            let stub = self.shard_stub(realm_id, shard)?;
            let mut resp = stub.fetch_with_request(command_request_from_json(body.clone())?).await?;
            if resp.status_code() != 200 {
                return Err(worker::Error::RustError(format!("shard {shard} answered {}", resp.status_code())));
            }
            resp.json().await
        })
        .await
    }

    fn shard_stub(&self, realm_id: i64, shard: u32) -> Result<worker::Stub> {
        self.env.durable_object(bindings::EVENT_QUEUE_SHARD)?.id_from_name(&shard_name(realm_id, shard))?.get_stub()
    }
}

struct Turn<'a> {
    hub: &'a RealmHub,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.hub.unlock();
    }
}

/// 16 random bytes, hex.
fn random_token() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).map_err(|e| worker::Error::RustError(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
