//! Outgoing-webhook bots (`bot_type` 3): a message that mentions one, or is a direct
//! message to one (`crate::domain::outgoing_webhooks::triggers`, from what the send
//! already read), is queued after the send answered ([`schedule`]) and POSTed to the
//! bot's service by the organization's `MessageScheduler` alarm ([`deliver_due`]), so a
//! slow or dead service never slows or fails the send. The queue lives in D1 and the
//! alarm survives restarts, so a retry does too. An answer's `content` is posted back as
//! the bot's reply in the same topic or conversation; timeouts and connection errors are
//! retried with backoff; failures are told to the conversation and to the bot's owner in
//! Zulip's words, by the bot itself, as Zulip does.

use std::time::Duration;

use futures_util::future::{select, Either};
use serde_json::Value;
use worker::{D1Database, Env, Fetch, Headers, Method, Request, RequestInit, RequestRedirect};

use crate::actions::channels::Principal;
use crate::actions::message_send::{send, Destination, SendRequest, Sender};
use crate::actions::site::Site;
use crate::db::batch::Batch;
use crate::db::bot_services::{self, BotServiceRow};
use crate::db::outgoing_webhook_deliveries::{self as deliveries, DeliveryRow};
use crate::db::users::{self, UserRow};
use crate::db::{self};
use crate::domain::outgoing_webhooks::{
    conversation_notice, destination_allowed, message_url, owner_notice, read_answer, retry_at, slack_form, zulip_payload, Answer, Failure,
    MAX_RETRIES, SLACK_INTERFACE, TIMEOUT_SECONDS,
};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::settings::{Settings, ZULIP_VERSION};

/// How many deliveries one alarm makes before it re-arms.
const BATCH: i64 = 10;

/// Queues one delivery per triggered bot and wakes the alarm. A failure is logged: the
/// message is sent.
pub async fn queue(db: &D1Database, env: &Env, database: &str, realm_host: &str, realm_id: i64, triggers: &[(i64, &str)], message: &str) {
    let now = db::now();
    let written = async {
        let stmts = triggers
            .iter()
            .map(|(bot_id, trigger)| deliveries::insert_stmt(RealmId(realm_id), UserId(*bot_id), trigger, message, now))
            .collect::<worker::Result<Vec<_>>>()?;
        db::run_batch(db, stmts).await
    };
    match written.await {
        Ok(_) => crate::platform::scheduler::arm(env, database, realm_id, realm_host).await,
        Err(err) => record_failure(env, realm_id, &format!("outgoing webhook not queued: {err}")).await,
    }
}

async fn record_failure(env: &Env, realm_id: i64, error: &str) {
    crate::actions::background_failures::record(env, realm_id, crate::actions::background_failures::Kind::OutgoingWebhook, error).await;
}

/// The alarm's work: POSTs the due deliveries. Answers when the next is due.
pub async fn deliver_due(env: &Env, database: &str, realm_id: i64, realm_host: &str) -> ApiResult<Option<i64>> {
    let db = crate::platform::directory::database(env, database)?;
    let now = db::now();
    let due = deliveries::due(&db, realm_id, now, BATCH).await?;
    let site = Site::of_host(env, database, realm_host);
    for row in &due {
        if let Err(err) = deliver_one(&db, &site, realm_id, row).await {
            // A failure of ours (not the service's): counted, then tried again later, a few times.
            record_failure(env, realm_id, &format!("outgoing webhook {} failed: {}", row.id, err.msg)).await;
            if row.attempts >= MAX_RETRIES {
                deliveries::delete(&db, row.id).await?;
            } else {
                deliveries::retry_later(&db, row.id, retry_at(db::now(), row.attempts), &err.msg).await?;
            }
        }
    }
    if due.len() as i64 == BATCH {
        return Ok(Some(now));
    }
    Ok(deliveries::next_due(&db, realm_id).await?)
}

/// What one request to the service came to.
enum Outcome {
    /// The service answered (status, body).
    Answered(u16, String),
    /// The URL's host is one this server never calls.
    Refused,
    /// Slack's format has no direct messages.
    SlackDirect,
    /// A timeout or connection error: Zulip's message for it.
    Unreachable(String),
}

