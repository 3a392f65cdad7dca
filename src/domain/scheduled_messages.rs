//! Scheduled messages as the API shows them.

use serde_json::{json, Value};

use worker::D1Database;

use crate::auth::ReadAsUser;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::scheduled_messages::{self, ScheduledMessageRow};
use crate::db::users::UserRow;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::UserId;
use crate::platform::realm_cache::RealmState;

/// Zulip's ScheduledMessage object (`GET /scheduled_messages`, register state, events).
pub fn scheduled_message_dict(row: &ScheduledMessageRow) -> Value {
    let mut dict = json!({
        "scheduled_message_id": row.id,
        "content": row.content,
        "rendered_content": row.rendered_content,
        "scheduled_delivery_timestamp": row.scheduled_timestamp,
        "failed": row.failed != 0,
    });
    match row.channel_id {
        Some(channel_id) => {
            dict["type"] = json!("stream");
            dict["to"] = json!(channel_id);
            dict["topic"] = json!(row.topic);
        }
        None => {
            dict["type"] = json!("private");
            dict["to"] = row.to_user_ids.as_deref().and_then(|s| serde_json::from_str::<Value>(s).ok()).unwrap_or(json!([]));
        }
    }
    dict
}

/// The user's undelivered scheduled messages (pending and failed), soonest first. One round
/// trip.
pub async fn scheduled_messages_of(db: &D1Database, user_id: i64) -> ApiResult<Vec<Value>> {
    let stmt = scheduled_messages::pending_of_sender_stmt(UserId(user_id), scheduled_messages::SEND_LATER)?;
    let rows: Vec<ScheduledMessageRow> = crate::db::all(db, stmt).await?;
    Ok(rows.iter().map(scheduled_message_dict).collect())
}

/// A reminder as Zulip's API shows it (`Reminder`).
pub fn reminder_dict(row: &ScheduledMessageRow) -> Value {
    json!({
        "reminder_id": row.id,
        "type": "private",
        "to": [row.sender_id],
        "content": row.content,
        "rendered_content": row.rendered_content,
        "scheduled_delivery_timestamp": row.scheduled_timestamp,
        "failed": row.failed != 0,
        "reminder_target_message_id": row.reminder_target_message_id.unwrap_or_default(),
    })
}

/// The user's undelivered reminders, soonest first. One round trip.
pub async fn reminders_of(db: &D1Database, user_id: UserId) -> ApiResult<Vec<Value>> {
    let rows: Vec<ScheduledMessageRow> =
        crate::db::all(db, scheduled_messages::pending_of_sender_stmt(user_id, scheduled_messages::REMIND)?).await?;
    Ok(rows.iter().map(reminder_dict).collect())
}

/// The user's undelivered scheduled message of this id, read in the batch that
/// authenticates (`RequestContext::read_as_user`); anyone else's id is "Scheduled message
/// does not exist".
pub struct OwnScheduledMessage(pub i64);

impl ReadAsUser for OwnScheduledMessage {
    type Slots = Slot<ScheduledMessageRow>;
    type Output = ScheduledMessageRow;
    fn add(&self, batch: &mut Batch, me: &UserRow, _realm: &RealmState) -> ApiResult<Self::Slots> {
        Ok(batch.add(scheduled_messages::pending_by_id_stmt(self.0, UserId(me.id))?))
    }
    fn take(&self, results: &BatchResults, slot: Self::Slots, _me: &UserRow, _realm: &RealmState) -> ApiResult<ScheduledMessageRow> {
        results.first(slot)?.ok_or_else(ApiError::scheduled_message_not_found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(channel_id: Option<i64>) -> ScheduledMessageRow {
        ScheduledMessageRow {
            id: 7,
            realm_id: 1,
            sender_id: 2,
            channel_id,
            to_user_ids: channel_id.is_none().then(|| "[3,4]".to_string()),
            topic: "t".into(),
            content: "hi".into(),
            rendered_content: "<p>hi</p>".into(),
            scheduled_timestamp: 100,
            read_by_sender: 0,
            client: String::new(),
            failed: 1,
            revision: 0,
            delivery_type: scheduled_messages::SEND_LATER,
            reminder_target_message_id: None,
        }
    }

    #[test]
    fn channel_message_has_topic_and_channel_id() {
        let d = scheduled_message_dict(&row(Some(5)));
        assert_eq!(d["type"], "stream");
        assert_eq!(d["to"], 5);
        assert_eq!(d["topic"], "t");
        assert_eq!(d["failed"], true);
    }

    #[test]
    fn direct_message_has_user_ids_and_no_topic() {
        let d = scheduled_message_dict(&row(None));
        assert_eq!(d["type"], "private");
        assert_eq!(d["to"], json!([3, 4]));
        assert!(d.get("topic").is_none());
    }
}
