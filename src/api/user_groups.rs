//! User groups: listing, creation, members, subgroups and membership questions.

use serde_json::json;

use crate::actions::user_groups::{
    check_create_group, check_deactivate_group, check_update_group, check_update_members, check_update_subgroups, GroupUpdate, NewGroup,
};
use crate::auth::Member;
use crate::context::RequestContext;
use crate::domain::user_groups::{group_members, group_subgroups, groups_of, is_group_member, PERMISSIONS};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{GroupId, RealmId, UserId};
use crate::params::parse_int;
use crate::response::Reply;

fn parse_id(raw: &str, what: &str) -> ApiResult<i64> {
    parse_int(raw).ok_or_else(|| ApiError::invalid_argument(what, "an integer"))
}

/// # `GET /user_groups`
/// Members and above (bots included): every group of the organization, system groups
/// included (deactivated ones only with `include_deactivated_groups`), with direct
/// `members`, `direct_subgroup_ids` and the permission settings. One D1 round trip.
pub async fn get_user_groups(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user_as::<Member>().await?;
    let include_deactivated = ctx.params.bool_or("include_deactivated_groups", false)?;
    Ok(Reply::json(json!({ "user_groups": groups_of(&ctx.db, me.realm_id, include_deactivated).await? })))
}

/// # `POST /user_groups/create`
/// Members and above: `name`, `description`, `members` (JSON list of user ids),
/// `subgroups` (JSON list of group ids), and any of the permission settings
/// (`can_manage_group`, `can_mention_group`, …: a group id) checked as `PATCH` checks them.
/// Answers `group_id`.
pub async fn create_user_group(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let name = ctx.params.required_str("name")?;
    let description = ctx.params.required_str("description")?;
    let members: Vec<i64> = ctx.params.json_as("members", "a list")?.unwrap_or_default();
    let subgroups: Vec<i64> = ctx.params.json_as("subgroups", "a list")?.unwrap_or_default();
    let mut permissions = Vec::new();
    for setting in &PERMISSIONS {
        if let Some(raw) = ctx.params.json(setting.name)? {
            permissions.push((setting, raw));
        }
    }
    let group = NewGroup { name: &name, description: &description, members: &members, subgroups: &subgroups, permissions: &permissions };
    let group_id = check_create_group(&ctx.db, &ctx.env, &me, &group).await?;
    Ok(Reply::json(json!({ "group_id": group_id })))
}

/// # `PATCH /user_groups/{user_group_id}`
/// The group's `name`, `description`, `deactivated: false` (reactivation) and permission
/// settings (`can_*_group`, `{"new": id, "old": value}` or a bare id); "No new data
/// supplied" without any. System groups are not editable; the caller must manage the group
/// (an administrator or in its `can_manage_group`). Everyone gets `user_group` `update` for
/// each changed field.
pub async fn update_user_group(ctx: &RequestContext, group_id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let group_id = parse_id(group_id, "user_group_id")?;
    let mut update = GroupUpdate {
        name: ctx.params.str("name")?,
        description: ctx.params.str("description")?,
        deactivated: ctx.params.bool("deactivated")?,
        permissions: Vec::new(),
    };
    for setting in &PERMISSIONS {
        if let Some(raw) = ctx.params.json(setting.name)? {
            update.permissions.push((setting, raw));
        }
    }
    check_update_group(&ctx.db, &ctx.env, &me, group_id, update).await?;
    Ok(Reply::ok())
}

/// # `POST /user_groups/{user_group_id}/deactivate`
/// Whoever manages the group; system groups never. A group still named by a setting of the
/// organization, a channel or an active group, or a subgroup of an active group, is refused
/// with `CANNOT_DEACTIVATE_GROUP_IN_USE` and the `objections`.
pub async fn deactivate_user_group(ctx: &RequestContext, group_id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let group_id = parse_id(group_id, "user_group_id")?;
    check_deactivate_group(&ctx.db, &ctx.env, &me, group_id).await?;
    Ok(Reply::ok())
}

/// # `POST /user_groups/{user_group_id}/members`
/// `add` / `delete`: JSON lists of user ids (at least one non-empty). System groups are
/// not editable; the caller must manage the group, or hold `can_add_members_group` /
/// `can_remove_members_group` (for themselves alone: `can_join_group` / `can_leave_group`).
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
    let members = group_members(&ctx.db, RealmId(me.realm_id), GroupId(group_id), direct_only).await?;
    Ok(Reply::json(json!({ "members": members })))
}

/// # `GET /user_groups/{user_group_id}/subgroups`
/// The group's subgroups, recursively unless `direct_subgroup_only=true`.
pub async fn get_subgroups(ctx: &RequestContext, group_id: &str) -> ApiResult<Reply> {
    let me = ctx.user_as::<Member>().await?;
    let group_id = parse_id(group_id, "user_group_id")?;
    let direct_only = ctx.params.bool_or("direct_subgroup_only", false)?;
    let subgroups = group_subgroups(&ctx.db, RealmId(me.realm_id), GroupId(group_id), direct_only).await?;
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
    let is_member = is_group_member(&ctx.db, RealmId(me.realm_id), GroupId(group_id), UserId(user_id), direct_only).await?;
    Ok(Reply::json(json!({ "is_user_group_member": is_member })))
}
