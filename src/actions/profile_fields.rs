//! Custom profile fields of an organization and their values for each user.

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::db::batch::Batch;
use crate::db::profile_fields::{self, InsertedField, NewProfileField, ProfileFieldRow};
use crate::db::statement::Statement;
use crate::db::users::{self, UserRow};
use crate::domain::profile_fields::{
    check_field_data, check_order, check_value, field_dict, FIELD_TYPES, HINT_MAX_LENGTH, NAME_MAX_LENGTH,
};
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, RealmUserEvent};
use crate::model::ids::UserId;

pub struct FieldSpec<'a> {
    pub name: &'a str,
    pub hint: &'a str,
    pub field_type: i64,
    pub field_data: Value,
    pub display_in_profile_summary: bool,
    pub required: bool,
    pub editable_by_user: bool,
}

/// `POST /realm/profile_fields` (administrators): checks and creates a field, then sends
/// everyone the organization's fields (`custom_profile_fields` event).
pub async fn check_create_field(db: &D1Database, env: &Env, realm_id: i64, spec: &FieldSpec<'_>) -> ApiResult<i64> {
    let name = spec.name.trim();
    if name.is_empty() {
        return Err(ApiError::bad_request("Label cannot be blank."));
    }
    if name.chars().count() > NAME_MAX_LENGTH {
        return Err(ApiError::too_long("name", NAME_MAX_LENGTH as i64));
    }
    if spec.hint.chars().count() > HINT_MAX_LENGTH {
        return Err(ApiError::too_long("hint", HINT_MAX_LENGTH as i64));
    }
    if !FIELD_TYPES.contains(&spec.field_type) {
        return Err(ApiError::bad_request("Invalid field type."));
    }
    let field_data = check_field_data(spec.field_type, &spec.field_data)?;
    let existing = profile_fields::in_realm(db, realm_id).await?;
    if existing.iter().any(|f| f.name.eq_ignore_ascii_case(name)) {
        return Err(ApiError::bad_request("A field with that label already exists."));
    }
    let new_field = NewProfileField {
        realm_id,
        name,
        hint: spec.hint,
        field_type: spec.field_type,
        field_data: &field_data,
        display_in_profile_summary: spec.display_in_profile_summary,
        required: spec.required,
        editable_by_user: spec.editable_by_user,
    };
    // The organization's fields read after the insert, in its transaction: the event's list.
    let mut batch = Batch::new();
    let inserted = batch.add::<InsertedField>(profile_fields::insert_stmt(&new_field)?);
    let all = batch.add::<ProfileFieldRow>(profile_fields::in_realm_stmt(realm_id)?);
    let results = batch.run(db).await.map_err(|err| {
        if err.to_string().contains("UNIQUE") {
            ApiError::bad_request("A field with that label already exists.")
        } else {
            ApiError::from(err)
        }
    })?;
    let id = results
        .first(inserted)?
        .map(|f| f.id)
        .ok_or_else(|| ApiError::from(worker::Error::RustError("profile field insert returned no id".into())))?;
    let fields: Vec<Value> = results.rows(all)?.iter().map(field_dict).collect();
    let event = Event::CustomProfileFields { fields };
    crate::actions::notify_realm(env, realm_id, &event).await;
    Ok(id)
}

/// `PATCH /realm/profile_fields` (administrators): every field takes its place in `order`,
/// as Zulip's `try_reorder_realm_custom_profile_fields` does; then everyone gets the
/// organization's fields (`custom_profile_fields` event).
pub async fn check_reorder_fields(db: &D1Database, env: &Env, realm_id: i64, order: &[i64]) -> ApiResult<()> {
    let existing = profile_fields::in_realm(db, realm_id).await?;
    check_order(&existing, order)?;
    let mut batch = Batch::new();
    batch.add::<Value>(profile_fields::reorder_stmt(realm_id, order)?);
    let all = batch.add::<ProfileFieldRow>(profile_fields::in_realm_stmt(realm_id)?);
    let results = batch.run(db).await?;
    let fields: Vec<Value> = results.rows(all)?.iter().map(field_dict).collect();
    crate::actions::notify_realm(env, realm_id, &Event::CustomProfileFields { fields }).await;
    Ok(())
}

/// One requested change: the field and its new value (`None`: remove the value).
pub struct ProfileChange {
    field_id: i64,
    value: Option<crate::domain::profile_fields::CheckedValue>,
}

