//! Subscribing (creating channels on the way) and unsubscribing, with their events.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Deserialize;
use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::actions::channel_notices;
use crate::context::RequestContext;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::channel_folders::{self, ChannelFolderRow};
use crate::db::realm_settings;
use crate::db::statement::Statement;
use crate::db::subscriptions::{self, ActiveUserRow, ChannelViewRow, SubscriberRow, SystemGroupRow};
use crate::db::user_groups::IsMemberRow;
use crate::db::user_groups::{self, GroupNameRow};
use crate::db::users::{self, UserRow};
use crate::db::{self};
use crate::domain::channel_folders::invalid_folder_id;
use crate::domain::channel_permissions::{self, ChannelGroupSetting, SubscriptionRights, CAN_ADMINISTER, SUBSCRIPTION_SETTINGS};
use crate::domain::channel_settings::MAX_BULK_NEW_SUBSCRIPTION_MESSAGES;
use crate::domain::channels::{check_channel_name, color_for, stream_dict, subscription_dict, SystemGroups};
use crate::domain::group_setting_values::{AnonymousGroup, GroupSettingValue};
use crate::domain::register_state::MAX_CHANNEL_DESCRIPTION_LENGTH;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{CapabilityGate, StreamEvent, SubscriptionEvent};
use crate::events::{send_event, Event, EventUser};
use crate::model::ids::{ChannelId, RealmId, UserId};
use crate::model::TopicsPolicy;

/// A user named in `principals`: an id or an email address.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Principal {
    Id(i64),
    Email(String),
}

impl Principal {
    fn label(&self) -> String {
        match self {
            Principal::Id(id) => id.to_string(),
            Principal::Email(e) => e.clone(),
        }
    }
}

/// The ids and the (lowercase) email addresses among `principals`.
fn ids_and_emails(principals: &[Principal]) -> (Vec<i64>, Vec<String>) {
    let ids = principals.iter().filter_map(|p| if let Principal::Id(id) = p { Some(*id) } else { None }).collect();
    let emails = principals.iter().filter_map(|p| if let Principal::Email(e) = p { Some(e.to_lowercase()) } else { None }).collect();
    (ids, emails)
}

/// The users `principals` names, for a read batch; [`principal_users`] checks them.
fn principals_stmt(realm_id: i64, principals: &[Principal]) -> ApiResult<Statement> {
    let (ids, emails) = ids_and_emails(principals);
    Ok(users::by_ids_or_emails_stmt(realm_id, &ids, &emails, true)?)
}

/// The active users of the organization named by `principals`, in the order given, from
/// the rows [`principals_stmt`] read; `UNAUTHORIZED_PRINCIPAL` for one that names nobody.
fn principal_users(rows: Vec<UserRow>, principals: &[Principal]) -> ApiResult<Vec<UserRow>> {
    let mut out: Vec<UserRow> = Vec::new();
    for p in principals {
        let found = rows.iter().find(|u| match p {
            Principal::Id(id) => u.id == *id,
            Principal::Email(e) => u.email.eq_ignore_ascii_case(e) || u.delivery_email.eq_ignore_ascii_case(e),
        });
        match found {
            Some(u) if !out.iter().any(|o| o.id == u.id) => out.push(u.clone()),
            Some(_) => {}
            None => return Err(ApiError::unauthorized_principal(&p.label())),
        }
    }
    Ok(out)
}

pub struct SubscribeRequest {
    /// (name, description) of each requested channel.
    pub channels: Vec<(String, String)>,
    pub principals: Option<Vec<Principal>>,
    pub authorization_errors_fatal: bool,
    pub invite_only: bool,
    pub history_public_to_subscribers: Option<bool>,
    /// The folder of the channels this request creates (checked to exist).
    pub folder_id: Option<i64>,
    /// Permission settings of the channels this request creates (checked like the folder).
    pub groups: Vec<(&'static ChannelGroupSetting, GroupSettingValue)>,
    /// Creation settings this server refuses unless they are Zulip's default.
    pub is_web_public: bool,
    pub message_retention_days: Option<String>,
    /// Whether the channels this request creates become default channels (administrators,
    /// public channels only).
    pub is_default_stream: bool,
    /// The empty-topic rule of the channels this request creates.
    pub topics_policy: TopicsPolicy,
    /// Whether the channels this request creates are announced where the organization
    /// announces new channels.
    pub announce: bool,
    /// `POST /channels/create`: the channel must be new, and only `principals` (perhaps
    /// nobody) are subscribed.
    pub create_only: bool,
}

impl SubscribeRequest {
    /// The request of a subscription that creates nothing new but what it names.
    pub fn new(channels: Vec<(String, String)>, principals: Option<Vec<Principal>>) -> Self {
        SubscribeRequest {
            channels,
            principals,
            authorization_errors_fatal: true,
            invite_only: false,
            history_public_to_subscribers: None,
            folder_id: None,
            groups: Vec::new(),
            is_web_public: false,
            message_retention_days: None,
            announce: false,
            is_default_stream: false,
            topics_policy: TopicsPolicy::Inherit,
            create_only: false,
        }
    }

