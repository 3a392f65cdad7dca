//! Changing a channel's own settings (`PATCH /streams/{stream_id}`), archiving and
//! unarchiving it, and deleting one of its topics, with the events Zulip sends and the
//! notification bot's messages in the channel's "channel events" topic.
//!
//! Every check runs before the first write, so a refused request changes nothing; the
//! changes are then one write batch, followed by their events and notices in Zulip's order
//! (access, unarchiving, description, name, folder).

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::actions::message_delete;
use crate::actions::message_notifications::send_channel_notice;
use crate::actions::message_send::PlannedChannel;
use crate::context::RequestContext;
use crate::db::batch::Batch;
use crate::db::channel_folders::{self, ChannelFolderRow};
use crate::db::channels::{self as q, ChannelIdRow, MemberRow};
use crate::db::default_channels::{self, DefaultChannelRow};
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::subscriptions::{self, ChannelViewRow, SubscriberRow, SystemGroupRow};
use crate::db::user_groups::{self, GroupMemberRow, GroupNameRow, IsMemberRow};
use crate::db::users::{self, UserRow};
use crate::domain::channel_folders::invalid_folder_id;
use crate::domain::channel_permissions::{self, ChannelGroupSetting, CAN_ADMINISTER};
use crate::domain::channel_settings::{self as rules, access_of, ChannelAccess};
use crate::domain::channels::{
    access, access_channel, can_access_channel_content, check_channel_name, rendered_description, stream_dict, SystemGroups,
};
use crate::domain::group_setting_values::{GroupChange, GroupSettingValue};
use crate::domain::register_state::MAX_CHANNEL_DESCRIPTION_LENGTH;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{CapabilityGate, StreamEvent, SubscriptionEvent};
use crate::events::{send_event, Event, EventUser};
use crate::model::ids::{ChannelId, RealmId, UserId};
use crate::model::TopicsPolicy;

/// The client capability that tells archiving apart from deletion.
const ARCHIVED_CHANNELS: &str = "archived_channels";

/// How many messages one `delete_topic` request deletes at most; `complete` says whether
/// the topic is empty now (clients repeat the request until it is).
const DELETE_TOPIC_BATCH: i64 = 500;

