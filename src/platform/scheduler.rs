//! `MessageScheduler`: one Durable Object per organization (named by realm id) whose alarm
//! delivers the organization's scheduled messages, mails missed messages
//! (`crate::actions::missed_message_emails`), hands its queued emails to the email
//! provider (`crate::actions::email`), calls outgoing-webhook bots' services
//! (`crate::actions::outgoing_webhooks`), builds requested data exports
//! (`crate::actions::realm_export`), deletes messages past their retention period
//! (`crate::actions::message_retention`) and announces new full members
//! (`crate::actions::full_members`).
//!
//! Why an object of its own rather than `RealmHub`: the hub lives in the
//! `team-chat-durable-objects` crate, which the worker crate depends on, so the hub cannot
//! call the send path; and delivering sends events *through* the hub, so an alarm running
//! inside the hub would wait on its own serialised dispatch. This class is defined in the
//! worker crate, so its alarm calls `actions::scheduled_messages::deliver_due` directly
//! with its `env` (the organization's D1 binding, the hub): no internal HTTP route, no
//! shared secret.
//!
//! D1 is the truth: the alarm is only a wake-up. After every create, edit and delete,
//! [`arm`] asks the object to set its alarm to the earliest pending message's time; the
//! alarm delivers what is due and re-arms for the next. Durable Object alarms survive
//! restarts and are retried when the handler fails, and delivery is guarded in the message's
//! own write batch, so a message is sent once even when an alarm runs twice.

use serde::{Deserialize, Serialize};
use worker::{durable_object, DurableObject, Env, Method, Request, RequestInit, Response, Result, State};

use crate::actions::scheduled_messages::deliver_due;
use team_chat_durable_objects::protocol::bindings;

/// Where the alarm finds its organization (kept in the object's storage).
#[derive(Serialize, Deserialize)]
struct Target {
    realm_id: i64,
    /// The D1 binding holding the organization (`crate::platform::directory`); targets stored before
    /// the directory name none and mean the first database.
    #[serde(default = "first_database")]
    database: String,
    /// `host[:port]` of the organization, for the message events' placeholder emails.
    realm_host: String,
}

const TARGET_KEY: &str = "target";

/// When the next retention sweep is due (unix seconds); absent while nothing of the
/// organization has a retention period (`crate::actions::message_retention`).
const RETENTION_KEY: &str = "retention_at";

/// When to look next for members whose waiting period ended, and since when the last look
/// went (unix seconds); absent while the organization has no waiting period
/// (`crate::actions::full_members`).
const FULL_MEMBERS_KEY: &str = "full_members_at";
const FULL_MEMBERS_SINCE_KEY: &str = "full_members_since";

/// An `/arm` request: the organization, and whether a retention period changed (the sweep
/// then runs now).
#[derive(Serialize, Deserialize)]
struct Arm {
    #[serde(flatten)]
    target: Target,
    #[serde(default)]
    retention_changed: bool,
    /// The waiting period changed: look for new full members from now on.
    #[serde(default)]
    waiting_period_changed: bool,
}

fn first_database() -> String {
    crate::platform::directory::DIRECTORY_DATABASE.to_string()
}

#[durable_object]
pub struct MessageScheduler {
    state: State,
    env: Env,
}

impl DurableObject for MessageScheduler {
    fn new(state: State, env: Env) -> Self {
        MessageScheduler { state, env }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        if req.method() != Method::Post || !req.path().ends_with("/arm") {
            return Response::error("no such command", 404);
        }
        let Arm { target, retention_changed, waiting_period_changed } = req.json().await?;
        self.state.storage().put(TARGET_KEY, &target).await?;
        let now = worker::Date::now().as_millis() as i64 / 1000;
        if retention_changed {
            self.state.storage().put(RETENTION_KEY, now).await?;
        }
        if waiting_period_changed {
            self.state.storage().put(FULL_MEMBERS_KEY, now).await?;
            self.state.storage().put(FULL_MEMBERS_SINCE_KEY, now).await?;
        }
        let sweeps =
            earliest(self.state.storage().get::<i64>(RETENTION_KEY).await?, self.state.storage().get::<i64>(FULL_MEMBERS_KEY).await?);
        let db = self.env.d1(&target.database)?;
        let next = crate::db::scheduled_messages::next_due_in_realm(&db, target.realm_id).await?;
        let email = crate::db::email_outbox::next_due(&db, target.realm_id).await?;
        let missed = crate::db::missed_message_emails::next_due(&db, target.realm_id).await?;
        let webhooks = crate::db::outgoing_webhook_deliveries::next_due(&db, target.realm_id).await?;
        let export = crate::actions::realm_export::next_due(&db, target.realm_id).await.map_err(|e| worker::Error::RustError(e.msg))?;
        self.set_alarm(earliest(earliest(earliest(earliest(earliest(next, email), missed), webhooks), export), sweeps)).await?;
        Response::ok("")
    }

