//! The notification bot's messages about moves: "has marked this topic as resolved" for a
//! pure resolve/unresolve (undone within a minute: the notice is deleted instead), and the
//! "moved here from" / "moved to" messages per `send_notification_to_*_thread`. Planned
//! from what the move read and written in its batch where that is all they need
//! ([`plan_in_advance`]); otherwise sent after it ([`after_move`]). The notices about a
//! channel's own changes ([`send_channel_notice`]) take the same send path.

use std::collections::HashMap;

use serde_json::Value;
use worker::D1Database;

use crate::actions::channels::Principal;
use crate::actions::message_delete::{self, PendingDeletion};
use crate::actions::message_send::{self, Destination, PendingSend, PlannedChannel, SendPlan, SendRequest, Sender};
use crate::actions::site::Site;
use crate::context::RequestContext;
use crate::db::batch::{Batch, BatchResults};
use crate::db::message_edits::{self as q, MoveChannelRow, SubscriberRow, KIND_NORMAL, KIND_RESOLVE_TOPIC_NOTIFICATION};
use crate::db::messages::MessageRow;
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::users::UserRow;
use crate::domain::message_edit::{self as rules, EditPlan, RESOLVE_UNDO_GRACE_SECONDS};
use crate::domain::rendering::ResolutionReads;
use crate::error::{ApiError, ApiResult};
use crate::markdown::{self, LinkableChannel, Linkifier, MentionableUser, Resolved};
use crate::model::ids::{ChannelId, MessageId, RealmId, UserId};
use crate::platform::realm_cache::RealmState;

/// What the notifications of a move are about.
pub struct MoveNotice<'a> {
    pub message: &'a MessageRow,
    pub plan: &'a EditPlan,
    pub orig_channel: &'a MoveChannelRow,
    pub target_channel: &'a MoveChannelRow,
    pub changed_ids: &'a [i64],
    pub moved_all_visible: bool,
    pub target_had_visible_messages: bool,
    /// The newest message of the target topic after the move: id, send time, kind.
    pub last_target_message: Option<(i64, i64, i64)>,
    pub notify_old: bool,
    pub notify_new: bool,
    pub settings: &'a RealmSettingsRow,
}

/// One thing a move's notifications do.
enum Notice<'a> {
    /// Delete the resolve notice an undo within the grace period withdraws.
    Withdraw(i64),
    Send(BotMessage<'a>),
}

/// What a move's notifications do, in order: the resolve notice (or its withdrawal), then
/// the new thread's message, then the old thread's.
fn notices<'a>(base_url: &str, editor: &UserRow, n: &'a MoveNotice<'a>, now: i64) -> Vec<Notice<'a>> {
    let plan = n.plan;
    let orig_topic = n.message.topic.as_str();
    let target_topic = plan.topic.as_deref().unwrap_or(orig_topic);
    let mut out = Vec::new();
    if plan.topic.is_some() && plan.content.is_none() && plan.stream_id.is_none() && plan.is_resolve_toggle() {
        match n.last_target_message {
            Some((id, sent, kind)) if kind == KIND_RESOLVE_TOPIC_NOTIFICATION && now - sent <= RESOLVE_UNDO_GRACE_SECONDS => {
                out.push(Notice::Withdraw(id));
            }
            _ => out.push(Notice::Send(BotMessage {
                channel: n.orig_channel,
                topic: target_topic,
                content: rules::resolve_notification(editor, plan.topic_resolved),
                kind: KIND_RESOLVE_TOPIC_NOTIFICATION,
            })),
        }
    }
    let count = n.changed_ids.len();
    if n.notify_new {
        let old_location = rules::topic_link(base_url, n.orig_channel.id, &n.orig_channel.name, orig_topic);
        let link = rules::narrow_url(
            base_url,
            ChannelId(n.target_channel.id),
            &n.target_channel.name,
            target_topic,
            Some(MessageId(n.message.id)),
        );
        let text =
            rules::new_thread_notification(plan, n.moved_all_visible, n.target_had_visible_messages, count, editor, &old_location, &link);
        if let Some(content) = text {
            out.push(Notice::Send(BotMessage { channel: n.target_channel, topic: target_topic, content, kind: KIND_NORMAL }));
        }
    }
    if n.notify_old {
        let new_location = rules::topic_link(base_url, n.target_channel.id, &n.target_channel.name, target_topic);
        let content = rules::old_thread_notification(n.moved_all_visible, count, editor, &new_location);
        out.push(Notice::Send(BotMessage { channel: n.orig_channel, topic: orig_topic, content, kind: KIND_NORMAL }));
    }
    out
}

