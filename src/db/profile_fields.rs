//! `custom_profile_fields` and `custom_profile_field_values`.

use serde::Deserialize;
use worker::{D1Database, Result};

use super::users::NamedUser;
use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct ProfileFieldRow {
    pub id: i64,
    pub realm_id: i64,
    pub name: String,
    pub hint: String,
    pub field_type: i64,
    pub field_data: String,
    pub sort_order: i64,
    pub display_in_profile_summary: i64,
    pub required: i64,
    pub editable_by_user: i64,
}

const COLUMNS: &str = "id, realm_id, name, hint, field_type, field_data, sort_order, display_in_profile_summary, \
    required, editable_by_user";

/// The organization's fields in display order.
pub fn in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM custom_profile_fields WHERE realm_id = ?1 ORDER BY sort_order, id"), realm_id)
}

pub async fn in_realm(db: &D1Database, realm_id: i64) -> Result<Vec<ProfileFieldRow>> {
    super::all(db, in_realm_stmt(realm_id)?).await
}

pub struct NewProfileField<'a> {
    pub realm_id: i64,
    pub name: &'a str,
    pub hint: &'a str,
    pub field_type: i64,
    pub field_data: &'a str,
    pub display_in_profile_summary: bool,
    pub required: bool,
    pub editable_by_user: bool,
}

/// The new field's id, from [`insert_stmt`].
#[derive(Debug, Deserialize)]
pub struct InsertedField {
    pub id: i64,
}

/// Puts each of the organization's fields at its index in `order` (field ids); a field
/// `order` does not name keeps its place.
pub fn reorder_stmt(realm_id: i64, order: &[i64]) -> Result<Statement> {
    statement!(
        "UPDATE custom_profile_fields SET sort_order = \
         COALESCE((SELECT MIN(o.key) FROM json_each(?2) o WHERE o.value = custom_profile_fields.id), sort_order) \
         WHERE realm_id = ?1",
        realm_id,
        serde_json::to_string(order)?
    )
}

/// Inserts a field last in the display order; answers its id ([`InsertedField`]).
pub fn insert_stmt(field: &NewProfileField<'_>) -> Result<Statement> {
    statement!(
        "INSERT INTO custom_profile_fields (realm_id, name, hint, field_type, field_data, sort_order, \
         display_in_profile_summary, required, editable_by_user) \
         VALUES (?1, ?2, ?3, ?4, ?5, (SELECT COALESCE(MAX(sort_order), 0) + 1 FROM custom_profile_fields WHERE realm_id = ?1), \
         ?6, ?7, ?8) RETURNING id",
        field.realm_id,
        field.name,
        field.hint,
        field.field_type,
        field.field_data,
        field.display_in_profile_summary as i64,
        field.required as i64,
        field.editable_by_user as i64
    )
}

#[derive(Debug, Clone, Deserialize)]
pub struct ProfileValueRow {
    pub user_id: i64,
    pub field_id: i64,
    pub value: String,
    pub rendered_value: Option<String>,
}

/// Profile values `v` of the organization `?1`'s fields `f`.
const VALUES: &str = "SELECT v.user_id, v.field_id, v.value, v.rendered_value FROM custom_profile_field_values v \
    JOIN custom_profile_fields f ON f.id = v.field_id AND f.realm_id = ?1";

/// The values held by the organization's users, or by one user (`user_id`).
pub fn values_stmt(realm_id: RealmId, user_id: Option<UserId>) -> Result<Statement> {
    statement!(&format!("{VALUES} WHERE ?2 IS NULL OR v.user_id = ?2 ORDER BY v.user_id, f.sort_order, f.id"), realm_id, user_id)
}

/// The values held by the user a path names.
pub fn values_of_named_stmt(realm_id: i64, who: NamedUser<'_>) -> Result<Statement> {
    super::users::about_named_stmt(realm_id, who, &format!("{VALUES} WHERE v.user_id = {{user_id}} ORDER BY f.sort_order, f.id"))
}

pub async fn values(db: &D1Database, realm_id: RealmId, user_id: Option<UserId>) -> Result<Vec<ProfileValueRow>> {
    super::all(db, values_stmt(realm_id, user_id)?).await
}

pub fn upsert_stmt(user_id: UserId, field_id: i64, value: &str, rendered: Option<&str>) -> Result<Statement> {
    statement!(
        "INSERT INTO custom_profile_field_values (user_id, field_id, value, rendered_value) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (user_id, field_id) DO UPDATE SET value = excluded.value, rendered_value = excluded.rendered_value",
        user_id,
        field_id,
        value,
        rendered
    )
}

pub fn delete_stmt(user_id: UserId, field_id: i64) -> Result<Statement> {
    statement!("DELETE FROM custom_profile_field_values WHERE user_id = ?1 AND field_id = ?2", user_id, field_id)
}
