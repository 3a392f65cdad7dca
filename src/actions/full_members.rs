//! Full members (`role:fullmembers`): members whose organization's waiting period
//! (`waiting_period_threshold` days) has passed since they joined. Membership is computed
//! when asked (`db::user_groups::by_role_sql`); this module tells clients when it changes
//! with time alone. The organization's `MessageScheduler` alarm wakes when the next
//! member's waiting period ends (and at least daily while there is a waiting period, for
//! people who joined since), and sends `user_group` `add_members` for those who crossed the
//! line since its last look, as Zulip's daily `promote_new_full_members` job does.
//! A change of the waiting period itself is announced by `actions::realm_settings`.

use crate::db::batch::Batch;
use crate::db::user_groups::{self, MemberRow, NextCrossingRow};
use crate::error::ApiResult;
use crate::event_types::{Event, UserGroupEvent};

/// How long the alarm waits at most while the organization has a waiting period.
const LOOK_AT_LEAST_EVERY_SECS: i64 = 86_400;

/// The alarm's work: announces the members who became full members after `since` (up to
/// now). Answers when to look next: never while the organization has no waiting period.
pub async fn announce_crossings(env: &worker::Env, database: &str, realm_id: i64, since: i64) -> ApiResult<Option<i64>> {
    let db = crate::platform::directory::database(env, database)?;
    let now = crate::db::now();
    let mut batch = Batch::new();
    let crossed = batch.add::<MemberRow>(user_groups::full_member_crossings_stmt(realm_id, since, now)?);
    let next = batch.add::<NextCrossingRow>(user_groups::next_full_member_crossing_stmt(realm_id, now)?);
    let results = batch.run(&db).await?;
    let crossed = results.rows(crossed)?;
    if let Some(group_id) = crossed.first().map(|m| m.group_id) {
        let user_ids = crossed.iter().map(|m| m.user_id).collect();
        crate::actions::notify_realm(env, realm_id, &Event::UserGroup(UserGroupEvent::AddMembers { group_id, user_ids })).await;
    }
    Ok(results.first(next)?.filter(|n| n.waiting_period_threshold > 0).map(|n| {
        let daily = now + LOOK_AT_LEAST_EVERY_SECS;
        n.next_at.map_or(daily, |at| at.min(daily))
    }))
}

/// After the waiting period changed (whose own moves were just announced): the alarm looks
/// from now on.
pub async fn watch_from_now(ctx: &crate::context::RequestContext, realm_id: i64) {
    crate::platform::scheduler::arm_full_members(&ctx.env, &ctx.database, realm_id, &ctx.realm_host).await;
}
