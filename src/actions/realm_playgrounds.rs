//! Adding and removing code playgrounds; every user's queues get the new list
//! (`realm_playgrounds` event).

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::actions::notify_realm;
use crate::db::batch::Batch;
use crate::db::realm_playgrounds::{self, PlaygroundRow};
use crate::db::users::UserRow;
use crate::domain::realm_playgrounds::{check_pygments_language, check_url_template, playground_dict};
use crate::domain::strings::required_text;
use crate::error::{ApiError, ApiResult};
use crate::event_types::Event;
use crate::model::ids::RealmId;

#[derive(serde::Deserialize)]
struct Id {
    id: i64,
}

pub async fn do_add_playground(
    db: &D1Database,
    env: &Env,
    admin: &UserRow,
    name: &str,
    language: &str,
    url_template: &str,
) -> ApiResult<i64> {
    let name = required_text("name", name, 60)?;
    check_pygments_language(language)?;
    check_url_template(url_template)?;
    let mut batch = Batch::new();
    let added = batch.add::<Id>(realm_playgrounds::insert_stmt(admin.realm_id, &name, language, url_template)?);
    let all = batch.add::<PlaygroundRow>(realm_playgrounds::in_realm_stmt(admin.realm_id)?);
    let results = batch.run(db).await?;
    let id = results
        .first(added)?
        .ok_or_else(|| ApiError::bad_request("Realm playground with this Realm, Pygments language and Name already exists."))?
        .id;
    notify_list(env, admin, &results.rows(all)?).await;
    Ok(id)
}

pub async fn do_remove_playground(db: &D1Database, env: &Env, admin: &UserRow, id: i64) -> ApiResult<()> {
    let mut batch = Batch::new();
    let removed = batch.add::<Id>(realm_playgrounds::delete_stmt(RealmId(admin.realm_id), id)?);
    let all = batch.add::<PlaygroundRow>(realm_playgrounds::in_realm_stmt(admin.realm_id)?);
    let results = batch.run(db).await?;
    if results.first(removed)?.is_none() {
        return Err(ApiError::bad_request("Invalid playground"));
    }
    notify_list(env, admin, &results.rows(all)?).await;
    Ok(())
}

async fn notify_list(env: &Env, admin: &UserRow, rows: &[PlaygroundRow]) {
    let list: Vec<Value> = rows.iter().map(playground_dict).collect();
    notify_realm(env, admin.realm_id, &Event::RealmPlaygrounds { realm_playgrounds: json!(list) }).await;
}
