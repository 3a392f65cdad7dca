//! Channels and subscriptions.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::actions::channel_settings::{self, ChannelChanges};
use crate::actions::channels::{self as actions, Principal, SubscribeRequest};
use crate::api::params::include_subscribers;
use crate::context::RequestContext;
use crate::domain::channel_permissions::{self, ChannelGroupSetting};
use crate::domain::channels::{
    access_channel_content, channel_id_by_name, channel_subscribers, parse_channel_id, stream_of, streams_of, subscriptions_of,
    ChannelTopics, StreamsQuery,
};
use crate::domain::group_setting_values::{GroupChange, GroupSettingValue};
use crate::error::{ApiError, ApiResult};
use crate::model::TopicsPolicy;
use crate::response::Reply;

#[derive(Deserialize)]
struct SubscriptionRequest {
    name: String,
    #[serde(default)]
    description: Option<String>,
}

/// # `POST /users/me/subscriptions`
/// Any user (guests only themselves, to channels they can access): subscribes the caller or
/// `principals` to `subscriptions` (`[{"name", "description"?}]`), creating missing
/// channels (`invite_only`, `history_public_to_subscribers`; not guests).
/// - A private channel the caller cannot access: `BAD_REQUEST` "Unable to access channel
///   (name)." unless `authorization_errors_fatal` is false (then listed in `unauthorized`).
pub async fn subscribe(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let requests: Vec<SubscriptionRequest> = ctx.params.required_json_as("subscriptions", "a list of objects with a name")?;
    let principals: Option<Vec<Principal>> = ctx.params.json_as("principals", "a list of user ids or emails")?;
    let channels = requests.into_iter().map(|r| (r.name, r.description.unwrap_or_default())).collect();
    let req = SubscribeRequest {
        authorization_errors_fatal: ctx.params.bool_or("authorization_errors_fatal", true)?,
        ..creation_settings(ctx, SubscribeRequest::new(channels, principals))?
    };
    let tell_subscribers = ctx.params.bool_or("send_new_subscription_messages", true)?;
    let body = actions::subscribe(ctx, &me, &req, tell_subscribers).await?;
    Ok(Reply::json(body))
}

/// A channel's `topics_policy`: `inherit`, `allow_empty_topic`, `disable_empty_topic` or
/// `empty_topic_only`.
fn topics_policy(ctx: &RequestContext) -> ApiResult<Option<TopicsPolicy>> {
    let Some(raw) = ctx.params.str("topics_policy")? else { return Ok(None) };
    TopicsPolicy::from_code(raw.trim_matches('"')).map(Some).ok_or_else(|| ApiError::bad_request("Invalid topics_policy"))
}

/// The creation parameters of `POST /channels/create` and of the subscribe-to-create path,
/// over `base`.
fn creation_settings(ctx: &RequestContext, base: SubscribeRequest) -> ApiResult<SubscribeRequest> {
    let message_retention_days = ctx.params.str("message_retention_days")?.map(|raw| raw.trim_matches('"').to_string());
    Ok(SubscribeRequest {
        invite_only: ctx.params.bool_or("invite_only", false)?,
        history_public_to_subscribers: ctx.params.bool("history_public_to_subscribers")?,
        folder_id: ctx.params.int("folder_id")?,
        groups: creation_group_settings(ctx)?,
        is_web_public: ctx.params.bool_or("is_web_public", false)?,
        message_retention_days,
        announce: ctx.params.bool_or("announce", false)?,
        is_default_stream: ctx.params.bool_or("is_default_stream", false)?,
        topics_policy: topics_policy(ctx)?.unwrap_or(TopicsPolicy::Inherit),
        ..base
    })
}

