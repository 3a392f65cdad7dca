//! Channels and subscriptions.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::actions::channels::{self as actions, Principal, SubscribeRequest};
use crate::context::RequestContext;
use crate::db::subscriptions::{self, ChannelViewRow, SubscriberRow};
use crate::db::{self, realm_settings};
use crate::domain::channels::{access_channel, can_see_channel, stream_dict, subscription_dict, SystemGroups};
use crate::error::{ApiError, ApiResult};
use crate::params::parse_int;
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
    let req = SubscribeRequest {
        channels: requests.into_iter().map(|r| (r.name, r.description.unwrap_or_default())).collect(),
        principals,
        authorization_errors_fatal: ctx.params.bool_or("authorization_errors_fatal", true)?,
        invite_only: ctx.params.bool_or("invite_only", false)?,
        history_public_to_subscribers: ctx.params.bool("history_public_to_subscribers")?,
        folder_id: ctx.params.int("folder_id")?,
    };
    // Understood, and Zulip's defaults are what this server does.
    for name in ["announce", "is_default_stream", "send_new_subscription_messages"] {
        ctx.params.accept(name);
    }
    let body = actions::check_subscribe(&ctx.db, &ctx.env, &me, &req).await?;
    Ok(Reply::json(body))
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

/// The caller's view of every channel, the system groups, and (if asked) subscribers.
async fn load_channels(
    ctx: &RequestContext,
    realm_id: i64,
    user_id: i64,
    with_subscribers: bool,
) -> ApiResult<(Vec<ChannelViewRow>, SystemGroups, HashMap<i64, Vec<i64>>)> {
    let mut batch =
        vec![subscriptions::all_for_user_stmt(&ctx.db, realm_id, user_id)?, subscriptions::system_groups_stmt(&ctx.db, realm_id)?];
    if with_subscribers {
        batch.push(subscriptions::all_subscribers_stmt(&ctx.db, realm_id)?);
    }
    let results = crate::db::run_batch(&ctx.db, batch).await?;
    let channels: Vec<ChannelViewRow> = results[0].results()?;
    let groups = SystemGroups::new(results[1].results()?);
    let mut subscribers: HashMap<i64, Vec<i64>> = HashMap::new();
    if with_subscribers {
        for row in results[2].results::<SubscriberRow>()? {
            subscribers.entry(row.channel_id).or_default().push(row.user_id);
        }
    }
    Ok((channels, groups, subscribers))
}

/// # `GET /users/me/subscriptions`
/// Any user: the caller's subscriptions; `include_subscribers` adds `subscribers`.
pub async fn get_subscriptions(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let include_subscribers = match ctx.params.str("include_subscribers")?.as_deref() {
        None | Some("false") => false,
        Some("true") | Some("partial") => true,
        Some(_) => return Err(ApiError::invalid_argument("include_subscribers", "a boolean")),
    };
    let (channels, groups, subscribers) = load_channels(ctx, me.realm_id, me.id, include_subscribers).await?;
    let subs: Vec<Value> = channels
        .iter()
        .filter(|c| c.subscribed())
        .map(|c| {
            let list = include_subscribers.then(|| subscribers.get(&c.id).map(Vec::as_slice).unwrap_or(&[]));
            subscription_dict(c, &groups, list, None)
        })
        .collect();
    Ok(Reply::json(json!({ "subscriptions": subs })))
}

/// # `GET /streams`
/// Any user: channels the caller can see, by `include_public` (default true),
/// `include_subscribed` (default true), `include_all` / `include_all_active` (administrators:
/// every channel), `exclude_archived` (default true).
pub async fn get_streams(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let include_public = ctx.params.bool_or("include_public", true)?;
    let include_subscribed = ctx.params.bool_or("include_subscribed", true)?;
    let include_web_public = ctx.params.bool_or("include_web_public", false)?;
    let include_all = ctx.params.bool_or("include_all", false)? || ctx.params.bool_or("include_all_active", false)?;
    let exclude_archived = ctx.params.bool_or("exclude_archived", true)?;
    let include_subscribers = ctx.params.bool_or("include_subscribers", false)?;
    ctx.params.accept("include_default");
    ctx.params.accept("include_owner_subscribed");
    ctx.params.accept("include_can_access_content");
    if include_all && !me.is_realm_admin() {
        return Err(ApiError::bad_request("User not authorized for this query"));
    }
    let (channels, groups, subscribers) = load_channels(ctx, me.realm_id, me.id, include_subscribers).await?;
    let streams: Vec<Value> = channels
        .iter()
        .filter(|c| !(exclude_archived && c.is_archived != 0))
        .filter(|c| {
            include_all
                || (include_subscribed && c.subscribed())
                || (include_public && !c.is_private() && !me.is_guest())
                || (include_web_public && c.is_web_public != 0)
        })
        .map(|c| {
            let mut d = stream_dict(c, &groups);
            if include_subscribers {
                d["subscribers"] = json!(subscribers.get(&c.id).cloned().unwrap_or_default());
            }
            d
        })
        .collect();
    Ok(Reply::json(json!({ "streams": streams })))
}

