//! `EventQueueShard`: holds many event queues of one organization (named
//! `<realm_id>:<shard>`), stores their events in its SQLite storage and answers long-polls.
//!
//! Each queue numbers its own events (as Zulip does): the hub's sequence fixes their order,
//! and heartbeats take the next number too, so ids increase within a queue. An event body
//! is stored once per shard (`events`) and referenced by every target queue
//! (`queue_events`); the per-queue form is built when a poll answers.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures_channel::oneshot;
use futures_util::future::{select, Either};
use serde::Deserialize;
use serde_json::{json, Value};
use worker::{durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, SqlStorageValue as V, State};

use crate::delivery::{self, Stored};
use crate::protocol::{
    bindings, command_request, read_command, Delivered, Delivery, HubCommand, NewQueue, Polled, QueueSpec, ShardCommand, ShardError,
    Unregister,
};
use crate::storage::{json_response, now_ms, rows, run, var_secs};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS queues (
    queue_id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL,
    spec TEXT NOT NULL,            -- QueueSpec as JSON
    last_id INTEGER NOT NULL,      -- id of the queue's newest event (-1: none yet)
    last_poll INTEGER NOT NULL     -- ms; idle queues expire after EVENT_QUEUE_IDLE_TIMEOUT_SECS
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,       -- the organization's sequence number
    body TEXT NOT NULL,
    sender_queue_id TEXT,
    local_id TEXT
);
CREATE TABLE IF NOT EXISTS queue_events (
    queue_id TEXT NOT NULL,
    id INTEGER NOT NULL,           -- the event id this queue's client sees
    seq INTEGER,                   -- null: a heartbeat
    flags TEXT,                    -- JSON list of the owner's message flags
    part INTEGER,                  -- single delete_message: its message id
    PRIMARY KEY (queue_id, id)
);
CREATE INDEX IF NOT EXISTS queue_events_by_seq ON queue_events (queue_id, seq);
";

#[durable_object]
pub struct EventQueueShard {
    state: State,
    env: Env,
    /// Pending long-polls by queue id: handed their new events when an event is stored
    /// (`Some`), or told to look again when the queue goes (`None`).
    waiters: RefCell<HashMap<String, Vec<Waiter>>>,
    /// The queues of this shard, as stored in `queues` (less `last_poll`): loaded once per
    /// instance and updated with every write, so a delivery reads no row per queue.
    queues: RefCell<Option<HashMap<String, Queue>>>,
    /// Deliveries seen, for the development fault injection.
    deliveries: Cell<u64>,
    /// `make bench`'s fan-out floor (development only): bare long-polls held here.
    bench_waiters: RefCell<Vec<oneshot::Sender<()>>>,
}

#[derive(Deserialize)]
struct QueueRow {
    queue_id: String,
    user_id: i64,
    spec: String,
    last_id: i64,
}

#[derive(Clone)]
struct Queue {
    user_id: i64,
    spec: QueueSpec,
    last_id: i64,
}

/// A pending long-poll: the last event id its client has, and where its answer goes.
struct Waiter {
    after: i64,
    answer: oneshot::Sender<Option<Vec<Value>>>,
}

#[derive(Deserialize)]
struct EventRow {
    id: i64,
    flags: Option<String>,
    part: Option<i64>,
    body: Option<String>,
    sender_queue_id: Option<String>,
    local_id: Option<String>,
}

#[derive(Deserialize)]
struct LastId {
    last_id: i64,
}

enum Poll {
    Events(Vec<Value>),
    BadQueue,
    NotOwner,
}

