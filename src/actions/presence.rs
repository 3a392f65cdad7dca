//! Presence pings. D1 sees at most one write per user a minute: a ping that changes nothing
//! worth storing is only read, and only news (a user appearing or becoming active) is sent
//! as a `presence` event.

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::actions::notify_realm;
use crate::db::batch::Batch;
use crate::db::presence::{self, PresenceRow};
use crate::db::users::UserRow;
use crate::domain::presence::{after_ping, is_news, legacy_client_dict, times, RealmPresenceReads};
use crate::error::ApiResult;
use crate::event_types::Event;
use crate::model::ids::{RealmId, UserId};

/// The organization's presence a ping asks for in its answer.
pub struct PresenceQuery {
    pub modern: bool,
    pub last_update_id: Option<i64>,
    pub days: i64,
}

/// Stores a ping and answers the organization's presence when `answer` asks for it: one
/// read (the user's stored presence), then one batch that writes what changed and reads
/// the answer after it; news goes to every queue of the organization.
pub async fn do_update_presence(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    active: bool,
    answer: Option<PresenceQuery>,
) -> ApiResult<Option<Value>> {
    let now = crate::db::now();
    let prev: Option<PresenceRow> = crate::db::first(db, presence::for_user_stmt(me.id)?).await?;
    let prev = prev.as_ref().map(times);
    let next = after_ping(prev, active, now);
    let news = next.is_some() && is_news(prev, active, now);
    let mut batch = Batch::new();
    if let Some(next) = next {
        batch.add::<Value>(presence::upsert_stmt(RealmId(me.realm_id), UserId(me.id), next.active, next.connected)?);
    }
    let presence = match &answer {
        Some(q) => Some(RealmPresenceReads::add(&mut batch, RealmId(me.realm_id), q.last_update_id, q.days)?),
        None => None,
    };
    if batch.is_empty() {
        return Ok(None);
    }
    let results = batch.run(db).await?;
    if let (Some(next), true) = (next, news) {
        let event = Event::Presence {
            user_id: me.id,
            email: me.email.clone(),
            server_timestamp: worker::Date::now().as_millis() as f64 / 1000.0,
            presence: json!({ "website": legacy_client_dict(next) }),
        };
        notify_realm(env, me.realm_id, &event).await;
    }
    match (presence, answer) {
        (Some(reads), Some(q)) => Ok(Some(reads.take(&results, q.modern, q.last_update_id)?)),
        _ => Ok(None),
    }
}
