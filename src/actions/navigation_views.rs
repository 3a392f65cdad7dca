//! Adding, updating and removing navigation views, with their `navigation_view` events (to
//! the owner's queues only).

use serde_json::{json, Map, Value};
use worker::{D1Database, Env};

use crate::actions::notify_users;
use crate::db::batch::Batch;
use crate::db::navigation_views::{self, UpdateCheck};
use crate::db::users::UserRow;
use crate::domain::navigation_views::{built_in_has_no_name, check_name_for_new_view, is_built_in, view_dict, view_exists, view_not_found};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, NavigationViewEvent};
use crate::model::ids::{RealmId, UserId};

/// `fragment` and `name` arrive stripped and non-blank.
pub async fn do_add_navigation_view(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    fragment: &str,
    is_pinned: bool,
    name: Option<&str>,
) -> ApiResult<()> {
    check_name_for_new_view(fragment, name)?;
    let row =
        navigation_views::insert(db, RealmId(me.realm_id), UserId(me.id), fragment, is_pinned, name).await?.ok_or_else(view_exists)?;
    let event = Event::NavigationView(NavigationViewEvent::Add { navigation_view: view_dict(&row) });
    notify_users(env, me.realm_id, &[me.id], &event).await;
    Ok(())
}

/// Changes `is_pinned` and/or `name` (custom views only; unique among the user's views).
/// The event's `data` holds the fields sent, as in Zulip.
pub async fn do_update_navigation_view(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    fragment: &str,
    is_pinned: Option<bool>,
    name: Option<&str>,
) -> ApiResult<()> {
    if is_built_in(fragment) && name.is_some() {
        return Err(built_in_has_no_name());
    }
    let mut batch = Batch::new();
    let check = batch.add::<UpdateCheck>(navigation_views::update_check_stmt(me.id, fragment, name)?);
    batch.add::<Value>(navigation_views::update_stmt(me.id, fragment, is_pinned, name)?);
    let results = batch.run(db).await?;
    let check = results.first(check)?.ok_or_else(|| ApiError::internal("navigation view check returned no row"))?;
    if check.name_taken != 0 {
        return Err(view_exists());
    }
    if check.found == 0 {
        return Err(view_not_found());
    }
    let mut data = Map::new();
    if let Some(name) = name {
        data.insert("name".into(), json!(name));
    }
    if let Some(is_pinned) = is_pinned {
        data.insert("is_pinned".into(), json!(is_pinned));
    }
    let event = Event::NavigationView(NavigationViewEvent::Update { fragment: fragment.to_string(), data: data.into() });
    notify_users(env, me.realm_id, &[me.id], &event).await;
    Ok(())
}

pub async fn do_remove_navigation_view(db: &D1Database, env: &Env, me: &UserRow, fragment: &str) -> ApiResult<()> {
    if !navigation_views::delete(db, me.id, fragment).await? {
        return Err(view_not_found());
    }
    let event = Event::NavigationView(NavigationViewEvent::Remove { fragment: fragment.to_string() });
    notify_users(env, me.realm_id, &[me.id], &event).await;
    Ok(())
}
