//! Channel access and the Channel ("stream") and Subscription objects of the API.

use std::collections::HashMap;

use serde_json::{json, Map, Value};
use worker::D1Database;

use crate::auth::ReadAsUser;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::default_channels::{self, DefaultChannelRow};
use crate::db::messages::{self, TopicRow};
use crate::db::subscriptions::{self, ChannelViewRow, SubscriberRow, SystemGroupRow};
use crate::db::users::UserRow;
use crate::domain::channel_permissions;
use crate::domain::group_setting_values::AnonymousGroups;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{ChannelId, RealmId, UserId};
use crate::params::parse_int;
use crate::platform::realm_cache::RealmState;

/// Zulip's palette for new subscriptions.
pub const COLORS: &[&str] = &[
    "#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5", "#f5ce6e", "#c2726a", "#94c849", "#bd86e5",
    "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063", "#9987e1", "#e4523d", "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
];

/// A colour for a new subscription, varied by channel name.
pub fn color_for(name: &str) -> &'static str {
    let hash = name.bytes().fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
    COLORS[hash % COLORS.len()]
}

/// Zulip's channel access rules, written once; every check of a channel reads them.
///
/// - content (post, read, subscribe oneself, mute topics): subscribers, and everyone but
///   guests in a public channel;
/// - metadata (that it exists, its settings): also administrators in a private channel,
///   and non-guests in its `can_administer_channel_group`, `can_add_subscribers_group` or
///   `can_subscribe_group` (the latter two may join it: Zulip's content access through
///   groups);
/// - history (messages sent before one subscribed): everyone but guests in a public
///   channel, and subscribers where history is public to subscribers.
pub mod access {
    use crate::db::users::UserRow;

    pub fn can_access_content(user: &UserRow, subscribed: bool, private: bool) -> bool {
        subscribed || (!private && !user.is_guest())
    }

    pub fn can_see_metadata(user: &UserRow, subscribed: bool, private: bool) -> bool {
        can_access_content(user, subscribed, private) || (private && user.is_realm_admin())
    }

    pub fn can_read_history(user: &UserRow, subscribed: bool, private: bool, history_public_to_subscribers: bool) -> bool {
        (!private && !user.is_guest()) || (subscribed && history_public_to_subscribers)
    }
}

/// Whether `user` may see that the channel exists (its metadata), see [`access`].
pub fn can_see_channel(user: &UserRow, channel: &ChannelViewRow) -> bool {
    access::can_see_metadata(user, channel.subscribed(), channel.is_private())
        || (!user.is_guest() && (channel.administers_through_group() || channel.joins_through_group()))
}

/// Zulip's content access as `GET /streams?include_can_access_content` lists it: what
/// [`can_access_channel_content`] allows, and a private channel the user may join through
/// its groups.
pub fn may_access_content_or_join(user: &UserRow, channel: &ChannelViewRow) -> bool {
    can_access_channel_content(user, channel) || (!user.is_guest() && channel.joins_through_group())
}

/// Whether `user` may post to and read the channel, see [`access`].
pub fn can_access_channel_content(user: &UserRow, channel: &ChannelViewRow) -> bool {
    access::can_access_content(user, channel.subscribed(), channel.is_private())
}

/// Zulip's "Invalid channel ID" for a channel that does not exist or that the user may
/// not see.
pub fn access_channel(user: &UserRow, channel: Option<ChannelViewRow>) -> ApiResult<ChannelViewRow> {
    match channel {
        Some(c) if can_see_channel(user, &c) => Ok(c),
        _ => Err(ApiError::invalid_channel_id()),
    }
}

/// The system groups of an organization by name, for the channel permission settings
/// (Zulip's defaults: this server has no per-channel permission settings).
pub struct SystemGroups(pub HashMap<String, i64>);

