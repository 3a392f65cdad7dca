//! Presence rules: when a ping is worth writing, when it is news for others, and the
//! modern and legacy formats of a user's presence (Zulip's `zerver/lib/presence.py`).

use serde_json::{json, Value};
use worker::D1Database;

use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::presence::{self, MaxUpdateRow, PresenceRow};
use crate::db::users::{self, NamedUser, UserRow};
use crate::error::ApiResult;
use crate::model::ids::RealmId;

/// A ping within this many seconds of the stored one changes nothing worth a write.
pub const PRESENCE_UPDATE_MIN_FREQ_SECONDS: i64 = 55;
/// Legacy format: "active" when the last active ping is this close to the last connection.
pub const LEGACY_ACTIVITY_OFFSET_SECONDS: i64 = 70;
/// Presence older than this is not listed.
pub const PRESENCE_HISTORY_LIMIT_DAYS: i64 = 14;

/// The stored times of a user (`last_active_time`, `last_connected_time`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Times {
    pub active: i64,
    pub connected: i64,
}

/// The times after a ping at `now`; `None` when the ping changes nothing worth storing.
pub fn after_ping(prev: Option<Times>, active: bool, now: i64) -> Option<Times> {
    let Some(prev) = prev else {
        return Some(Times { active: if active { now } else { 0 }, connected: now });
    };
    let connected_stale = now - prev.connected >= PRESENCE_UPDATE_MIN_FREQ_SECONDS;
    let active_stale = active && now - prev.active >= PRESENCE_UPDATE_MIN_FREQ_SECONDS;
    if !connected_stale && !active_stale {
        return None;
    }
    Some(Times { active: if active_stale { now } else { prev.active }, connected: if connected_stale { now } else { prev.connected } })
}

fn legacy_is_active(t: Times) -> bool {
    t.active + LEGACY_ACTIVITY_OFFSET_SECONDS >= t.connected
}

/// Whether others should hear of this ping now (Zulip sends `presence` when a user first
/// appears or becomes active after being idle or away).
pub fn is_news(prev: Option<Times>, active: bool, now: i64) -> bool {
    match prev {
        None => true,
        Some(p) => active && (!legacy_is_active(p) || now - p.connected > LEGACY_ACTIVITY_OFFSET_SECONDS),
    }
}

/// The legacy per-client entry: `active` with the active time, or `idle` with the
/// connection time.
pub fn legacy_client_dict(t: Times) -> Value {
    let (status, timestamp) = if legacy_is_active(t) { ("active", t.active) } else { ("idle", t.connected) };
    json!({ "client": "website", "status": status, "timestamp": timestamp, "pushable": false })
}

pub fn legacy_dict(row: &PresenceRow) -> Value {
    let website = legacy_client_dict(times(row));
    json!({
        "aggregated": { "client": "website", "status": website["status"], "timestamp": website["timestamp"] },
        "website": website,
    })
}

pub fn modern_dict(row: &PresenceRow) -> Value {
    json!({ "active_timestamp": row.last_active_time, "idle_timestamp": row.last_connected_time })
}

pub fn times(row: &PresenceRow) -> Times {
    Times { active: row.last_active_time, connected: row.last_connected_time }
}

/// `presences` keyed by user id (modern format) or by email (legacy format).
pub fn presences_dict(rows: &[PresenceRow], modern: bool) -> Value {
    let map: serde_json::Map<String, Value> =
        rows.iter().map(|r| if modern { (r.user_id.to_string(), modern_dict(r)) } else { (r.email.clone(), legacy_dict(r)) }).collect();
    Value::Object(map)
}

/// `presences`, `server_timestamp` and `presence_last_update_id` of the organization: only
/// changes after `last_update_id` when given, none older than `days`. One batch.
pub async fn realm_presence(db: &D1Database, realm_id: RealmId, modern: bool, last_update_id: Option<i64>, days: i64) -> ApiResult<Value> {
    let mut batch = Batch::new();
    let reads = RealmPresenceReads::add(&mut batch, realm_id, last_update_id, days)?;
    reads.take(&batch.run(db).await?, modern, last_update_id)
}