/// What `PATCH /streams/{stream_id}` asks to change; `None`: leave as is.
#[derive(Default)]
pub struct ChannelChanges {
    pub new_name: Option<String>,
    pub description: Option<String>,
    pub is_private: Option<bool>,
    pub history_public_to_subscribers: Option<bool>,
    pub is_web_public: Option<bool>,
    /// As sent: `realm_default`, `unlimited` or a number of days.
    pub message_retention_days: Option<String>,
    pub is_archived: Option<bool>,
    /// `Some(None)`: out of its folder.
    pub folder_id: Option<Option<i64>>,
    /// Permission settings (`domain::channel_permissions::STORED`) to change.
    pub groups: Vec<(&'static ChannelGroupSetting, GroupChange)>,
    pub topics_policy: Option<TopicsPolicy>,
}

/// A channel and what the checks and events of a change to it need, read in one batch.
struct ChannelState {
    channel: ChannelViewRow,
    members: Vec<MemberRow>,
    subscribers: Vec<i64>,
    groups: SystemGroups,
    name_taken: bool,
    folder: Option<Option<ChannelFolderRow>>,
    /// The organization's default channels.
    defaults: Vec<i64>,
    /// Whether this is the organization's moderation request channel (which stays private).
    is_moderation_request_channel: bool,
    /// Whether the caller is in the channel's `can_administer_channel_group`.
    in_administer_group: bool,
    /// Whether the caller is in the organization's `can_set_topics_policy_group`.
    may_set_topics_policy: bool,
    /// The active groups the requested permission settings name.
    named_groups: Vec<GroupNameRow>,
    /// The users the requested permission settings name.
    group_users: Vec<UserRow>,
    /// The members of the groups that grant access to the channel when it is private, and
    /// of the groups requested: group id -> user ids.
    group_members: HashMap<i64, Vec<i64>>,
}

impl ChannelState {
    /// Who sees `channel` (this channel, before or after a change, `set`: the settings the
    /// change set): see [`rules::metadata_audience`].
    fn audience(&self, channel: &ChannelViewRow, set: &[(&'static str, GroupSettingValue)]) -> Vec<i64> {
        let members_of = |group: i64| self.group_members.get(&group).cloned().unwrap_or_default();
        let through_groups: Vec<i64> = channel_permissions::GRANTS_ACCESS
            .iter()
            .flat_map(|setting| match set.iter().find(|(name, _)| *name == setting.name) {
                Some((_, value)) => value.user_ids().iter().copied().chain(value.group_ids().into_iter().flat_map(members_of)).collect(),
                None => channel.group_setting(setting.name).map(members_of).unwrap_or_default(),
            })
            .collect();
        rules::metadata_audience(&self.members, &self.subscribers, channel.is_private(), &through_groups)
    }
}

async fn read_channel(
    ctx: &RequestContext,
    me: &UserRow,
    id: &str,
    new_name: Option<&str>,
    folder_id: Option<i64>,
    group_ids: &[i64],
    user_ids: &[i64],
) -> ApiResult<ChannelState> {
    let db = &ctx.db;
    let realm_id = me.realm_id;
    let channel_id = ChannelId(crate::domain::channels::parse_channel_id(id)?);
    let mut batch = Batch::new();
    let channel = batch.add::<ChannelViewRow>(subscriptions::by_id_for_user_stmt(RealmId(realm_id), UserId(me.id), channel_id)?);
    let members = batch.add::<MemberRow>(q::active_members_stmt(realm_id)?);
    let subscribers = batch.add::<SubscriberRow>(subscriptions::subscribers_stmt(realm_id, &format!("[{channel_id}]"))?);
    let groups = batch.add::<SystemGroupRow>(subscriptions::system_groups_stmt(realm_id)?);
    let named =
        new_name.map(|name| q::other_named_stmt(RealmId(realm_id), channel_id, name)).transpose()?.map(|s| batch.add::<ChannelIdRow>(s));
    let folder =
        folder_id.map(|f| channel_folders::by_id_stmt(RealmId(realm_id), f)).transpose()?.map(|s| batch.add::<ChannelFolderRow>(s));
    let defaults = batch.add::<DefaultChannelRow>(default_channels::in_realm_stmt(realm_id)?);
    let administer = CAN_ADMINISTER.name;
    let in_administer_group =
        batch.add::<IsMemberRow>(q::in_group_setting_stmt(RealmId(realm_id), channel_id, "", administer, UserId(me.id), false)?);
    let topics_setting = crate::db::realm_settings::in_group_setting_stmt(RealmId(realm_id), "can_set_topics_policy_group", UserId(me.id))?;
    let may_set_topics_policy = batch.add::<IsMemberRow>(topics_setting);
    let named_groups = (!group_ids.is_empty()).then(|| user_groups::active_names_stmt(realm_id, group_ids)).transpose()?;
    let named_groups = named_groups.map(|stmt| batch.add::<GroupNameRow>(stmt));
    let group_users = (!user_ids.is_empty()).then(|| users::by_ids_stmt(realm_id, &serde_json::to_string(user_ids)?)).transpose()?;
    let group_users = group_users.map(|stmt| batch.add::<UserRow>(stmt));
    let ids_json = serde_json::to_string(group_ids)?;
    let group_members =
        batch.add::<GroupMemberRow>(user_groups::channel_access_group_members_stmt(RealmId(realm_id), channel_id, &ids_json)?);
    let results = batch.run(db).await?;
    let channel = access_channel(me, results.first(channel)?)?;
    let moderation_channel = ctx.realm_state(realm_id).await?.settings.moderation_request_channel_id;
    Ok(ChannelState {
        is_moderation_request_channel: moderation_channel == Some(channel.id),
        channel,
        members: results.rows(members)?,
        subscribers: results.rows(subscribers)?.into_iter().map(|s| s.user_id).collect(),
        groups: SystemGroups::new(results.rows(groups)?),
        name_taken: named.map(|slot| results.first(slot)).transpose()?.flatten().is_some(),
        folder: folder.map(|slot| results.first(slot)).transpose()?,
        defaults: results.rows(defaults)?.into_iter().map(|r| r.channel_id).collect(),
        in_administer_group: results.first(in_administer_group)?.is_some_and(|m| m.is_member != 0),
        may_set_topics_policy: results.first(may_set_topics_policy)?.is_some_and(|m| m.is_member != 0),
        named_groups: results.rows_if_added(named_groups)?,
        group_users: results.rows_if_added(group_users)?,
        group_members: results.rows(group_members)?.into_iter().fold(HashMap::new(), |mut by_group, row| {
            by_group.entry(row.group_id).or_insert_with(Vec::new).push(row.user_id);
            by_group
        }),
    })
}

/// Channel administration is for the organization's administrators and the channel's
/// `can_administer_channel_group` (nobody by default).
fn check_administer(me: &UserRow, state: &ChannelState) -> ApiResult<()> {
    if me.is_realm_admin() || state.in_administer_group {
        Ok(())
    } else {
        Err(ApiError::bad_request("You do not have permission to administer this channel."))
    }
}

/// A change, checked: only what differs from the channel as it is.
#[derive(Default)]
struct Plan {
    access: Option<ChannelAccess>,
    unarchive: bool,
    description: Option<String>,
    name: Option<String>,
    folder: Option<Option<i64>>,
    /// The channel's own retention period (`Some(None)`: back to the organization's).
    retention: Option<Option<i64>>,
    topics_policy: Option<TopicsPolicy>,
    /// Permission settings to set, by name.
    groups: Vec<(&'static str, GroupSettingValue)>,
}

impl Plan {
    fn is_empty(&self) -> bool {
        self.access.is_none()
            && !self.unarchive
            && self.description.is_none()
            && self.name.is_none()
            && self.folder.is_none()
            && self.retention.is_none()
            && self.topics_policy.is_none()
            && self.groups.is_empty()
    }
}

pub fn moderation_channel_must_be_private() -> ApiError {
    ApiError::bad_request("Moderation request channel must be private.")
}

/// Zulip's checks of `PATCH /streams/{stream_id}`, in its order.
fn check_changes(me: &UserRow, state: &ChannelState, changes: &ChannelChanges) -> ApiResult<Plan> {
    let c = &state.channel;
    check_administer(me, state)?;
    let mut plan = Plan::default();
    if changes.is_private.is_some() || changes.history_public_to_subscribers.is_some() || changes.is_web_public.is_some() {
        let proposed =
            rules::proposed_access(access_of(c), changes.is_private, changes.history_public_to_subscribers, changes.is_web_public)?;
        if proposed.invite_only && state.defaults.contains(&c.id) {
            return Err(ApiError::bad_request("A default channel cannot be private."));
        }
        if !proposed.invite_only && state.is_moderation_request_channel {
            return Err(moderation_channel_must_be_private());
        }
        if changes.is_private.is_some() && !can_access_channel_content(me, c) {
            return Err(ApiError::bad_request("Channel content access is required."));
        }
        if changes.is_web_public == Some(true) {
            return Err(ApiError::bad_request("Web-public channels are not enabled."));
        }
        plan.access = (proposed != access_of(c)).then_some(proposed);
    }
    if let Some(days) = &changes.message_retention_days {
        let days = check_retention(me, days)?;
        plan.retention = (days != c.message_retention_days).then_some(days);
    }
    if let Some(policy) = changes.topics_policy {
        channel_permissions::check_may_set_topics_policy(policy, state.may_set_topics_policy)?;
        plan.topics_policy = (policy != c.topics_policy).then_some(policy);
    }
    if changes.is_archived == Some(false) {
        if c.is_archived == 0 {
            return Err(ApiError::bad_request("Channel is not currently deactivated"));
        }
        if c.is_private() && state.subscribers.is_empty() {
            return Err(ApiError::bad_request("Channel is private and have no subscribers"));
        }
        plan.unarchive = true;
    }
    if let Some(description) = &changes.description {
        if description.chars().count() as i64 > MAX_CHANNEL_DESCRIPTION_LENGTH {
            return Err(ApiError::too_long("description", MAX_CHANNEL_DESCRIPTION_LENGTH));
        }
        let description = rules::one_line_description(description);
        plan.description = (description != c.description).then_some(description);
    }
    if let Some(name) = &changes.new_name {
        let name = name.trim();
        check_channel_name(name)?;
        if name == c.name {
            return Err(ApiError::bad_request("Channel already has that name."));
        }
        if state.name_taken && !name.eq_ignore_ascii_case(&c.name) {
            return Err(ApiError::bad_request("Channel name already in use."));
        }
        plan.name = Some(name.to_string());
    }
    if let Some(folder_id) = changes.folder_id {
        if let Some(None) = state.folder {
            return Err(invalid_folder_id());
        }
        plan.folder = (folder_id != c.folder_id).then_some(folder_id);
    }
    plan.groups = check_group_changes(me, state, &changes.groups)?;
    Ok(plan)
}

/// The permission settings that change: each new value checked, each `old` matching.
fn check_group_changes(
    me: &UserRow,
    state: &ChannelState,
    changes: &[(&'static ChannelGroupSetting, GroupChange)],
) -> ApiResult<Vec<(&'static str, GroupSettingValue)>> {
    let nobody = state.groups.0.get(crate::model::system_groups::NOBODY).copied().unwrap_or_default();
    let mut changed = Vec::new();
    for (setting, change) in changes {
        channel_permissions::check_value(setting, &change.new, &state.named_groups, &state.group_users, me)?;
        let new = change.new.clone().or_nobody(nobody);
        let current = channel_permissions::current_value(&state.channel, setting, &state.groups);
        change.check_old(&current)?;
        if new != current {
            changed.push((setting.name, new));
        }
    }
    Ok(changed)
}

/// A channel's `message_retention_days` (as sent, JSON quotes removed): owners only; days,
/// `unlimited` (-1) or `realm_default` (`None`: the organization's period).
pub fn check_retention(me: &UserRow, days: &str) -> ApiResult<Option<i64>> {
    if !me.role.is_at_least(crate::model::Role::Owner) {
        return Err(ApiError::must_be_owner());
    }
    let raw = days.parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::String(days.to_string()));
    crate::domain::realm_settings::parse_retention_days(&raw, true)
}

/// `PATCH /streams/{stream_id}`: checks every change ([`check_changes`]), writes them in
/// one batch, then sends their events and notices.
pub async fn check_update_channel(ctx: &RequestContext, me: &UserRow, id: &str, changes: &ChannelChanges) -> ApiResult<()> {
    let new_name = changes.new_name.as_deref().map(str::trim);
    let values = changes.groups.iter().flat_map(|(_, c)| std::iter::once(&c.new).chain(c.old.as_ref()));
    let group_ids: Vec<i64> = values.clone().flat_map(GroupSettingValue::group_ids).collect();
    let user_ids: Vec<i64> = values.flat_map(|v| v.user_ids().to_vec()).collect();
    let state = read_channel(ctx, me, id, new_name, changes.folder_id.flatten(), &group_ids, &user_ids).await?;
    let plan = check_changes(me, &state, changes)?;
    if plan.is_empty() {
        return Ok(());
    }
    let db = &ctx.db;
    let (realm_id, channel_id) = (RealmId(me.realm_id), ChannelId(state.channel.id));
    let mut writes = Vec::new();
    if let Some(a) = plan.access {
        writes.push(q::set_access_stmt(realm_id, channel_id, a.invite_only, a.history_public_to_subscribers, a.is_web_public)?);
    }
    if plan.unarchive {
        writes.push(q::set_archived_stmt(realm_id, channel_id, false)?);
    }
    if let Some(description) = &plan.description {
        writes.push(q::set_description_stmt(realm_id, channel_id, description)?);
    }
    if let Some(name) = &plan.name {
        writes.push(q::rename_stmt(realm_id, channel_id, name)?);
    }
    if let Some(folder) = plan.folder {
        writes.push(subscriptions::set_folder_stmt(realm_id, channel_id, folder)?);
    }
    if let Some(policy) = plan.topics_policy {
        writes.push(q::set_topics_policy_stmt(realm_id, channel_id, policy)?);
    }
    if let Some(days) = plan.retention {
        writes.push(crate::db::message_retention::set_channel_days_stmt(realm_id, channel_id, days)?);
    }
    for (setting, value) in &plan.groups {
        let (stmts, group) = crate::actions::group_setting_values::store(realm_id.0, value, crate::db::now())?;
        writes.extend(stmts);
        writes.push(q::set_group_setting_stmt(realm_id, channel_id, setting, &group)?);
    }
    // The channel as it is now, read after the writes (new anonymous groups get their ids).
    let mut batch = Batch::new();
    for write in writes {
        batch.add::<Value>(write);
    }
    let after = batch.add::<ChannelViewRow>(subscriptions::by_id_for_user_stmt(realm_id, UserId(me.id), channel_id)?);
    let results = batch.run(db).await?;
    let after = results.first(after)?.unwrap_or_else(|| changed(&state.channel, &plan));
    announce_changes(ctx, me, &state, &plan, &after).await
}

/// The channel as it is after the plan.
fn changed(channel: &ChannelViewRow, plan: &Plan) -> ChannelViewRow {
    let mut c = channel.clone();
    if let Some(a) = plan.access {
        c.invite_only = a.invite_only as i64;
        c.history_public_to_subscribers = a.history_public_to_subscribers as i64;
        c.is_web_public = a.is_web_public as i64;
    }
    if plan.unarchive {
        c.is_archived = 0;
    }
    if let Some(description) = &plan.description {
        c.description = description.clone();
    }
    if let Some(name) = &plan.name {
        c.name = name.clone();
    }
    if let Some(folder) = plan.folder {
        c.folder_id = folder;
    }
    if let Some(days) = plan.retention {
        c.message_retention_days = days;
    }
    if let Some(policy) = plan.topics_policy {
        c.topics_policy = policy;
    }
    for (setting, value) in &plan.groups {
        if let GroupSettingValue::Group(id) = value {
            c.set_group_setting(setting, *id);
        }
    }
    c
}

fn users(ids: &[i64]) -> Vec<EventUser> {
    ids.iter().copied().map(EventUser::plain).collect()
}

fn update_event(c: &ChannelViewRow, property: &'static str, value: Value, extra: Map<String, Value>, audience: CapabilityGate) -> Event {
    Event::Stream(StreamEvent::Update { property, value, stream_id: c.id, name: c.name.clone(), extra, audience })
}

/// The events and notification-bot messages of a committed change, in Zulip's order.
async fn announce_changes(ctx: &RequestContext, me: &UserRow, state: &ChannelState, plan: &Plan, after: &ChannelViewRow) -> ApiResult<()> {
    let env = &ctx.env;
    let realm_id = me.realm_id;
    let before = &state.channel;
    let settings = ctx.realm_state(realm_id).await?.settings.clone();
    let audience = state.audience(after, &plan.groups);
    let notice_channel = PlannedChannel { id: after.id, name: after.name.clone(), recipient_id: after.recipient_id };
    // Those who see the channel only after the change hear of its creation, with its
    // subscribers; those who no longer see it, of its deletion (Zulip's events).
    let old_audience = state.audience(before, &[]);
    let newly: Vec<i64> = audience.iter().copied().filter(|u| !old_audience.contains(u)).collect();
    let lost: Vec<i64> = old_audience.iter().copied().filter(|u| !audience.contains(u)).collect();
    if !newly.is_empty() {
        let streams = vec![stream_dict(after, &state.groups)];
        send_event(env, realm_id, &Event::Stream(StreamEvent::Create { streams, audience: CapabilityGate::default() }), &users(&newly))
            .await;
        let peer_add = Event::Subscription(SubscriptionEvent::PeerAdd { stream_ids: vec![after.id], user_ids: state.subscribers.clone() });
        send_event(env, realm_id, &peer_add, &users(&newly)).await;
    }
    if !lost.is_empty() {
        let delete = StreamEvent::Delete {
            streams: vec![json!({ "stream_id": after.id })],
            stream_ids: vec![after.id],
            audience: CapabilityGate::default(),
        };
        send_event(env, realm_id, &Event::Stream(delete), &users(&lost)).await;
    }
    // The rest of the events go to those who saw the channel before and still do.
    let audience: Vec<i64> = audience.into_iter().filter(|u| !newly.contains(u)).collect();
    if let Some(new) = plan.access {
        let mut extra = Map::new();
        extra.insert("history_public_to_subscribers".into(), json!(new.history_public_to_subscribers));
        extra.insert("is_web_public".into(), json!(new.is_web_public));
        let event = update_event(before, "invite_only", json!(new.invite_only), extra, CapabilityGate::default());
        send_event(env, realm_id, &event, &users(&audience)).await;
        let content = rules::access_notice(me, access_of(before), new);
        send_channel_notice(ctx, me, &settings, notice_channel.clone(), content).await?;
    }
    if plan.unarchive {
        announce_archiving(ctx, me, &settings, after, &state.groups, &audience, false).await?;
    }
    if let Some(description) = &plan.description {
        let mut extra = Map::new();
        extra.insert("rendered_description".into(), json!(rendered_description(description)));
        let event = update_event(before, "description", json!(description), extra, CapabilityGate::default());
        send_event(env, realm_id, &event, &users(&audience)).await;
        let content = rules::description_notice(me, &before.description, description);
        send_channel_notice(ctx, me, &settings, notice_channel.clone(), content).await?;
    }
    if let Some(name) = &plan.name {
        let event = update_event(before, "name", json!(name), Map::new(), CapabilityGate::default());
        send_event(env, realm_id, &event, &users(&audience)).await;
        send_channel_notice(ctx, me, &settings, notice_channel.clone(), rules::rename_notice(me, &before.name, name)).await?;
    }
    if let Some(folder) = plan.folder {
        let event = update_event(after, "folder_id", json!(folder), Map::new(), CapabilityGate::default());
        send_event(env, realm_id, &event, &users(&audience)).await;
    }
    if let Some(days) = plan.retention {
        let event = update_event(after, "message_retention_days", json!(days), Map::new(), CapabilityGate::default());
        send_event(env, realm_id, &event, &users(&audience)).await;
        let realm_days = settings.message_retention_days;
        let content = rules::retention_notice(me, before.message_retention_days.unwrap_or(realm_days), days.unwrap_or(realm_days));
        send_channel_notice(ctx, me, &settings, notice_channel.clone(), content).await?;
        crate::actions::message_retention::sweep_soon(ctx, realm_id).await;
    }
    if let Some(policy) = plan.topics_policy {
        let event = update_event(after, "topics_policy", json!(policy), Map::new(), CapabilityGate::default());
        send_event(env, realm_id, &event, &users(&audience)).await;
    }
    for (setting, value) in &plan.groups {
        let event = update_event(after, setting, value.to_json(), Map::new(), CapabilityGate::default());
        send_event(env, realm_id, &event, &users(&audience)).await;
    }
    Ok(())
}

/// Archiving's (or unarchiving's) events and notice: clients that know archived channels
/// hear of an `update` of `is_archived`, others of the channel's `delete` (or `create`).
async fn announce_archiving(
    ctx: &RequestContext,
    me: &UserRow,
    settings: &RealmSettingsRow,
    channel: &ChannelViewRow,
    groups: &SystemGroups,
    audience: &[i64],
    archived: bool,
) -> ApiResult<()> {
    let (env, realm_id) = (&ctx.env, me.realm_id);
    let update = update_event(channel, "is_archived", json!(archived), Map::new(), CapabilityGate::with(ARCHIVED_CHANNELS));
    send_event(env, realm_id, &update, &users(audience)).await;
    let legacy = CapabilityGate::without(ARCHIVED_CHANNELS);
    let legacy = if archived {
        StreamEvent::Delete { streams: vec![json!({ "stream_id": channel.id })], stream_ids: vec![channel.id], audience: legacy }
    } else {
        StreamEvent::Create { streams: vec![stream_dict(channel, groups)], audience: legacy }
    };
    send_event(env, realm_id, &Event::Stream(legacy), &users(audience)).await;
    let content = if archived { rules::archive_notice(&channel.name) } else { rules::unarchive_notice(&channel.name) };
    let notice_channel = PlannedChannel { id: channel.id, name: channel.name.clone(), recipient_id: channel.recipient_id };
    send_channel_notice(ctx, me, settings, notice_channel, content).await?;
    Ok(())
}

/// `DELETE /streams/{stream_id}`: archives a channel (administrators; "Channel is already
/// deactivated" for an archived one), taking it out of the default channels. Its messages
/// and subscriptions stay; nobody can send to it until it is unarchived.
pub async fn check_archive_channel(ctx: &RequestContext, me: &UserRow, id: &str) -> ApiResult<()> {
    let state = read_channel(ctx, me, id, None, None, &[], &[]).await?;
    check_administer(me, &state)?;
    let channel = &state.channel;
    if channel.is_archived != 0 {
        return Err(ApiError::bad_request("Channel is already deactivated"));
    }
    // An archived channel is no default channel any more.
    let was_default = state.defaults.contains(&channel.id);
    let mut writes = vec![q::set_archived_stmt(RealmId(me.realm_id), ChannelId(channel.id), true)?];
    if was_default {
        writes.push(default_channels::remove_stmt(RealmId(me.realm_id), ChannelId(channel.id))?);
    }
    crate::db::run_batch(&ctx.db, writes).await?;
    if was_default {
        let defaults = state.defaults.iter().copied().filter(|id| *id != channel.id).collect();
        crate::actions::default_channels::notify_default_channels(&ctx.env, me.realm_id, defaults, &state.members).await;
    }
    let mut archived = channel.clone();
    archived.is_archived = 1;
    let audience = state.audience(channel, &[]);
    let settings = ctx.realm_state(me.realm_id).await?.settings.clone();
    announce_archiving(ctx, me, &settings, &archived, &state.groups, &audience, true).await
}

/// `POST /streams/{stream_id}/delete_topic`: deletes the newest [`DELETE_TOPIC_BATCH`]
/// messages of the topic the administrator can see (one read, one deletion batch, its
/// `delete_message` event). Answers whether the topic is now empty for them (`complete`).
pub async fn check_delete_topic(ctx: &RequestContext, me: &UserRow, id: &str, topic: &str) -> ApiResult<bool> {
    if !me.is_realm_admin() {
        return Err(ApiError::must_be_admin());
    }
    let db = &ctx.db;
    let channel_id = crate::domain::channels::parse_channel_id(id)?;
    let settings = ctx.realm_state(me.realm_id).await?.settings.clone();
    let topic = if topic == settings.empty_topic_display_name { "" } else { topic };
    let channel: Option<ChannelViewRow> =
        crate::db::first(db, subscriptions::by_id_for_user_stmt(RealmId(me.realm_id), UserId(me.id), ChannelId(channel_id))?).await?;
    let channel = match channel {
        Some(c) if can_access_channel_content(me, &c) => c,
        _ => return Err(ApiError::invalid_channel_id()),
    };
    let all_history = access::can_read_history(me, channel.subscribed(), channel.is_private(), channel.history_public_to_subscribers != 0);
    let stmt =
        q::topic_message_ids_stmt(RealmId(me.realm_id), channel.recipient_id, topic, UserId(me.id), all_history, DELETE_TOPIC_BATCH)?;
    let ids: Vec<i64> = crate::db::all::<ChannelIdRow>(db, stmt).await?.into_iter().map(|r| r.id).collect();
    if !ids.is_empty() {
        let mut batch = Batch::new();
        let pending = message_delete::add_deletion(&mut batch, RealmId(me.realm_id), &ids, Some(ChannelId(channel.id)))?;
        let results = batch.run(db).await?;
        message_delete::finish_deletion(ctx, RealmId(me.realm_id), &results, pending).await?;
    }
    Ok((ids.len() as i64) < DELETE_TOPIC_BATCH)
}