    async fn alarm(&self) -> Result<Response> {
        let Some(target) = self.state.storage().get::<Target>(TARGET_KEY).await? else {
            return Response::ok("");
        };
        // An error makes the runtime retry the alarm; delivered messages are not sent again.
        // `deliver_due` answers when to run next (now when more are due).
        let next = deliver_due(&self.env, &target.database, target.realm_id, &target.realm_host)
            .await
            .map_err(|e| worker::Error::RustError(e.msg))?;
        // The same alarm mails missed messages whose batching period is over, then hands
        // the organization's queued emails to the provider.
        let missed = crate::actions::missed_message_emails::deliver_due(&self.env, &target.database, target.realm_id, &target.realm_host)
            .await
            .map_err(|e| worker::Error::RustError(e.msg))?;
        let email = crate::actions::email::deliver_due(&self.env, &target.database, target.realm_id)
            .await
            .map_err(|e| worker::Error::RustError(e.msg))?;
        // And calls the services of outgoing-webhook bots their messages triggered.
        let webhooks = crate::actions::outgoing_webhooks::deliver_due(&self.env, &target.database, target.realm_id, &target.realm_host)
            .await
            .map_err(|e| worker::Error::RustError(e.msg))?;
        // Data exports last: one step of a build, the longest work here. A step cut short
        // (a restart) runs again from the export's recorded progress.
        let export = crate::actions::realm_export::build_pending(&self.env, &target.database, target.realm_id)
            .await
            .map_err(|e| worker::Error::RustError(e.msg))?;
        // Messages past their retention period, when a sweep is due; then new full members.
        let sweeps = earliest(self.sweep_if_due().await?, self.full_members_if_due().await?);
        self.set_alarm(earliest(earliest(earliest(earliest(earliest(next, email), missed), webhooks), export), sweeps)).await?;
        Response::ok("")
    }
}

/// The earlier of two optional times.
fn earliest(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl MessageScheduler {
    /// Runs the retention sweep if it is due; answers when the next one is.
    async fn sweep_if_due(&self) -> Result<Option<i64>> {
        let storage = self.state.storage();
        let Some(at) = storage.get::<i64>(RETENTION_KEY).await? else { return Ok(None) };
        if at > worker::Date::now().as_millis() as i64 / 1000 {
            return Ok(Some(at));
        }
        let Some(target) = storage.get::<Target>(TARGET_KEY).await? else { return Ok(None) };
        let next = crate::actions::message_retention::delete_expired(&self.env, &target.database, target.realm_id)
            .await
            .map_err(|e| worker::Error::RustError(e.msg))?;
        match next {
            Some(at) => storage.put(RETENTION_KEY, at).await?,
            None => {
                storage.delete(RETENTION_KEY).await?;
            }
        }
        Ok(next)
    }

    /// Announces the members whose waiting period ended since the last look, if a look is
    /// due; answers when the next one is.
    async fn full_members_if_due(&self) -> Result<Option<i64>> {
        let storage = self.state.storage();
        let Some(at) = storage.get::<i64>(FULL_MEMBERS_KEY).await? else { return Ok(None) };
        let now = worker::Date::now().as_millis() as i64 / 1000;
        if at > now {
            return Ok(Some(at));
        }
        let Some(target) = storage.get::<Target>(TARGET_KEY).await? else { return Ok(None) };
        let since = storage.get::<i64>(FULL_MEMBERS_SINCE_KEY).await?.unwrap_or(now);
        let next = crate::actions::full_members::announce_crossings(&self.env, &target.database, target.realm_id, since)
            .await
            .map_err(|e| worker::Error::RustError(e.msg))?;
        storage.put(FULL_MEMBERS_SINCE_KEY, now).await?;
        match next {
            Some(at) => storage.put(FULL_MEMBERS_KEY, at).await?,
            None => {
                storage.delete(FULL_MEMBERS_KEY).await?;
            }
        }
        Ok(next)
    }

    async fn set_alarm(&self, next_due: Option<i64>) -> Result<()> {
        let storage = self.state.storage();
        match next_due {
            Some(at) => {
                let offset_ms = (at * 1000 - worker::Date::now().as_millis() as i64).max(0);
                storage.set_alarm(offset_ms).await
            }
            None => storage.delete_alarm().await,
        }
    }
}

/// Re-arms the organization's scheduler after a change to its scheduled messages. Never
/// fails the request (the change is committed); a failure is logged, and the next change
/// or the pending alarm re-arms it.
pub async fn arm(env: &Env, database: &str, realm_id: i64, realm_host: &str) {
    if let Err(err) = try_arm(env, database, realm_id, realm_host).await {
        worker::console_error!("scheduler of realm {realm_id} not armed: {err}");
    }
}

/// [`arm`] after a retention period changed: the sweep runs now, then daily while any
/// period is set.
pub async fn arm_retention_sweep(env: &Env, database: &str, realm_id: i64, realm_host: &str) {
    let target = Target { realm_id, database: database.to_string(), realm_host: realm_host.to_string() };
    if let Err(err) = try_arm_with(env, Arm { target, retention_changed: true, waiting_period_changed: false }).await {
        worker::console_error!("retention sweep of realm {realm_id} not armed: {err}");
    }
}

/// [`arm`] after the waiting period changed: new full members are looked for from now on.
pub async fn arm_full_members(env: &Env, database: &str, realm_id: i64, realm_host: &str) {
    let target = Target { realm_id, database: database.to_string(), realm_host: realm_host.to_string() };
    if let Err(err) = try_arm_with(env, Arm { target, retention_changed: false, waiting_period_changed: true }).await {
        worker::console_error!("full members of realm {realm_id} not watched: {err}");
    }
}

async fn try_arm(env: &Env, database: &str, realm_id: i64, realm_host: &str) -> Result<()> {
    let target = Target { realm_id, database: database.to_string(), realm_host: realm_host.to_string() };
    try_arm_with(env, Arm { target, retention_changed: false, waiting_period_changed: false }).await
}

async fn try_arm_with(env: &Env, arm: Arm) -> Result<()> {
    let realm_id = arm.target.realm_id;
    let stub = env.durable_object(bindings::MESSAGE_SCHEDULER)?.id_from_name(&realm_id.to_string())?.get_stub()?;
    let body = serde_json::to_string(&arm)?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_body(Some(body.into()));
    let resp = stub.fetch_with_request(Request::new_with_init("https://scheduler/arm", &init)?).await?;
    if resp.status_code() != 200 {
        return Err(worker::Error::RustError(format!("MessageScheduler answered {}", resp.status_code())));
    }
    Ok(())
}
