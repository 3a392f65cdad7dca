//! Muting and unmuting users, with the `muted_users` event (and, when muting, the
//! `update_message_flags` event of the muted user's messages marked read).

use serde_json::Value;
use worker::{D1Database, Env};

use crate::actions::notify_users;
use crate::db::batch::Batch;
use crate::db::muted_users::{self, MutedUserRow};
use crate::db::user_messages::{self, MessageIdRow};
use crate::db::users::{self, UserRow};
use crate::domain::muted_users::{check_mute_target, muted_users_list};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, FlagsEvent};
use crate::model::ids::{RealmId, UserId};
use crate::model::message_flags::MessageFlag;

/// `me`'s mute of the user `target_id` if any, read with the user in one round trip; "No
/// such user" comes first, as in Zulip.
async fn mute_of_target(db: &D1Database, me: &UserRow, target_id: UserId) -> ApiResult<Option<MutedUserRow>> {
    let mut batch = Batch::new();
    let user = batch.add::<UserRow>(users::by_id_stmt(RealmId(me.realm_id), target_id)?);
    let muted = batch.add::<MutedUserRow>(muted_users::get_stmt(UserId(me.id), target_id)?);
    let results = batch.run(db).await?;
    check_mute_target(results.first(user)?)?;
    Ok(results.first(muted)?)
}

async fn send_list(env: &Env, me: &UserRow, list: &[MutedUserRow]) {
    notify_users(env, me.realm_id, &[me.id], &Event::MutedUsers { muted_users: muted_users_list(list) }).await;
}

/// Mutes the user `target_id` ("No such user" if the organization has none, "User already
/// muted" if so) and marks its messages read for `me`, as Zulip does. One read batch (the
/// target and the mute), one write batch.
pub async fn check_mute_user(db: &D1Database, env: &Env, me: &UserRow, target_id: UserId) -> ApiResult<()> {
    if mute_of_target(db, me, target_id).await?.is_some() {
        return Err(ApiError::bad_request("User already muted"));
    }
    let mut batch = Batch::new();
    batch.add::<Value>(muted_users::add_stmt(UserId(me.id), target_id, crate::db::now())?);
    let read = batch.add::<MessageIdRow>(user_messages::mark_sender_read_stmt(UserId(me.id), target_id)?);
    let list = batch.add::<MutedUserRow>(muted_users::for_user_stmt(me.id)?);
    let results = batch.run(db).await?;
    let mut read: Vec<i64> = results.rows(read)?.into_iter().map(|r| r.message_id).collect();
    let list = results.rows(list)?;
    if !read.is_empty() {
        read.sort_unstable();
        let event = Event::UpdateMessageFlags(FlagsEvent::new(true, MessageFlag::Read, read, false));
        notify_users(env, me.realm_id, &[me.id], &event).await;
    }
    send_list(env, me, &list).await;
    Ok(())
}

/// Unmutes the user `target_id` ("No such user" if the organization has none, "User is not
/// muted" if not muted). One read batch, one write batch.
pub async fn check_unmute_user(db: &D1Database, env: &Env, me: &UserRow, target_id: UserId) -> ApiResult<()> {
    if mute_of_target(db, me, target_id).await?.is_none() {
        return Err(ApiError::bad_request("User is not muted"));
    }
    let mut batch = Batch::new();
    batch.add::<Value>(muted_users::remove_stmt(UserId(me.id), target_id)?);
    let list = batch.add::<MutedUserRow>(muted_users::for_user_stmt(me.id)?);
    let list = batch.run(db).await?.rows(list)?;
    send_list(env, me, &list).await;
    Ok(())
}
