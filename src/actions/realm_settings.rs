//! Changing the organization's settings: one D1 batch, then `realm`/`update_dict` (and
//! `realm`/`update` for the organization's name and description) to every active user.

use serde_json::{json, Map, Value};
use worker::{D1Database, Env};

use crate::db::realm_settings::{self, SettingValue};
use crate::db::subscriptions::{self, ChannelViewRow};
use crate::db::user_groups::GroupNameRow;
use crate::db::users::UserRow;
use crate::domain::channels::can_access_channel_content;
use crate::domain::user_settings::{self as user_settings, Setting};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, RealmEvent, UserSettingsEvent};
use crate::model::system_groups;

/// A group-valued setting asked for, and whether `role:everyone` (which includes guests)
/// is allowed for it.
pub struct GroupSetting {
    pub name: &'static str,
    pub allow_everyone: bool,
    pub group_id: i64,
}

/// The checked changes of `PATCH /realm`: the rows to write, the values to report, and the
/// group settings still to check against the organization's groups.
pub struct RealmSettingsChange {
    pub changes: Vec<(&'static str, SettingValue)>,
    pub data: Map<String, Value>,
    pub groups: Vec<GroupSetting>,
    /// Properties Zulip reports one by one (`realm` `update`) rather than in `update_dict`;
    /// also written through `changes`.
    pub updates: Vec<(&'static str, Value)>,
    /// The channels the announcement settings name: each must be one the administrator
    /// can read, not archived.
    pub channels: Vec<i64>,
}

/// Checks the group settings (an active group of the organization, never `role:internet`,
/// `role:everyone` only where allowed), writes every change and emits the event. Answers
/// the changed values.
pub async fn check_update_realm_settings(
    db: &D1Database,
    env: &Env,
    admin: &UserRow,
    change: RealmSettingsChange,
) -> ApiResult<Map<String, Value>> {
    let RealmSettingsChange { mut changes, mut data, groups, updates, channels } = change;
    check_announcement_channels(db, admin, &channels).await?;
    if !groups.is_empty() {
        let ids: Vec<i64> = groups.iter().map(|g| g.group_id).collect();
        let found: Vec<GroupNameRow> = crate::db::all(crate::db::user_groups::active_names_stmt(db, admin.realm_id, &ids)?).await?;
        for setting in groups {
            let group = found.iter().find(|g| g.id == setting.group_id).ok_or_else(|| ApiError::bad_request("Invalid user group"))?;
            if group.name == system_groups::INTERNET || (!setting.allow_everyone && group.name == system_groups::EVERYONE) {
                return Err(ApiError::bad_request(format!("'{}' setting cannot be set to '{}' group.", setting.name, group.name)));
            }
            changes.push((setting.name, SettingValue::Int(Some(setting.group_id))));
            data.insert(setting.name.to_string(), json!(setting.group_id));
        }
    }
    if changes.is_empty() {
        return Ok(data);
    }
    crate::db::run_batch(db, realm_settings::update_stmts(db, admin.realm_id, &changes)?).await?;
    let mut answer = data.clone();
    if !data.is_empty() {
        let event = Event::Realm(RealmEvent::UpdateDict { property: "default", data });
        crate::actions::notify_realm(env, admin.realm_id, &event).await;
    }
    for (property, value) in updates {
        answer.insert(property.to_string(), value.clone());
        crate::actions::notify_realm(env, admin.realm_id, &Event::Realm(RealmEvent::Update { property, value })).await;
    }
    Ok(answer)
}

/// "Invalid channel ID" unless every channel of `ids` is one `admin` can read, not archived.
async fn check_announcement_channels(db: &D1Database, admin: &UserRow, ids: &[i64]) -> ApiResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let ids_json = serde_json::to_string(ids)?;
    let found: Vec<ChannelViewRow> = crate::db::all(subscriptions::by_ids_for_user_stmt(db, admin.realm_id, admin.id, &ids_json)?).await?;
    let readable = |id: &i64| found.iter().any(|c| c.id == *id && c.is_archived == 0 && can_access_channel_content(admin, c));
    if !ids.iter().all(readable) {
        return Err(ApiError::invalid_channel_id());
    }
    Ok(())
}

/// Stores the organization defaults among `requested` whose value differs from the current
/// default (`current_json`: those changed so far), one write, then sends a
/// `realm_user_settings_defaults` event per change to everyone in the organization.
pub async fn do_change_user_settings_defaults(
    db: &D1Database,
    env: &Env,
    admin: &UserRow,
    current_json: &str,
    requested: Vec<(&'static Setting, Value)>,
) -> ApiResult<()> {
    let changes = user_settings::organization_default_changes(current_json, requested);
    if changes.is_empty() {
        return Ok(());
    }
    let json: Map<String, Value> = changes.iter().map(|(s, v)| (s.name.to_string(), v.clone())).collect();
    crate::db::run(realm_settings::update_user_settings_defaults_stmt(db, admin.realm_id, &Value::Object(json).to_string())?).await?;
    for (setting, value) in changes {
        let event = Event::RealmUserSettingsDefaults(UserSettingsEvent::Update { property: setting.name, value });
        crate::actions::notify_realm(env, admin.realm_id, &event).await;
    }
    Ok(())
}
