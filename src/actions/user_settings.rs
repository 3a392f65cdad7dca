//! Changing the caller's own user settings, with the `user_settings` event per changed
//! setting and the legacy `update_display_settings` / `update_global_notifications` events
//! (and, for `timezone`, which others see, a `realm_user` update to the organization).

use serde_json::{Map, Value};
use worker::{D1Database, Env};

use crate::actions::notify_users;
use crate::db::users::{self, SettingColumns, UserRow};
use crate::domain::user_settings::{self as rules, Setting, Storage};
use crate::error::ApiResult;

/// Stores the settings among `requested` whose value differs (one write), then sends their
/// events to the user. Nothing is written or sent when nothing differs.
pub async fn do_change_user_settings(db: &D1Database, env: &Env, me: &UserRow, requested: Vec<(&'static Setting, Value)>) -> ApiResult<()> {
    let changes = rules::changes(me, requested);
    if changes.is_empty() {
        return Ok(());
    }
    let mut json = Map::new();
    let mut columns = SettingColumns::default();
    for (setting, value) in &changes {
        match (setting.storage, setting.name) {
            (Storage::Json, name) => {
                json.insert(name.to_string(), value.clone());
            }
            (Storage::Column, "timezone") => columns.timezone = value.as_str().map(String::from),
            (Storage::Column, "automatically_follow_topics_policy") => columns.automatically_follow_topics_policy = value.as_i64(),
            (Storage::Column, "automatically_unmute_topics_in_muted_streams_policy") => {
                columns.automatically_unmute_topics_in_muted_streams_policy = value.as_i64()
            }
            (Storage::Column, _) => columns.automatically_follow_topics_where_mentioned = value.as_bool().map(i64::from),
        }
    }
    crate::db::run(users::update_settings_stmt(db, me.id, &Value::Object(json).to_string(), &columns)?).await?;
    for (setting, value) in &changes {
        for event in rules::change_events(me, setting, value) {
            notify_users(env, me.realm_id, &[me.id], &event).await;
        }
        if let Some(event) = rules::realm_user_event(me, setting, value) {
            // The change is stored: a failed read of the audience must not fail the request.
            if let Err(err) = crate::actions::notify_realm(env, db, me.realm_id, &event).await {
                worker::console_error!("realm_user event of a settings change not sent: {}", err.msg);
            }
        }
    }
    Ok(())
}