/// One delivery: the bot and its service (one read), the request, then what its outcome
/// asks for; the row is deleted unless the delivery is to be tried again.
async fn deliver_one(db: &D1Database, site: &Site, realm_id: i64, row: &DeliveryRow) -> ApiResult<()> {
    let mut batch = Batch::new();
    let bot = batch.add::<UserRow>(users::by_id_stmt(RealmId(realm_id), UserId(row.bot_id))?);
    let service = batch.add::<BotServiceRow>(bot_services::of_bot_stmt(RealmId(realm_id), UserId(row.bot_id))?);
    let results = batch.run(db).await?;
    let (Some(bot), Some(service)) = (results.first(bot)?, results.first(service)?) else {
        return Ok(deliveries::delete(db, row.id).await?);
    };
    let message: Value = serde_json::from_str(&row.message).map_err(|e| ApiError::internal(e.to_string()))?;
    if bot.is_active() {
        let settings = Settings::from_env(&site.env);
        let reply = Reply { db, site, bot: &bot, message: &message };
        match call(&settings, realm_id, &site.realm_host, &bot, &service, &row.trigger, &message).await {
            Outcome::Answered(status, body) if (200..300).contains(&status) => match read_answer(service.interface, &body) {
                Answer::Reply(content) => reply.to_conversation(&content).await?,
                Answer::Nothing => {}
                Answer::Invalid(reason) => reply.failed(&Failure::BadAnswer(reason, &body)).await?,
            },
            Outcome::Answered(status, body) => reply.failed(&Failure::Status(status, &body)).await?,
            // Zulip's proxy refuses such a URL with 407, which Zulip reports as such.
            Outcome::Refused => reply.failed(&Failure::Status(407, "")).await?,
            Outcome::SlackDirect => reply.to_conversation("Failure! Slack outgoing webhooks don't support direct messages.").await?,
            Outcome::Unreachable(reason) if row.attempts < MAX_RETRIES => {
                return Ok(deliveries::retry_later(db, row.id, retry_at(db::now(), row.attempts), &reason).await?);
            }
            Outcome::Unreachable(reason) => reply.failed(&Failure::Unavailable(&reason)).await?,
        }
    }
    Ok(deliveries::delete(db, row.id).await?)
}

/// The POST, in the bot's interface, bounded by Zulip's timeout. Redirects are not
/// followed: a public URL must not lead the request to a refused one.
async fn call(
    settings: &Settings,
    realm_id: i64,
    realm_host: &str,
    bot: &UserRow,
    service: &BotServiceRow,
    trigger: &str,
    message: &Value,
) -> Outcome {
    if !destination_allowed(&service.base_url, settings.development) {
        return Outcome::Refused;
    }
    let (content_type, body) = if service.interface == SLACK_INTERFACE {
        match slack_form(UserId(bot.id), &service.token, trigger, RealmId(realm_id), realm_host, message) {
            Some(form) => ("application/x-www-form-urlencoded", form),
            None => return Outcome::SlackDirect,
        }
    } else {
        ("application/json", zulip_payload(bot, &service.token, trigger, message).to_string())
    };
    let request = async {
        let headers = Headers::new();
        headers.set("Content-Type", content_type)?;
        headers.set("User-Agent", &format!("ZulipOutgoingWebhook/{ZULIP_VERSION}"))?;
        let mut init = RequestInit::new();
        init.with_method(Method::Post).with_headers(headers).with_redirect(RequestRedirect::Manual).with_body(Some(body.into()));
        let mut resp = Fetch::Request(Request::new_with_init(&service.base_url, &init)?).send().await?;
        let text = resp.text().await.unwrap_or_default();
        Ok::<(u16, String), worker::Error>((resp.status_code(), text))
    };
    let timeout = worker::Delay::from(Duration::from_secs(TIMEOUT_SECONDS));
    match select(Box::pin(request), timeout).await {
        Either::Left((Ok((status, text)), _)) => Outcome::Answered(status, text),
        Either::Left((Err(err), _)) => {
            worker::console_warn!("outgoing webhook of bot {} failed: {err}", bot.id);
            Outcome::Unreachable("A connection error occurred. Is my bot server down?".into())
        }
        Either::Right(_) => Outcome::Unreachable(format!("Request timed out after {TIMEOUT_SECONDS} seconds.")),
    }
}

/// The bot's messages about one delivery.
struct Reply<'a> {
    db: &'a D1Database,
    site: &'a Site,
    bot: &'a UserRow,
    message: &'a Value,
}

impl Reply<'_> {
    /// Posts `content` as the bot in the triggering message's topic or conversation.
    async fn to_conversation(&self, content: &str) -> ApiResult<()> {
        let to = match self.message["stream_id"].as_i64() {
            Some(channel_id) => Destination::ChannelId(channel_id),
            None => Destination::Users(
                self.message["display_recipient"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r["id"].as_i64())
                    .map(Principal::Id)
                    .collect(),
            ),
        };
        let topic = self.message["subject"].as_str().map(str::to_string).filter(|_| self.message["stream_id"].is_i64());
        self.send(to, topic, content).await
    }

    /// Zulip's `fail_with_message` then `notify_bot_owner`: the failure in the
    /// conversation, then a direct message to the bot's owner saying why.
    async fn failed(&self, failure: &Failure<'_>) -> ApiResult<()> {
        self.to_conversation(&conversation_notice(failure)).await?;
        let Some(owner) = self.bot.bot_owner_id else { return Ok(()) };
        let notice = owner_notice(&message_url(&self.site.realm_url, self.message), &self.bot.full_name, failure);
        self.send(Destination::Users(vec![Principal::Id(owner)]), None, &notice).await
    }

    async fn send(&self, to: Destination, topic: Option<String>, content: &str) -> ApiResult<()> {
        let req = SendRequest {
            to,
            topic,
            content: content.to_string(),
            read_by_sender: true,
            client: "OutgoingWebhookResponse".into(),
            queue_id: None,
            local_id: None,
            realm_host: self.site.realm_host.clone(),
            realm_url: self.site.realm_url.clone(),
        };
        let realm = crate::platform::realm_cache::load(self.db, self.bot.realm_id, None).await?;
        send(Sender::Known { site: self.site, user: self.bot, realm: &realm, guard: Vec::new() }, &req).await?;
        Ok(())
    }
}
