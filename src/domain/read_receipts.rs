//! Read receipts, as Zulip's `GET /messages/{message_id}/read_receipts` answers them.

use serde_json::Value;
use worker::D1Database;

use crate::db::batch::Batch;
use crate::db::read_receipts::{self, ReaderRow};
use crate::db::users::UserRow;
use crate::domain::messages::accessed_from;
use crate::domain::user_settings::flag_in;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{MessageId, RealmId, UserId};

/// Who read a message `viewer` may access: the active users who marked it read, but its
/// sender, those who turned `send_read_receipts` off, those who muted the viewer and those
/// the viewer muted; refused when the organization turned read receipts off (`enabled`).
/// One round trip: the access check and the readers in one batch.
pub async fn readers_of(db: &D1Database, viewer: &UserRow, message_id: i64, enabled: bool) -> ApiResult<Vec<i64>> {
    let (message, viewer_id) = (MessageId(message_id), UserId(viewer.id));
    let mut batch = Batch::new();
    let access = batch.add::<Value>(crate::db::messages::access_stmt(message, RealmId(viewer.realm_id), viewer_id)?);
    let readers = batch.add::<ReaderRow>(read_receipts::readers_stmt(message, viewer_id)?);
    let results = batch.run(db).await?;
    accessed_from(viewer, results.first(access)?)?;
    if !enabled {
        return Err(ApiError::bad_request("Read receipts are disabled in this organization."));
    }
    Ok(shared_receipts(results.rows(readers)?))
}

/// The readers who share their read receipts.
fn shared_receipts(readers: Vec<ReaderRow>) -> Vec<i64> {
    readers.into_iter().filter(|r| flag_in(&r.settings, "send_read_receipts")).map(|r| r.user_id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_who_turned_receipts_off_are_left_out() {
        let reader = |user_id, settings: &str| ReaderRow { user_id, settings: settings.into() };
        let readers = vec![reader(1, "{}"), reader(2, r#"{"send_read_receipts": false}"#), reader(3, r#"{"send_read_receipts": true}"#)];
        assert_eq!(shared_receipts(readers), vec![1, 3]);
    }
}
