//! The one outgoing-email path. An action that mails something adds [`queue_stmt`] to the
//! D1 batch of its own change, so the change and its email commit together, then calls
//! [`after_queue`]. Development keeps the row as the delivery (`GET /dev_emails`) and never
//! sends. Otherwise the organization's `MessageScheduler` alarm ([`deliver_due`]) hands due
//! rows to the provider (`crate::domain::email`), one POST each, and reschedules a failed
//! one with backoff: the alarm survives restarts, and a row is marked sent only after the
//! provider accepted it (its `Idempotency-Key` keeps a repeated hand-over from sending
//! twice).

use worker::{Env, Fetch, Headers, Method, Request, RequestInit};

use crate::db::statement::Statement;
use crate::db::{self, email_outbox};
use crate::domain::email::{next_attempt_at, provider_body, OutgoingEmail, MAX_ATTEMPTS};
use crate::error::ApiResult;
use crate::settings::{EmailProvider, Settings};

/// How many emails one alarm hands over before it re-arms.
const BATCH: i64 = 20;

/// The statement that queues `email` (in the caller's batch).
pub fn queue_stmt(settings: &Settings, realm_id: i64, email: &OutgoingEmail) -> worker::Result<Statement> {
    email_outbox::insert_stmt(realm_id, email, db::now(), settings.development)
}

/// After a batch that queued emails committed: wakes the organization's alarm to send them
/// (nothing to do in development, where the rows are the delivery).
pub async fn after_queue(env: &Env, settings: &Settings, database: &str, realm_id: i64, realm_host: &str) {
    if !settings.development {
        crate::platform::scheduler::arm(env, database, realm_id, realm_host).await;
    }
}

/// The alarm's work: hands due emails to the provider. Answers when the next is due.
pub async fn deliver_due(env: &Env, database: &str, realm_id: i64) -> ApiResult<Option<i64>> {
    let settings = Settings::from_env(env);
    let db = env.d1(database)?;
    if settings.development {
        return Ok(None);
    }
    let Some(provider) = &settings.email_provider else {
        // Nothing can be sent; the rows wait for an operator to configure a provider.
        worker::console_warn!("emails of realm {realm_id} wait: EMAIL_API_KEY is not set");
        return Ok(None);
    };
    let now = db::now();
    for row in email_outbox::due(&db, realm_id, now, BATCH).await? {
        let email = OutgoingEmail {
            to: row.to_address.clone(),
            subject: row.subject.clone(),
            text: row.text_body.clone(),
            html: row.html_body.clone(),
        };
        let key = format!("outbox-{realm_id}-{}", row.id);
        match hand_over(provider, &settings, &email, &key).await {
            Ok(()) => email_outbox::mark_sent(&db, row.id, db::now()).await?,
            Err(error) => {
                // The address is the recipient's; the error is the provider's. No body is logged.
                worker::console_warn!("email {} of realm {realm_id} not sent (attempt {}): {error}", row.id, row.attempts + 1);
                let next = if row.attempts + 1 >= MAX_ATTEMPTS { i64::MAX / 2 } else { next_attempt_at(now, row.attempts) };
                email_outbox::mark_failed(&db, row.id, next, &error).await?;
            }
        }
    }
    Ok(email_outbox::next_due(&db, realm_id).await?.filter(|at| *at < i64::MAX / 4))
}

/// One POST to the provider; any answer but 2xx is a failure to retry.
async fn hand_over(provider: &EmailProvider, settings: &Settings, email: &OutgoingEmail, idempotency_key: &str) -> Result<(), String> {
    let send = async {
        let headers = Headers::new();
        headers.set("Content-Type", "application/json")?;
        headers.set("Authorization", &format!("Bearer {}", provider.api_key))?;
        headers.set("Idempotency-Key", idempotency_key)?;
        let mut init = RequestInit::new();
        init.with_method(Method::Post)
            .with_headers(headers)
            .with_body(Some(provider_body(&settings.email_sender, email).to_string().into()));
        let mut resp = Fetch::Request(Request::new_with_init(&provider.url, &init)?).send().await?;
        let status = resp.status_code();
        let text = resp.text().await.unwrap_or_default();
        Ok::<(u16, String), worker::Error>((status, text))
    };
    match send.await {
        Ok((status, _)) if (200..300).contains(&status) => Ok(()),
        Ok((status, text)) => Err(format!("HTTP {status}: {}", text.chars().take(200).collect::<String>())),
        Err(err) => Err(err.to_string()),
    }
}