impl DurableObject for EventQueueShard {
    fn new(state: State, env: Env) -> Self {
        if let Err(err) = state.storage().sql().exec(SCHEMA, None) {
            worker::console_error!("EventQueueShard schema: {err}");
        }
        EventQueueShard {
            state,
            env,
            waiters: RefCell::new(HashMap::new()),
            queues: RefCell::new(None),
            deliveries: Cell::new(0),
            bench_waiters: RefCell::new(Vec::new()),
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let command = read_command::<ShardCommand>(&mut req).await?;
        let bench = matches!(
            command,
            ShardCommand::BenchWait | ShardCommand::BenchWaiting | ShardCommand::BenchWake | ShardCommand::BenchWaitingPolls
        );
        if bench && !self.development() {
            return Response::error("no such command", 404);
        }
        match command {
            ShardCommand::CreateQueue(new) => {
                self.create_queue(new).await?;
                json_response(&serde_json::json!({}), 200)
            }
            ShardCommand::Deliver(delivery) => {
                if self.injected_fault() {
                    return Response::error("injected fault", 500);
                }
                json_response(&self.deliver(delivery)?, 200)
            }
            ShardCommand::Poll { queue_id, user_id, last_event_id, dont_block } => {
                match self.poll(&queue_id, user_id, last_event_id, dont_block).await? {
                    Poll::Events(events) => json_response(&Polled { events }, 200),
                    Poll::BadQueue => json_response(&ShardError { error: "bad_queue".into() }, 400),
                    Poll::NotOwner => json_response(&ShardError { error: "not_owner".into() }, 403),
                }
            }
            ShardCommand::DeleteQueue { queue_id, user_id } => match self.queue(&queue_id)? {
                None => json_response(&ShardError { error: "bad_queue".into() }, 400),
                Some(q) if q.user_id != user_id => json_response(&ShardError { error: "not_owner".into() }, 403),
                Some(q) => {
                    self.remove_queues(std::slice::from_ref(&queue_id))?;
                    self.unregister_from_hub(q.spec.realm_id, vec![queue_id]).await?;
                    json_response(&serde_json::json!({}), 200)
                }
            },
            ShardCommand::BenchWait => {
                let (tx, rx) = oneshot::channel();
                self.bench_waiters.borrow_mut().push(tx);
                let _ = rx.await;
                json_response(&serde_json::json!({}), 200)
            }
            ShardCommand::BenchWaiting => {
                self.bench_waiters.borrow_mut().retain(|w| !w.is_canceled());
                json_response(&serde_json::json!({ "waiting": self.bench_waiters.borrow().len() }), 200)
            }
            ShardCommand::BenchWaitingPolls => {
                let waiting: usize =
                    self.waiters.borrow().values().map(|list| list.iter().filter(|w| !w.answer.is_canceled()).count()).sum();
                json_response(&serde_json::json!({ "waiting": waiting }), 200)
            }
            ShardCommand::BenchWake => {
                run(
                    &self.sql(),
                    "INSERT INTO meta (key, value) VALUES ('bench', '1') ON CONFLICT (key) DO UPDATE SET value = value + 1",
                    vec![],
                )?;
                let waiters = std::mem::take(&mut *self.bench_waiters.borrow_mut());
                let woken = waiters.into_iter().filter_map(|w| w.send(()).ok()).count();
                json_response(&serde_json::json!({ "woken": woken }), 200)
            }
        }
    }

    /// Garbage-collects queues not polled for the idle timeout (a queue with a pending
    /// long-poll is in use) and removes them from the hub.
    async fn alarm(&self) -> Result<Response> {
        let timeout_ms = self.idle_timeout_ms();
        let now = now_ms();
        #[derive(Deserialize)]
        struct Idle {
            queue_id: String,
            spec: String,
        }
        let idle: Vec<Idle> = rows(&self.sql(), "SELECT queue_id, spec FROM queues WHERE last_poll < ?", vec![V::from(now - timeout_ms)])?;
        let expired: Vec<&Idle> = {
            let busy = self.waiters.borrow();
            idle.iter().filter(|q| busy.get(&q.queue_id).is_none_or(|w| w.is_empty())).collect()
        };
        if let Some(first) = expired.first() {
            let realm_id = serde_json::from_str::<QueueSpec>(&first.spec)?.realm_id;
            let ids: Vec<String> = expired.iter().map(|q| q.queue_id.clone()).collect();
            self.remove_queues(&ids)?;
            self.unregister_from_hub(realm_id, ids).await?;
        }
        run(&self.sql(), "DELETE FROM events WHERE seq NOT IN (SELECT seq FROM queue_events WHERE seq IS NOT NULL)", vec![])?;
        self.schedule_expiry().await?;
        Response::ok("")
    }
}

impl EventQueueShard {
    fn sql(&self) -> SqlStorage {
        self.state.storage().sql()
    }

    fn idle_timeout_ms(&self) -> i64 {
        var_secs(&self.env, "EVENT_QUEUE_IDLE_TIMEOUT_SECS", 600) as i64 * 1000
    }

    fn heartbeat_interval(&self) -> Duration {
        Duration::from_secs(var_secs(&self.env, "EVENT_QUEUE_HEARTBEAT_SECS", 50))
    }

    /// The queue, from the instance's copy of `queues` (read from storage on first use).
    fn queue(&self, queue_id: &str) -> Result<Option<Queue>> {
        self.load_queues()?;
        Ok(self.queues.borrow().as_ref().and_then(|q| q.get(queue_id).cloned()))
    }

