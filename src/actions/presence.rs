//! Presence pings. D1 sees at most one write per user a minute: a ping that changes nothing
//! worth storing is only read, and only news (a user appearing or becoming active) is sent
//! as a `presence` event.

use serde_json::json;
use worker::{D1Database, Env};

use crate::actions::notify_realm;
use crate::db::presence::{self, PresenceRow};
use crate::db::users::UserRow;
use crate::domain::presence::{after_ping, is_news, legacy_client_dict, times};
use crate::error::ApiResult;
use crate::event_types::Event;

pub async fn do_update_presence(db: &D1Database, env: &Env, me: &UserRow, active: bool) -> ApiResult<()> {
    let now = crate::db::now();
    let prev: Option<PresenceRow> = crate::db::first(presence::for_user_stmt(db, me.id)?).await?;
    let prev = prev.as_ref().map(times);
    let Some(next) = after_ping(prev, active, now) else { return Ok(()) };
    crate::db::run(presence::upsert_stmt(db, me.realm_id, me.id, next.active, next.connected)?).await?;
    if is_news(prev, active, now) {
        let event = Event::Presence {
            user_id: me.id,
            email: me.email.clone(),
            server_timestamp: worker::Date::now().as_millis() as f64 / 1000.0,
            presence: json!({ "website": legacy_client_dict(next) }),
        };
        notify_realm(db, env, me.realm_id, &event).await?;
    }
    Ok(())
}
