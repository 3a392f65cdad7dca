//! The event queues one Durable Object holds: their events in its SQLite storage, their
//! pending long-polls in memory. An `EventQueueShard` holds queues in a book, and so does
//! the `RealmHub` for its organization's first queues (delivering to them costs no
//! second object).
//!
//! Each queue numbers its own events (as Zulip does): the hub's sequence fixes their order,
//! and heartbeats take the next number too, so ids increase within a queue. An event body
//! is stored once per object (`events`) and referenced by every target queue
//! (`queue_events`); the per-queue form is built when a poll answers.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures_channel::oneshot;
use futures_util::future::{select, Either};
use serde::Deserialize;
use serde_json::{json, Value};
use worker::{Env, Response, Result, SqlStorage, SqlStorageValue as V};

use crate::delivery::{self, Stored};
use crate::protocol::{Delivered, Delivery, NewQueue, Polled, QueueSpec, ShardError};
use crate::storage::{json_response, now_ms, rows, run, var_secs};

/// The book's tables; `{queues}` is the table of its queues, named by the object (the hub
/// has a `queues` table of its own, its registry).
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS {queues} (
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

pub struct QueueBook {
    /// The table of the book's queues.
    table: &'static str,
    /// Pending long-polls by queue id: handed their new events when an event is stored
    /// (`Some`), or told to look again when the queue goes (`None`).
    waiters: RefCell<HashMap<String, Vec<Waiter>>>,
    /// The book's queues as stored (less `last_poll`): loaded once per instance and updated
    /// with every write, so a delivery reads no row per queue.
    queues: RefCell<Option<HashMap<String, Queue>>>,
}

#[derive(Deserialize)]
struct QueueRow {
    queue_id: String,
    user_id: i64,
    spec: String,
    last_id: i64,
}

#[derive(Clone)]
pub struct Queue {
    user_id: i64,
    pub spec: QueueSpec,
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

/// Why a request on a queue is refused: the queue is unknown (never made, deleted or
/// expired), or it is another user's.
#[derive(Clone, Copy)]
pub enum Refusal {
    BadQueue,
    NotOwner,
}

impl Refusal {
    /// The refusal as the worker reads it.
    pub fn response(self) -> Result<Response> {
        match self {
            Refusal::BadQueue => json_response(&ShardError { error: "bad_queue".into() }, 400),
            Refusal::NotOwner => json_response(&ShardError { error: "not_owner".into() }, 403),
        }
    }
}

/// What a poll answers.
pub enum Poll {
    Events(Vec<Value>),
    Refused(Refusal),
}

/// A queue not polled for the idle timeout, with its organization.
pub struct Idle {
    pub queue_id: String,
    pub realm_id: i64,
}

impl QueueBook {
    /// The book over `table`, its tables created if missing (a failure is logged; the
    /// book's statements then fail with it).
    pub fn open(sql: &SqlStorage, table: &'static str) -> QueueBook {
        if let Err(err) = sql.exec(&SCHEMA.replace("{queues}", table), None) {
            worker::console_error!("queue book schema: {err}");
        }
        QueueBook { table, waiters: RefCell::new(HashMap::new()), queues: RefCell::new(None) }
    }

    /// `query` with `{queues}` naming this book's table.
    fn q(&self, query: &str) -> String {
        query.replace("{queues}", self.table)
    }

    /// The queue, from the instance's copy (read from storage on first use).
    fn queue(&self, sql: &SqlStorage, queue_id: &str) -> Result<Option<Queue>> {
        self.load(sql)?;
        Ok(self.queues.borrow().as_ref().and_then(|q| q.get(queue_id).cloned()))
    }

    /// The queue, if it exists and is `user_id`'s; else why a request on it is refused.
    fn owned(&self, sql: &SqlStorage, queue_id: &str, user_id: i64) -> Result<std::result::Result<Queue, Refusal>> {
        Ok(match self.queue(sql, queue_id)? {
            None => Err(Refusal::BadQueue),
            Some(queue) if queue.user_id != user_id => Err(Refusal::NotOwner),
            Some(queue) => Ok(queue),
        })
    }

    /// `DELETE /events`: removes `user_id`'s queue and answers it, or why not.
    pub fn delete(&self, sql: &SqlStorage, queue_id: &str, user_id: i64) -> Result<std::result::Result<Queue, Refusal>> {
        let owned = self.owned(sql, queue_id, user_id)?;
        if owned.is_ok() {
            self.remove(sql, &[queue_id.to_string()])?;
        }
        Ok(owned)
    }

    fn load(&self, sql: &SqlStorage) -> Result<()> {
        if self.queues.borrow().is_some() {
            return Ok(());
        }
        let stored: Vec<QueueRow> = rows(sql, &self.q("SELECT queue_id, user_id, spec, last_id FROM {queues}"), vec![])?;
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

    pub fn create(&self, sql: &SqlStorage, new: NewQueue) -> Result<()> {
        run(
            sql,
            &self.q("INSERT INTO {queues} (queue_id, user_id, spec, last_id, last_poll) VALUES (?, ?, ?, -1, ?)"),
            vec![V::from(new.queue_id.as_str()), V::from(new.spec.user_id), V::from(serde_json::to_string(&new.spec)?), V::from(now_ms())],
        )?;
        self.load(sql)?;
        if let Some(queues) = self.queues.borrow_mut().as_mut() {
            queues.insert(new.queue_id, Queue { user_id: new.spec.user_id, spec: new.spec, last_id: -1 });
        }
        Ok(())
    }

    /// Stores one event for its target queues (one body, then one statement for all their
    /// rows and one for their last ids), then hands each pending long-poll of those queues
    /// its new events, so a woken poll answers without reading storage. No `await`: the
    /// runtime commits the writes as one, before any response of the object leaves (a woken
    /// poll's included). The answer lists the targets this book does not hold.
    pub fn deliver(&self, sql: &SqlStorage, delivery: &Delivery) -> Result<Delivered> {
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
            rows::<Has>(sql, "SELECT DISTINCT queue_id FROM queue_events WHERE seq = ?", vec![V::from(delivery.seq)])?
                .into_iter()
                .map(|h| h.queue_id)
                .collect()
        };
        self.load(sql)?;
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
                sql,
                "INSERT INTO queue_events (queue_id, id, seq, flags, part) \
                 SELECT r.value ->> 0, r.value ->> 1, ?, r.value ->> 2, r.value ->> 3 FROM json_each(?) r",
                vec![V::from(delivery.seq), V::from(Value::Array(new_rows).to_string())],
            )?;
            run(
                sql,
                &self.q("UPDATE {queues} SET last_id = l.value ->> 1, \
                     last_poll = CASE WHEN l.value ->> 2 THEN ? ELSE last_poll END \
                     FROM json_each(?) l WHERE {queues}.queue_id = l.value ->> 0"),
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

    /// Ends the pending long-polls of a queue; they look again in storage.
    fn wake(&self, queue_id: &str) {
        let waiters = self.waiters.borrow_mut().remove(queue_id).unwrap_or_default();
        for waiter in waiters {
            let _ = waiter.answer.send(None);
        }
    }

    /// How many long-polls wait (`make bench` sends only once every one waits).
    pub fn waiting_polls(&self) -> usize {
        self.waiters.borrow().values().map(|list| list.iter().filter(|w| !w.answer.is_canceled()).count()).sum()
    }

    /// `GET /events`: acknowledges (prunes) events up to `last_event_id`, answers the newer
    /// ones, or waits for one until `heartbeat` passes.
    pub async fn poll(
        &self,
        sql: &SqlStorage,
        queue_id: &str,
        user_id: i64,
        last_event_id: Option<i64>,
        dont_block: bool,
        heartbeat: Duration,
    ) -> Result<Poll> {
        let queue = match self.owned(sql, queue_id, user_id)? {
            Ok(queue) => queue,
            Err(refusal) => return Ok(Poll::Refused(refusal)),
        };
        if let Some(acked) = last_event_id {
            run(sql, "DELETE FROM queue_events WHERE queue_id = ? AND id <= ?", vec![V::from(queue_id), V::from(acked)])?;
        }
        self.touch(sql, queue_id)?;
        let after = last_event_id.unwrap_or(-1);
        let events = self.pending(sql, queue_id, &queue.spec, after)?;
        if !events.is_empty() || dont_block {
            return Ok(Poll::Events(events));
        }

        // Nothing after `after`: the queue's newest event is the client's (or older).
        let (tx, rx) = oneshot::channel();
        let waiter = Waiter { after: queue.last_id, answer: tx };
        self.waiters.borrow_mut().entry(queue_id.to_string()).or_default().push(waiter);
        let timer = worker::Delay::from(heartbeat);
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
        if self.queue(sql, queue_id)?.is_none() {
            return Ok(Poll::Refused(Refusal::BadQueue));
        }
        self.touch(sql, queue_id)?;
        let events = self.pending(sql, queue_id, &queue.spec, after)?;
        if !events.is_empty() {
            return Ok(Poll::Events(events));
        }
        let id: LastId = sql
            .exec(&self.q("UPDATE {queues} SET last_id = last_id + 1 WHERE queue_id = ? RETURNING last_id"), vec![V::from(queue_id)])?
            .one()?;
        self.set_last_id(queue_id, id.last_id);
        run(sql, "INSERT INTO queue_events (queue_id, id) VALUES (?, ?)", vec![V::from(queue_id), V::from(id.last_id)])?;
        Ok(Poll::Events(vec![delivery::heartbeat(id.last_id)]))
    }

    fn touch(&self, sql: &SqlStorage, queue_id: &str) -> Result<()> {
        run(sql, &self.q("UPDATE {queues} SET last_poll = ? WHERE queue_id = ?"), vec![V::from(now_ms()), V::from(queue_id)])
    }

    /// The queue's events after `after`, as its client sees them.
    fn pending(&self, sql: &SqlStorage, queue_id: &str, spec: &QueueSpec, after: i64) -> Result<Vec<Value>> {
        let rows: Vec<EventRow> = rows(
            sql,
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
    pub fn remove(&self, sql: &SqlStorage, queue_ids: &[String]) -> Result<()> {
        for queue_id in queue_ids {
            run(sql, "DELETE FROM queue_events WHERE queue_id = ?", vec![V::from(queue_id.as_str())])?;
            run(sql, &self.q("DELETE FROM {queues} WHERE queue_id = ?"), vec![V::from(queue_id.as_str())])?;
            if let Some(queues) = self.queues.borrow_mut().as_mut() {
                queues.remove(queue_id);
            }
        }
        for queue_id in queue_ids {
            self.wake(queue_id);
        }
        Ok(())
    }

    /// Removes the queues not polled for `timeout_ms` (a queue with a pending long-poll is in
    /// use) and the event bodies no queue references; answers the removed queues.
    pub fn expire(&self, sql: &SqlStorage, timeout_ms: i64) -> Result<Vec<Idle>> {
        #[derive(Deserialize)]
        struct IdleRow {
            queue_id: String,
            spec: String,
        }
        let idle: Vec<IdleRow> =
            rows(sql, &self.q("SELECT queue_id, spec FROM {queues} WHERE last_poll < ?"), vec![V::from(now_ms() - timeout_ms)])?;
        let mut expired = Vec::new();
        {
            let busy = self.waiters.borrow();
            for row in idle {
                if busy.get(&row.queue_id).is_none_or(|w| w.is_empty()) {
                    let realm_id = serde_json::from_str::<QueueSpec>(&row.spec)?.realm_id;
                    expired.push(Idle { queue_id: row.queue_id, realm_id });
                }
            }
        }
        let ids: Vec<String> = expired.iter().map(|q| q.queue_id.clone()).collect();
        self.remove(sql, &ids)?;
        run(sql, "DELETE FROM events WHERE seq NOT IN (SELECT seq FROM queue_events WHERE seq IS NOT NULL)", vec![])?;
        Ok(expired)
    }

    /// When the next queue can become idle (ms from now, at least a second); `None` without
    /// queues.
    pub fn next_expiry_in(&self, sql: &SqlStorage, timeout_ms: i64) -> Result<Option<i64>> {
        #[derive(Deserialize)]
        struct Oldest {
            oldest: Option<i64>,
        }
        let oldest: Oldest = sql.exec(&self.q("SELECT MIN(last_poll) AS oldest FROM {queues}"), None)?.one()?;
        Ok(oldest.oldest.map(|oldest| (oldest + timeout_ms - now_ms()).max(1000)))
    }
}

/// A poll's answer, from a shard or the hub.
pub fn poll_response(polled: Poll) -> Result<Response> {
    match polled {
        Poll::Events(events) => json_response(&Polled { events }, 200),
        Poll::Refused(refusal) => refusal.response(),
    }
}

/// How long a queue lives without a poll.
pub fn idle_timeout_ms(env: &Env) -> i64 {
    var_secs(env, "EVENT_QUEUE_IDLE_TIMEOUT_SECS", 600) as i64 * 1000
}

/// After a queue is created: the alarm that expires idle queues, unless an alarm is set
/// already (it fires sooner, and the alarm handler sets the next one).
pub async fn arm_expiry(storage: &worker::Storage, env: &Env) -> Result<()> {
    if storage.get_alarm().await?.is_none() {
        storage.set_alarm(idle_timeout_ms(env)).await?;
    }
    Ok(())
}

/// How long a long-poll waits before it answers a heartbeat.
pub fn heartbeat_interval(env: &Env) -> Duration {
    Duration::from_secs(var_secs(env, "EVENT_QUEUE_HEARTBEAT_SECS", 50))
}
