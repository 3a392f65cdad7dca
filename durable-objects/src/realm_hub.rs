//! `RealmHub`: one per organization (named by realm id). Every event of the organization
//! passes through it, which fixes one order of events for all of its queues.
//!
//! It keeps the registry of the organization's live queues in its SQLite storage (and a
//! copy in memory), stamps each event with the organization's next sequence number, picks
//! the queues that want it, and stores one delivery per shard holding target queues in its
//! outbox. It answers once the outbox row is stored: the event is durable then, and the
//! sender need not wait for the shards. The outbox is then handed on, ONE request per
//! delivery, each shard's deliveries in sequence order (at most [`FAN_OUT_CONCURRENCY`]
//! shards at a time), and a row is deleted when its shard acknowledged it. An alarm replays
//! whatever a shard has not acknowledged (a failed shard, or a hub evicted part way); a
//! shard stores an event for a queue at most once, so a replay is harmless.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

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
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER NOT NULL,          -- the event's sequence number
    shard INTEGER NOT NULL,
    realm_id INTEGER NOT NULL,     -- names the shard with `shard`
    delivery TEXT NOT NULL,        -- the shard's Deliver command as JSON
    PRIMARY KEY (shard, seq)
);
CREATE TABLE IF NOT EXISTS dispatches (
    dispatch_id TEXT PRIMARY KEY,  -- the sender's id of one event (a retry repeats it)
    seq INTEGER NOT NULL,          -- the sequence number the event got on its first try
    at INTEGER NOT NULL            -- ms; forgotten after DISPATCH_MEMORY_MS
);
";

/// How long the hub remembers a dispatch id: longer than any sender keeps retrying.
const DISPATCH_MEMORY_MS: i64 = 10 * 60 * 1000;
/// When the alarm replays the outbox if handing it on has not emptied it by then (the hub
/// was evicted part way, or a shard kept failing); armed at most once per this interval.
const REPLAY_AFTER_MS: i64 = 5_000;

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

    /// The queues that want the dispatched event, by shard, with the organization they
    /// belong to; `None` when none does. The audience is the queues of the users the
    /// dispatch lists (with each user's flags), or every queue for `everyone`.
    fn targets(&self, dispatch: &Dispatch) -> Option<(i64, BTreeMap<u32, Vec<Target>>)> {
        let listed = dispatch
            .users
            .iter()
            .flat_map(|user| self.by_user.get(&user.id).into_iter().flatten().map(move |entry| (entry, user.flags.as_ref())));
        let everyone = self.by_user.values().flatten().map(|entry| (entry, None));
        let audience: Box<dyn Iterator<Item = (&Entry, Option<&Vec<String>>)>> =
            if dispatch.everyone { Box::new(everyone) } else { Box::new(listed) };
        let mut realm = None;
        let mut by_shard: BTreeMap<u32, Vec<Target>> = BTreeMap::new();
        for (entry, flags) in audience {
            if queue_wants(&entry.spec, &dispatch.event, flags.map(Vec::as_slice)) {
                realm = Some(entry.spec.realm_id);
                by_shard.entry(entry.shard).or_default().push(Target { queue_id: entry.queue_id.clone(), flags: flags.cloned() });
            }
        }
        realm.map(|realm_id| (realm_id, by_shard))
    }

    /// The lowest-numbered shard with room: shards open as queues grow.
    fn pick_shard(&self, per_shard: usize) -> u32 {
        (0..).find(|s| self.per_shard.get(s).copied().unwrap_or(0) < per_shard).unwrap_or(0)
    }
}

#[durable_object]
pub struct RealmHub {
    hub: Rc<Hub>,
}

/// The hub's state, shared with the work that hands the outbox on after a response.
struct Hub {
    state: State,
    env: Env,
    registry: RefCell<Option<Registry>>,
    /// Whether the outbox is being handed on; one pass at a time keeps each shard's
    /// deliveries in sequence order.
    handing_on: Cell<bool>,
    /// Whether this instance armed the replay alarm and it has not fired yet: then a new
    /// outbox row needs no storage call to arm it.
    alarm_armed: Cell<bool>,
    /// When old dispatch ids were last forgotten (ms); they are forgotten in bulk, not on
    /// every dispatch.
    forgotten_at: Cell<i64>,
}