/// Where the organization's presence sits in a batch (its rows changed after
/// `last_update_id` within `days`, and the newest update id), so a ping can read it in the
/// batch that stores the ping.
pub struct RealmPresenceReads {
    rows: Slot<PresenceRow>,
    max: Slot<MaxUpdateRow>,
}

impl RealmPresenceReads {
    pub fn add(batch: &mut Batch, realm_id: RealmId, last_update_id: Option<i64>, days: i64) -> ApiResult<Self> {
        let since = crate::db::now() - days * 86_400;
        Ok(RealmPresenceReads {
            rows: batch.add(presence::in_realm_stmt(realm_id, last_update_id.unwrap_or(-1), since)?),
            max: batch.add(presence::max_update_id_stmt(realm_id.0)?),
        })
    }

    /// The answer's `presences`, `server_timestamp` and `presence_last_update_id`.
    pub fn take(self, results: &BatchResults, modern: bool, last_update_id: Option<i64>) -> ApiResult<Value> {
        let rows = results.rows(self.rows)?;
        let newest = results.first(self.max)?.and_then(|m| m.max_id);
        let last = match (newest, last_update_id) {
            (Some(n), Some(client)) => n.max(client),
            (Some(n), None) => n,
            (None, Some(client)) => client,
            (None, None) => -1,
        };
        Ok(json!({
            "presences": presences_dict(&rows, modern),
            "server_timestamp": worker::Date::now().as_millis() as f64 / 1000.0,
            "presence_last_update_id": last,
        }))
    }
}

/// The user a path names and their presence as `GET /users/{user}/presence` shows it
/// (`aggregated` and `website`, each only `status` and `timestamp`; None before their first
/// ping), read together.
pub async fn named_user_presence(db: &D1Database, realm_id: i64, who: NamedUser<'_>) -> ApiResult<(Option<UserRow>, Option<Value>)> {
    let mut batch = Batch::new();
    let user = batch.add::<UserRow>(users::named_stmt(realm_id, who)?);
    let presence = batch.add::<PresenceRow>(presence::for_named_user_stmt(realm_id, who)?);
    let results = batch.run(db).await?;
    let presence = results.first(presence)?.map(|row| {
        let website = legacy_client_dict(times(&row));
        let entry = json!({ "status": website["status"], "timestamp": website["timestamp"] });
        json!({ "aggregated": entry, "website": entry })
    });
    Ok((results.first(user)?, presence))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_ping_is_stored_and_news() {
        assert_eq!(after_ping(None, true, 100), Some(Times { active: 100, connected: 100 }));
        assert!(is_news(None, false, 100));
    }

    #[test]
    fn pings_within_a_minute_are_not_written() {
        let t = Times { active: 100, connected: 100 };
        assert_eq!(after_ping(Some(t), true, 130), None);
        assert_eq!(after_ping(Some(t), true, 160), Some(Times { active: 160, connected: 160 }));
        assert_eq!(after_ping(Some(t), false, 160), Some(Times { active: 100, connected: 160 }));
    }

    #[test]
    fn becoming_active_after_idle_is_news() {
        let idle = Times { active: 0, connected: 100 };
        assert!(is_news(Some(idle), true, 110));
        assert!(!is_news(Some(idle), false, 200));
        let active = Times { active: 100, connected: 100 };
        assert!(!is_news(Some(active), true, 130));
    }

    #[test]
    fn legacy_status_follows_the_activity_offset() {
        assert_eq!(legacy_client_dict(Times { active: 100, connected: 150 })["status"], "active");
        assert_eq!(legacy_client_dict(Times { active: 100, connected: 200 })["status"], "idle");
        assert_eq!(legacy_client_dict(Times { active: 100, connected: 200 })["timestamp"], 200);
    }
}
