//! `email_outbox`: every email the server sends, queued in the batch of the change that
//! causes it (`crate::actions::email`).

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::statement::{statement, Statement};
use crate::model::email::OutgoingEmail;

#[derive(Debug, Clone, Deserialize)]
pub struct OutboxRow {
    pub id: i64,
    pub to_address: String,
    pub subject: String,
    pub text_body: String,
    pub html_body: String,
    pub created_at: i64,
    pub sent_at: Option<i64>,
    pub attempts: i64,
}

const COLUMNS: &str = "id, to_address, subject, text_body, html_body, created_at, sent_at, attempts";

/// Queues one email. `kept`: development, where the row itself is the delivery (it is
/// marked sent at once and never handed to a provider).
pub fn insert_stmt(realm_id: i64, email: &OutgoingEmail, now: i64, kept: bool) -> Result<Statement> {
    let sent_at = kept.then_some(now);
    statement!(
        "INSERT INTO email_outbox (realm_id, to_address, subject, text_body, html_body, created_at, sent_at, next_attempt_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?6)",
        realm_id,
        &email.to,
        &email.subject,
        &email.text,
        &email.html,
        now,
        sent_at
    )
}

/// The organization's most recent emails, newest first (development's `dev_emails`).
pub async fn recent(db: &D1Database, realm_id: i64, limit: i64) -> Result<Vec<OutboxRow>> {
    super::all(
        db,
        statement!(&format!("SELECT {COLUMNS} FROM email_outbox WHERE realm_id = ?1 ORDER BY id DESC LIMIT ?2"), realm_id, limit)?,
    )
    .await
}

/// Unsent emails whose next attempt is due, oldest first.
pub async fn due(db: &D1Database, realm_id: i64, now: i64, limit: i64) -> Result<Vec<OutboxRow>> {
    super::all(
        db,
        statement!(
            &format!(
                "SELECT {COLUMNS} FROM email_outbox WHERE realm_id = ?1 AND sent_at IS NULL AND next_attempt_at <= ?2 ORDER BY id LIMIT ?3"
            ),
            realm_id,
            now,
            limit
        )?,
    )
    .await
}

/// When the organization's next unsent email is due, if any.
pub async fn next_due(db: &D1Database, realm_id: i64) -> Result<Option<i64>> {
    #[derive(Deserialize)]
    struct Due {
        due: Option<i64>,
    }
    let row: Option<Due> = super::first(
        db,
        statement!("SELECT MIN(next_attempt_at) AS due FROM email_outbox WHERE realm_id = ?1 AND sent_at IS NULL", realm_id)?,
    )
    .await?;
    Ok(row.and_then(|r| r.due))
}

pub async fn mark_sent(db: &D1Database, id: i64, now: i64) -> Result<()> {
    super::run(db, statement!("UPDATE email_outbox SET sent_at = ?2, last_error = NULL WHERE id = ?1", id, now)?).await?;
    Ok(())
}

/// Records a failed hand-over and when to try again.
pub async fn mark_failed(db: &D1Database, id: i64, next_attempt_at: i64, error: &str) -> Result<()> {
    super::run(
        db,
        statement!(
            "UPDATE email_outbox SET attempts = attempts + 1, next_attempt_at = ?2, last_error = ?3 WHERE id = ?1",
            id,
            next_attempt_at,
            error
        )?,
    )
    .await?;
    Ok(())
}