#[derive(Deserialize)]
struct OutboxRow {
    seq: i64,
    shard: u32,
    realm_id: i64,
    delivery: String,
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
        RealmHub {
            hub: Rc::new(Hub {
                state,
                env,
                registry: RefCell::new(None),
                handing_on: Cell::new(false),
                alarm_armed: Cell::new(false),
                forgotten_at: Cell::new(0),
            }),
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let hub = &self.hub;
        hub.load_registry()?;
        match read_command::<HubCommand>(&mut req).await? {
            HubCommand::Register(spec) => json_response(&hub.register(spec).await?, 200),
            HubCommand::Dispatch(dispatch) => {
                if hub.enqueue(dispatch)? {
                    Hub::start_handing_on(hub).await?;
                }
                json_response(&serde_json::json!({}), 200)
            }
            HubCommand::Ping => json_response(&serde_json::json!({}), 200),
            HubCommand::Unregister(unregister) => {
                hub.unregister(&unregister.queue_ids)?;
                json_response(&serde_json::json!({}), 200)
            }
        }
    }

    /// Replays the outbox: what a shard has not acknowledged is delivered again.
    async fn alarm(&self) -> Result<Response> {
        let hub = &self.hub;
        hub.alarm_armed.set(false);
        let pending: Vec<Seq> = rows(&hub.sql(), "SELECT seq AS value FROM outbox LIMIT 1", vec![])?;
        if pending.is_empty() {
            return Response::ok("");
        }
        hub.arm_alarm().await?;
        if !hub.handing_on.replace(true) {
            hub.load_registry()?;
            Hub::hand_on(hub.clone()).await;
        }
        Response::ok("")
    }
}

impl Hub {
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

    /// Stamps the event, picks its queues, and stores one delivery per shard holding them in
    /// the outbox; whether there is anything to hand on. A repeated dispatch (the sender's
    /// retry of a try whose answer was lost) is stored once. No `await`: the writes commit
    /// together before the answer leaves.
    fn enqueue(&self, dispatch: Dispatch) -> Result<bool> {
        let Some((realm_id, by_shard)) = self.registry.borrow().as_ref().and_then(|registry| registry.targets(&dispatch)) else {
            // No queue wants it: nothing to order or store.
            return Ok(false);
        };
        let Some(seq) = self.sequence_number(dispatch.dispatch_id.as_deref())? else { return Ok(false) };
        let sql = self.sql();
        for (shard, targets) in by_shard {
            let delivery = ShardCommand::Deliver(Delivery {
                realm_id,
                seq,
                event: dispatch.event.clone(),
                targets,
                sender_queue_id: dispatch.sender_queue_id.clone(),
                local_id: dispatch.local_id.clone(),
            });
            run(
                &sql,
                "INSERT INTO outbox (seq, shard, realm_id, delivery) VALUES (?, ?, ?, ?)",
                vec![seq.into(), V::from(shard as i64), realm_id.into(), V::from(serde_json::to_string(&delivery)?)],
            )?;
        }
        Ok(true)
    }

    /// Hands the outbox on after this response, unless a pass is already running (it
    /// takes the new rows too); the alarm replays it if the pass does not finish.
    async fn start_handing_on(hub: &Rc<Hub>) -> Result<()> {
        hub.arm_alarm().await?;
        if !hub.handing_on.replace(true) {
            hub.state.wait_until(Hub::hand_on(hub.clone()));
        }
        Ok(())
    }

    /// Arms the replay alarm unless this instance armed it already; it fires while rows
    /// are pending and finds nothing to do otherwise.
    async fn arm_alarm(&self) -> Result<()> {
        if !self.alarm_armed.get() {
            self.state.storage().set_alarm(REPLAY_AFTER_MS).await?;
            self.alarm_armed.set(true);
        }
        Ok(())
    }

    /// Delivers the outbox until it is empty: each shard's rows in sequence order, shards
    /// side by side. A delivery that still fails after its retries stops its shard's rows
    /// (later ones must not overtake it) and leaves them to the alarm.
    async fn hand_on(hub: Rc<Hub>) {
        loop {
            let pending: Vec<OutboxRow> = match rows(&hub.sql(), "SELECT seq, shard, realm_id, delivery FROM outbox ORDER BY seq", vec![]) {
                Ok(pending) => pending,
                Err(err) => {
                    worker::console_error!("RealmHub outbox: {err}");
                    break;
                }
            };
            if pending.is_empty() {
                break;
            }
            let mut by_shard: BTreeMap<u32, Vec<OutboxRow>> = BTreeMap::new();
            for row in pending {
                by_shard.entry(row.shard).or_default().push(row);
            }
            let passes = by_shard.into_iter().map(|(shard, rows)| {
                let hub = hub.clone();
                async move { hub.deliver_in_order(shard, rows).await }
            });
            let complete: Vec<bool> = stream::iter(passes).buffer_unordered(FAN_OUT_CONCURRENCY).collect().await;
            if complete.contains(&false) {
                break;
            }
        }
        hub.handing_on.set(false);
    }

