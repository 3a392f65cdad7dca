//! Missed-message email notifications (`crate::domain::missed_message_emails`): queued
//! after a message is sent, for the recipients Zulip's rules name, and mailed by the
//! organization's `MessageScheduler` alarm once each recipient's batching period is over,
//! only what is still unread then, one email per conversation, through the one outbox
//! (`crate::actions::email`). Queued rows live in D1, so a restart loses none.

use std::collections::BTreeMap;

use serde_json::json;
use worker::{D1Database, Env};

use crate::actions::email::queue_stmt;
use crate::actions::message_send::SentMessage;
use crate::db::missed_message_emails::{self as q, MissedRow};
use crate::db::users::{self, UserRow};
use crate::db::{self};
use crate::domain::email_unsubscribe::{unsubscribe_url, EmailKind};
use crate::domain::missed_message_emails::{batching_period, conversation_email, conversation_key, email_reason, narrow_url};
use crate::error::ApiResult;
use crate::model::ids::{MessageId, RealmId, UserId};
use crate::settings::Settings;

/// What a queued email needs of a sent message.
pub struct MailedMessage {
    pub id: i64,
    pub followed_by_mention: Vec<i64>,
    /// Only these recipients (an edit's newly mentioned users); `None`: every recipient.
    pub only: Option<Vec<i64>>,
}

impl MailedMessage {
    pub fn of(sent: &SentMessage) -> Self {
        MailedMessage { id: sent.id, followed_by_mention: sent.followed_by_mention.clone(), only: None }
    }
}

/// Queues the recipients of a sent message to mail, and wakes the alarm (a message's
/// `crate::actions::message_send::FollowUp`). A failure is logged: the message
/// is sent.
pub async fn queue(db: &D1Database, env: &Env, database: &str, realm_host: &str, sender: &UserRow, sent: &MailedMessage) {
    let realm_id = sender.realm_id;
    let work = async {
        let now = db::now();
        let rows: Vec<(i64, &str, i64)> = q::candidates(db, MessageId(sent.id), UserId(sender.id))
            .await?
            .iter()
            .filter(|row| sent.only.as_ref().is_none_or(|only| only.contains(&row.user_id)))
            .filter_map(|row| {
                let reason = email_reason(row, sent.followed_by_mention.contains(&row.user_id), now)?;
                Some((row.user_id, reason, now + batching_period(&row.settings)))
            })
            .collect();
        if !rows.is_empty() {
            db::run(db, q::insert_stmt(RealmId(realm_id), MessageId(sent.id), &json!(rows).to_string())?).await?;
            crate::platform::scheduler::arm(env, database, realm_id, realm_host).await;
        }
        Ok::<(), worker::Error>(())
    };
    if let Err(err) = work.await {
        worker::console_error!("missed-message emails of message {} not queued: {err}", sent.id);
    }
}

/// The alarm's work: mails the recipients whose batching period is over. Answers when the
/// next is due.
pub async fn deliver_due(env: &Env, database: &str, realm_id: i64, realm_host: &str) -> ApiResult<Option<i64>> {
    let settings = Settings::from_env(env);
    let db = env.d1(database)?;
    let now = db::now();
    let due = q::due_users(&db, realm_id, now).await?;
    if due.is_empty() {
        return Ok(q::next_due(&db, realm_id).await?);
    }
    let realm = crate::db::realms::by_id(&db, realm_id).await?;
    let realm_name = realm.map(|r| r.name).unwrap_or_default();
    let scheme = if crate::settings::is_local_host(realm_host) { "http" } else { "https" };
    let base_url = format!("{scheme}://{realm_host}");
    let secret = crate::secrets::api_key_secret(env)?;
    for d in due {
        // One recipient's failure postpones their rows; the others are still mailed.
        if let Err(err) = mail_user(&db, &settings, RealmId(realm_id), &realm_name, &base_url, secret.as_bytes(), UserId(d.user_id)).await {
            worker::console_error!("missed-message email of user {} failed: {}", d.user_id, err.msg);
            db::run(&db, q::postpone_stmt(RealmId(realm_id), UserId(d.user_id), now, now + RETRY_AFTER_SECS)?).await?;
        }
    }
    // The alarm that runs this hands the queued emails to the provider next.
    Ok(q::next_due(&db, realm_id).await?)
}

/// A recipient whose mailing failed is tried again after this long.
const RETRY_AFTER_SECS: i64 = 300;

/// Mails one recipient what is still unread of their queued messages, one email per
/// conversation, and deletes their rows, in one batch.
async fn mail_user(
    db: &worker::D1Database,
    settings: &Settings,
    realm_id: RealmId,
    realm_name: &str,
    base_url: &str,
    secret: &[u8],
    user_id: UserId,
) -> ApiResult<()> {
    let Some(user) = users::by_id(db, realm_id, user_id).await? else { return Ok(()) };
    let rows = q::unread_rows_of_user(db, realm_id, user_id).await?;
    let mut statements = Vec::new();
    if user.is_active() && !rows.is_empty() {
        let mut conversations: BTreeMap<(i64, String), Vec<&MissedRow>> = BTreeMap::new();
        for row in &rows {
            conversations.entry(conversation_key(row)).or_default().push(row);
        }
        let unsubscribe = unsubscribe_url(EmailKind::MissedMessages, base_url, secret, realm_id, user_id);
        for group in conversations.values() {
            let first = group[0];
            let mut members: Vec<(i64, String)> = if first.channel_id.is_none() {
                q::dm_members(db, first.recipient_id).await?.into_iter().map(|m| (m.id, m.full_name)).collect()
            } else {
                Vec::new()
            };
            // A one-to-one message's recipient is the reader; the sender is the other side.
            if first.channel_id.is_none() && !members.iter().any(|(id, _)| *id == first.sender_id) {
                members.push((first.sender_id, first.sender_name.clone()));
            }
            let names: Vec<&str> = members.iter().filter(|(id, _)| *id != user.id).map(|(_, n)| n.as_str()).collect();
            let conversation = if names.is_empty() { first.sender_name.clone() } else { names.join(", ") };
            let narrow = narrow_url(base_url, first, &members, user.id);
            let mail = conversation_email(&user.delivery_email, realm_name, group, &conversation, &narrow, &unsubscribe);
            statements.push(queue_stmt(settings, realm_id.0, &mail)?);
        }
    }
    // Every queued row up to the newest unread one (read ones included); without unread
    // ones, all of the recipient's rows.
    let max_id = rows.iter().map(|r| r.message_id).max().unwrap_or(crate::params::MAX_SAFE_INTEGER);
    statements.push(q::delete_for_user_stmt(realm_id, user_id, MessageId(max_id))?);
    db::run_batch(db, statements).await?;
    Ok(())
}