impl SystemGroups {
    pub fn new(rows: Vec<SystemGroupRow>) -> Self {
        SystemGroups(rows.into_iter().map(|r| (r.name, r.id)).collect())
    }
    pub fn id(&self, name: &str) -> Value {
        self.0.get(name).map(|id| json!(id)).unwrap_or(Value::Null)
    }
}

/// The fields every channel object has (Zulip's BasicChannel).
pub fn stream_dict(c: &ChannelViewRow, groups: &SystemGroups) -> Value {
    let mut d = json!({
        "stream_id": c.id,
        "name": c.name,
        "description": c.description,
        "rendered_description": rendered_description(&c.description),
        "date_created": c.date_created,
        "creator_id": c.creator_id,
        "invite_only": c.is_private(),
        "is_web_public": c.is_web_public != 0,
        "is_announcement_only": false,
        "stream_post_policy": 1,
        "message_retention_days": c.message_retention_days,
        "history_public_to_subscribers": c.history_public_to_subscribers != 0,
        "first_message_id": c.first_message_id,
        "folder_id": c.folder_id,
        "topics_policy": c.topics_policy,
        "is_recently_active": true,
        "stream_weekly_traffic": Value::Null,
        "is_archived": c.is_archived != 0,
        "subscriber_count": c.subscriber_count,
    });
    let anonymous = AnonymousGroups::from_json(c.anonymous_groups.as_deref());
    for setting in channel_permissions::STORED {
        d[setting.name] = match c.group_setting(setting.name) {
            Some(id) => anonymous.json_of(id),
            None => groups.id(setting.default_group),
        };
    }
    d
}

/// Global notification defaults (user settings) that stand in for null channel settings.
pub struct GlobalNotifications {
    pub desktop: bool,
    pub audible: bool,
    pub push: bool,
    pub email: bool,
    pub wildcard_mentions_notify: bool,
}

/// The viewer's Subscription object of a channel it is (or was) subscribed to: the channel
/// fields plus the properties of the spec's subscription-properties table. A null
/// notification setting follows the user's global setting, as in Zulip: it stays null
/// unless `global` is given (clients without `notification_settings_null`), which then
/// stands in for it.
pub fn subscription_dict(
    c: &ChannelViewRow,
    groups: &SystemGroups,
    subscribers: Option<&[i64]>,
    global: Option<&GlobalNotifications>,
) -> Value {
    let mut d = match stream_dict(c, groups) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let is_muted = c.is_muted.unwrap_or(0) != 0;
    let flag = |v: Option<i64>, global_value: fn(&GlobalNotifications) -> bool| match (v, global) {
        (Some(v), _) => json!(v != 0),
        (None, Some(g)) => json!(global_value(g)),
        (None, None) => Value::Null,
    };
    d.insert("color".into(), json!(c.color.clone().unwrap_or_else(|| color_for(&c.name).to_string())));
    d.insert("is_muted".into(), json!(is_muted));
    d.insert("in_home_view".into(), json!(!is_muted));
    d.insert("pin_to_top".into(), json!(c.pin_to_top.unwrap_or(0) != 0));
    d.insert("desktop_notifications".into(), flag(c.desktop_notifications, |g| g.desktop));
    d.insert("audible_notifications".into(), flag(c.audible_notifications, |g| g.audible));
    d.insert("push_notifications".into(), flag(c.push_notifications, |g| g.push));
    d.insert("email_notifications".into(), flag(c.email_notifications, |g| g.email));
    d.insert("wildcard_mentions_notify".into(), flag(c.wildcard_mentions_notify, |g| g.wildcard_mentions_notify));
    if let Some(subscribers) = subscribers {
        d.insert("subscribers".into(), json!(subscribers));
    }
    Value::Object(d)
}

/// A channel description as HTML: escaped text in a paragraph (empty stays empty).
pub fn rendered_description(description: &str) -> String {
    if description.is_empty() {
        return String::new();
    }
    format!("<p>{}</p>", crate::markdown::escape_html(description))
}

