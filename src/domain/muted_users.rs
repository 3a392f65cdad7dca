//! Muted users as the API shows them: `{id, timestamp}` of each user one muted.

use serde_json::{json, Value};
use worker::D1Database;

use crate::db::muted_users::{self, MutedUserRow};
use crate::db::users::UserRow;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::UserId;

/// The `muted_users` list of the API and of the `muted_users` event.
pub fn muted_users_list(rows: &[MutedUserRow]) -> Vec<Value> {
    rows.iter().map(|m| json!({ "id": m.id, "timestamp": m.timestamp })).collect()
}

/// The user's muted users, oldest first. One round trip.
pub async fn muted_users_of(db: &D1Database, user_id: i64) -> ApiResult<Vec<Value>> {
    let rows: Vec<MutedUserRow> = crate::db::all(db, muted_users::for_user_stmt(user_id)?).await?;
    Ok(muted_users_list(&rows))
}

fn no_such_user() -> ApiError {
    ApiError::no_such_user()
}

/// The id of the user to mute or unmute as the path gives it; "No such user" if it is no id.
pub fn mute_target_id(raw_id: &str) -> ApiResult<UserId> {
    crate::params::parse_int(raw_id).map(UserId).ok_or_else(no_such_user)
}

/// Any user of the organization, bots and deactivated users included, may be muted:
/// "No such user" when the organization has none by that id.
pub fn check_mute_target(user: Option<UserRow>) -> ApiResult<()> {
    user.map(|_| ()).ok_or_else(no_such_user)
}