    /// The names, descriptions and creation settings, checked before anything is read.
    /// Answers the new channels' own retention period (`None`: the organization's).
    fn check_creation_settings(&self, me: &UserRow) -> ApiResult<Option<i64>> {
        for (name, description) in &self.channels {
            check_channel_name(name)?;
            if description.chars().count() as i64 > MAX_CHANNEL_DESCRIPTION_LENGTH {
                return Err(ApiError::too_long("description", MAX_CHANNEL_DESCRIPTION_LENGTH));
            }
        }
        if self.is_web_public {
            return Err(ApiError::bad_request("Web-public channels are not enabled."));
        }
        match &self.message_retention_days {
            Some(days) => crate::actions::channel_settings::check_retention(me, days),
            None => Ok(None),
        }
    }
}

impl SubscribeRequest {
    /// Reads the active groups the permission settings name, if any, in `batch`.
    fn add_group_names(&self, batch: &mut Batch, realm_id: i64) -> ApiResult<Option<Slot<GroupNameRow>>> {
        let ids: Vec<i64> = self.groups.iter().flat_map(|(_, value)| value.group_ids()).collect();
        let stmt = (!ids.is_empty()).then(|| user_groups::active_names_stmt(realm_id, &ids)).transpose()?;
        Ok(stmt.map(|stmt| batch.add::<GroupNameRow>(stmt)))
    }

    /// Reads the users the permission settings name, if any, in `batch`.
    fn add_group_users(&self, batch: &mut Batch, realm_id: i64) -> ApiResult<Option<Slot<UserRow>>> {
        let ids: Vec<i64> = self.groups.iter().flat_map(|(_, value)| value.user_ids().to_vec()).collect();
        let stmt = (!ids.is_empty()).then(|| users::by_ids_stmt(realm_id, &serde_json::to_string(&ids)?)).transpose()?;
        Ok(stmt.map(|stmt| batch.add::<UserRow>(stmt)))
    }