    fn load_queues(&self) -> Result<()> {
        if self.queues.borrow().is_some() {
            return Ok(());
        }
        let stored: Vec<QueueRow> = rows(&self.sql(), "SELECT queue_id, user_id, spec, last_id FROM queues", vec![])?;
        let mut queues = HashMap::with_capacity(stored.len());
        for row in stored {
            queues.insert(row.queue_id, Queue { user_id: row.user_id, spec: serde_json::from_str(&row.spec)?, last_id: row.last_id });
        }
        *self.queues.borrow_mut() = Some(queues);
        Ok(())
    }

    /// Records a queue's new last event id in the instance's copy (storage has it already).
    fn set_last_id(&self, queue_id: &str, last_id: i64) {
        if let Some(queue) = self.queues.borrow_mut().as_mut().and_then(|q| q.get_mut(queue_id)) {
            queue.last_id = last_id;
        }
    }

    async fn create_queue(&self, new: NewQueue) -> Result<()> {
        run(
            &self.sql(),
            "INSERT INTO queues (queue_id, user_id, spec, last_id, last_poll) VALUES (?, ?, ?, -1, ?)",
            vec![V::from(new.queue_id.as_str()), V::from(new.spec.user_id), V::from(serde_json::to_string(&new.spec)?), V::from(now_ms())],
        )?;
        self.load_queues()?;
        if let Some(queues) = self.queues.borrow_mut().as_mut() {
            queues.insert(new.queue_id, Queue { user_id: new.spec.user_id, spec: new.spec, last_id: -1 });
        }
        if self.state.storage().get_alarm().await?.is_none() {
            self.state.storage().set_alarm(self.idle_timeout_ms()).await?;
        }
        Ok(())
    }

    /// Stores one event for its target queues (one body, then one statement for all their
    /// rows and one for their last ids), then hands each pending long-poll of those queues
    /// its new events, so a woken poll answers without reading storage. The writes have no
    /// `await` between them, so the runtime commits them as one atomic write before any
    /// response (the hub's or a woken poll's) leaves.
    fn deliver(&self, delivery: Delivery) -> Result<Delivered> {
        let sql = self.sql();
        let body = serde_json::to_string(&delivery.event)?;
        let first_try = sql
            .exec(
                "INSERT OR IGNORE INTO events (seq, body, sender_queue_id, local_id) VALUES (?, ?, ?, ?)",
                vec![
                    V::from(delivery.seq),
                    V::from(body.as_str()),
                    V::from(delivery.sender_queue_id.clone()),
                    V::from(delivery.local_id.clone()),
                ],
            )?
            .rows_written()
            > 0;
        // A retried delivery: skip the queues that have the event already.
        let stored_before: HashSet<String> = if first_try {
            HashSet::new()
        } else {
            #[derive(Deserialize)]
            struct Has {
                queue_id: String,
            }
            rows::<Has>(&sql, "SELECT DISTINCT queue_id FROM queue_events WHERE seq = ?", vec![V::from(delivery.seq)])?
                .into_iter()
                .map(|h| h.queue_id)
                .collect()
        };
        self.load_queues()?;
        let mut missing = Vec::new();
        let mut new_rows = Vec::new();
        let mut last_ids = Vec::new();
        let mut stored = Vec::new();
        {
            let waiting = self.waiters.borrow();
            let queues = self.queues.borrow();
            let Some(queues) = queues.as_ref() else { return Err(worker::Error::RustError("queues not loaded".into())) };
            for target in &delivery.targets {
                let Some(queue) = queues.get(&target.queue_id) else {
                    missing.push(target.queue_id.clone());
                    continue;
                };
                if stored_before.contains(&target.queue_id) {
                    continue;
                }
                let flags = target.flags.as_ref().map(serde_json::to_string).transpose()?;
                let parts = delivery::expand(&queue.spec, &delivery.event);
                for (i, part) in parts.iter().enumerate() {
                    new_rows.push(json!([target.queue_id, queue.last_id + 1 + i as i64, flags, part]));
                }
                let last_id = queue.last_id + parts.len() as i64;
                // A queue whose poll this answers counts as polled now.
                let polled = waiting.get(&target.queue_id).is_some_and(|w| !w.is_empty());
                last_ids.push(json!([target.queue_id, last_id, polled]));
                // The event as this queue's waiting polls will answer it, built once.
                let presented = polled.then(|| {
                    parts
                        .iter()
                        .enumerate()
                        .map(|(i, part)| {
                            let stored = Stored {
                                id: queue.last_id + 1 + i as i64,
                                flags: target.flags.clone(),
                                part: *part,
                                sender_queue_id: delivery.sender_queue_id.as_deref(),
                                local_id: delivery.local_id.as_deref(),
                            };
                            delivery::present(&queue.spec, &target.queue_id, delivery.event.clone(), &stored)
                        })
                        .collect::<Vec<Value>>()
                });
                stored.push((target.queue_id.as_str(), queue.last_id, last_id, presented));
            }
        }
        if !new_rows.is_empty() {
            run(
                &sql,
                "INSERT INTO queue_events (queue_id, id, seq, flags, part) \
                 SELECT r.value ->> 0, r.value ->> 1, ?, r.value ->> 2, r.value ->> 3 FROM json_each(?) r",
                vec![V::from(delivery.seq), V::from(Value::Array(new_rows).to_string())],
            )?;
            run(
                &sql,
                "UPDATE queues SET last_id = l.value ->> 1, \
                 last_poll = CASE WHEN l.value ->> 2 THEN ? ELSE last_poll END \
                 FROM json_each(?) l WHERE queues.queue_id = l.value ->> 0",
                vec![V::from(now_ms()), V::from(Value::Array(last_ids).to_string())],
            )?;
        }
        for (queue_id, before, last_id, presented) in stored {
            self.set_last_id(queue_id, last_id);
            let waiters = self.waiters.borrow_mut().remove(queue_id).unwrap_or_default();
            for waiter in waiters {
                // A poll waiting since the queue's previous event gets exactly this event;
                // any other looks again in storage.
                let events = presented.as_ref().filter(|_| waiter.after == before).cloned();
                let _ = waiter.answer.send(events);
            }
        }
        Ok(Delivered { missing })
    }

