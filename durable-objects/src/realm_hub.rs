//! `RealmHub`: one per organization (named by realm id). Every event of the organization
//! passes through it, which fixes one order of events for all of its queues.
//!
//! It keeps the registry of the organization's live queues in its SQLite storage (and a
//! copy in memory), stamps each event with the organization's next sequence number and picks
//! the queues that want it. The organization's first queues (up to `EVENT_QUEUES_IN_HUB`)
//! live in the hub itself, in its [`QueueBook`]: an event for them is stored there and
//! wakes their polls with no second object on the way, which is what a small
//! organization's fan-out costs. For queues in shards it stores one delivery per shard in
//! its outbox. It answers once all of that is stored: the event is durable then, and the
//! sender need not wait for the shards. The outbox is then handed on, ONE request per
//! delivery, each shard's deliveries in sequence order (at most [`FAN_OUT_CONCURRENCY`]
//! shards at a time), and a row is deleted when its shard acknowledged it. An alarm replays
//! whatever a shard has not acknowledged (a failed shard, or a hub evicted part way); a
//! shard stores an event for a queue at most once, so a replay is harmless. The same alarm
//! expires the hub's own idle queues.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use futures_util::stream::{self, StreamExt};
use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, SqlStorageValue as V, State};

use crate::delivery::queue_wants;
use crate::protocol::{
    bindings, command_request, command_request_from_json, read_command, shard_name, with_retries, Delivered, Delivery, Dispatch,
    HubCommand, NewQueue, QueueHome, QueueSpec, Registered, ShardCommand, Target,
};
use crate::queue_book::{arm_expiry, heartbeat_interval, idle_timeout_ms, poll_response, QueueBook};
use crate::storage::{development, json_response, now_ms, rows, run, var_secs};

/// Queues the hub holds itself before it opens shards.
const DEFAULT_QUEUES_IN_HUB: u64 = 250;
/// Queues a shard holds before the hub opens the next shard.
const DEFAULT_QUEUES_PER_SHARD: u64 = 250;
/// The table of the queues the hub holds (its `queues` table is the registry).
const HELD_QUEUES_TABLE: &str = "held_queues";
/// Shard subrequests in flight at once during one fan-out.
const FAN_OUT_CONCURRENCY: usize = 6;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS queues (
    queue_id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL,
    shard INTEGER NOT NULL,        -- -1: held by the hub
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
    home: QueueHome,
    spec: QueueSpec,
}

#[derive(Default)]
struct Registry {
    by_user: HashMap<i64, Vec<Entry>>,
    per_home: HashMap<QueueHome, usize>,
}

/// The registry's `shard` column: a shard's number, or -1 for the hub.
fn home_column(home: QueueHome) -> i64 {
    match home {
        QueueHome::Hub => -1,
        QueueHome::Shard(shard) => shard as i64,
    }
}

/// The home a registry row's `shard` column names ([`home_column`]'s inverse).
fn home_of_column(shard: i64) -> QueueHome {
    u32::try_from(shard).map_or(QueueHome::Hub, QueueHome::Shard)
}

impl Registry {
    fn add(&mut self, entry: Entry) {
        *self.per_home.entry(entry.home).or_default() += 1;
        self.by_user.entry(entry.spec.user_id).or_default().push(entry);
    }

    fn remove(&mut self, queue_id: &str) {
        for list in self.by_user.values_mut() {
            if let Some(pos) = list.iter().position(|e| e.queue_id == queue_id) {
                let entry = list.remove(pos);
                if let Some(n) = self.per_home.get_mut(&entry.home) {
                    *n = n.saturating_sub(1);
                }
                return;
            }
        }
    }

    /// The queues that want the dispatched event, by home, with the organization they
    /// belong to; `None` when none does. The audience is the queues of the users the
    /// dispatch lists (with each user's flags), or every queue for `everyone`.
    fn targets(&self, dispatch: &Dispatch) -> Option<(i64, BTreeMap<QueueHome, Vec<Target>>)> {
        let listed = dispatch
            .users
            .iter()
            .flat_map(|user| self.by_user.get(&user.id).into_iter().flatten().map(move |entry| (entry, user.flags.as_ref())));
        let everyone = self.by_user.values().flatten().map(|entry| (entry, None));
        let audience: Box<dyn Iterator<Item = (&Entry, Option<&Vec<String>>)>> =
            if dispatch.everyone { Box::new(everyone) } else { Box::new(listed) };
        let mut realm = None;
        let mut by_home: BTreeMap<QueueHome, Vec<Target>> = BTreeMap::new();
        for (entry, flags) in audience {
            if queue_wants(&entry.spec, &dispatch.event, flags.map(Vec::as_slice)) {
                realm = Some(entry.spec.realm_id);
                by_home.entry(entry.home).or_default().push(Target { queue_id: entry.queue_id.clone(), flags: flags.cloned() });
            }
        }
        realm.map(|realm_id| (realm_id, by_home))
    }