async fn channel_by_id(ctx: &RequestContext, realm_id: i64, user_id: i64, id: &str) -> ApiResult<(Option<ChannelViewRow>, SystemGroups)> {
    let channel_id = parse_int(id).ok_or_else(|| ApiError::bad_request("Invalid channel ID"))?;
    let results = crate::db::run_batch(
        &ctx.db,
        vec![
            subscriptions::by_id_for_user_stmt(&ctx.db, realm_id, user_id, channel_id)?,
            subscriptions::system_groups_stmt(&ctx.db, realm_id)?,
        ],
    )
    .await?;
    let channel = results[0].results::<ChannelViewRow>()?.into_iter().next();
    Ok((channel, SystemGroups::new(results[1].results()?)))
}

/// # `GET /streams/{stream_id}`
/// Any user who can see the channel; otherwise "Invalid channel ID".
pub async fn get_stream(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let (channel, groups) = channel_by_id(ctx, me.realm_id, me.id, id).await?;
    let channel = access_channel(&me, channel)?;
    Ok(Reply::json(json!({ "stream": stream_dict(&channel, &groups) })))
}

/// # `PATCH /streams/{stream_id}`
/// Administrators, for a channel they can see (others: "You do not have permission to
/// administer this channel."; an unknown or invisible channel: "Invalid channel ID").
/// - `folder_id`: a folder of the organization ("Invalid channel folder ID" otherwise), or
///   `null` to take the channel out of its folder; sends `stream` `update` (`folder_id`).
///
/// Zulip's other channel settings are not supported here: they come back in
/// `ignored_parameters_unsupported`.
pub async fn update_stream(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let folder_id = match ctx.params.json("folder_id")? {
        None => None,
        Some(Value::Null) => Some(None),
        Some(value) => Some(Some(value.as_i64().ok_or_else(|| ApiError::invalid_argument("folder_id", "an integer or null"))?)),
    };
    let (channel, _) = channel_by_id(ctx, me.realm_id, me.id, id).await?;
    let channel = access_channel(&me, channel)?;
    if !me.is_realm_admin() {
        return Err(ApiError::bad_request("You do not have permission to administer this channel."));
    }
    if let Some(folder_id) = folder_id {
        crate::actions::channels::check_change_channel_folder(&ctx.db, &ctx.env, &me, &channel, folder_id).await?;
    }
    Ok(Reply::ok())
}

/// # `GET /get_stream_id`
/// Any user: the id of the channel named `stream`; "Invalid channel name '<name>'" when
/// there is none the caller can see.
pub async fn get_stream_id(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let name = ctx.params.required_str("stream")?;
    let channel: Option<ChannelViewRow> = db::first(subscriptions::by_name_for_user_stmt(&ctx.db, me.realm_id, me.id, &name)?).await?;
    match channel {
        Some(c) if can_see_channel(&me, &c) => Ok(Reply::json(json!({ "stream_id": c.id }))),
        _ => Err(ApiError::bad_request(format!("Invalid channel name '{name}'"))),
    }
}

/// # `GET /streams/{stream_id}/members`
/// Any user who can see the channel: ids of its active subscribers.
pub async fn get_stream_members(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let (channel, _) = channel_by_id(ctx, me.realm_id, me.id, id).await?;
    let channel = access_channel(&me, channel)?;
    if channel.is_private() && !channel.subscribed() && !me.is_realm_admin() {
        return Err(ApiError::bad_request("Invalid channel ID"));
    }
    let rows: Vec<SubscriberRow> = db::all(subscriptions::subscribers_stmt(&ctx.db, me.realm_id, &format!("[{}]", channel.id))?).await?;
    let ids: Vec<i64> = rows.into_iter().map(|r| r.user_id).collect();
    Ok(Reply::json(json!({ "subscribers": ids })))
}

/// # `GET /users/me/{stream_id}/topics`
/// Any user who can read the channel: its topics, most recent first, each with the id of
/// its latest message the caller can access (`allow_empty_topic_name`, default false: the
/// empty topic reads as the realm's display name).
pub async fn get_stream_topics(ctx: &RequestContext, id: &str) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let allow_empty_topic_name = ctx.params.bool_or("allow_empty_topic_name", false)?;
    let (channel, _) = channel_by_id(ctx, me.realm_id, me.id, id).await?;
    let channel = match channel {
        Some(c) if crate::domain::channels::can_access_channel_content(&me, &c) => c,
        _ => return Err(ApiError::bad_request("Invalid channel ID")),
    };
    // Subscribed here, or public to non-guests: the subscribed case reads history when it
    // is public to subscribers.
    let whole_history = crate::domain::channels::access::can_read_history(
        &me,
        channel.subscribed(),
        channel.is_private(),
        channel.history_public_to_subscribers != 0,
    );
    let results = crate::db::run_batch(
        &ctx.db,
        vec![
            crate::db::messages::channel_topics_stmt(&ctx.db, channel.recipient_id, me.id, whole_history)?,
            realm_settings::by_realm_id_stmt(&ctx.db, me.realm_id)?,
        ],
    )
    .await?;
    let rows: Vec<crate::db::messages::TopicRow> = results[0].results()?;
    let settings: realm_settings::RealmSettingsRow =
        results[1].results()?.into_iter().next().ok_or_else(|| ApiError::internal("no realm settings"))?;
    let topics: Vec<Value> = rows
        .into_iter()
        .map(|t| {
            let name = if t.name.is_empty() && !allow_empty_topic_name { settings.empty_topic_display_name.clone() } else { t.name };
            json!({ "name": name, "max_id": t.max_id })
        })
        .collect();
    Ok(Reply::json(json!({ "topics": topics })))
}