/// Zulip's channel-name rules: not empty, at most 60 characters, no control characters.
pub fn check_channel_name(name: &str) -> ApiResult<()> {
    if name.trim().is_empty() {
        return Err(ApiError::bad_request("Channel name can't be empty."));
    }
    if name.chars().count() > 60 {
        return Err(ApiError::bad_request("Channel name too long (limit: 60 characters)."));
    }
    if let Some(pos) = name.chars().position(|c| c.is_control()) {
        return Err(ApiError::bad_request(format!("Invalid character in channel name, at position {}.", pos + 1)));
    }
    Ok(())
}

/// The user's view of every channel of the organization, the system groups, and (when
/// asked for) every channel's subscribers. One batch.
struct ChannelsView {
    channels: Vec<ChannelViewRow>,
    groups: SystemGroups,
    subscribers: HashMap<i64, Vec<i64>>,
    default_channel_ids: Vec<i64>,
}

async fn channels_view(db: &D1Database, user: &UserRow, with_subscribers: bool) -> ApiResult<ChannelsView> {
    let mut batch = Batch::new();
    let channels = batch.add::<ChannelViewRow>(subscriptions::all_for_user_stmt(RealmId(user.realm_id), UserId(user.id))?);
    let groups = batch.add::<SystemGroupRow>(subscriptions::system_groups_stmt(user.realm_id)?);
    let all_subscribers =
        if with_subscribers { Some(batch.add::<SubscriberRow>(subscriptions::all_subscribers_stmt(user.realm_id)?)) } else { None };
    let defaults = batch.add::<DefaultChannelRow>(default_channels::in_realm_stmt(user.realm_id)?);
    let results = batch.run(db).await?;
    let mut subscribers: HashMap<i64, Vec<i64>> = HashMap::new();
    if let Some(slot) = all_subscribers {
        for row in results.rows(slot)? {
            subscribers.entry(row.channel_id).or_default().push(row.user_id);
        }
    }
    let default_channel_ids = results.rows(defaults)?.into_iter().map(|r| r.channel_id).collect();
    Ok(ChannelsView {
        channels: results.rows(channels)?,
        groups: SystemGroups::new(results.rows(groups)?),
        subscribers,
        default_channel_ids,
    })
}

/// The user's subscriptions as `GET /users/me/subscriptions` lists them (archived channels
/// left out, as Zulip does), with `subscribers` when asked for. One batch.
pub async fn subscriptions_of(db: &D1Database, user: &UserRow, include_subscribers: bool) -> ApiResult<Vec<Value>> {
    let view = channels_view(db, user, include_subscribers).await?;
    Ok(view
        .channels
        .iter()
        .filter(|c| c.subscribed() && c.is_archived == 0)
        .map(|c| {
            let list = include_subscribers.then(|| view.subscribers.get(&c.id).map(Vec::as_slice).unwrap_or(&[]));
            subscription_dict(c, &view.groups, list, None)
        })
        .collect())
}

/// Which channels `GET /streams` lists (`include_all` already checked against the role).
pub struct StreamsQuery {
    pub include_public: bool,
    pub include_subscribed: bool,
    pub include_web_public: bool,
    pub include_all: bool,
    pub exclude_archived: bool,
    pub include_subscribers: bool,
    /// Default channels too, each channel with `is_default`.
    pub include_default: bool,
    /// Every channel whose content the user may access or join (Zulip's content access).
    pub include_can_access_content: bool,
}

/// The channels of the query as `GET /streams` lists them: guests see public channels only
/// through a subscription. One batch.
pub async fn streams_of(db: &D1Database, user: &UserRow, q: &StreamsQuery) -> ApiResult<Vec<Value>> {
    let view = channels_view(db, user, q.include_subscribers).await?;
    Ok(view
        .channels
        .iter()
        .filter(|c| !(q.exclude_archived && c.is_archived != 0))
        .filter(|c| {
            let is_default = view.default_channel_ids.contains(&c.id);
            q.include_all
                || (q.include_can_access_content && may_access_content_or_join(user, c))
                || (q.include_subscribed && c.subscribed())
                || (q.include_public && !c.is_private() && !user.is_guest())
                || (q.include_web_public && c.is_web_public != 0)
                || (q.include_default && is_default && can_see_channel(user, c))
        })
        .map(|c| {
            let mut d = stream_dict(c, &view.groups);
            if q.include_subscribers {
                d["subscribers"] = json!(view.subscribers.get(&c.id).cloned().unwrap_or_default());
            }
            if q.include_default {
                d["is_default"] = json!(view.default_channel_ids.contains(&c.id));
            }
            d
        })
        .collect())
}