    /// Each permission setting's value suits it (`named`, `users`: what
    /// [`Self::add_group_names`] and [`Self::add_group_users`] read), and the caller may set
    /// the topics policy asked for.
    fn check_groups(&self, me: &UserRow, named: &[GroupNameRow], users: &[UserRow], may_set_topics_policy: bool) -> ApiResult<()> {
        channel_permissions::check_may_set_topics_policy(self.topics_policy, may_set_topics_policy)?;
        for (setting, value) in &self.groups {
            channel_permissions::check_value(setting, value, named, users, me)?;
        }
        Ok(())
    }
}

/// What a subscription did, for its answer and the notification bot's messages about it.
pub struct SubscribeOutcome {
    /// Zulip's `subscribed` / `already_subscribed` (keyed by user id) and, when
    /// authorization errors are not fatal, `unauthorized`.
    pub body: Value,
    /// The channels the request created, as the caller sees them.
    pub created: Vec<ChannelViewRow>,
    /// How many users the request subscribed to something.
    pub subscribed_users: usize,
    /// Each human other than the caller subscribed to channels that existed before, with
    /// their names, sorted (Zulip tells them in a direct message).
    pub told: Vec<(i64, Vec<String>)>,
}

/// Subscribes the principals (default: the caller) to the named channels, creating the
/// missing ones.
pub async fn check_subscribe(db: &D1Database, env: &Env, me: &UserRow, req: &SubscribeRequest) -> ApiResult<SubscribeOutcome> {
    let realm_id = me.realm_id;
    let retention = req.check_creation_settings(me)?;
    let principals = req.principals.as_deref().filter(|p| !p.is_empty());
    // Distinct names, case-insensitively, in request order.
    let mut seen = HashSet::new();
    let requested: Vec<&(String, String)> = req.channels.iter().filter(|(n, _)| seen.insert(n.trim().to_lowercase())).collect();
    let names: Vec<String> = requested.iter().map(|(n, _)| n.trim().to_string()).collect();
    let names_json = serde_json::to_string(&names)?;
    // The principals, the channels, who of them is subscribed already and the folder in one
    // read; the checks follow in Zulip's order.
    let (ids, emails) = principals.map(ids_and_emails).unwrap_or_else(|| (vec![me.id], vec![]));
    let mut lookup = Batch::new();
    let named = principals.map(|p| principals_stmt(realm_id, p)).transpose()?.map(|stmt| lookup.add::<UserRow>(stmt));
    let existing = lookup.add::<ChannelViewRow>(subscriptions::by_names_for_user_stmt(RealmId(realm_id), UserId(me.id), &names_json)?);
    let already = lookup.add::<SubscriberRow>(subscriptions::already_subscribed_stmt(realm_id, &ids, &emails, &names_json)?);
    let folder_stmt = req.folder_id.map(|id| channel_folders::by_id_stmt(RealmId(realm_id), id)).transpose()?;
    let folder = folder_stmt.map(|stmt| lookup.add::<ChannelFolderRow>(stmt));
    let named_groups = req.add_group_names(&mut lookup, realm_id)?;
    let group_users = req.add_group_users(&mut lookup, realm_id)?;
    // The organization's rights to create channels of this kind and to set a topics policy.
    let creation_setting = if req.invite_only { "can_create_private_channel_group" } else { "can_create_public_channel_group" };
    let in_group = |setting| realm_settings::in_group_setting_stmt(RealmId(realm_id), setting, UserId(me.id));
    let may_create = lookup.add::<IsMemberRow>(in_group(creation_setting)?);
    let may_set_policy = lookup.add::<IsMemberRow>(in_group("can_set_topics_policy_group")?);
    let may_add_others = lookup.add::<IsMemberRow>(in_group("can_add_subscribers_group")?);
    let rights = RightsReads::add(&mut lookup, me, &names)?;
    let lookup = lookup.run(db).await?;
    let targets = match (principals, named) {
        (Some(p), Some(named)) => principal_users(lookup.rows(named)?, p)?,
        _ if req.create_only => Vec::new(),
        _ => vec![me.clone()],
    };
    let for_others = targets.iter().any(|u| u.id != me.id);
    if for_others && me.is_guest() {
        return Err(ApiError::insufficient_permission());
    }
    let existing: Vec<ChannelViewRow> = lookup.rows(existing)?;
    if let Some(c) = existing.first().filter(|_| req.create_only) {
        return Err(ApiError::channel_already_exists(&c.name));
    }
    let already: HashSet<(i64, i64)> = lookup.rows(already)?.into_iter().map(|r| (r.user_id, r.channel_id)).collect();
    if let Some(folder) = folder {
        lookup.first(folder)?.ok_or_else(invalid_folder_id)?;
    }
    let is_member = |slot| -> ApiResult<bool> { Ok(lookup.first::<IsMemberRow>(slot)?.is_some_and(|m| m.is_member != 0)) };
    let (may_create, may_set_policy, may_add_others) = (is_member(may_create)?, is_member(may_set_policy)?, is_member(may_add_others)?);
    req.check_groups(me, &lookup.rows_if_added(named_groups)?, &lookup.rows_if_added(group_users)?, may_set_policy)?;
    let rights = rights.take(&lookup)?;

    let sorted = sort_requested(me, &requested, &existing, &rights, req.authorization_errors_fatal, may_create)?;
    // Subscribing others to existing channels: the organization's `can_add_subscribers_group`,
    // the channel's own, or administering it (a channel being created is the caller's).
    if for_others && !me.is_realm_admin() && !may_add_others {
        let refused = existing.iter().filter(|c| sorted.authorized.contains(&c.name)).any(|c| {
            let r = rights.of(&c.name);
            !(r.add_subscribers || r.administer)
        });
        if refused {
            return Err(ApiError::insufficient_permission());
        }
    }
    if req.is_default_stream && !sorted.to_create.is_empty() {
        if !me.is_realm_admin() {
            return Err(ApiError::insufficient_permission());
        }
        if req.invite_only {
            return Err(ApiError::bad_request("A default channel cannot be private."));
        }
    }
    let writes = creation_writes(me, req, &sorted.to_create, retention, db::now())?;
    let plan = SubscribePlan { targets: &targets, existing: &existing, already: &already, sorted: &sorted };
    let mut outcome = subscribe_targets(db, env, me, &plan, writes).await?;
    if !req.authorization_errors_fatal {
        outcome.body["unauthorized"] = json!(sorted.unauthorized);
    }
    Ok(outcome)
}

/// Who is subscribed to what, as [`check_subscribe`] decided it.
struct SubscribePlan<'a> {
    targets: &'a [UserRow],
    existing: &'a [ChannelViewRow],
    /// (user id, channel id) of the subscriptions that exist already.
    already: &'a HashSet<(i64, i64)>,
    sorted: &'a Sorted,
}

