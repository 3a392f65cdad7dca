//! Custom profile fields and the caller's own profile data.

use serde_json::{json, Value};

use crate::actions::profile_fields::{check_create_field, check_reorder_fields, check_update_profile_data, FieldSpec};
use crate::auth::Administrator;
use crate::context::RequestContext;
use crate::domain::profile_fields::{fields_of, SHORT_TEXT};
use crate::error::ApiResult;
use crate::response::Reply;

/// # `GET /realm/profile_fields`
/// Any user: the organization's fields in display order (`custom_fields`).
pub async fn get_profile_fields(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "custom_fields": fields_of(&ctx.db, me.realm_id).await? })))
}

/// # `POST /realm/profile_fields`
/// Administrators: `name`, `hint`, `field_type` (1-8, default 1), `field_data` (JSON
/// object: choices for type 3, `subtype`/`url_pattern` for type 7),
/// `display_in_profile_summary`, `required`, `editable_by_user` (default true). Answers `id`.
pub async fn create_profile_field(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let name = ctx.params.str("name")?.unwrap_or_default();
    let hint = ctx.params.str("hint")?.unwrap_or_default();
    let field_type = ctx.params.int("field_type")?.unwrap_or(SHORT_TEXT);
    let field_data = ctx.params.json("field_data")?.unwrap_or_else(|| json!({}));
    let spec = FieldSpec {
        name: &name,
        hint: &hint,
        field_type,
        field_data,
        display_in_profile_summary: ctx.params.bool_or("display_in_profile_summary", false)?,
        required: ctx.params.bool_or("required", false)?,
        editable_by_user: ctx.params.bool_or("editable_by_user", true)?,
    };
    let id = check_create_field(&ctx.db, &ctx.env, admin.realm_id, &spec).await?;
    Ok(Reply::json(json!({ "id": id })))
}

/// # `PATCH /realm/profile_fields`
/// Administrators: `order`, a JSON list of field ids naming every field of the
/// organization, in the new display order ("Invalid order mapping." otherwise).
pub async fn reorder_profile_fields(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let order: Vec<i64> = ctx.params.required_json_as("order", "a list")?;
    check_reorder_fields(&ctx.db, &ctx.env, admin.realm_id, &order).await?;
    Ok(Reply::ok())
}

/// # `PATCH /users/me/profile_data`
/// Any user: `data`, a JSON list of `{id, value}`; the value must fit the field type;
/// null (or "") removes it. Unknown field or a field users may not edit: `BAD_REQUEST`.
pub async fn update_own_profile_data(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let data: Vec<Value> = ctx.params.required_json_as("data", "a list")?;
    check_update_profile_data(&ctx.db, &ctx.env, &me, &me, &data).await?;
    Ok(Reply::ok())
}