    /// Development only (`DEVELOPMENT = "true"`): with `EVENT_QUEUE_SHARD_FAULT_EVERY = N`,
    /// every Nth delivery fails before storing anything, and with
    /// `EVENT_QUEUE_SHARD_FAULT_FIRST = N` the first N do, so tests can prove that a failing
    /// shard loses no event.
    fn injected_fault(&self) -> bool {
        let every = var_secs(&self.env, "EVENT_QUEUE_SHARD_FAULT_EVERY", 0);
        let first = var_secs(&self.env, "EVENT_QUEUE_SHARD_FAULT_FIRST", 0);
        if !self.development() || (every == 0 && first == 0) {
            return false;
        }
        let n = self.deliveries.get() + 1;
        self.deliveries.set(n);
        n <= first || (every != 0 && n.is_multiple_of(every))
    }

    fn development(&self) -> bool {
        self.env.var("DEVELOPMENT").map(|v| v.to_string() == "true").unwrap_or(false)
    }

    /// Ends the pending long-polls of a queue; they look again in storage.
    fn wake(&self, queue_id: &str) {
        let waiters = self.waiters.borrow_mut().remove(queue_id).unwrap_or_default();
        for waiter in waiters {
            let _ = waiter.answer.send(None);
        }
    }

    /// `GET /events`: acknowledges (prunes) events up to `last_event_id`, answers the newer
    /// ones, or waits for one until the heartbeat interval passes.
    async fn poll(&self, queue_id: &str, user_id: i64, last_event_id: Option<i64>, dont_block: bool) -> Result<Poll> {
        let Some(queue) = self.queue(queue_id)? else { return Ok(Poll::BadQueue) };
        if queue.user_id != user_id {
            return Ok(Poll::NotOwner);
        }
        let sql = self.sql();
        if let Some(acked) = last_event_id {
            run(&sql, "DELETE FROM queue_events WHERE queue_id = ? AND id <= ?", vec![V::from(queue_id), V::from(acked)])?;
        }
        self.touch(queue_id)?;
        let after = last_event_id.unwrap_or(-1);
        let events = self.pending(queue_id, &queue.spec, after)?;
        if !events.is_empty() || dont_block {
            return Ok(Poll::Events(events));
        }

        // Nothing after `after`: the queue's newest event is the client's (or older).
        let (tx, rx) = oneshot::channel();
        let waiter = Waiter { after: queue.last_id, answer: tx };
        self.waiters.borrow_mut().entry(queue_id.to_string()).or_default().push(waiter);
        let timer = worker::Delay::from(self.heartbeat_interval());
        match select(rx, timer).await {
            // Handed by `deliver`, already stored and already counted as a poll.
            Either::Left((Ok(Some(events)), _)) => return Ok(Poll::Events(events)),
            Either::Left(_) => {}
            Either::Right(_) => {
                // Timed out: our sender is still registered; drop the ones that are done.
                if let Some(list) = self.waiters.borrow_mut().get_mut(queue_id) {
                    list.retain(|w| !w.answer.is_canceled());
                }
            }
        }
        if self.queue(queue_id)?.is_none() {
            return Ok(Poll::BadQueue);
        }
        self.touch(queue_id)?;
        let events = self.pending(queue_id, &queue.spec, after)?;
        if !events.is_empty() {
            return Ok(Poll::Events(events));
        }
        let id: LastId =
            sql.exec("UPDATE queues SET last_id = last_id + 1 WHERE queue_id = ? RETURNING last_id", vec![V::from(queue_id)])?.one()?;
        self.set_last_id(queue_id, id.last_id);
        run(&sql, "INSERT INTO queue_events (queue_id, id) VALUES (?, ?)", vec![V::from(queue_id), V::from(id.last_id)])?;
        Ok(Poll::Events(vec![delivery::heartbeat(id.last_id)]))
    }