/// A channel id as the path gives it; "Invalid channel ID" if it is not an integer.
pub fn parse_channel_id(raw: &str) -> ApiResult<i64> {
    parse_int(raw).ok_or_else(ApiError::invalid_channel_id)
}

/// The user's view of the channel with this id (if it exists) and the system groups; an id
/// that is not an integer is "Invalid channel ID". One batch.
pub async fn channel_by_id(db: &D1Database, user: &UserRow, id: &str) -> ApiResult<(Option<ChannelViewRow>, SystemGroups)> {
    let channel_id = parse_channel_id(id)?;
    let mut batch = Batch::new();
    let channel =
        batch.add::<ChannelViewRow>(subscriptions::by_id_for_user_stmt(RealmId(user.realm_id), UserId(user.id), ChannelId(channel_id))?);
    let groups = batch.add::<SystemGroupRow>(subscriptions::system_groups_stmt(user.realm_id)?);
    let results = batch.run(db).await?;
    Ok((results.first(channel)?, SystemGroups::new(results.rows(groups)?)))
}

/// A channel whose content the user can access (post, read); "Invalid channel ID"
/// otherwise. One batch.
pub async fn access_channel_content(db: &D1Database, user: &UserRow, id: &str) -> ApiResult<ChannelViewRow> {
    match channel_by_id(db, user, id).await?.0 {
        Some(c) if can_access_channel_content(user, &c) => Ok(c),
        _ => Err(ApiError::invalid_channel_id()),
    }
}

/// The Channel object of a channel the user can see; "Invalid channel ID" otherwise. One
/// batch.
pub async fn stream_of(db: &D1Database, user: &UserRow, id: &str) -> ApiResult<Value> {
    let (channel, groups) = channel_by_id(db, user, id).await?;
    Ok(stream_dict(&access_channel(user, channel)?, &groups))
}

/// The id of the channel named `name` if the user can see it; "Invalid channel name
/// '<name>'" otherwise. One round trip.
pub async fn channel_id_by_name(db: &D1Database, user: &UserRow, name: &str) -> ApiResult<i64> {
    let channel: Option<ChannelViewRow> =
        crate::db::first(db, subscriptions::by_name_for_user_stmt(RealmId(user.realm_id), UserId(user.id), name)?).await?;
    match channel {
        Some(c) if can_see_channel(user, &c) => Ok(c.id),
        _ => Err(ApiError::bad_request(format!("Invalid channel name '{name}'"))),
    }
}

/// The ids of the active subscribers of a channel the user can see; a private channel only
/// for its subscribers and administrators ("Invalid channel ID" otherwise). One batch.
pub async fn channel_subscribers(db: &D1Database, user: &UserRow, id: &str) -> ApiResult<Vec<i64>> {
    let channel_id = parse_channel_id(id)?;
    // The subscribers are read with the channel and shown only if the rule allows.
    let mut batch = Batch::new();
    let channel =
        batch.add::<ChannelViewRow>(subscriptions::by_id_for_user_stmt(RealmId(user.realm_id), UserId(user.id), ChannelId(channel_id))?);
    let subscribers = batch.add::<SubscriberRow>(subscriptions::subscribers_stmt(user.realm_id, &format!("[{channel_id}]"))?);
    let results = batch.run(db).await?;
    let channel = access_channel(user, results.first(channel)?)?;
    if channel.is_private() && !channel.subscribed() && !user.is_realm_admin() {
        return Err(ApiError::invalid_channel_id());
    }
    Ok(results.rows(subscribers)?.into_iter().map(|r| r.user_id).collect())
}

