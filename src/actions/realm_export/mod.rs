//! Data exports: requesting one, deleting one, and building the pending ones on the
//! organization's `MessageScheduler` alarm (`platform::scheduler`). Every change of an
//! export's state sends `realm_export`, with all of the organization's exports, to its
//! administrators, as Zulip's `notify_realm_export` does.
//!
//! The export row in D1 is the truth: a build interrupted by a restart leaves the row
//! `started` with its progress, and the next alarm goes on from there ([`build`]).

mod build;

use crate::model::ids::{RealmId, UserId};
use serde_json::Value;
use worker::{ByteStream, D1Database, Env};

use crate::actions::notify_users;
use crate::actions::uploads::{delete_object, BUCKET};
use crate::db::realm_export_data;
use crate::db::realm_exports;
use crate::db::users::{self, UserIdRow, UserRow};
use crate::domain::realm_export as rules;
use crate::error::{ApiError, ApiResult};
use crate::event_types::Event;

/// Where a requested export is built and announced.
pub struct ExportRequest<'a> {
    pub export_type: i64,
    /// The organization's URL as the administrator reached it (the download URL's base).
    pub base_url: &'a str,
    /// The D1 binding and host the organization's scheduler alarm needs.
    pub database: &'a str,
    pub realm_host: &'a str,
    /// Whom Zulip tells to ask for a manual export of a large organization.
    pub support_email: &'a str,
}

/// Records an export request (Zulip's rate limit and size limit first), tells the
/// administrators, and wakes the organization's scheduler to build it. Answers its id.
pub async fn do_request_export(db: &D1Database, env: &Env, admin: &UserRow, request: &ExportRequest<'_>) -> ApiResult<i64> {
    let now = crate::db::now();
    let recent = realm_exports::requested_since(db, admin.realm_id, now - rules::RATE_LIMIT_WINDOW_SECS).await?;
    if recent >= rules::EXPORT_LIMIT {
        return Err(rules::rate_limited());
    }
    if realm_export_data::message_count(db, admin.realm_id).await? > rules::MAX_MESSAGE_HISTORY {
        return Err(rules::too_large(request.support_email));
    }
    rules::check_usable(request.export_type, &realm_export_data::owners(db, admin.realm_id).await?, request.support_email)?;
    let row = realm_exports::insert(db, RealmId(admin.realm_id), UserId(admin.id), request.export_type, now, request.base_url)
        .await?
        .ok_or_else(|| ApiError::internal("realm export insert returned no row"))?;
    notify_admins(db, env, admin.realm_id).await?;
    crate::platform::scheduler::arm(env, request.database, admin.realm_id, request.realm_host).await;
    Ok(row.id)
}

/// Every export of the organization as `RealmExport` objects.
pub async fn exports_of(db: &D1Database, realm_id: i64) -> ApiResult<Vec<Value>> {
    Ok(realm_exports::in_realm(db, realm_id).await?.iter().map(rules::export_dict).collect())
}

/// Each active human member's consent to exporting their private data.
pub async fn export_consents(db: &D1Database, realm_id: i64) -> ApiResult<Vec<Value>> {
    let rows = realm_export_data::consents(db, realm_id).await?;
    Ok(rows.iter().map(|c| serde_json::json!({ "user_id": c.user_id, "consented": c.consented != 0 })).collect())
}

/// Deletes a finished export's archive and marks it deleted.
pub async fn do_delete_export(db: &D1Database, env: &Env, admin: &UserRow, id: i64) -> ApiResult<()> {
    let row = realm_exports::by_id(db, RealmId(admin.realm_id), id).await?.ok_or_else(rules::invalid_export_id)?;
    rules::check_deletable(&row)?;
    if !realm_exports::mark_deleted(db, row.id, crate::db::now()).await? {
        // Another administrator deleted it in the meantime.
        return Err(rules::already_deleted());
    }
    if let Some(path) = &row.export_path {
        delete_object(env, path).await?;
    }
    notify_admins(db, env, admin.realm_id).await
}

/// The archive of a succeeded export, by its storage key, for its download URL: its
/// bytes as R2 streams them (an archive may be larger than a worker's memory) and its size.
pub async fn archive_body(db: &D1Database, env: &Env, admin: &UserRow, key: &str) -> ApiResult<(ByteStream, u64)> {
    let row = realm_exports::succeeded_by_path(db, admin.realm_id, key).await?.ok_or_else(ApiError::upload_not_found)?;
    let path = row.export_path.unwrap_or_default();
    let object = env.bucket(BUCKET)?.get(path).execute().await?.ok_or_else(ApiError::upload_not_found)?;
    let size = object.size();
    let body = object.body().ok_or_else(ApiError::upload_not_found)?.stream()?;
    Ok((body, size))
}

/// When the scheduler must wake for exports: now while one is pending.
pub async fn next_due(db: &D1Database, realm_id: i64) -> ApiResult<Option<i64>> {
    Ok(realm_exports::next_pending(db, realm_id).await?.map(|_| crate::db::now()))
}

/// The alarm's part: runs the next step of the oldest pending export's build
/// ([`build`]); once the archive is whole, or the build failed (Zulip's
/// `failed_timestamp`, not retried), tells the administrators. Answers when to run again:
/// while an export is pending, after `EXPORT_STEP_PAUSE_SECS` (now by default).
pub async fn build_pending(env: &Env, database: &str, realm_id: i64) -> ApiResult<Option<i64>> {
    let db = env.d1(database)?;
    let Some(row) = realm_exports::next_pending(&db, realm_id).await? else { return Ok(None) };
    if row.status == realm_exports::REQUESTED {
        realm_exports::set_status(&db, row.id, realm_exports::STARTED, crate::db::now(), None).await?;
    }
    match build::step(&db, env, &row).await {
        Ok(None) => return Ok(Some(crate::db::now() + crate::settings::Settings::from_env(env).export_step_pause_secs)),
        Ok(Some(key)) => realm_exports::set_status(&db, row.id, realm_exports::SUCCEEDED, crate::db::now(), Some(&key)).await?,
        Err(err) => {
            worker::console_error!("export {} of realm {realm_id} failed: {}", row.id, err.msg);
            realm_exports::set_status(&db, row.id, realm_exports::FAILED, crate::db::now(), None).await?;
            build::discard(env, &row).await;
        }
    }
    notify_admins(&db, env, realm_id).await?;
    next_due(&db, realm_id).await
}

/// Sends `realm_export` with every export of the organization to its administrators.
async fn notify_admins(db: &D1Database, env: &Env, realm_id: i64) -> ApiResult<()> {
    let exports = exports_of(db, realm_id).await?;
    let admins: Vec<UserIdRow> = crate::db::all(db, users::active_admin_ids_stmt(realm_id)?).await?;
    let ids: Vec<i64> = admins.iter().map(|a| a.id).collect();
    notify_users(env, realm_id, &ids, &Event::RealmExport { exports }).await;
    Ok(())
}
