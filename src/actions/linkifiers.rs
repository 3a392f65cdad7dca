//! Adding, changing, removing and reordering the organization's linkifiers. Each change
//! sends everyone the whole ordered list (`realm_linkifiers` event), read in the same
//! batch as the write.

use serde_json::{json, Value};
use worker::{D1Database, D1Result, Env};

use crate::db::linkifiers::{self, LinkifierRow};
use crate::db::users::UserRow;
use crate::domain::linkifiers::{check_linkifier, check_order, linkifier_dict};
use crate::error::{ApiError, ApiResult};
use crate::event_types::Event;

#[derive(serde::Deserialize)]
struct IdRow {
    id: i64,
}

fn changed_id(result: &D1Result) -> ApiResult<Option<i64>> {
    Ok(result.results::<IdRow>()?.first().map(|r| r.id))
}

/// Sends the organization's current linkifiers (the batch's last result) to everyone.
async fn notify_linkifiers(env: &Env, realm_id: i64, results: &[D1Result]) -> ApiResult<()> {
    let rows: Vec<LinkifierRow> = results.last().map(|r| r.results()).transpose()?.unwrap_or_default();
    let list: Vec<Value> = rows.iter().map(linkifier_dict).collect();
    let event = Event::RealmLinkifiers { realm_linkifiers: json!(list) };
    crate::actions::notify_realm(env, realm_id, &event).await;
    Ok(())
}

/// `POST /realm/filters`: checks and adds a linkifier last in the order; answers its id.
pub async fn check_add_linkifier(db: &D1Database, env: &Env, admin: &UserRow, pattern: &str, url_template: &str) -> ApiResult<i64> {
    let (pattern, url_template) = check_linkifier(pattern, url_template)?;
    let results = crate::db::run_batch(
        db,
        vec![linkifiers::insert_stmt(db, admin.realm_id, &pattern, &url_template)?, linkifiers::in_realm_stmt(db, admin.realm_id)?],
    )
    .await?;
    let id = changed_id(&results[0])?.ok_or_else(duplicate_pattern)?;
    notify_linkifiers(env, admin.realm_id, &results).await?;
    Ok(id)
}

/// `PATCH /realm/filters/{filter_id}`: checks and replaces a linkifier's pattern and template.
pub async fn check_update_linkifier(
    db: &D1Database,
    env: &Env,
    admin: &UserRow,
    id: i64,
    pattern: &str,
    url_template: &str,
) -> ApiResult<()> {
    let (pattern, url_template) = check_linkifier(pattern, url_template)?;
    let results = crate::db::run_batch(
        db,
        vec![linkifiers::update_stmt(db, admin.realm_id, id, &pattern, &url_template)?, linkifiers::in_realm_stmt(db, admin.realm_id)?],
    )
    .await?;
    if changed_id(&results[0])?.is_none() {
        let rows: Vec<LinkifierRow> = results[1].results()?;
        return Err(if rows.iter().any(|r| r.id == id) { duplicate_pattern() } else { not_found() });
    }
    notify_linkifiers(env, admin.realm_id, &results).await
}

/// `DELETE /realm/filters/{filter_id}`.
pub async fn do_remove_linkifier(db: &D1Database, env: &Env, admin: &UserRow, id: i64) -> ApiResult<()> {
    let results =
        crate::db::run_batch(db, vec![linkifiers::delete_stmt(db, admin.realm_id, id)?, linkifiers::in_realm_stmt(db, admin.realm_id)?])
            .await?;
    changed_id(&results[0])?.ok_or_else(not_found)?;
    notify_linkifiers(env, admin.realm_id, &results).await
}

/// `PATCH /realm/linkifiers`: `ordered` must list every linkifier exactly once.
pub async fn check_reorder_linkifiers(db: &D1Database, env: &Env, admin: &UserRow, ordered: &[i64]) -> ApiResult<()> {
    let existing = linkifiers::in_realm(db, admin.realm_id).await?;
    check_order(ordered, &existing)?;
    if ordered.is_empty() {
        return Ok(());
    }
    let ids = serde_json::to_string(ordered)?;
    let results =
        crate::db::run_batch(db, vec![linkifiers::reorder_stmt(db, admin.realm_id, &ids)?, linkifiers::in_realm_stmt(db, admin.realm_id)?])
            .await?;
    notify_linkifiers(env, admin.realm_id, &results).await
}

fn not_found() -> ApiError {
    ApiError::bad_request("Linkifier not found.")
}

/// Django's message for the `(realm, pattern)` uniqueness.
fn duplicate_pattern() -> ApiError {
    ApiError::bad_request("Realm filter with this Realm and Pattern already exists.")
}