    /// One shard's outbox rows, in order; whether all of them were acknowledged.
    async fn deliver_in_order(&self, shard: u32, rows: Vec<OutboxRow>) -> bool {
        for row in rows {
            let delivered = match self.deliver(row.realm_id, shard, row.delivery).await {
                Ok(delivered) => delivered,
                Err(err) => {
                    worker::console_error!("shard {shard} did not take event {}: {err}; the alarm replays it", row.seq);
                    return false;
                }
            };
            let acknowledged =
                run(&self.sql(), "DELETE FROM outbox WHERE shard = ? AND seq = ?", vec![V::from(shard as i64), row.seq.into()])
                    .and_then(|()| if delivered.missing.is_empty() { Ok(()) } else { self.unregister(&delivered.missing) });
            if let Err(err) = acknowledged {
                worker::console_error!("RealmHub outbox: {err}");
                return false;
            }
        }
        true
    }

    /// The event's place in the organization's order: a new number, or `None` when a
    /// first try of the same dispatch got one (its deliveries are in the outbox already).
    fn sequence_number(&self, dispatch_id: Option<&str>) -> Result<Option<i64>> {
        let sql = self.sql();
        if let Some(id) = dispatch_id {
            let known: Vec<Seq> = rows(&sql, "SELECT seq AS value FROM dispatches WHERE dispatch_id = ?", vec![id.into()])?;
            if !known.is_empty() {
                return Ok(None);
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
            if now - self.forgotten_at.get() > DISPATCH_MEMORY_MS / 10 {
                run(&sql, "DELETE FROM dispatches WHERE at < ?", vec![(now - DISPATCH_MEMORY_MS).into()])?;
                self.forgotten_at.set(now);
            }
            run(&sql, "INSERT INTO dispatches (dispatch_id, seq, at) VALUES (?, ?, ?)", vec![id.into(), seq.value.into(), now.into()])?;
        }
        Ok(Some(seq.value))
    }

    /// Stores one outbox row's event in its shard, retrying a failed try (a shard stores an
    /// event for a queue at most once, so a repeat is harmless).
    async fn deliver(&self, realm_id: i64, shard: u32, body: String) -> Result<Delivered> {
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

/// 16 random bytes, hex.
fn random_token() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).map_err(|e| worker::Error::RustError(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::{Capabilities, EventUser};

    fn queue(queue_id: &str, user_id: i64, shard: u32, event_types: Option<&[&str]>) -> Entry {
        let spec = QueueSpec {
            realm_id: 7,
            user_id,
            event_types: event_types.map(|types| types.iter().map(|t| t.to_string()).collect()),
            narrow: vec![],
            all_public_streams: false,
            apply_markdown: true,
            client_gravatar: false,
            capabilities: Capabilities::default(),
            realm_empty_topic_display_name: String::new(),
        };
        Entry { queue_id: queue_id.into(), shard, spec }
    }

    fn registry() -> Registry {
        let mut registry = Registry::default();
        registry.add(queue("0:a", 1, 0, None));
        registry.add(queue("0:b", 2, 0, Some(&["message"])));
        registry.add(queue("1:c", 3, 1, None));
        registry
    }

    fn dispatch(users: &[i64], everyone: bool) -> Dispatch {
        Dispatch {
            dispatch_id: None,
            event: json!({"type": "user_status", "user_id": 1}),
            users: users.iter().map(|id| EventUser::plain(*id)).collect(),
            everyone,
            sender_queue_id: None,
            local_id: None,
        }
    }

    fn queue_ids(targets: &BTreeMap<u32, Vec<Target>>) -> Vec<&str> {
        let mut ids: Vec<&str> = targets.values().flatten().map(|t| t.queue_id.as_str()).collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn an_event_for_everyone_reaches_every_queue_that_wants_it() {
        let (realm_id, targets) = registry().targets(&dispatch(&[], true)).expect("targets");
        assert_eq!(realm_id, 7);
        // 0:b asked for message events only.
        assert_eq!(queue_ids(&targets), ["0:a", "1:c"]);
        assert_eq!(targets.keys().copied().collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn an_event_for_listed_users_reaches_only_their_queues() {
        let (_, targets) = registry().targets(&dispatch(&[3], false)).expect("targets");
        assert_eq!(queue_ids(&targets), ["1:c"]);
    }

    #[test]
    fn an_event_no_queue_wants_has_no_targets() {
        assert!(registry().targets(&dispatch(&[2], false)).is_none());
        assert!(registry().targets(&dispatch(&[], false)).is_none());
    }
}