/// `PATCH /users/me/profile_data` (and an administrator's `profile_data` for another user):
/// every entry is checked before anything is written; the writes are one batch; then one
/// `realm_user` update event per changed field.
pub async fn check_update_profile_data(db: &D1Database, env: &Env, acting: &UserRow, target: &UserRow, data: &[Value]) -> ApiResult<()> {
    let changes = check_profile_data(db, acting, target, data).await?;
    do_update_profile_data(db, env, target, &changes).await
}

/// Checks `data` (a list of `{id, value}`) without writing: unknown fields, fields users
/// may not edit, values that do not fit the field type, unknown users.
pub async fn check_profile_data(db: &D1Database, acting: &UserRow, target: &UserRow, data: &[Value]) -> ApiResult<Vec<ProfileChange>> {
    // Which values are user ids depends on the field's type; the users any value could
    // name are read with the fields, in one round trip.
    let mut batch = Batch::new();
    let fields = batch.add::<ProfileFieldRow>(profile_fields::in_realm_stmt(target.realm_id)?);
    let candidates: Vec<i64> = data.iter().filter_map(|e| e.get("value")?.as_array()).flatten().filter_map(Value::as_i64).collect();
    let named = (!candidates.is_empty())
        .then(|| users::by_ids_stmt(target.realm_id, &Value::from(candidates).to_string()))
        .transpose()?
        .map(|stmt| batch.add::<UserRow>(stmt));
    let results = batch.run(db).await?;
    let fields = results.rows(fields)?;
    let found = results.rows_if_added(named)?;
    let mut changes: Vec<ProfileChange> = Vec::new();
    let mut user_ids: Vec<i64> = Vec::new();
    for entry in data {
        let id =
            entry.get("id").and_then(Value::as_i64).ok_or_else(|| ApiError::invalid_argument("data", "a list of {id, value} objects"))?;
        let value = entry.get("value").ok_or_else(|| ApiError::invalid_argument("data", "a list of {id, value} objects"))?;
        let field = fields.iter().find(|f| f.id == id).ok_or_else(|| ApiError::bad_request(format!("Field id {id} not found.")))?;
        if field.editable_by_user == 0 && !acting.is_realm_admin() {
            return Err(ApiError::bad_request("You are not allowed to change this field. Contact an administrator to update it."));
        }
        // Like Zulip, null and the empty string remove the value.
        let removes = value.is_null() || value.as_str() == Some("") || value.as_array().is_some_and(Vec::is_empty);
        let checked = if removes { None } else { Some(check_value(field, value)?) };
        if let Some(c) = &checked {
            user_ids.extend(&c.user_ids);
        }
        changes.retain(|c| c.field_id != id);
        changes.push(ProfileChange { field_id: id, value: checked });
    }
    if let Some(missing) = user_ids.iter().find(|id| !found.iter().any(|u| u.id == **id && u.is_active())) {
        return Err(ApiError::bad_request(format!("Invalid user ID: {missing}")));
    }
    Ok(changes)
}

/// Writes checked changes in one batch, then one `realm_user` update event per field.
pub async fn do_update_profile_data(db: &D1Database, env: &Env, target: &UserRow, changes: &[ProfileChange]) -> ApiResult<()> {
    if changes.is_empty() {
        return Ok(());
    }
    crate::db::run_batch(db, profile_data_stmts(target, changes)?).await?;
    notify_profile_data(env, target, changes).await;
    Ok(())
}

/// The statements writing checked changes.
pub fn profile_data_stmts(target: &UserRow, changes: &[ProfileChange]) -> ApiResult<Vec<Statement>> {
    let mut stmts = Vec::new();
    for change in changes {
        stmts.push(match &change.value {
            Some(v) => profile_fields::upsert_stmt(UserId(target.id), change.field_id, &v.value, v.rendered_value.as_deref())?,
            None => profile_fields::delete_stmt(UserId(target.id), change.field_id)?,
        });
    }
    Ok(stmts)
}

/// One `realm_user` update event per written field.
pub async fn notify_profile_data(env: &Env, target: &UserRow, changes: &[ProfileChange]) {
    for change in changes {
        let mut field = json!({ "id": change.field_id, "value": change.value.as_ref().map(|v| v.value.clone()) });
        if let Some(rendered) = change.value.as_ref().and_then(|v| v.rendered_value.clone()) {
            field["rendered_value"] = json!(rendered);
        }
        let event = Event::RealmUser(RealmUserEvent::Update { person: json!({ "user_id": target.id, "custom_profile_field": field }) });
        crate::actions::notify_realm(env, target.realm_id, &event).await;
    }
}
