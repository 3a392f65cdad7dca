//! The organization's default channels (`POST`/`DELETE /default_streams`): administrators
//! choose public channels that people who join are subscribed to. Every change sends the
//! whole list (`default_streams`) to the organization's members but guests.

use worker::{D1Database, Env};

use crate::actions::channels::{check_subscribe, Principal, SubscribeRequest};
use crate::context::RequestContext;
use crate::db::batch::Batch;
use crate::db::channels::{self as channel_rows, MemberRow};
use crate::db::default_channels::{self as q, DefaultChannelRow};
use crate::db::subscriptions::{self, ChannelViewRow};
use crate::db::users::UserRow;
use crate::domain::channels::{can_access_channel_content, can_see_channel, parse_channel_id};
use crate::error::{ApiError, ApiResult};
use crate::events::{send_event, Event, EventUser};
use crate::model::ids::{ChannelId, RealmId, UserId};
use crate::model::Role;

/// The default channels and who hears of them, read with the channel a change is about.
struct DefaultsState {
    channel: Option<ChannelViewRow>,
    defaults: Vec<i64>,
    members: Vec<MemberRow>,
}

async fn read(db: &D1Database, me: &UserRow, channel_id: i64) -> ApiResult<DefaultsState> {
    let mut batch = Batch::new();
    let channel =
        batch.add::<ChannelViewRow>(subscriptions::by_id_for_user_stmt(RealmId(me.realm_id), UserId(me.id), ChannelId(channel_id))?);
    let defaults = batch.add::<DefaultChannelRow>(q::in_realm_stmt(me.realm_id)?);
    let members = batch.add::<MemberRow>(channel_rows::active_members_stmt(me.realm_id)?);
    let results = batch.run(db).await?;
    Ok(DefaultsState {
        channel: results.first(channel)?,
        defaults: results.rows(defaults)?.into_iter().map(|r| r.channel_id).collect(),
        members: results.rows(members)?,
    })
}

/// The `default_streams` event with the list as it is now, to every active member but
/// guests (who never see the list, as in Zulip).
pub async fn notify_default_channels(env: &Env, realm_id: i64, defaults: Vec<i64>, members: &[MemberRow]) {
    let users: Vec<EventUser> = members.iter().filter(|m| m.role != Role::Guest).map(|m| EventUser::plain(m.id)).collect();
    send_event(env, realm_id, &Event::DefaultStreams { default_streams: defaults }, &users).await;
}

/// `POST /default_streams`: administrators; a public, unarchived channel whose content
/// they can access ("Invalid channel ID" otherwise).
pub async fn check_add_default_channel(ctx: &RequestContext, me: &UserRow, stream_id: &str) -> ApiResult<()> {
    if !me.is_realm_admin() {
        return Err(ApiError::must_be_admin());
    }
    let state = read(&ctx.db, me, parse_channel_id(stream_id)?).await?;
    let channel = match state.channel {
        Some(c) if can_access_channel_content(me, &c) => c,
        _ => return Err(ApiError::invalid_channel_id()),
    };
    if channel.is_private() {
        return Err(ApiError::bad_request("Private channels cannot be made default."));
    }
    if channel.is_archived != 0 {
        return Err(ApiError::bad_request("Archived channels cannot be made default."));
    }
    if state.defaults.contains(&channel.id) {
        return Ok(());
    }
    crate::db::run(&ctx.db, q::add_stmt(RealmId(me.realm_id), ChannelId(channel.id))?).await?;
    let mut defaults = state.defaults;
    defaults.push(channel.id);
    defaults.sort_unstable();
    notify_default_channels(&ctx.env, me.realm_id, defaults, &state.members).await;
    Ok(())
}

/// `DELETE /default_streams`: administrators; a channel they can see ("Invalid channel
/// ID" otherwise). Removing one that is not a default changes nothing.
pub async fn check_remove_default_channel(ctx: &RequestContext, me: &UserRow, stream_id: &str) -> ApiResult<()> {
    if !me.is_realm_admin() {
        return Err(ApiError::must_be_admin());
    }
    let state = read(&ctx.db, me, parse_channel_id(stream_id)?).await?;
    let channel = match state.channel {
        Some(c) if can_see_channel(me, &c) => c,
        _ => return Err(ApiError::invalid_channel_id()),
    };
    if !state.defaults.contains(&channel.id) {
        return Ok(());
    }
    crate::db::run(&ctx.db, q::remove_stmt(RealmId(me.realm_id), ChannelId(channel.id))?).await?;
    let defaults = state.defaults.into_iter().filter(|id| *id != channel.id).collect();
    notify_default_channels(&ctx.env, me.realm_id, defaults, &state.members).await;
    Ok(())
}

/// The organization's default channels, by id.
pub async fn default_channel_ids(db: &D1Database, realm_id: i64) -> ApiResult<Vec<i64>> {
    Ok(crate::db::all::<DefaultChannelRow>(db, q::in_realm_stmt(realm_id)?).await?.into_iter().map(|r| r.channel_id).collect())
}

/// Subscribes someone who just joined to the organization's default channels (`ids`), as
/// they would subscribe themselves. A failure is logged: the account exists.
pub async fn join_default_channels(db: &D1Database, env: &Env, user: &UserRow, ids: &[i64]) {
    if ids.is_empty() {
        return;
    }
    let ids = serde_json::to_string(ids).unwrap_or_default();
    let channels: Vec<ChannelViewRow> = match subscriptions::by_ids_for_user_stmt(RealmId(user.realm_id), UserId(user.id), &ids) {
        Ok(stmt) => crate::db::all(db, stmt).await.unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let request = SubscribeRequest {
        authorization_errors_fatal: false,
        ..SubscribeRequest::new(
            channels.iter().filter(|c| c.is_archived == 0).map(|c| (c.name.clone(), String::new())).collect(),
            Some(vec![Principal::Id(user.id)]),
        )
    };
    if request.channels.is_empty() {
        return;
    }
    let result = check_subscribe(db, env, user, &request).await;
    if let Err(err) = result {
        worker::console_error!("user {} not subscribed to the default channels: {}", user.id, err.msg);
    }
}