/// # `POST /channels/create`
/// Creates the channel `name` (`description`, and the creation parameters of
/// `POST /users/me/subscriptions`: privacy, history, folder, retention, the permission
/// groups) and subscribes `subscribers` (user ids, perhaps none; not the caller unless
/// listed). Answers `{"id": …}`; a name the organization has: 409
/// `CHANNEL_ALREADY_EXISTS`. Guests may not create channels.
pub async fn create_channel(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let name = ctx.params.required_str("name")?;
    let description = ctx.params.str("description")?.unwrap_or_default();
    let subscribers: Vec<i64> = ctx.params.required_json_as("subscribers", "a list of user ids")?;
    let principals = subscribers.into_iter().map(Principal::Id).collect();
    let req = SubscribeRequest {
        create_only: true,
        ..creation_settings(ctx, SubscribeRequest::new(vec![(name, description)], Some(principals)))?
    };
    let id = actions::create_channel(ctx, &me, &req).await?;
    Ok(Reply::json(json!({ "id": id })))
}

/// # `DELETE /users/me/subscriptions`
/// Any user for itself; administrators for `principals`. `subscriptions` is a JSON list of
/// channel names; answers `removed` and `not_removed`.
pub async fn unsubscribe(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let names: Vec<String> = ctx.params.required_json_as("subscriptions", "a list of channel names")?;
    let principals: Option<Vec<Principal>> = ctx.params.json_as("principals", "a list of user ids or emails")?;
    let body = actions::check_unsubscribe(&ctx.db, &ctx.env, &me, &names, principals.as_deref()).await?;
    Ok(Reply::json(body))
}

/// # `PATCH /users/me/subscriptions`
/// Any user: subscribes the caller to `add` (`[{"name", "description"?, "color"?}]`, creating
/// missing channels as `POST /users/me/subscriptions` does) and unsubscribes them from
/// `delete` (channel names). Neither: `BAD_REQUEST` "Nothing to do. Specify at least one
/// of "add" or "delete"."; a channel to leave that does not exist: "Channel(s) (name) do
/// not exist", with nothing added.
pub async fn update_subscriptions(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let add: Vec<SubscriptionRequest> = ctx.params.json_as("add", "a list of objects with a name")?.unwrap_or_default();
    let delete: Vec<String> = ctx.params.json_as("delete", "a list of channel names")?.unwrap_or_default();
    let add = add.into_iter().map(|r| (r.name, r.description.unwrap_or_default())).collect();
    Ok(Reply::json(actions::update_subscriptions(ctx, &me, add, &delete).await?))
}

/// # `GET /users/me/subscriptions`
/// Any user: the caller's subscriptions; `include_subscribers` adds `subscribers`.
pub async fn get_subscriptions(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let include_subscribers = include_subscribers(&ctx.params, "a boolean")?;
    Ok(Reply::json(json!({ "subscriptions": subscriptions_of(&ctx.db, &me, include_subscribers).await? })))
}

/// # `GET /streams`
/// Any user: channels the caller can see, by `include_public` (default true),
/// `include_subscribed` (default true), `include_all` / `include_all_active` (administrators:
/// every channel), `exclude_archived` (default true), `include_default` (the default
/// channels too, each channel with `is_default`), `include_can_access_content` (every
/// channel the caller may read or join, private ones through their groups included).
pub async fn get_streams(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let include_public = ctx.params.bool_or("include_public", true)?;
    let include_subscribed = ctx.params.bool_or("include_subscribed", true)?;
    let include_web_public = ctx.params.bool_or("include_web_public", false)?;
    let include_all = ctx.params.bool_or("include_all", false)? || ctx.params.bool_or("include_all_active", false)?;
    let exclude_archived = ctx.params.bool_or("exclude_archived", true)?;
    let include_subscribers = ctx.params.bool_or("include_subscribers", false)?;
    let include_default = ctx.params.bool_or("include_default", false)?;
    ctx.params.accept("include_owner_subscribed");
    let include_can_access_content = ctx.params.bool_or("include_can_access_content", false)?;
    if include_all && !me.is_realm_admin() {
        return Err(ApiError::bad_request("User not authorized for this query"));
    }
    let query = StreamsQuery {
        include_public,
        include_subscribed,
        include_web_public,
        include_all,
        exclude_archived,
        include_subscribers,
        include_default,
        include_can_access_content,
    };
    Ok(Reply::json(json!({ "streams": streams_of(&ctx.db, &me, &query).await? })))
}