    fn touch(&self, queue_id: &str) -> Result<()> {
        run(&self.sql(), "UPDATE queues SET last_poll = ? WHERE queue_id = ?", vec![V::from(now_ms()), V::from(queue_id)])
    }

    /// The queue's events after `after`, as its client sees them.
    fn pending(&self, queue_id: &str, spec: &QueueSpec, after: i64) -> Result<Vec<Value>> {
        let rows: Vec<EventRow> = rows(
            &self.sql(),
            "SELECT q.id, q.flags, q.part, e.body, e.sender_queue_id, e.local_id FROM queue_events q \
             LEFT JOIN events e ON e.seq = q.seq WHERE q.queue_id = ? AND q.id > ? ORDER BY q.id",
            vec![V::from(queue_id), V::from(after)],
        )?;
        let mut events = Vec::with_capacity(rows.len());
        for row in rows {
            let Some(body) = row.body else {
                events.push(delivery::heartbeat(row.id));
                continue;
            };
            let stored = Stored {
                id: row.id,
                flags: row.flags.as_deref().map(serde_json::from_str).transpose()?,
                part: row.part,
                sender_queue_id: row.sender_queue_id.as_deref(),
                local_id: row.local_id.as_deref(),
            };
            events.push(delivery::present(spec, queue_id, serde_json::from_str(&body)?, &stored));
        }
        Ok(events)
    }

    /// Deletes queues and their events, and ends their pending long-polls.
    fn remove_queues(&self, queue_ids: &[String]) -> Result<()> {
        let sql = self.sql();
        for queue_id in queue_ids {
            run(&sql, "DELETE FROM queue_events WHERE queue_id = ?", vec![V::from(queue_id.as_str())])?;
            run(&sql, "DELETE FROM queues WHERE queue_id = ?", vec![V::from(queue_id.as_str())])?;
            if let Some(queues) = self.queues.borrow_mut().as_mut() {
                queues.remove(queue_id);
            }
        }
        for queue_id in queue_ids {
            self.wake(queue_id);
        }
        Ok(())
    }

    async fn unregister_from_hub(&self, realm_id: i64, queue_ids: Vec<String>) -> Result<()> {
        let hub = self.env.durable_object(bindings::REALM_HUB)?.id_from_name(&realm_id.to_string())?.get_stub()?;
        let resp = hub.fetch_with_request(command_request(&HubCommand::<Value>::Unregister(Unregister { queue_ids }))?).await?;
        if resp.status_code() != 200 {
            return Err(worker::Error::RustError(format!("RealmHub unregister answered {}", resp.status_code())));
        }
        Ok(())
    }

    /// Sets the alarm for the earliest moment a queue can become idle.
    async fn schedule_expiry(&self) -> Result<()> {
        #[derive(Deserialize)]
        struct Oldest {
            oldest: Option<i64>,
        }
        let oldest: Oldest = self.sql().exec("SELECT MIN(last_poll) AS oldest FROM queues", None)?.one()?;
        if let Some(oldest) = oldest.oldest {
            let due = (oldest + self.idle_timeout_ms() - now_ms()).max(1000);
            self.state.storage().set_alarm(due).await?;
        }
        Ok(())
    }
}
