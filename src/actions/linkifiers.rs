//! Adding, changing, removing and reordering the organization's linkifiers. Each change
//! sends everyone the whole ordered list (`realm_linkifiers` event), read in the same
//! batch as the write.

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::db::batch::Batch;
use crate::db::linkifiers::{self, LinkifierRow};
use crate::db::statement::Statement;
use crate::db::users::UserRow;
use crate::domain::linkifiers::{check_linkifier, check_order, linkifier_dict};
use crate::error::{ApiError, ApiResult};
use crate::event_types::Event;
use crate::model::ids::RealmId;

#[derive(serde::Deserialize)]
struct IdRow {
    id: i64,
}

/// Runs a linkifier write (which answers the id of the row it changed, if any) and reads
/// the organization's linkifiers after it, in one batch.
async fn write_then_list(db: &D1Database, realm_id: i64, write: Statement) -> ApiResult<(Option<i64>, Vec<LinkifierRow>)> {
    let mut batch = Batch::new();
    let changed = batch.add::<IdRow>(write);
    let list = batch.add::<LinkifierRow>(linkifiers::in_realm_stmt(realm_id)?);
    let results = batch.run(db).await?;
    Ok((results.first(changed)?.map(|r| r.id), results.rows(list)?))
}

/// Sends the organization's current linkifiers to everyone.
async fn notify_linkifiers(env: &Env, realm_id: i64, rows: &[LinkifierRow]) {
    let list: Vec<Value> = rows.iter().map(linkifier_dict).collect();
    let event = Event::RealmLinkifiers { realm_linkifiers: json!(list) };
    crate::actions::notify_realm(env, realm_id, &event).await;
}

/// `POST /realm/filters`: checks and adds a linkifier last in the order; answers its id.
pub async fn check_add_linkifier(db: &D1Database, env: &Env, admin: &UserRow, pattern: &str, url_template: &str) -> ApiResult<i64> {
    let (pattern, url_template) = check_linkifier(pattern, url_template)?;
    let (changed, rows) = write_then_list(db, admin.realm_id, linkifiers::insert_stmt(admin.realm_id, &pattern, &url_template)?).await?;
    let id = changed.ok_or_else(duplicate_pattern)?;
    notify_linkifiers(env, admin.realm_id, &rows).await;
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
    let update = linkifiers::update_stmt(RealmId(admin.realm_id), id, &pattern, &url_template)?;
    let (changed, rows) = write_then_list(db, admin.realm_id, update).await?;
    if changed.is_none() {
        return Err(if rows.iter().any(|r| r.id == id) { duplicate_pattern() } else { not_found() });
    }
    notify_linkifiers(env, admin.realm_id, &rows).await;
    Ok(())
}

/// `DELETE /realm/filters/{filter_id}`.
pub async fn do_remove_linkifier(db: &D1Database, env: &Env, admin: &UserRow, id: i64) -> ApiResult<()> {
    let (changed, rows) = write_then_list(db, admin.realm_id, linkifiers::delete_stmt(RealmId(admin.realm_id), id)?).await?;
    changed.ok_or_else(not_found)?;
    notify_linkifiers(env, admin.realm_id, &rows).await;
    Ok(())
}

/// `PATCH /realm/linkifiers`: `ordered` must list every linkifier exactly once.
pub async fn check_reorder_linkifiers(db: &D1Database, env: &Env, admin: &UserRow, ordered: &[i64]) -> ApiResult<()> {
    let existing = linkifiers::in_realm(db, admin.realm_id).await?;
    check_order(ordered, &existing)?;
    if ordered.is_empty() {
        return Ok(());
    }
    let ids = serde_json::to_string(ordered)?;
    let mut batch = Batch::new();
    batch.add::<Value>(linkifiers::reorder_stmt(admin.realm_id, &ids)?);
    let list = batch.add::<LinkifierRow>(linkifiers::in_realm_stmt(admin.realm_id)?);
    let rows = batch.run(db).await?.rows(list)?;
    notify_linkifiers(env, admin.realm_id, &rows).await;
    Ok(())
}

fn not_found() -> ApiError {
    ApiError::bad_request("Linkifier not found.")
}

/// Django's message for the `(realm, pattern)` uniqueness.
fn duplicate_pattern() -> ApiError {
    ApiError::bad_request("Realm filter with this Realm and Pattern already exists.")
}
