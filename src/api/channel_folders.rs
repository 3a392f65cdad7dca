//! Channel folders: organization-wide; administrators create, update and reorder them.

use serde_json::json;

use crate::actions::channel_folders::{do_create_channel_folder, do_reorder_channel_folders, do_update_channel_folder, FolderChanges};
use crate::auth::Administrator;
use crate::context::RequestContext;
use crate::domain::channel_folders::{folders_of, invalid_folder_id};
use crate::error::ApiResult;
use crate::params::parse_int;
use crate::response::Reply;

/// # `POST /channel_folders/create`
/// Administrators. Answers `channel_folder_id`; emits `channel_folder` (`add`).
/// - `name` required: non-blank, printable, at most `max_channel_folder_name_length`,
///   unique in the organization (case-insensitive);
/// - `description` required (may be empty), at most `max_channel_folder_description_length`.
pub async fn create_channel_folder(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let name = ctx.params.required_str("name")?;
    let description = ctx.params.required_str("description")?;
    let id = do_create_channel_folder(&ctx.db, &ctx.env, &admin, &name, &description).await?;
    Ok(Reply::json(json!({ "channel_folder_id": id })))
}

/// # `GET /channel_folders`
/// Any user: the folders in display order (`channel_folders`); archived ones only with
/// `include_archived=true`.
pub async fn get_channel_folders(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let include_archived = ctx.params.bool_or("include_archived", false)?;
    Ok(Reply::json(json!({ "channel_folders": folders_of(&ctx.db, me.realm_id, include_archived).await? })))
}

/// # `PATCH /channel_folders`
/// Administrators: `order`, a JSON list of every folder id of the organization, sets the
/// display order; emits `channel_folder` (`reorder`).
pub async fn reorder_channel_folders(ctx: &RequestContext) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let order: Vec<i64> = ctx.params.required_json_as("order", "a list")?;
    do_reorder_channel_folders(&ctx.db, &ctx.env, &admin, &order).await?;
    Ok(Reply::ok())
}

/// # `PATCH /channel_folders/{channel_folder_id}`
/// Administrators: `name`, `description` (same rules as creation), `is_archived` (a
/// folder holding channels cannot be archived). Unknown id: `Invalid channel folder ID`.
/// Emits one `channel_folder` `update` per changed property.
pub async fn update_channel_folder(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let admin = ctx.user_as::<Administrator>().await?;
    let id = parse_int(id).ok_or_else(invalid_folder_id)?;
    let changes = FolderChanges {
        name: ctx.params.str("name")?,
        description: ctx.params.str("description")?,
        is_archived: ctx.params.bool("is_archived")?,
    };
    do_update_channel_folder(&ctx.db, &ctx.env, &admin, id, &changes).await?;
    Ok(Reply::ok())
}