/// Subscribes `targets` to the authorized channels (after `writes`, which create the new
/// ones), then sends the events.
async fn subscribe_targets(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    plan: &SubscribePlan<'_>,
    mut writes: Vec<Statement>,
) -> ApiResult<SubscribeOutcome> {
    let SubscribePlan { targets, existing, already, sorted } = *plan;
    let realm_id = me.realm_id;
    let mut subscribed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut already_subscribed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut added: Vec<(i64, String)> = Vec::new();
    for user in targets {
        for name in &sorted.authorized {
            let channel_id = existing.iter().find(|c| &c.name == name).map(|c| c.id);
            if channel_id.is_some_and(|id| already.contains(&(user.id, id))) {
                already_subscribed.entry(user.id.to_string()).or_default().push(name.clone());
            } else {
                writes.push(subscriptions::subscribe_by_name_stmt(RealmId(realm_id), UserId(user.id), name, color_for(name))?);
                subscribed.entry(user.id.to_string()).or_default().push(name.clone());
                added.push((user.id, name.clone()));
            }
        }
    }
    let created_names: HashSet<String> = sorted.to_create.iter().map(|(n, _)| n.to_lowercase()).collect();
    let mut created = Vec::new();
    if !writes.is_empty() {
        // The events' reads run after the writes, in their batch.
        let mut batch = Batch::new();
        for write in writes {
            batch.add::<Value>(write);
        }
        let after = SubscribedReads::add(&mut batch, me, &sorted.authorized)?;
        let results = batch.run(db).await?;
        let read = after.take(&results)?;
        created = read.channels.iter().filter(|c| created_names.contains(&c.name.to_lowercase())).cloned().collect();
        emit_subscription_added(env, me, read, &added, &created_names).await;
    }
    let told = to_tell(me, targets, &added, &created_names);
    let subscribed_users = subscribed.len();
    let body = json!({ "subscribed": subscribed, "already_subscribed": already_subscribed });
    Ok(SubscribeOutcome { body, created, subscribed_users, told })
}

/// The humans other than `me` that `added` subscribed to channels that existed before,
/// with those channels' names, sorted.
fn to_tell(me: &UserRow, targets: &[UserRow], added: &[(i64, String)], created: &HashSet<String>) -> Vec<(i64, Vec<String>)> {
    let mut told: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for (user_id, name) in added {
        let human = targets.iter().any(|u| u.id == *user_id && !u.is_bot());
        if *user_id != me.id && human && !created.contains(&name.to_lowercase()) {
            told.entry(*user_id).or_default().push(name.clone());
        }
    }
    told.into_iter()
        .map(|(id, mut names)| {
            names.sort();
            (id, names)
        })
        .collect()
}

/// The caller's membership in the subscription settings of the channels named (those
/// that exist), read in the request's batch.
struct RightsReads {
    slots: Vec<(String, [Slot<IsMemberRow>; 4])>,
}

/// What [`RightsReads`] read, by lowercase channel name.
struct ChannelRights(HashMap<String, SubscriptionRights>);