    /// The hub while it has room, then the lowest-numbered shard with room: shards open as
    /// queues grow.
    fn pick_home(&self, in_hub: usize, per_shard: usize) -> QueueHome {
        let count = |home| self.per_home.get(&home).copied().unwrap_or(0);
        if count(QueueHome::Hub) < in_hub {
            return QueueHome::Hub;
        }
        QueueHome::Shard((0..).find(|s| count(QueueHome::Shard(*s)) < per_shard).unwrap_or(0))
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
    /// The queues the hub holds itself.
    book: QueueBook,
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
    shard: i64,
    spec: String,
}

#[derive(Deserialize)]
struct Seq {
    value: i64,
}

impl DurableObject for RealmHub {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        if let Err(err) = sql.exec(SCHEMA, None) {
            worker::console_error!("RealmHub schema: {err}");
        }
        let book = QueueBook::open(&sql, HELD_QUEUES_TABLE);
        RealmHub {
            hub: Rc::new(Hub {
                state,
                env,
                registry: RefCell::new(None),
                book,
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
            HubCommand::Poll { queue_id, user_id, last_event_id, dont_block } => {
                let sql = hub.sql();
                poll_response(hub.book.poll(&sql, &queue_id, user_id, last_event_id, dont_block, heartbeat_interval(&hub.env)).await?)
            }
            HubCommand::DeleteQueue { queue_id, user_id } => match hub.book.delete(&hub.sql(), &queue_id, user_id)? {
                Err(refusal) => refusal.response(),
                Ok(_) => {
                    hub.unregister(&[queue_id])?;
                    json_response(&serde_json::json!({}), 200)
                }
            },
            HubCommand::BenchWaitingPolls => {
                if !development(&hub.env) {
                    return Response::error("no such command", 404);
                }
                json_response(&serde_json::json!({ "waiting": hub.book.waiting_polls() }), 200)
            }
        }
    }

    /// Replays the outbox (what a shard has not acknowledged is delivered again) and
    /// expires the hub's idle queues.
    async fn alarm(&self) -> Result<Response> {
        let hub = &self.hub;
        hub.alarm_armed.set(false);
        let sql = hub.sql();
        hub.load_registry()?;
        let timeout_ms = idle_timeout_ms(&hub.env);
        let expired: Vec<String> = hub.book.expire(&sql, timeout_ms)?.into_iter().map(|q| q.queue_id).collect();
        hub.unregister(&expired)?;
        let pending = !rows::<Seq>(&sql, "SELECT seq AS value FROM outbox LIMIT 1", vec![])?.is_empty();
        let expiry = hub.book.next_expiry_in(&sql, timeout_ms)?;
        let replay = pending.then_some(REPLAY_AFTER_MS);
        if let Some(due) = [replay, expiry].into_iter().flatten().min() {
            hub.state.storage().set_alarm(due).await?;
            hub.alarm_armed.set(pending);
        }
        if pending && !hub.handing_on.replace(true) {
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
            registry.add(Entry { queue_id: row.queue_id, home: home_of_column(row.shard), spec: serde_json::from_str(&row.spec)? });
        }
        *self.registry.borrow_mut() = Some(registry);
        Ok(())
    }

    /// Creates the queue here or in the shard with room, then records it in the registry.
    async fn register(&self, spec: QueueSpec) -> Result<Registered> {
        let in_hub = var_secs(&self.env, "EVENT_QUEUES_IN_HUB", DEFAULT_QUEUES_IN_HUB) as usize;
        let per_shard = var_secs(&self.env, "EVENT_QUEUES_PER_SHARD", DEFAULT_QUEUES_PER_SHARD) as usize;
        let home = self.registry.borrow().as_ref().map_or(QueueHome::Shard(0), |r| r.pick_home(in_hub, per_shard.max(1)));
        let queue_id = home.queue_id(&random_token()?);
        let new = NewQueue { queue_id: queue_id.clone(), spec: spec.clone() };
        match home {
            QueueHome::Hub => {
                self.book.create(&self.sql(), new)?;
                arm_expiry(&self.state.storage(), &self.env).await?;
            }
            QueueHome::Shard(shard) => {
                let stub = self.shard_stub(spec.realm_id, shard)?;
                let resp = stub.fetch_with_request(command_request(&ShardCommand::CreateQueue(new))?).await?;
                if resp.status_code() != 200 {
                    return Err(worker::Error::RustError(format!("shard {shard} refused the queue: {}", resp.status_code())));
                }
            }
        }
        run(
            &self.sql(),
            "INSERT INTO queues (queue_id, user_id, shard, spec) VALUES (?, ?, ?, ?)",
            vec![V::from(queue_id.as_str()), V::from(spec.user_id), V::from(home_column(home)), V::from(serde_json::to_string(&spec)?)],
        )?;
        if let Some(registry) = self.registry.borrow_mut().as_mut() {
            registry.add(Entry { queue_id: queue_id.clone(), home, spec });
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

    /// Stamps the event, picks its queues, stores it in those the hub holds (waking their
    /// polls) and one delivery per shard holding the others in the outbox; whether there is
    /// anything to hand on. A repeated dispatch (the sender's retry of a try whose answer was
    /// lost) is stored once. No `await`: the writes commit together before any answer leaves.
    fn enqueue(&self, dispatch: Dispatch) -> Result<bool> {
        let Some((realm_id, by_home)) = self.registry.borrow().as_ref().and_then(|registry| registry.targets(&dispatch)) else {
            // No queue wants it: nothing to order or store.
            return Ok(false);
        };
        let Some(seq) = self.sequence_number(dispatch.dispatch_id.as_deref())? else { return Ok(false) };
        let sql = self.sql();
        let mut for_shards = false;
        for (home, targets) in by_home {
            let delivery = Delivery {
                realm_id,
                seq,
                event: dispatch.event.clone(),
                targets,
                sender_queue_id: dispatch.sender_queue_id.clone(),
                local_id: dispatch.local_id.clone(),
            };
            match home {
                QueueHome::Hub => {
                    let delivered = self.book.deliver(&sql, &delivery)?;
                    self.unregister(&delivered.missing)?;
                }
                QueueHome::Shard(shard) => {
                    run(
                        &sql,
                        "INSERT INTO outbox (seq, shard, realm_id, delivery) VALUES (?, ?, ?, ?)",
                        vec![
                            seq.into(),
                            V::from(shard as i64),
                            realm_id.into(),
                            V::from(serde_json::to_string(&ShardCommand::Deliver(delivery))?),
                        ],
                    )?;
                    for_shards = true;
                }
            }
        }
        Ok(for_shards)
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

    fn queue(queue_id: &str, user_id: i64, home: QueueHome, event_types: Option<&[&str]>) -> Entry {
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
        Entry { queue_id: queue_id.into(), home, spec }
    }

    fn registry() -> Registry {
        let mut registry = Registry::default();
        registry.add(queue("h:a", 1, QueueHome::Hub, None));
        registry.add(queue("0:b", 2, QueueHome::Shard(0), Some(&["message"])));
        registry.add(queue("1:c", 3, QueueHome::Shard(1), None));
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

    fn queue_ids(targets: &BTreeMap<QueueHome, Vec<Target>>) -> Vec<&str> {
        let mut ids: Vec<&str> = targets.values().flatten().map(|t| t.queue_id.as_str()).collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn an_event_for_everyone_reaches_every_queue_that_wants_it() {
        let (realm_id, targets) = registry().targets(&dispatch(&[], true)).expect("targets");
        assert_eq!(realm_id, 7);
        // 0:b asked for message events only.
        assert_eq!(queue_ids(&targets), ["1:c", "h:a"]);
        assert_eq!(targets.keys().copied().collect::<Vec<_>>(), [QueueHome::Hub, QueueHome::Shard(1)]);
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

    #[test]
    fn queues_live_in_the_hub_until_it_is_full_then_in_shards_in_order() {
        let mut registry = Registry::default();
        let mut homes = Vec::new();
        for i in 0..5 {
            let home = registry.pick_home(2, 2);
            homes.push(home);
            registry.add(queue(&home.queue_id(&i.to_string()), 1, home, None));
        }
        assert_eq!(homes, [QueueHome::Hub, QueueHome::Hub, QueueHome::Shard(0), QueueHome::Shard(0), QueueHome::Shard(1)]);
        registry.remove("h:0");
        assert_eq!(registry.pick_home(2, 2), QueueHome::Hub, "a freed place in the hub is taken again");
        assert_eq!(registry.pick_home(0, 2), QueueHome::Shard(1), "with no room in the hub, every queue goes to a shard");
    }
}