/// # `GET /streams/{stream_id}`
/// Any user who can see the channel; otherwise "Invalid channel ID".
pub async fn get_stream(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "stream": stream_of(&ctx.db, &me, id).await? })))
}

/// # `PATCH /streams/{stream_id}`
/// Administrators and the channel's `can_administer_channel_group`, for a channel they can
/// see (others: "You do not have permission to administer this channel."; an unknown or invisible channel: "Invalid channel ID"). Every
/// check runs before anything changes. Each change sends `stream` `update` to everyone who
/// can see the channel and (but the folder) a notification-bot message in its "channel
/// events" topic.
/// - `new_name`: Zulip's name rules; "Channel already has that name." / "Channel name
///   already in use." (a change of case alone is allowed).
/// - `description`: at most 1024 characters, newlines become spaces; the event carries
///   `rendered_description`.
/// - `is_private`, `history_public_to_subscribers`, `is_web_public`: Zulip's combinations
///   ("Invalid parameters"); changing privacy needs content access; web-public channels are
///   not enabled on this server. Made public: `stream` `create` and `peer_add` to those who
///   could not see it.
/// - `message_retention_days`: owners only; days, `unlimited` or `realm_default`; older
///   messages are deleted from then on (`actions::message_retention`), and the
///   notification bot tells the channel.
/// - `topics_policy`: whether messages may go to the empty topic here (`inherit`: the
///   organization's rule); a `stream` `update` event, no notice.
/// - `is_archived`: false unarchives an archived channel.
/// - `folder_id`: a folder of the organization ("Invalid channel folder ID"), or `null`.
/// - The permission groups (`domain::channel_permissions::STORED`: `can_send_message_group`,
///   `can_administer_channel_group`, `can_add_subscribers_group`, …): `{"new": …, "old": …}`
///   (or the bare new value), a user group of the organization; the deletion groups only
///   by moderators and up ("Insufficient permission"); the event's `value` is the group
///   id; no notice.
pub async fn update_stream(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let folder_id = match ctx.params.json("folder_id")? {
        None => None,
        Some(Value::Null) => Some(None),
        Some(value) => Some(Some(value.as_i64().ok_or_else(|| ApiError::invalid_argument("folder_id", "an integer or null"))?)),
    };
    let message_retention_days = ctx.params.str("message_retention_days")?.map(|raw| raw.trim_matches('"').to_string());
    let changes = ChannelChanges {
        new_name: ctx.params.str("new_name")?,
        description: ctx.params.str("description")?,
        is_private: ctx.params.bool("is_private")?,
        history_public_to_subscribers: ctx.params.bool("history_public_to_subscribers")?,
        is_web_public: ctx.params.bool("is_web_public")?,
        message_retention_days,
        is_archived: ctx.params.bool("is_archived")?,
        folder_id,
        groups: group_setting_changes(ctx)?,
        topics_policy: topics_policy(ctx)?,
    };
    channel_settings::check_update_channel(ctx, &me, id, &changes).await?;
    Ok(Reply::ok())
}

/// The permission settings of the channels a subscription request creates.
fn creation_group_settings(ctx: &RequestContext) -> ApiResult<Vec<(&'static ChannelGroupSetting, GroupSettingValue)>> {
    let mut settings = Vec::new();
    for setting in channel_permissions::STORED {
        if let Some(raw) = ctx.params.json(setting.name)? {
            settings.push((setting, GroupSettingValue::parse(setting.name, &raw)?));
        }
    }
    Ok(settings)
}

