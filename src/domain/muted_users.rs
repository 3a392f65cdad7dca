//! Muted users as the API shows them: `{id, timestamp}` of each user one muted.

use serde_json::{json, Value};
use worker::D1Database;

use crate::db::muted_users::{self, MutedUserRow};
use crate::db::users::{self, UserRow};
use crate::error::{ApiError, ApiResult};

/// The `muted_users` list of the API and of the `muted_users` event.
pub fn muted_users_list(rows: &[MutedUserRow]) -> Vec<Value> {
    rows.iter().map(|m| json!({ "id": m.id, "timestamp": m.timestamp })).collect()
}

/// The user's muted users, oldest first. One round trip.
pub async fn muted_users_of(db: &D1Database, user_id: i64) -> ApiResult<Vec<Value>> {
    let rows: Vec<MutedUserRow> = crate::db::all(muted_users::for_user_stmt(db, user_id)?).await?;
    Ok(muted_users_list(&rows))
}

/// A user of the organization by its id as the path gives it, bots and deactivated users
/// included: what may be muted; "No such user" otherwise.
pub async fn access_mute_target(db: &D1Database, realm_id: i64, raw_id: &str) -> ApiResult<UserRow> {
    let id = crate::params::parse_int(raw_id).ok_or_else(|| ApiError::bad_request("No such user"))?;
    users::by_id(db, realm_id, id).await?.ok_or_else(|| ApiError::bad_request("No such user"))
}
