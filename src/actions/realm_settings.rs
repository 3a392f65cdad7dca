//! Changing the organization's settings: one D1 batch, then `realm`/`update_dict` (and
//! `realm`/`update` for the organization's name and description) to every active user.

use serde_json::{Map, Value};
use worker::{D1Database, Env};

use crate::db::batch::Batch;
use crate::db::realm_settings::{self, RealmSettingsRow, SettingValue};
use crate::db::subscriptions::{self, ChannelViewRow, SystemGroupRow};
use crate::db::user_groups::{self, GroupNameRow, MemberRow};
use crate::db::users::UserRow;
use crate::domain::channels::can_access_channel_content;
use crate::domain::group_setting_values::{self, GroupChange, GroupSettingValue};
use crate::domain::user_settings::{self as user_settings, Setting};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, RealmEvent, UserGroupEvent, UserSettingsEvent};
use crate::model::ids::{RealmId, UserId};
use crate::model::system_groups;

/// A group-valued setting asked for, and whether `role:everyone` (which includes guests)
/// is allowed for it.
pub struct GroupSetting {
    pub name: &'static str,
    pub allow_everyone: bool,
    pub change: GroupChange,
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
    /// The new moderation request channel, which must also be private.
    pub moderation_channel: Option<i64>,
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
    let RealmSettingsChange { mut changes, mut data, groups, updates, channels, moderation_channel } = change;
    check_announcement_channels(db, admin, &channels, moderation_channel).await?;
    let mut setup = Vec::new();
    if !groups.is_empty() {
        let checked = check_group_settings(db, admin, &groups).await?;
        for (setting, value) in groups.iter().zip(checked) {
            let (stmts, group) = crate::actions::group_setting_values::store(admin.realm_id, &value, crate::db::now())?;
            setup.extend(stmts);
            changes.push((setting.name, SettingValue::Group(group)));
            data.insert(setting.name.to_string(), value.to_json());
        }
    }
    if changes.is_empty() {
        return Ok(data);
    }
    // A new waiting period makes some members full members, or no longer (Zulip's
    // `role:fullmembers` events).
    let waiting_changed = changes.iter().any(|(column, _)| *column == "waiting_period_threshold");
    let full_members = || user_groups::role_group_members_stmt(admin.realm_id, system_groups::FULL_MEMBERS);
    let before = if waiting_changed { crate::db::all::<MemberRow>(db, full_members()?).await? } else { Vec::new() };
    setup.extend(realm_settings::update_stmts(admin.realm_id, &changes)?);
    let mut batch = Batch::new();
    for write in setup {
        batch.add::<Value>(write);
    }
    let after = waiting_changed.then(full_members).transpose()?.map(|stmt| batch.add::<MemberRow>(stmt));
    let after = batch.run(db).await?.rows_if_added(after)?;
    if waiting_changed {
        announce_full_members(env, admin.realm_id, &before, &after).await;
    }
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

/// Zulip's checks of the group settings asked for, read in one batch: each group they name
/// an active group of the organization, never `role:internet`, `role:everyone` only where
/// allowed; each user an active user; `old` the current value. Answers the new values.
async fn check_group_settings(db: &D1Database, admin: &UserRow, groups: &[GroupSetting]) -> ApiResult<Vec<GroupSettingValue>> {
    let realm_id = admin.realm_id;
    let ids: Vec<i64> = groups.iter().flat_map(|g| g.change.new.group_ids()).collect();
    let user_ids: Vec<i64> = groups.iter().flat_map(|g| g.change.new.user_ids().to_vec()).collect();
    let mut batch = Batch::new();
    let found = batch.add::<GroupNameRow>(crate::db::user_groups::active_names_stmt(realm_id, &ids)?);
    let users = batch.add::<UserRow>(crate::db::users::by_ids_stmt(realm_id, &serde_json::to_string(&user_ids)?)?);
    let current = batch.add::<RealmSettingsRow>(realm_settings::by_realm_id_stmt(realm_id)?);
    let system = batch.add::<SystemGroupRow>(subscriptions::system_groups_stmt(realm_id)?);
    let results = batch.run(db).await?;
    let (found, users) = (results.rows(found)?, results.rows(users)?);
    let current = results.first(current)?.ok_or_else(|| ApiError::bad_request("Invalid organization"))?;
    let current: Map<String, Value> = crate::domain::realm_settings::register_fields(&current);
    let nobody = results.rows(system)?.into_iter().find(|g| g.name == system_groups::NOBODY).map(|g| g.id).unwrap_or_default();
    let mut values = Vec::new();
    for setting in groups {
        let new = &setting.change.new;
        group_setting_values::check_value(setting.name, setting.allow_everyone, new, &found, &users)?;
        if let Some(now) = current.get(&format!("realm_{}", setting.name)) {
            setting.change.check_old(&GroupSettingValue::parse(setting.name, now)?)?;
        }
        values.push(new.clone().or_nobody(nobody));
    }
    Ok(values)
}

/// `user_group` `add_members` / `remove_members` of `role:fullmembers` for those who joined
/// or left it between `before` and `after`.
async fn announce_full_members(env: &Env, realm_id: i64, before: &[MemberRow], after: &[MemberRow]) {
    let Some(group_id) = before.iter().chain(after).map(|m| m.group_id).next() else { return };
    let ids = |rows: &[MemberRow]| -> Vec<i64> { rows.iter().map(|m| m.user_id).collect() };
    let (before, after) = (ids(before), ids(after));
    let added: Vec<i64> = after.iter().copied().filter(|id| !before.contains(id)).collect();
    let removed: Vec<i64> = before.iter().copied().filter(|id| !after.contains(id)).collect();
    if !added.is_empty() {
        crate::actions::notify_realm(env, realm_id, &Event::UserGroup(UserGroupEvent::AddMembers { group_id, user_ids: added })).await;
    }
    if !removed.is_empty() {
        let event = Event::UserGroup(UserGroupEvent::RemoveMembers { group_id, user_ids: removed });
        crate::actions::notify_realm(env, realm_id, &event).await;
    }
}

/// "Invalid channel ID" unless every channel of `ids` is one `admin` can read, not archived;
/// the moderation request channel (`private`) must be private too.
async fn check_announcement_channels(db: &D1Database, admin: &UserRow, ids: &[i64], private: Option<i64>) -> ApiResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let ids_json = serde_json::to_string(ids)?;
    let found: Vec<ChannelViewRow> =
        crate::db::all(db, subscriptions::by_ids_for_user_stmt(RealmId(admin.realm_id), UserId(admin.id), &ids_json)?).await?;
    let readable = |id: &i64| found.iter().any(|c| c.id == *id && c.is_archived == 0 && can_access_channel_content(admin, c));
    if !ids.iter().all(readable) {
        return Err(ApiError::invalid_channel_id());
    }
    if found.iter().any(|c| Some(c.id) == private && c.invite_only == 0) {
        return Err(crate::actions::channel_settings::moderation_channel_must_be_private());
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
    crate::db::run(db, realm_settings::update_user_settings_defaults_stmt(admin.realm_id, &Value::Object(json).to_string())?).await?;
    for (setting, value) in changes {
        let event = Event::RealmUserSettingsDefaults(UserSettingsEvent::Update { property: setting.name, value });
        crate::actions::notify_realm(env, admin.realm_id, &event).await;
    }
    Ok(())
}
