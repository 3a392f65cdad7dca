//! Muting and unmuting users, with the `muted_users` event (and, when muting, the
//! `update_message_flags` event of the muted user's messages marked read).

use worker::{D1Database, Env};

use crate::actions::notify_users;
use crate::db::muted_users::{self, MutedUserRow};
use crate::db::user_messages::{self, MessageIdRow};
use crate::db::users::UserRow;
use crate::domain::message_flags::MessageFlag;
use crate::domain::muted_users::muted_users_list;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, FlagsEvent};

async fn send_list(env: &Env, me: &UserRow, list: &[MutedUserRow]) {
    notify_users(env, me.realm_id, &[me.id], &Event::MutedUsers { muted_users: muted_users_list(list) }).await;
}

/// Mutes `target` ("User already muted" if so) and marks its messages read for `me`, as
/// Zulip does. One read, one write batch.
pub async fn do_mute_user(db: &D1Database, env: &Env, me: &UserRow, target: &UserRow) -> ApiResult<()> {
    let existing: Option<MutedUserRow> = crate::db::first(muted_users::get_stmt(db, me.id, target.id)?).await?;
    if existing.is_some() {
        return Err(ApiError::bad_request("User already muted"));
    }
    let results = crate::db::run_batch(
        db,
        vec![
            muted_users::add_stmt(db, me.id, target.id, crate::db::now())?,
            user_messages::mark_sender_read_stmt(db, me.id, target.id)?,
            muted_users::for_user_stmt(db, me.id)?,
        ],
    )
    .await?;
    let mut read: Vec<i64> = results[1].results::<MessageIdRow>()?.into_iter().map(|r| r.message_id).collect();
    let list: Vec<MutedUserRow> = results[2].results()?;
    if !read.is_empty() {
        read.sort_unstable();
        let event = Event::UpdateMessageFlags(FlagsEvent::new(true, MessageFlag::Read, read, false));
        notify_users(env, me.realm_id, &[me.id], &event).await;
    }
    send_list(env, me, &list).await;
    Ok(())
}

/// Unmutes `target` ("User is not muted" if not muted).
pub async fn do_unmute_user(db: &D1Database, env: &Env, me: &UserRow, target: &UserRow) -> ApiResult<()> {
    let existing: Option<MutedUserRow> = crate::db::first(muted_users::get_stmt(db, me.id, target.id)?).await?;
    if existing.is_none() {
        return Err(ApiError::bad_request("User is not muted"));
    }
    let results =
        crate::db::run_batch(db, vec![muted_users::remove_stmt(db, me.id, target.id)?, muted_users::for_user_stmt(db, me.id)?]).await?;
    let list: Vec<MutedUserRow> = results[1].results()?;
    send_list(env, me, &list).await;
    Ok(())
}