/// Sends a move's notifications after its write, each message with its own read and write
/// (when [`plan_in_advance`] could not plan them).
pub async fn after_move(ctx: &RequestContext, editor: &UserRow, n: &MoveNotice<'_>, now: i64) -> ApiResult<()> {
    for notice in notices(&ctx.base_url, editor, n, now) {
        match notice {
            Notice::Withdraw(id) => message_delete::delete_messages(ctx, RealmId(editor.realm_id), &[MessageId(id)]).await?,
            Notice::Send(message) => {
                send_bot_message(ctx, editor, n.settings, message, now).await?;
            }
        }
    }
    Ok(())
}

/// A move's notifications, planned before its write so that they are written in its batch.
pub struct PlannedNotices {
    items: Vec<Planned>,
}

enum Planned {
    /// The withdrawn resolve notice, in the channel of the resolved topic.
    Withdraw {
        id: i64,
        channel_id: i64,
    },
    Send(Box<PlannedMessage>),
}

/// A notification-bot message, planned.
struct PlannedMessage {
    plan: SendPlan,
    send: SendRequest,
    kind: i64,
}

/// Where [`PlannedNotices`]' writes sit in the move's batch.
pub struct PendingNotices(Vec<Pending>);

enum Pending {
    Withdraw(PendingDeletion),
    Send(PendingSend),
}

/// Plans a move's notifications from what the move read, when that is all they need: the
/// notification bot exists (`bot`) if a message is sent, and each message's content
/// references only the mover (by id) and the move's channels, which the move read already
/// (`subscribers`: every subscription of both channels). Their rendering is then what
/// reading the references would give. `None`: [`after_move`] sends them after the write
/// instead.
pub fn plan_in_advance(
    ctx: &RequestContext,
    editor: &UserRow,
    n: &MoveNotice<'_>,
    bot: Option<&UserRow>,
    subscribers: &[SubscriberRow],
    linkifiers: &[Linkifier],
    now: i64,
) -> Option<PlannedNotices> {
    let mut items = Vec::new();
    for notice in notices(&ctx.base_url, editor, n, now) {
        let BotMessage { channel, topic, content, kind } = match notice {
            // A resolve toggle stays in its channel.
            Notice::Withdraw(id) => {
                items.push(Planned::Withdraw { id, channel_id: n.orig_channel.id });
                continue;
            }
            Notice::Send(message) => message,
        };
        let bot = bot?;
        let resolved = resolve_known(&content, editor, &[n.orig_channel, n.target_channel], linkifiers)?;
        let channel_subscribers: Vec<i64> =
            subscribers.iter().filter(|s| s.channel_id == channel.id && s.active != 0).map(|s| s.user_id).collect();
        let message = message_send::BotMessage {
            bot,
            channel: PlannedChannel { id: channel.id, name: channel.name.clone(), recipient_id: channel.recipient_id },
            topic,
            content: &content,
            subscribers: &channel_subscribers,
            read_for: editor.id,
        };
        let plan = message_send::plan_bot_message(message, n.settings, &resolved, &HashMap::new(), now);
        items.push(Planned::Send(Box::new(PlannedMessage { plan, send: bot_send_request(ctx, channel.id, topic, &content), kind })));
    }
    Some(PlannedNotices { items })
}

/// What reading `content`'s references would find, when they name only `editor` (by id)
/// and `channels`: the editor is active, and no two channels' names differ only in ASCII
/// case (SQLite's `lower` and `NOCASE`, which the reads use). `None` for anything else.
fn resolve_known(content: &str, editor: &UserRow, channels: &[&MoveChannelRow], linkifiers: &[Linkifier]) -> Option<Resolved> {
    let refs = markdown::references(content);
    if !refs.user_names.is_empty()
        || !refs.group_names.is_empty()
        || !refs.emoji_names.is_empty()
        || refs.user_ids.iter().any(|id| *id != editor.id)
    {
        return None;
    }
    let mut linkable: Vec<LinkableChannel> = Vec::new();
    for name in &refs.channel_names {
        let channel = channels.iter().find(|c| c.name.eq_ignore_ascii_case(name))?;
        if !linkable.iter().any(|c| c.id == channel.id) {
            linkable.push(LinkableChannel { id: channel.id, name: channel.name.clone() });
        }
    }
    let users = match refs.user_ids.is_empty() {
        true => Vec::new(),
        false => vec![MentionableUser { id: editor.id, full_name: editor.full_name.clone() }],
    };
    Some(Resolved { users, channels: linkable, linkifiers: linkifiers.to_vec(), ..Resolved::default() })
}