impl ChannelRights {
    fn of(&self, name: &str) -> SubscriptionRights {
        self.0.get(&name.trim().to_lowercase()).copied().unwrap_or_default()
    }
}

impl RightsReads {
    fn add(batch: &mut Batch, me: &UserRow, names: &[String]) -> ApiResult<Self> {
        let mut slots = Vec::new();
        for name in names {
            let read = |setting: &ChannelGroupSetting| {
                let when_default = channel_permissions::in_default_group(setting, me);
                crate::db::channels::in_group_setting_stmt(
                    RealmId(me.realm_id),
                    ChannelId(-1),
                    name,
                    setting.name,
                    UserId(me.id),
                    when_default,
                )
            };
            let [a, b, c, d] = SUBSCRIPTION_SETTINGS;
            let reads = [batch.add(read(a)?), batch.add(read(b)?), batch.add(read(c)?), batch.add(read(d)?)];
            slots.push((name.trim().to_lowercase(), reads));
        }
        Ok(RightsReads { slots })
    }

    fn take(self, results: &BatchResults) -> ApiResult<ChannelRights> {
        let mut rights = HashMap::new();
        for (name, reads) in self.slots {
            let mut member = [false; 4];
            for (i, slot) in reads.into_iter().enumerate() {
                member[i] = results.first(slot)?.is_some_and(|m| m.is_member != 0);
            }
            rights.insert(name, SubscriptionRights::from_memberships(member));
        }
        Ok(ChannelRights(rights))
    }
}

/// `POST /users/me/subscriptions`: [`check_subscribe`], then the notification bot's
/// messages ([`channel_notices`]). `tell_subscribers` (Zulip's `send_new_subscription_messages`)
/// asks for its direct messages, never sent when more than
/// [`MAX_BULK_NEW_SUBSCRIPTION_MESSAGES`] users were subscribed; the answer then says
/// whether they were (`new_subscription_messages_sent`).
pub async fn subscribe(ctx: &RequestContext, me: &UserRow, req: &SubscribeRequest, tell_subscribers: bool) -> ApiResult<Value> {
    let mut outcome = check_subscribe(&ctx.db, &ctx.env, me, req).await?;
    make_default(ctx, me, req, &outcome).await?;
    let told = tell_subscribers && outcome.subscribed_users <= MAX_BULK_NEW_SUBSCRIPTION_MESSAGES;
    channel_notices::send(ctx, me, &outcome, told, req.announce).await;
    if req.message_retention_days.is_some() {
        crate::actions::message_retention::sweep_soon(ctx, me.realm_id).await;
    }
    if tell_subscribers {
        outcome.body["new_subscription_messages_sent"] = json!(told);
    }
    Ok(outcome.body)
}

/// `POST /channels/create`: creates the one channel `req` names, subscribing only its
/// principals, announces it in itself and answers its id.
pub async fn create_channel(ctx: &RequestContext, me: &UserRow, req: &SubscribeRequest) -> ApiResult<i64> {
    let Some((name, _)) = req.channels.first() else { return Err(ApiError::bad_request("Channel name can't be empty.")) };
    let outcome = check_subscribe(&ctx.db, &ctx.env, me, req).await?;
    let Some(id) = outcome.created.first().map(|c| c.id) else {
        return Err(ApiError::bad_request(format!("Invalid channel name '{name}'")));
    };
    make_default(ctx, me, req, &outcome).await?;
    channel_notices::send(ctx, me, &outcome, false, req.announce).await;
    if req.message_retention_days.is_some() {
        crate::actions::message_retention::sweep_soon(ctx, me.realm_id).await;
    }
    Ok(id)
}

/// Makes the channels the request created default channels when it asks for that.
async fn make_default(ctx: &RequestContext, me: &UserRow, req: &SubscribeRequest, outcome: &SubscribeOutcome) -> ApiResult<()> {
    if req.is_default_stream {
        for channel in &outcome.created {
            crate::actions::default_channels::check_add_default_channel(ctx, me, &channel.id.to_string()).await?;
        }
    }
    Ok(())
}

/// The requested channels, sorted: those the caller may subscribe to (existing or to
/// create), those it may not (an error when `authorization_errors_fatal`).
struct Sorted {
    authorized: Vec<String>,
    to_create: Vec<(String, String)>,
    unauthorized: Vec<String>,
}