/// `GET /users/{user_id}/subscriptions/{stream_id}`: whether an active person (not a bot)
/// of the organization is subscribed to a channel whose subscribers the user may see
/// ("No such user", "Invalid channel ID" otherwise, as Zulip answers).
pub async fn user_is_subscribed(db: &D1Database, user: &UserRow, target_id: &str, channel: &str) -> ApiResult<bool> {
    let target_id = parse_int(target_id).ok_or_else(ApiError::no_such_user)?;
    let target = crate::db::users::by_id(db, RealmId(user.realm_id), UserId(target_id)).await?;
    let target = target.filter(|t| t.is_active() && !t.is_bot()).ok_or_else(ApiError::no_such_user)?;
    Ok(channel_subscribers(db, user, channel).await?.contains(&target.id))
}

/// `GET /users/me/{stream_id}/topics`: the topics of a channel whose content the user can
/// access ("Invalid channel ID" otherwise), most recent first, each with the id of its
/// latest message the user can access; the empty topic reads as the organization's display
/// name unless `allow_empty_topic_name`. The channel and its topics are read together, in
/// the batch that authenticates.
pub struct ChannelTopics {
    pub channel_id: i64,
    pub allow_empty_topic_name: bool,
}

impl ReadAsUser for ChannelTopics {
    type Slots = (Slot<ChannelViewRow>, Slot<TopicRow>);
    type Output = Vec<Value>;
    fn add(&self, batch: &mut Batch, me: &UserRow, _realm: &RealmState) -> ApiResult<Self::Slots> {
        let channel = batch.add(subscriptions::by_id_for_user_stmt(RealmId(me.realm_id), UserId(me.id), ChannelId(self.channel_id))?);
        let topics =
            batch.add(messages::channel_topics_stmt(RealmId(me.realm_id), UserId(me.id), me.is_guest(), ChannelId(self.channel_id))?);
        Ok((channel, topics))
    }
    fn take(&self, results: &BatchResults, (channel, topics): Self::Slots, me: &UserRow, realm: &RealmState) -> ApiResult<Vec<Value>> {
        match results.first(channel)? {
            Some(c) if can_access_channel_content(me, &c) => {}
            _ => return Err(ApiError::invalid_channel_id()),
        }
        let empty_topic_name = &realm.settings.empty_topic_display_name;
        Ok(results
            .rows(topics)?
            .into_iter()
            .map(|t| {
                let name = if t.name.is_empty() && !self.allow_empty_topic_name { empty_topic_name.clone() } else { t.name };
                json!({ "name": name, "max_id": t.max_id })
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::access::*;
    use crate::db::users::UserRow;
    use crate::model::Role;

    fn user(role: Role) -> UserRow {
        UserRow { role, ..UserRow::default() }
    }

    #[test]
    fn content_is_for_subscribers_and_non_guests_in_public_channels() {
        assert!(can_access_content(&user(Role::Member), false, false));
        assert!(!can_access_content(&user(Role::Guest), false, false));
        assert!(can_access_content(&user(Role::Guest), true, true));
        assert!(!can_access_content(&user(Role::Administrator), false, true));
    }

    #[test]
    fn administrators_see_private_channels_they_do_not_read() {
        assert!(can_see_metadata(&user(Role::Administrator), false, true));
        assert!(!can_see_metadata(&user(Role::Member), false, true));
    }

    #[test]
    fn protected_history_stays_closed_even_to_subscribers() {
        assert!(!can_read_history(&user(Role::Member), true, true, false));
        assert!(can_read_history(&user(Role::Member), true, true, true));
        assert!(can_read_history(&user(Role::Member), false, false, false));
        assert!(!can_read_history(&user(Role::Guest), false, false, true));
    }
}
