//! Changing the caller's own user settings, with the `user_settings` event per changed
//! setting and the legacy `update_display_settings` / `update_global_notifications` events
//! (and, for `timezone`, which others see, a `realm_user` update to the organization; for
//! `allow_private_data_export`, `realm_export_consent` to the administrators; for
//! `email_address_visibility`, the real address to those who gain or lose sight of it).

use serde_json::{json, Map, Value};
use worker::{D1Database, Env};

use crate::actions::notify_users;
use crate::db::users::{self, SettingColumns, UserRow};
use crate::domain::user_settings::{self as rules, Legacy, Setting, Storage};
use crate::domain::users::{avatar_person, email_sight_changes, placeholder_email};
use crate::error::ApiResult;
use crate::event_types::{Event, RealmUserEvent, UserSettingsEvent};

/// Stores the settings among `requested` whose value differs (one write), then sends their
/// events to the user. Nothing is written or sent when nothing differs.
pub async fn do_change_user_settings(
    db: &D1Database,
    env: &Env,
    realm_host: &str,
    me: &UserRow,
    requested: Vec<(&'static Setting, Value)>,
) -> ApiResult<()> {
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
            (Storage::Column, rules::EMAIL_ADDRESS_VISIBILITY) => columns.email_address_visibility = value.as_i64(),
            (Storage::Column, _) => columns.automatically_follow_topics_where_mentioned = value.as_bool().map(i64::from),
        }
    }
    crate::db::run(db, users::update_settings_stmt(me.id, &Value::Object(json).to_string(), &columns)?).await?;
    for (setting, value) in &changes {
        for event in change_events(me, setting, value) {
            notify_users(env, me.realm_id, &[me.id], &event).await;
        }
        if let Some(event) = realm_user_event(me, setting, value) {
            crate::actions::notify_realm(env, me.realm_id, &event).await;
        }
        if setting.name == "allow_private_data_export" {
            // Administrators see who consents to exports (`GET /export/realm/consents`).
            let admins: Vec<users::UserIdRow> = crate::db::all(db, users::active_admin_ids_stmt(me.realm_id)?).await?;
            let ids: Vec<i64> = admins.iter().map(|a| a.id).collect();
            let event = Event::RealmExportConsent { user_id: me.id, consented: value.as_bool().unwrap_or(false) };
            notify_users(env, me.realm_id, &ids, &event).await;
        }
        if let (rules::EMAIL_ADDRESS_VISIBILITY, Some(new)) = (setting.name, value.as_i64()) {
            notify_email_sight_change(db, env, realm_host, me, new).await?;
        }
    }
    Ok(())
}

/// Those who gain or lose sight of `user`'s real address when its visibility becomes `new`
/// hear what they now see: `delivery_email`, the `email` clients address the user by
/// (`new_email`), and a Gravatar avatar's URL, which a client computed from the address.
async fn notify_email_sight_change(db: &D1Database, env: &Env, realm_host: &str, user: &UserRow, new: i64) -> ApiResult<()> {
    let viewers = users::active_viewers(db, user.realm_id).await?;
    let (gain, lose) = email_sight_changes(&viewers, user, user.email_address_visibility, new);
    let avatar = user.avatar_file.is_none().then(|| avatar_person(user));
    for (ids, sees) in [(gain, true), (lose, false)] {
        if ids.is_empty() {
            continue;
        }
        let (delivery_email, email) =
            if sees { (json!(user.delivery_email), user.email.clone()) } else { (Value::Null, placeholder_email(user, realm_host)) };
        let people = [json!({"user_id": user.id, "delivery_email": delivery_email}), json!({"user_id": user.id, "new_email": email})];
        for person in people.into_iter().chain(avatar.clone()) {
            notify_users(env, user.realm_id, &ids, &Event::RealmUser(RealmUserEvent::Update { person })).await;
        }
    }
    Ok(())
}

/// The events of one changed setting: `user_settings`, and the legacy event of its group.
fn change_events(user: &UserRow, setting: &Setting, value: &Value) -> Vec<Event> {
    let mut events = vec![Event::UserSettings(UserSettingsEvent::Update { property: setting.name, value: value.clone() })];
    match setting.legacy {
        Legacy::Display => {
            events.push(Event::UpdateDisplaySettings { user: user.email.clone(), setting_name: setting.name, setting: value.clone() })
        }
        Legacy::Notification => events.push(Event::UpdateGlobalNotifications {
            user: user.email.clone(),
            notification_name: setting.name,
            setting: value.clone(),
        }),
        Legacy::None => {}
    }
    events
}

/// The organization's event of a change others see: `timezone` is part of the user object.
fn realm_user_event(user: &UserRow, setting: &Setting, value: &Value) -> Option<Event> {
    (setting.name == "timezone")
        .then(|| Event::RealmUser(RealmUserEvent::Update { person: json!({"user_id": user.id, "timezone": value}) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_events_follow_the_group() {
        let user = UserRow { email: "a@b".into(), ..UserRow::default() };
        let e = serde_json::to_value(change_events(&user, rules::setting("enable_sounds").unwrap(), &json!(false))).unwrap();
        assert_eq!(e[1]["type"], "update_global_notifications");
        assert_eq!(e[1]["notification_name"], "enable_sounds");
        let e = serde_json::to_value(change_events(&user, rules::setting("emojiset").unwrap(), &json!("text"))).unwrap();
        assert_eq!(e[1]["type"], "update_display_settings");
        assert_eq!(change_events(&user, rules::setting("send_read_receipts").unwrap(), &json!(false)).len(), 1);
        let tz = serde_json::to_value(realm_user_event(&user, rules::setting("timezone").unwrap(), &json!("Asia/Tokyo")).unwrap()).unwrap();
        assert_eq!(tz["person"]["timezone"], "Asia/Tokyo");
        assert!(realm_user_event(&user, rules::setting("emojiset").unwrap(), &json!("text")).is_none());
    }
}
