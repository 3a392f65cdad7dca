//! User groups: listing, creation, members, subgroups and membership questions.

use serde_json::json;

use crate::actions::user_groups::{check_create_group, check_update_group, check_update_members, check_update_subgroups, NewGroup};
use crate::auth::Member;
use crate::context::RequestContext;
use crate::domain::ids::UserId;
use crate::domain::user_groups::{group_members, group_subgroups, groups_of, is_group_member};
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int;
use crate::response::Reply;

fn parse_id(raw: &str, what: &str) -> ApiResult<i64> {
    parse_int(raw).ok_or_else(|| ApiError::invalid_argument(what, "an integer"))
}

/// # `GET /user_groups`
/// Members and above (bots included): every group of the organization, system groups
/// included, with direct `members` and `direct_subgroup_ids`. One D1 round trip.
pub async fn get_user_groups(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user_as::<Member>().await?;
    ctx.params.accept("include_deactivated_groups");
    Ok(Reply::json(json!({ "user_groups": groups_of(&ctx.db, me.realm_id).await? })))
}

/// # `POST /user_groups/create`
/// Members and above: `name`, `description`, `members` (JSON list of user ids),
/// `subgroups` (JSON list of group ids). Answers `group_id`.
pub async fn create_user_group(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let name = ctx.params.required_str("name")?;
    let description = ctx.params.required_str("description")?;
    let members: Vec<i64> = ctx.params.json_as("members", "a list")?.unwrap_or_default();
    let subgroups: Vec<i64> = ctx.params.json_as("subgroups", "a list")?.unwrap_or_default();
    let group = NewGroup { name: &name, description: &description, members: &members, subgroups: &subgroups };
    let group_id = check_create_group(&ctx.db, &ctx.env, &me, &group).await?;
    Ok(Reply::json(json!({ "group_id": group_id })))
}

/// # `PATCH /user_groups/{user_group_id}`
/// The group's `name` and/or `description` ("No new data supplied" without either). System
/// and deactivated groups are not editable; the caller must be an administrator, the
/// creator or a member. Everyone gets `user_group` `update` for each changed field.
pub async fn update_user_group(ctx: &RequestContext, group_id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let group_id = parse_id(group_id, "user_group_id")?;
    let name = ctx.params.str("name")?;
    let description = ctx.params.str("description")?;
    check_update_group(&ctx.db, &ctx.env, &me, group_id, name.as_deref(), description.as_deref()).await?;
    Ok(Reply::ok())
}

/// # `POST /user_groups/{user_group_id}/members`
/// `add` / `delete`: JSON lists of user ids (at least one non-empty). System groups are
/// not editable; the caller must be an administrator, the creator or a member.
pub async fn update_members(ctx: &RequestContext, group_id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let group_id = parse_id(group_id, "user_group_id")?;
    let add: Vec<UserId> = ctx.params.json_as("add", "a list")?.unwrap_or_default();
    let delete: Vec<UserId> = ctx.params.json_as("delete", "a list")?.unwrap_or_default();
    check_update_members(&ctx.db, &ctx.env, &me, group_id, &add, &delete).await?;
    Ok(Reply::ok())
}

/// # `POST /user_groups/{user_group_id}/subgroups`
/// `add` / `delete`: JSON lists of group ids; an addition that would make a cycle is refused.
pub async fn update_subgroups(ctx: &RequestContext, group_id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let group_id = parse_id(group_id, "user_group_id")?;
    let add: Vec<i64> = ctx.params.json_as("add", "a list")?.unwrap_or_default();
    let delete: Vec<i64> = ctx.params.json_as("delete", "a list")?.unwrap_or_default();
    check_update_subgroups(&ctx.db, &ctx.env, &me, group_id, &add, &delete).await?;
    Ok(Reply::ok())
}

/// # `GET /user_groups/{user_group_id}/members`
/// The group's active members, through subgroups unless `direct_member_only=true`.
pub async fn get_members(ctx: &RequestContext, group_id: &str) -> ApiResult<Reply> {
    let me = ctx.user_as::<Member>().await?;
    let group_id = parse_id(group_id, "user_group_id")?;
    let direct_only = ctx.params.bool_or("direct_member_only", false)?;
    let members = group_members(&ctx.db, me.realm_id, group_id, direct_only).await?;
    Ok(Reply::json(json!({ "members": members })))
}

/// # `GET /user_groups/{user_group_id}/subgroups`
/// The group's subgroups, recursively unless `direct_subgroup_only=true`.
pub async fn get_subgroups(ctx: &RequestContext, group_id: &str) -> ApiResult<Reply> {
    let me = ctx.user_as::<Member>().await?;
    let group_id = parse_id(group_id, "user_group_id")?;
    let direct_only = ctx.params.bool_or("direct_subgroup_only", false)?;
    let subgroups = group_subgroups(&ctx.db, me.realm_id, group_id, direct_only).await?;
    Ok(Reply::json(json!({ "subgroups": subgroups })))
}

/// # `GET /user_groups/{user_group_id}/members/{user_id}`
/// `is_user_group_member`: through subgroups at any depth unless `direct_member_only=true`.
/// Bots may be asked about and may ask; a deactivated user is never a member; an unknown
/// group ("Invalid user group") or user ("No such user") is `BAD_REQUEST`.
pub async fn get_is_member(ctx: &RequestContext, group_id: &str, user_id: &str) -> ApiResult<Reply> {
    let me = ctx.user_as::<Member>().await?;
    let group_id = parse_id(group_id, "user_group_id")?;
    let user_id = parse_id(user_id, "user_id")?;
    let direct_only = ctx.params.bool_or("direct_member_only", false)?;
    let is_member = is_group_member(&ctx.db, me.realm_id, group_id, user_id, direct_only).await?;
    Ok(Reply::json(json!({ "is_user_group_member": is_member })))
}