fn sort_requested(
    me: &UserRow,
    requested: &[&(String, String)],
    existing: &[ChannelViewRow],
    rights: &ChannelRights,
    fatal: bool,
    may_create: bool,
) -> ApiResult<Sorted> {
    let mut sorted = Sorted { authorized: Vec::new(), to_create: Vec::new(), unauthorized: Vec::new() };
    for (name, description) in requested.iter() {
        let name = name.trim();
        match existing.iter().find(|c| c.name.eq_ignore_ascii_case(name)) {
            Some(c) => {
                let allowed = rights.of(name).may_join(me, crate::domain::channels::can_see_channel(me, c));
                if allowed {
                    sorted.authorized.push(c.name.clone());
                } else if fatal {
                    return Err(ApiError::bad_request(format!("Unable to access channel ({}).", c.name)));
                } else {
                    sorted.unauthorized.push(c.name.clone());
                }
            }
            None => {
                // The organization's `can_create_public_channel_group` or
                // `can_create_private_channel_group` (never guests).
                if me.is_guest() || !may_create {
                    return Err(ApiError::insufficient_permission());
                }
                sorted.to_create.push((name.to_string(), description.clone()));
                sorted.authorized.push(name.to_string());
            }
        }
    }
    Ok(sorted)
}

/// The statements that create the channels `to_create` names (name, description).
fn creation_writes(
    me: &UserRow,
    req: &SubscribeRequest,
    to_create: &[(String, String)],
    message_retention_days: Option<i64>,
    now: i64,
) -> ApiResult<Vec<Statement>> {
    let history_public = if req.invite_only { req.history_public_to_subscribers.unwrap_or(false) } else { true };
    let mut writes = Vec::new();
    for (name, description) in to_create {
        // Each channel gets its own anonymous groups; by default its creator administers it.
        let mut values: Vec<(&'static str, &GroupSettingValue)> = req.groups.iter().map(|(setting, value)| (setting.name, value)).collect();
        let creator = GroupSettingValue::Anonymous(AnonymousGroup { direct_members: vec![me.id], direct_subgroups: vec![] });
        if !values.iter().any(|(setting, _)| *setting == CAN_ADMINISTER.name) {
            values.push((CAN_ADMINISTER.name, &creator));
        }
        let mut groups = Vec::new();
        for (setting, value) in values {
            let (stmts, stored) = crate::actions::group_setting_values::store(me.realm_id, value, now)?;
            writes.extend(stmts);
            groups.push((setting, stored));
        }
        let channel = subscriptions::NewChannel {
            name,
            description,
            invite_only: req.invite_only,
            history_public_to_subscribers: history_public,
            folder_id: req.folder_id,
            creator_id: me.id,
            message_retention_days,
            topics_policy: req.topics_policy,
            groups: &groups,
        };
        writes.extend(subscriptions::create_channel_stmts(me.realm_id, &channel, now)?);
    }
    Ok(writes)
}

/// What the events after subscribing read, after the subscribing writes in their batch:
/// the channels as the caller sees them, the system groups, the organization's active
/// users and the channels' subscribers.
struct SubscribedReads {
    channels: Slot<ChannelViewRow>,
    groups: Slot<SystemGroupRow>,
    everyone: Slot<ActiveUserRow>,
    subscribers: Slot<SubscriberRow>,
}

struct Subscribed {
    channels: Vec<ChannelViewRow>,
    groups: SystemGroups,
    everyone: Vec<i64>,
    subscribers: Vec<SubscriberRow>,
}

impl SubscribedReads {
    fn add(batch: &mut Batch, me: &UserRow, names: &[String]) -> ApiResult<Self> {
        let realm_id = me.realm_id;
        let names = serde_json::to_string(names)?;
        Ok(SubscribedReads {
            channels: batch.add(subscriptions::by_names_for_user_stmt(RealmId(realm_id), UserId(me.id), &names)?),
            groups: batch.add(subscriptions::system_groups_stmt(realm_id)?),
            everyone: batch.add(subscriptions::active_user_ids_stmt(realm_id)?),
            subscribers: batch.add(subscriptions::subscribers_by_names_stmt(realm_id, &names)?),
        })
    }

    fn take(self, results: &BatchResults) -> ApiResult<Subscribed> {
        Ok(Subscribed {
            channels: results.rows(self.channels)?,
            groups: SystemGroups::new(results.rows(self.groups)?),
            everyone: results.rows(self.everyone)?.into_iter().map(|r| r.id).collect(),
            subscribers: results.rows(self.subscribers)?,
        })
    }
}

/// Events after subscribing: `stream`/`create` for new channels, `subscription`/`add` to each
/// new subscriber, `subscription`/`peer_add` to those who can see the channel.
async fn emit_subscription_added(env: &Env, me: &UserRow, read: Subscribed, added: &[(i64, String)], created: &HashSet<String>) {
    let realm_id = me.realm_id;
    let Subscribed { channels, groups, everyone, subscribers } = read;
    let mut by_channel: HashMap<i64, Vec<i64>> = HashMap::new();
    for s in &subscribers {
        by_channel.entry(s.channel_id).or_default().push(s.user_id);
    }
    let audience = |c: &ChannelViewRow| -> Vec<EventUser> {
        if c.is_private() {
            by_channel.get(&c.id).cloned().unwrap_or_default().into_iter().map(EventUser::plain).collect()
        } else {
            everyone.iter().copied().map(EventUser::plain).collect()
        }
    };
    for c in channels.iter().filter(|c| created.contains(&c.name.to_lowercase())) {
        let event = Event::Stream(StreamEvent::Create { streams: vec![stream_dict(c, &groups)], audience: CapabilityGate::default() });
        send_event(env, realm_id, &event, &audience(c)).await;
    }
    let mut per_user: BTreeMap<i64, Vec<Value>> = BTreeMap::new();
    let mut per_channel: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for (user_id, name) in added {
        if let Some(c) = channels.iter().find(|c| c.name.eq_ignore_ascii_case(name)) {
            let mut view = c.clone();
            if *user_id != me.id {
                view.color = Some(color_for(&c.name).to_string());
                view.is_muted = Some(0);
                view.pin_to_top = Some(0);
            }
            let subs = by_channel.get(&c.id).map(Vec::as_slice);
            per_user.entry(*user_id).or_default().push(subscription_dict(&view, &groups, subs, None));
            per_channel.entry(c.id).or_default().push(*user_id);
        }
    }
    for (user_id, subs) in per_user {
        let event = Event::Subscription(SubscriptionEvent::Add { subscriptions: subs });
        send_event(env, realm_id, &event, &[EventUser::plain(user_id)]).await;
    }
    for (channel_id, user_ids) in per_channel {
        if let Some(c) = channels.iter().find(|c| c.id == channel_id) {
            let users: Vec<EventUser> = audience(c).into_iter().filter(|u| !user_ids.contains(&u.id)).collect();
            let event = Event::Subscription(SubscriptionEvent::PeerAdd { stream_ids: vec![channel_id], user_ids });
            send_event(env, realm_id, &event, &users).await;
        }
    }
}

/// "Channel(s) (…) do not exist" unless every name is one of `channels` that `me` can see.
fn check_named_channels_exist(me: &UserRow, names: &[String], channels: &[ChannelViewRow]) -> ApiResult<()> {
    let missing: Vec<&str> = names
        .iter()
        .filter(|n| !channels.iter().any(|c| c.name.eq_ignore_ascii_case(n.trim()) && crate::domain::channels::can_see_channel(me, c)))
        .map(String::as_str)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(ApiError::bad_request(format!("Channel(s) ({}) do not exist", missing.join(", "))))
}

/// `PATCH /users/me/subscriptions`: Zulip's subscribe (`add`: names and descriptions) and
/// unsubscribe (`delete`: names) of the caller in one request, answered as both answer.
/// The channels to leave are checked before anything is added, and each half checks before
/// it writes, so a request either half refuses changes nothing.
pub async fn update_subscriptions(ctx: &RequestContext, me: &UserRow, add: Vec<(String, String)>, delete: &[String]) -> ApiResult<Value> {
    if add.is_empty() && delete.is_empty() {
        return Err(ApiError::bad_request("Nothing to do. Specify at least one of \"add\" or \"delete\"."));
    }
    if !add.is_empty() && !delete.is_empty() {
        let names_json = serde_json::to_string(delete)?;
        let channels =
            crate::db::all(&ctx.db, subscriptions::by_names_for_user_stmt(RealmId(me.realm_id), UserId(me.id), &names_json)?).await?;
        check_named_channels_exist(me, delete, &channels)?;
    }
    let mut body = match add.is_empty() {
        true => json!({ "subscribed": {}, "already_subscribed": {} }),
        false => subscribe(ctx, me, &SubscribeRequest::new(add, None), true).await?,
    };
    let removal = match delete.is_empty() {
        true => json!({ "removed": [], "not_removed": [] }),
        false => check_unsubscribe(&ctx.db, &ctx.env, me, delete, None).await?,
    };
    body["removed"] = removal["removed"].clone();
    body["not_removed"] = removal["not_removed"].clone();
    Ok(body)
}

/// Unsubscribes the principals (default: the caller) from the named channels. Removing
/// others needs Zulip's `can_remove_subscribers_group` rule
/// ([`SubscriptionRights::may_remove_subscribers`]) for every named channel. Answers `removed` and `not_removed` (channel names).
pub async fn check_unsubscribe(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    names: &[String],
    principals: Option<&[Principal]>,
) -> ApiResult<Value> {
    let realm_id = me.realm_id;
    let principals = principals.filter(|p| !p.is_empty());
    let names_json = serde_json::to_string(names)?;
    // The principals, the channels and their subscribers in one read; the checks follow in
    // Zulip's order.
    let mut batch = Batch::new();
    let named = principals.map(|p| principals_stmt(realm_id, p)).transpose()?.map(|stmt| batch.add::<UserRow>(stmt));
    let channels = batch.add::<ChannelViewRow>(subscriptions::by_names_for_user_stmt(RealmId(realm_id), UserId(me.id), &names_json)?);
    let subscribers = batch.add::<SubscriberRow>(subscriptions::subscribers_by_names_stmt(realm_id, &names_json)?);
    let rights = principals.map(|_| RightsReads::add(&mut batch, me, names)).transpose()?;
    let results = batch.run(db).await?;
    let targets = match (principals, named) {
        (Some(p), Some(named)) => principal_users(results.rows(named)?, p)?,
        _ => vec![me.clone()],
    };
    let channels = results.rows(channels)?;
    if targets.iter().any(|u| u.id != me.id) {
        let rights = rights.map(|r| r.take(&results)).transpose()?.unwrap_or(ChannelRights(HashMap::new()));
        let may = |c: &ChannelViewRow| rights.of(&c.name).may_remove_subscribers(me, crate::domain::channels::can_see_channel(me, c));
        if !channels.iter().all(may) {
            return Err(ApiError::insufficient_permission());
        }
    }
    check_named_channels_exist(me, names, &channels)?;
    let subscribers = results.rows(subscribers)?;
    let mut removed = Vec::new();
    let mut not_removed = Vec::new();
    let mut writes = Vec::new();
    let mut removals: Vec<(i64, &ChannelViewRow)> = Vec::new();
    for user in &targets {
        for c in &channels {
            if subscribers.iter().any(|s| s.user_id == user.id && s.channel_id == c.id) {
                writes.push(subscriptions::unsubscribe_stmt(RealmId(realm_id), UserId(user.id), ChannelId(c.id))?);
                removed.push(c.name.clone());
                removals.push((user.id, c));
            } else {
                not_removed.push(c.name.clone());
            }
        }
    }
    if !writes.is_empty() {
        crate::db::run_batch(db, writes).await?;
        for (user_id, c) in &removals {
            let event =
                Event::Subscription(SubscriptionEvent::Remove { subscriptions: vec![json!({ "name": c.name, "stream_id": c.id })] });
            send_event(env, realm_id, &event, &[EventUser::plain(*user_id)]).await;
            let peers: Vec<EventUser> =
                subscribers.iter().filter(|s| s.channel_id == c.id && s.user_id != *user_id).map(|s| EventUser::plain(s.user_id)).collect();
            let event = Event::Subscription(SubscriptionEvent::PeerRemove { stream_ids: vec![c.id], user_ids: vec![*user_id] });
            send_event(env, realm_id, &event, &peers).await;
        }
    }
    Ok(json!({ "removed": removed, "not_removed": not_removed }))
}