impl PlannedNotices {
    /// Adds the notifications' writes to the move's batch, after the move's own.
    pub fn add_writes(&self, batch: &mut Batch, realm_id: RealmId) -> ApiResult<PendingNotices> {
        let mut pending = Vec::new();
        for item in &self.items {
            pending.push(match item {
                Planned::Withdraw { id, channel_id } => {
                    Pending::Withdraw(message_delete::add_deletion(batch, realm_id, &[*id], Some(ChannelId(*channel_id)))?)
                }
                Planned::Send(m) => {
                    Pending::Send(message_send::add_send_writes(batch, &m.plan, &m.send, vec![q::set_kind_of_inserted_stmt(m.kind)?])?)
                }
            });
        }
        Ok(PendingNotices(pending))
    }

    /// Their events, in order, once the move's batch committed.
    pub async fn finish(&self, ctx: &RequestContext, realm_id: RealmId, results: &BatchResults, pending: PendingNotices) -> ApiResult<()> {
        for (item, pending) in self.items.iter().zip(pending.0) {
            match (item, pending) {
                (Planned::Send(m), Pending::Send(pending)) => {
                    message_send::finish_planned(&Site::of_request(ctx), &m.plan, &m.send, results, pending).await?;
                }
                (Planned::Withdraw { .. }, Pending::Withdraw(pending)) => {
                    message_delete::finish_deletion(ctx, realm_id, results, pending).await?
                }
                _ => return Err(ApiError::internal("notice out of order")),
            }
        }
        Ok(())
    }
}

/// What the notification bot says, and where.
struct BotMessage<'a> {
    channel: &'a MoveChannelRow,
    topic: &'a str,
    content: String,
    kind: i64,
}

/// Sends a move's notice: [`send_to_channel`].
async fn send_bot_message(
    ctx: &RequestContext,
    acting: &UserRow,
    settings: &RealmSettingsRow,
    bot_message: BotMessage<'_>,
    now: i64,
) -> ApiResult<i64> {
    let BotMessage { channel, topic, content, kind } = bot_message;
    let channel = PlannedChannel { id: channel.id, name: channel.name.clone(), recipient_id: channel.recipient_id };
    send_to_channel(ctx, acting, settings, Outgoing { channel, topic, content, kind }, now).await
}

/// The notification bot's message about a channel itself (renamed, archived, its access
/// or description changed) in its "channel events" topic, read for `acting`, the user
/// whose change it reports.
pub async fn send_channel_notice(
    ctx: &RequestContext,
    acting: &UserRow,
    settings: &RealmSettingsRow,
    channel: PlannedChannel,
    content: String,
) -> ApiResult<i64> {
    send_notice(ctx, acting, settings, channel, crate::domain::channel_settings::CHANNEL_EVENTS_TOPIC, content).await
}

/// A notification-bot message in a channel's `topic`, read for `acting`, the user whose
/// action it reports.
pub async fn send_notice(
    ctx: &RequestContext,
    acting: &UserRow,
    settings: &RealmSettingsRow,
    channel: PlannedChannel,
    topic: &str,
    content: String,
) -> ApiResult<i64> {
    send_to_channel(ctx, acting, settings, Outgoing { channel, topic, content, kind: KIND_NORMAL }, crate::db::now()).await
}

/// Direct messages from the organization's notification bot, each `(user id, content)` to
/// an active user: the bot read once, then each message through the send path (its read
/// batch and its write).
pub async fn send_direct_notices(site: &Site, realm_id: i64, notices: Vec<(i64, String)>) -> ApiResult<()> {
    if notices.is_empty() {
        return Ok(());
    }
    let (realm, bot) = realm_and_bot(&site.db()?, realm_id).await?;
    let sender = BotSender { site, realm: &realm, bot: &bot };
    for (to, content) in notices {
        let sent = sender.send(Destination::Users(vec![Principal::Id(to)]), None, content).await;
        if let Err(err) = sent {
            worker::console_error!("user {to} not sent the notification bot's message: {}", err.msg);
        }
    }
    Ok(())
}

/// Zulip's announcement of a new user ("joined this organization.", topic "signups") in
/// the organization's channel for it, if it has one. Failures are logged: the account exists.
pub async fn announce_new_user(site: &Site, user: &UserRow) {
    let announced = async {
        let (realm, bot) = realm_and_bot(&site.db()?, user.realm_id).await?;
        let Some(channel_id) = realm.settings.signup_announcements_stream_id else { return Ok(()) };
        let sender = BotSender { site, realm: &realm, bot: &bot };
        let (to, topic) = (Destination::ChannelId(channel_id), Some(rules::SIGNUPS_TOPIC.to_string()));
        sender.send(to, topic, rules::new_user_notice(user)).await
    };
    if let Err(err) = announced.await {
        worker::console_error!("new user {} not announced: {}", user.id, err.msg);
    }
}

