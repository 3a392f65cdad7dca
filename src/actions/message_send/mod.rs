//! Sending a message, in three steps that every sender shares (`POST /messages`,
//! scheduling and delivering scheduled messages), one file each:
//! - [`reads`]: ONE read batch ([`load_send`]; the organization's settings come from the
//!   isolate's cache, checked current by the request's authentication);
//! - [`plan`](mod@plan): every rule of `POST /messages`, pure ([`plan()`]);
//! - [`write`]: ONE write batch, then the events, once the write committed ([`add_send_writes`]
//!   and [`finish_planned`] for a caller whose batch holds the message);
//! - then [`follow_up`](mod@follow_up): what the committed message sets off for its
//!   recipients (push, missed-message emails, outgoing webhooks), one job, started by
//!   every sender alike ([`FollowUp::start`]).
//!
//! [`send`] is the one entry of every sender ([`Sender`]): a request's user (`POST
//! /messages`, incoming webhooks), a known user outside the request's own send (scheduled
//! delivery, the notification bot's direct messages, a bot's reply), and a message the
//! notification bot planned with [`plan_bot_message`].
//!
//! # The recalled send
//! A repeated `POST /messages` (same key, destination, topic, mentions and links) costs ONE
//! D1 round trip: its write. The first send of a sender to a place reads everything
//! [`plan()`] needs in the batch that authenticates the request, and when its write left
//! those answers as they were, this isolate keeps them (`crate::platform::remembered_reads`).
//! The next send of the same reads recalls them instead of reading: it authenticates against the recalled
//! rows, counts the request against the user's rate limit, plans, and puts one guard per
//! recalled read first in its write batch. A guard fails the batch, writing nothing, unless
//! its read still answers exactly what was remembered; the send then forgets the answers,
//! reads them with authentication and sends as usual (one more round trip, never a message
//! planned from old answers). A send that changes what its reads answer (starts the topic,
//! changes a visibility policy, joins a topic's participants) forgets them. The rate-limit
//! count made for a recalled user stands once the write commits; otherwise the request's
//! authentication confirms or refunds it (`crate::auth::Authenticator`).

mod bot;
mod follow_up;
pub mod plan;
pub mod reads;
pub mod write;

use serde_json::Value;
use worker::{D1Database, Env};

pub use bot::{plan_bot_message, BotMessage};
pub use follow_up::FollowUp;
pub use plan::{plan, PlannedChannel, SendPlan, WILDCARD_MENTION_THRESHOLD};
pub use reads::{add_send_reads, load_send, SendInputs, SendReads, SendSubscriber};
pub use write::{add_send_writes, PendingSend};
use write::{commit_send, finish_send};

use crate::actions::channels::Principal;
use crate::actions::site::Site;
use crate::auth::{Authenticator, Remember};
use crate::context::RequestContext;
use crate::db::batch::{Batch, BatchResults};
use crate::db::statement::Statement;
use crate::db::users::UserRow;
use crate::error::ApiResult;
use crate::model::VisibilityPolicy;
use crate::platform::realm_cache::RealmState;

/// Where the message goes, as the client named it.
#[derive(Debug, Clone)]
pub enum Destination {
    ChannelName(String),
    ChannelId(i64),
    Users(Vec<Principal>),
}

pub struct SendRequest {
    pub to: Destination,
    /// Channel messages: the topic as sent (`None`: missing).
    pub topic: Option<String>,
    pub content: String,
    pub read_by_sender: bool,
    pub client: String,
    pub queue_id: Option<String>,
    pub local_id: Option<String>,
    /// `host[:port]` of the organization (placeholder emails in the event's message).
    pub realm_host: String,
    /// The organization's URL, which links in the content may be relative to.
    pub realm_url: String,
}

