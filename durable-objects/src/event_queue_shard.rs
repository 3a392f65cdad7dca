//! `EventQueueShard`: holds many event queues of one organization (named
//! `<realm_id>:<shard>`) in its [`QueueBook`], for the queues its hub does not hold itself.

use std::cell::{Cell, RefCell};

use futures_channel::oneshot;
use serde_json::Value;
use worker::{durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, State};

use crate::protocol::{bindings, command_request, read_command, HubCommand, ShardCommand, Unregister};
use crate::queue_book::{arm_expiry, heartbeat_interval, idle_timeout_ms, poll_response, QueueBook};
use crate::storage::{development, json_response, run, var_secs};

/// The table of a shard's queues.
const QUEUES_TABLE: &str = "queues";

/// Beside the book: a counter `make bench`'s floor writes.
const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);";

#[durable_object]
pub struct EventQueueShard {
    state: State,
    env: Env,
    book: QueueBook,
    /// Deliveries seen, for the development fault injection.
    deliveries: Cell<u64>,
    /// `make bench`'s fan-out floor (development only): bare long-polls held here.
    bench_waiters: RefCell<Vec<oneshot::Sender<()>>>,
}

impl DurableObject for EventQueueShard {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        if let Err(err) = sql.exec(SCHEMA, None) {
            worker::console_error!("EventQueueShard schema: {err}");
        }
        let book = QueueBook::open(&sql, QUEUES_TABLE);
        EventQueueShard { state, env, book, deliveries: Cell::new(0), bench_waiters: RefCell::new(Vec::new()) }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let command = read_command::<ShardCommand>(&mut req).await?;
        let bench = matches!(
            command,
            ShardCommand::BenchWait | ShardCommand::BenchWaiting | ShardCommand::BenchWake | ShardCommand::BenchWaitingPolls
        );
        if bench && !development(&self.env) {
            return Response::error("no such command", 404);
        }
        let sql = self.sql();
        match command {
            ShardCommand::CreateQueue(new) => {
                self.book.create(&sql, new)?;
                arm_expiry(&self.state.storage(), &self.env).await?;
                json_response(&serde_json::json!({}), 200)
            }
            ShardCommand::Deliver(delivery) => {
                if self.injected_fault() {
                    return Response::error("injected fault", 500);
                }
                json_response(&self.book.deliver(&sql, &delivery)?, 200)
            }
            ShardCommand::Poll { queue_id, user_id, last_event_id, dont_block } => {
                let polled = self.book.poll(&sql, &queue_id, user_id, last_event_id, dont_block, heartbeat_interval(&self.env)).await?;
                poll_response(polled)
            }
            ShardCommand::DeleteQueue { queue_id, user_id } => match self.book.delete(&sql, &queue_id, user_id)? {
                Err(refusal) => refusal.response(),
                Ok(queue) => {
                    self.unregister_from_hub(queue.spec.realm_id, vec![queue_id]).await?;
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
            ShardCommand::BenchWaitingPolls => json_response(&serde_json::json!({ "waiting": self.book.waiting_polls() }), 200),
            ShardCommand::BenchWake => {
                run(&sql, "INSERT INTO meta (key, value) VALUES ('bench', '1') ON CONFLICT (key) DO UPDATE SET value = value + 1", vec![])?;
                let waiters = std::mem::take(&mut *self.bench_waiters.borrow_mut());
                let woken = waiters.into_iter().filter_map(|w| w.send(()).ok()).count();
                json_response(&serde_json::json!({ "woken": woken }), 200)
            }
        }
    }

    /// Garbage-collects queues not polled for the idle timeout and removes them from the hub.
    async fn alarm(&self) -> Result<Response> {
        let sql = self.sql();
        let timeout_ms = idle_timeout_ms(&self.env);
        let expired = self.book.expire(&sql, timeout_ms)?;
        if let Some(first) = expired.first() {
            let realm_id = first.realm_id;
            self.unregister_from_hub(realm_id, expired.into_iter().map(|q| q.queue_id).collect()).await?;
        }
        if let Some(due) = self.book.next_expiry_in(&sql, timeout_ms)? {
            self.state.storage().set_alarm(due).await?;
        }
        Response::ok("")
    }
}

impl EventQueueShard {
    fn sql(&self) -> SqlStorage {
        self.state.storage().sql()
    }

    /// Development only (`DEVELOPMENT = "true"`): with `EVENT_QUEUE_SHARD_FAULT_EVERY = N`,
    /// every Nth delivery fails before storing anything, and with
    /// `EVENT_QUEUE_SHARD_FAULT_FIRST = N` the first N do, so tests can prove that a failing
    /// shard loses no event.
    fn injected_fault(&self) -> bool {
        let every = var_secs(&self.env, "EVENT_QUEUE_SHARD_FAULT_EVERY", 0);
        let first = var_secs(&self.env, "EVENT_QUEUE_SHARD_FAULT_FIRST", 0);
        if !development(&self.env) || (every == 0 && first == 0) {
            return false;
        }
        let n = self.deliveries.get() + 1;
        self.deliveries.set(n);
        n <= first || (every != 0 && n.is_multiple_of(every))
    }

    async fn unregister_from_hub(&self, realm_id: i64, queue_ids: Vec<String>) -> Result<()> {
        let hub = self.env.durable_object(bindings::REALM_HUB)?.id_from_name(&realm_id.to_string())?.get_stub()?;
        let resp = hub.fetch_with_request(command_request(&HubCommand::<Value>::Unregister(Unregister { queue_ids }))?).await?;
        if resp.status_code() != 200 {
            return Err(worker::Error::RustError(format!("RealmHub unregister answered {}", resp.status_code())));
        }
        Ok(())
    }
}