/// The organization's state and its notification bot (created on first use), in one read.
pub(crate) async fn realm_and_bot(db: &D1Database, realm_id: i64) -> ApiResult<(std::rc::Rc<RealmState>, UserRow)> {
    let mut batch = Batch::new();
    let realm = crate::platform::realm_cache::cached_or_add(&mut batch, realm_id, None)?;
    batch.add::<Value>(q::ensure_notification_bot_stmt(realm_id, crate::db::now())?);
    let bot = batch.add::<UserRow>(crate::db::users::by_delivery_email_stmt(realm_id, q::NOTIFICATION_BOT_EMAIL)?);
    let results = batch.run(db).await?;
    let bot = results.first(bot)?.ok_or_else(|| ApiError::internal("notification bot missing"))?;
    Ok((realm.take(&results)?, bot))
}

/// The notification bot of an organization, ready to send.
struct BotSender<'a> {
    site: &'a Site,
    realm: &'a RealmState,
    bot: &'a UserRow,
}

impl BotSender<'_> {
    /// One message through the send path, as a scheduled message is sent (one read batch,
    /// then its write).
    async fn send(&self, to: Destination, topic: Option<String>, content: String) -> ApiResult<()> {
        let send = SendRequest {
            to,
            topic,
            content,
            read_by_sender: true,
            client: "Internal".to_string(),
            queue_id: None,
            local_id: None,
            realm_url: self.site.realm_url.clone(),
            realm_host: self.site.realm_host.clone(),
        };
        message_send::send(Sender::Known { site: self.site, user: self.bot, realm: self.realm, guard: Vec::new() }, &send).await?;
        Ok(())
    }
}

/// A notification-bot message, addressed.
struct Outgoing<'a> {
    channel: PlannedChannel,
    topic: &'a str,
    content: String,
    kind: i64,
}

/// Sends a message from the organization's notification bot to a channel topic (created on
/// first use), read for the acting user, through the send path: one read batch (the bot,
/// the channel's subscribers, what the content mentions), [`message_send::plan_bot_message`],
/// then [`message_send::send`] (one write batch, the `message` event, the follow-up).
async fn send_to_channel(
    ctx: &RequestContext,
    acting: &UserRow,
    settings: &RealmSettingsRow,
    out: Outgoing<'_>,
    now: i64,
) -> ApiResult<i64> {
    let Outgoing { channel, topic, content, kind } = out;
    let db = &ctx.db;
    let realm_id = acting.realm_id;
    let mut batch = Batch::new();
    batch.add::<Value>(q::ensure_notification_bot_stmt(realm_id, now)?);
    let bot = batch.add::<UserRow>(crate::db::users::by_delivery_email_stmt(realm_id, q::NOTIFICATION_BOT_EMAIL)?);
    let subscribers = batch.add::<SubscriberRow>(q::subscribers_stmt(&[channel.id])?);
    let resolution = ResolutionReads::add(&mut batch, RealmId(realm_id), UserId(acting.id), &markdown::references(&content), None)?;
    let results = batch.run(db).await?;
    let bot = results.first(bot)?.ok_or_else(|| ApiError::internal("notification bot missing"))?;
    let subscribers: Vec<i64> = results.rows(subscribers)?.into_iter().filter(|s| s.active != 0).map(|s| s.user_id).collect();
    let (resolved, group_members) = resolution.take(&results)?;
    let send = bot_send_request(ctx, channel.id, topic, &content);
    let message = message_send::BotMessage { bot: &bot, channel, topic, content: &content, subscribers: &subscribers, read_for: acting.id };
    let plan = message_send::plan_bot_message(message, settings, &resolved, &group_members, now);
    let guard = vec![q::set_kind_of_inserted_stmt(kind)?];
    let sent = message_send::send(Sender::Planned { site: &Site::of_request(ctx), plan: &plan, guard }, &send).await?;
    Ok(sent.id)
}

/// How the notification bot's messages are sent: internally, read by nobody but whom the
/// plan says.
fn bot_send_request(ctx: &RequestContext, channel_id: i64, topic: &str, content: &str) -> SendRequest {
    SendRequest {
        to: Destination::ChannelId(channel_id),
        topic: Some(topic.to_string()),
        content: content.to_string(),
        read_by_sender: false,
        client: "Internal".to_string(),
        queue_id: None,
        local_id: None,
        realm_url: ctx.base_url.clone(),
        realm_host: ctx.realm_host.clone(),
    }
}
