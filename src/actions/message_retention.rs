//! Message retention: messages older than their retention period (the channel's, else the
//! organization's; `crate::db::message_retention`) are deleted by the organization's
//! `MessageScheduler` alarm, once a day and right after a period changes, as Zulip's daily
//! `archive_messages` job does. Like Zulip's, the deletion sends no events: clients stop
//! finding the messages.

use serde_json::Value;

use crate::db::batch::Batch;
use crate::db::message_edits as q;
use crate::db::message_retention::{self as retention, ExpiredRow, PolicyRow};
use crate::error::ApiResult;

/// How many messages one alarm deletes at most; more wait for the next alarm, right after.
const SWEEP_BATCH: i64 = 1000;

/// How long after a sweep that found nothing more the next one runs.
pub const SWEEP_INTERVAL_SECS: i64 = 86_400;

/// The alarm's work: deletes the messages past their retention. Answers when to sweep
/// next: never while nothing has a retention period.
pub async fn delete_expired(env: &worker::Env, database: &str, realm_id: i64) -> ApiResult<Option<i64>> {
    let db = crate::platform::directory::database(env, database)?;
    let now = crate::db::now();
    let mut batch = Batch::new();
    let policy = batch.add::<PolicyRow>(retention::policy_stmt(realm_id)?);
    let expired = batch.add::<ExpiredRow>(retention::expired_stmt(realm_id, now, SWEEP_BATCH)?);
    let results = batch.run(&db).await?;
    let has_policy = results.first(policy)?.is_some_and(|p| p.realm_days > 0 || p.channel_policies > 0);
    let ids: Vec<i64> = results.rows(expired)?.into_iter().map(|r| r.id).collect();
    if !ids.is_empty() {
        let mut deletion = Batch::new();
        for chunk in q::chunks(&ids) {
            for stmt in q::delete_messages_stmts(&chunk)? {
                deletion.add::<Value>(stmt);
            }
            deletion.add::<Value>(crate::db::attachments::unlink_messages_stmt(&chunk)?);
        }
        deletion.run(&db).await?;
    }
    Ok(match (has_policy, ids.len() as i64 == SWEEP_BATCH) {
        (_, true) => Some(now),
        (true, false) => Some(now + SWEEP_INTERVAL_SECS),
        (false, false) => None,
    })
}

/// After a retention period changed (the organization's or a channel's): the sweep runs
/// now, then daily while any period is set.
pub async fn sweep_soon(ctx: &crate::context::RequestContext, realm_id: i64) {
    crate::platform::scheduler::arm_retention_sweep(&ctx.env, &ctx.database, realm_id, &ctx.realm_host).await;
}