pub struct SentMessage {
    pub id: i64,
    pub automatic_new_visibility_policy: Option<VisibilityPolicy>,
    /// Mentioned users this send made follow the topic (`automatically_follow_topics_where_mentioned`).
    pub followed_by_mention: Vec<i64>,
    /// Whether a recipient may get a push notification: false when no recipient but the
    /// sender has a push device, so nothing is looked up after the response.
    pub may_notify_push: bool,
    /// Whether the send changed what its reads answer (it started the topic, or changed a
    /// visibility policy of it, or joined the participants a topic mention reads): the
    /// answers are then not worth remembering.
    pub changed_its_reads: bool,
    /// (bot id, trigger) of each outgoing-webhook bot the message triggers (usually none).
    pub webhook_triggers: Vec<(i64, &'static str)>,
    /// When it triggers one: the message as the webhook's payload shows it.
    pub webhook_message: Option<Value>,
}

/// Who sends a message, which decides how the send reads and plans before its one write.
pub enum Sender<'a> {
    /// The request's user (`POST /messages`, incoming webhooks): the recalled send when this
    /// isolate remembers the sender's reads, else one read batch with authentication.
    Request(&'a RequestContext),
    /// A known user outside the request's own send (a scheduled message falling due, a
    /// bot's reply, the notification bot's direct messages): one read batch, and `guard`
    /// first in the write.
    Known { site: &'a Site, user: &'a UserRow, realm: &'a RealmState, guard: Vec<Statement> },
    /// A message already planned ([`plan_bot_message`], the notification bot's channel
    /// notices), written after `guard`.
    Planned { site: &'a Site, plan: &'a SendPlan, guard: Vec<Statement> },
}

/// Sends a message, the one entry of every sender: reads (or recalls) what [`plan()`]
/// needs, plans, writes in ONE batch, sends the events, then starts its [`FollowUp`] (push
/// notifications, missed-message emails, outgoing webhooks), which runs after a request's
/// response. A request's authentication errors come first, as with any endpoint. A caller
/// whose own batch holds the message uses [`add_send_writes`] and [`finish_planned`].
pub async fn send(sender: Sender<'_>, req: &SendRequest) -> ApiResult<SentMessage> {
    match sender {
        Sender::Request(ctx) => {
            let (me, sent) = match send_recalled(&ctx.auth, &ctx.db, &ctx.env, req).await? {
                Some(sent) => sent,
                None => send_read(&ctx.auth, &ctx.db, &ctx.env, req).await?,
            };
            FollowUp::of_send(Site::of_request(ctx), &me, &sent).start().await;
            Ok(sent)
        }
        Sender::Known { site, user, realm, guard } => send_known(site, user, realm, req, guard).await,
        Sender::Planned { site, plan, guard } => send_planned(site, plan, req, guard).await,
    }
}

/// A known user's send: one read batch ([`load_send`]), [`plan()`], then
/// [`send_planned`].
async fn send_known(site: &Site, user: &UserRow, realm: &RealmState, req: &SendRequest, guard: Vec<Statement>) -> ApiResult<SentMessage> {
    let plan = plan_send(&site.db()?, user, realm, req).await?;
    send_planned(site, &plan, req, guard).await
}

/// Writes a planned message in ONE batch led by `guard` (see [`write::commit_send`]), sends
/// its events and starts its [`FollowUp`].
async fn send_planned(site: &Site, plan: &SendPlan, req: &SendRequest, guard: Vec<Statement>) -> ApiResult<SentMessage> {
    let sent = commit_send(&site.db()?, &site.env, plan, req, guard).await?;
    FollowUp::of_send(site.clone(), &plan.sender, &sent).start().await;
    Ok(sent)
}

/// A planned message written in a caller's batch ([`add_send_writes`]): its events once the
/// batch committed, then its [`FollowUp`].
pub async fn finish_planned(
    site: &Site,
    plan: &SendPlan,
    req: &SendRequest,
    results: &BatchResults,
    pending: PendingSend,
) -> ApiResult<SentMessage> {
    let sent = finish_send(&site.env, plan, req, results, pending).await?;
    FollowUp::of_send(site.clone(), &plan.sender, &sent).start().await;
    Ok(sent)
}

/// The recalled send: [`plan()`] from the answers this isolate remembers of the same reads
/// (`Authenticator::recall_as_user`), then ONE write batch led by the recall's guards.
/// `None` when nothing was written: there was nothing to recall, the plan refused (a
/// refusal may come from old answers), or a guard found a read answering differently now;
/// the caller then reads and sends as usual.
async fn send_recalled(auth: &Authenticator, db: &D1Database, env: &Env, req: &SendRequest) -> ApiResult<Option<(UserRow, SentMessage)>> {
    let Some((me, realm, inputs, recall)) = auth.recall_as_user(req).await? else { return Ok(None) };
    let Ok(plan) = plan(&me, &realm, req, inputs) else { return Ok(None) };
    let mut batch = Batch::new();
    for guard in recall.guards() {
        batch.add::<Value>(guard.clone());
    }
    let pending = add_send_writes(&mut batch, &plan, req, Vec::new())?;
    let results = match batch.run(db).await {
        Ok(results) => results,
        Err(err) if recall.is_stale(&err) => return Ok(None),
        Err(err) => return Err(err.into()),
    };
    let sent = finish_send(env, &plan, req, &results, pending).await?;
    auth.settle_recalled_count();
    if sent.changed_its_reads {
        recall.forget();
    }
    Ok(Some((me, sent)))
}

/// The send's reads in the batch that authenticates the request, [`plan()`], then ONE write;
/// the reads' answers are kept for the sender's next message when the write left them as
/// they were.
async fn send_read(auth: &Authenticator, db: &D1Database, env: &Env, req: &SendRequest) -> ApiResult<(UserRow, SentMessage)> {
    let (me, realm, inputs, remembrance) = auth.read(req, Remember::Yes).await?;
    let plan = plan(&me, &realm, req, inputs)?;
    let sent = commit_send(db, env, &plan, req, Vec::new()).await?;
    if let Some(remembrance) = remembrance.filter(|_| !sent.changed_its_reads) {
        remembrance.keep();
    }
    Ok((me, sent))
}

/// Every rule of sending, checked against the current state: [`load_send`] then [`plan()`];
/// writes nothing. Shared by `POST /messages`, scheduling a message and delivering a
/// scheduled one.
pub async fn plan_send(db: &D1Database, me: &UserRow, realm: &RealmState, req: &SendRequest) -> ApiResult<SendPlan> {
    let inputs = load_send(db, me, realm, req).await?;
    plan(me, realm, req, inputs)
}