/// The permission settings a request changes, by name.
fn group_setting_changes(ctx: &RequestContext) -> ApiResult<Vec<(&'static ChannelGroupSetting, GroupChange)>> {
    let mut changes = Vec::new();
    for setting in channel_permissions::STORED {
        if let Some(raw) = ctx.params.json(setting.name)? {
            changes.push((setting, GroupChange::parse(setting.name, &raw)?));
        }
    }
    Ok(changes)
}

/// # `DELETE /streams/{stream_id}`
/// Administrators and the channel's `can_administer_channel_group`: archives the channel ("Channel is already deactivated" if it is).
/// Clients with the `archived_channels` capability hear `stream` `update` (`is_archived`),
/// others `stream` `delete`; the notification bot posts "Channel <name> has been archived."
pub async fn archive_stream(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    channel_settings::check_archive_channel(ctx, &me, id).await?;
    Ok(Reply::ok())
}

/// # `POST /streams/{stream_id}/delete_topic`
/// Administrators ("Must be an organization administrator" otherwise), in a channel whose
/// content they can access: deletes the messages of `topic_name` they can see, newest
/// first, a batch per request; `complete` is false while some remain (repeat the request).
pub async fn delete_topic(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let topic = ctx.params.required_str("topic_name")?;
    let complete = channel_settings::check_delete_topic(ctx, &me, id, &topic).await?;
    Ok(Reply::json(json!({ "complete": complete })))
}

/// # `GET /streams/{stream_id}/email_address`
/// This server has no email gateway, so a channel has no address to send to: an error,
/// after the channel's access check ("Invalid channel ID").
pub async fn get_stream_email_address(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    ctx.params.accept("sender_id");
    access_channel_content(&ctx.db, &me, id).await?;
    Err(ApiError::bad_request("This server has no email gateway: channels have no email address."))
}

/// # `GET /get_stream_id`
/// Any user: the id of the channel named `stream`; "Invalid channel name '<name>'" when
/// there is none the caller can see.
pub async fn get_stream_id(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let name = ctx.params.required_str("stream")?;
    Ok(Reply::json(json!({ "stream_id": channel_id_by_name(&ctx.db, &me, &name).await? })))
}

/// # `GET /streams/{stream_id}/members`
/// Any user who can see the channel: ids of its active subscribers.
pub async fn get_stream_members(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    Ok(Reply::json(json!({ "subscribers": channel_subscribers(&ctx.db, &me, id).await? })))
}

/// # `GET /users/{user_id}/subscriptions/{stream_id}`
/// Any user who may see the channel's subscribers: `is_subscribed` of an active person of
/// the organization.
pub async fn get_subscription_status(ctx: &RequestContext, user_id: &str, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let is_subscribed = crate::domain::channels::user_is_subscribed(&ctx.db, &me, user_id, id).await?;
    Ok(Reply::json(json!({ "is_subscribed": is_subscribed })))
}

/// # `GET /users/me/{stream_id}/topics`
/// Any user who can read the channel: its topics, most recent first, each with the id of
/// its latest message the caller can access (`allow_empty_topic_name`, default false: the
/// empty topic reads as the realm's display name).
/// - One D1 round trip once this isolate has seen the caller's key: the channel and its
///   topics are read in the batch that authenticates.
pub async fn get_stream_topics(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let query = ctx.after_authentication(channel_topics_query(ctx, id)).await?;
    let (_, _, topics) = ctx.read_as_user(&query).await?;
    Ok(Reply::json(json!({ "topics": topics })))
}

fn channel_topics_query(ctx: &RequestContext, id: &str) -> ApiResult<ChannelTopics> {
    let allow_empty_topic_name = ctx.params.bool_or("allow_empty_topic_name", false)?;
    let channel_id = parse_channel_id(id)?;
    Ok(ChannelTopics { channel_id, allow_empty_topic_name })
}
