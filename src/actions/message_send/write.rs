//! Sending's write: ONE batch (the message, its recipients' rows, attachments and topic
//! policies), then the events once it committed.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use worker::{D1Database, Env};

use super::{SendPlan, SendRequest, SentMessage};
use crate::actions::uploads::LinkedReads;
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::messages::{self, MessageRow, NewMessage, RecipientRef};
use crate::db::statement::Statement;
use crate::db::users::UserRow;
use crate::db::{user_messages, user_topics};
use crate::domain::messages::{message_dict, MessageContext, MessageOptions};
use crate::domain::outgoing_webhooks::payload_message;
use crate::error::{ApiError, ApiResult};
use crate::events::{send_event, send_message_event, Event, EventUser};
use crate::model::ids::{ChannelId, RealmId, UserId};
use crate::model::message_flags::flag_names;
use crate::model::recipients::RecipientType;
use crate::model::VisibilityPolicy;

#[derive(Deserialize)]
struct Inserted {
    id: i64,
    recipient_id: i64,
}

/// Writes a planned message in ONE D1 batch, then sends its events. `guard` statements run
/// in the same batch right after the message insert (`last_insert_rowid()` is the new
/// message's id there; they must not insert rows, since the recipients' rows that follow
/// read it too); when one fails, nothing of the batch is written.
pub async fn commit_send(db: &D1Database, env: &Env, plan: &SendPlan, req: &SendRequest, guard: Vec<Statement>) -> ApiResult<SentMessage> {
    let mut batch = Batch::new();
    let pending = add_send_writes(&mut batch, plan, req, guard)?;
    let results = batch.run(db).await?;
    finish_send(env, plan, req, &results, pending).await
}

/// Where a planned message's writes sit in a batch, for [`finish_send`].
pub struct PendingSend {
    inserted: Slot<Inserted>,
    linked: Option<LinkedReads>,
}

/// Adds the writes of a planned message to `batch` (see [`commit_send`] for `guard`), for
/// a caller that writes it together with its own change.
pub fn add_send_writes(batch: &mut Batch, plan: &SendPlan, req: &SendRequest, guard: Vec<Statement>) -> ApiResult<PendingSend> {
    let SendPlan { sender: me, content, rendered, recipient, channel_row, topic, rows, auto_policy, mention_follows, .. } = plan;
    let (now, realm_id) = (plan.date_sent, me.realm_id);
    let channel_row = channel_row.as_ref();
    for stmt in plan.direct_message_group_stmts()? {
        batch.add::<Value>(stmt);
    }
    let html = &rendered.html;
    let inserted = batch.add::<Inserted>(messages::insert_stmt(&NewMessage {
        realm_id,
        sender_id: me.id,
        recipient: recipient.clone(),
        channel_id: channel_row.map(|c| c.id),
        topic,
        content,
        rendered_content: html,
        date_sent: now,
        client: &req.client,
        is_me_message: rendered.is_me_message,
        has_image: html.contains("<img"),
        has_link: html.contains("<a "),
    })?);
    for stmt in guard {
        batch.add::<Value>(stmt);
    }
    batch.add::<Value>(user_messages::insert_for_new_message_stmt(&serde_json::to_string(&rows)?)?);
    let linked_uploads = crate::domain::uploads::linked_path_ids(content);
    if !linked_uploads.is_empty() {
        batch.add::<Value>(crate::db::attachments::link_new_message_stmt(
            RealmId(realm_id),
            UserId(me.id),
            &serde_json::to_string(&linked_uploads)?,
        )?);
    }
    let linked = LinkedReads::add(batch, me.id, &linked_uploads)?;
    if let (Some(policy), Some(c)) = (auto_policy, channel_row) {
        batch.add::<Value>(user_topics::upsert_stmt(RealmId(realm_id), UserId(me.id), ChannelId(c.id), topic, *policy, now)?);
    }
    if let Some(c) = channel_row {
        for user_id in mention_follows.iter() {
            batch.add::<Value>(user_topics::upsert_stmt(
                RealmId(realm_id),
                UserId(*user_id),
                ChannelId(c.id),
                topic,
                VisibilityPolicy::Followed,
                now,
            )?);
        }
    }
    Ok(PendingSend { inserted, linked })
}

/// The events of a message whose [`add_send_writes`] statements committed in `results`:
/// its attachments' (to the sender), the `message` event, then the topic policies it set.
pub async fn finish_send(
    env: &Env,
    plan: &SendPlan,
    req: &SendRequest,
    results: &BatchResults,
    pending: PendingSend,
) -> ApiResult<SentMessage> {
    let PendingSend { inserted, linked } = pending;
    let inserted = results.first(inserted)?.ok_or_else(|| ApiError::internal("message insert returned no id"))?;
    let (realm_id, sender) = (plan.sender.realm_id, [EventUser::plain(plan.sender.id)]);
    match linked.map(|reads| reads.take(results)).transpose() {
        Ok(linked) => {
            for event in linked.iter().flat_map(|linked| linked.events()) {
                send_event(env, realm_id, &event, &sender).await;
            }
        }
        Err(err) => worker::console_error!("attachment events not sent: {}", err.msg),
    }
    let message = message_event_dict(plan, req, &inserted);
    // Only a message that triggers an outgoing webhook keeps a copy for its payload.
    let webhook_message = (!plan.webhook_triggers.is_empty()).then(|| payload_message(&message, &plan.content));
    let event = Event::Message { message, raw_content: Some(plan.content.clone()) };
    let event_users: Vec<EventUser> =
        plan.rows.iter().map(|(id, bits)| EventUser { id: *id, flags: Some(flag_names(Some(*bits))) }).collect();
    send_message_event(env, realm_id, &event, &event_users, req.queue_id.as_deref(), req.local_id.as_deref()).await;
    for (event, user_id) in topic_policy_events(plan) {
        send_event(env, realm_id, &event, &[EventUser::plain(user_id)]).await;
    }
    Ok(SentMessage {
        id: inserted.id,
        automatic_new_visibility_policy: plan.auto_policy,
        followed_by_mention: plan.mention_follows.clone(),
        may_notify_push: plan.may_notify_push,
        changed_its_reads: plan.changes_its_reads,
        webhook_triggers: plan.webhook_triggers.clone(),
        webhook_message,
    })
}

/// The message as its `message` event shows it (to every recipient alike: no `flags`, and
/// the addresses everyone may see).
fn message_event_dict(plan: &SendPlan, req: &SendRequest, inserted: &Inserted) -> Value {
    let SendPlan { sender: me, settings, content, rendered, recipient, channel_row, topic, dm_user_ids, named_users, linkifiers, .. } =
        plan;
    let channel_row = channel_row.as_ref();
    let (recipient_type, recipient_type_id) = match (&recipient, channel_row) {
        (RecipientRef::Id(_), Some(c)) => (RecipientType::Channel, c.id),
        (RecipientRef::User(id), _) => (RecipientType::Personal, *id),
        _ => (RecipientType::DirectMessageGroup, 0),
    };
    let message = MessageRow {
        id: inserted.id,
        realm_id: me.realm_id,
        sender_id: me.id,
        recipient_id: inserted.recipient_id,
        recipient_type,
        recipient_type_id,
        channel_id: channel_row.map(|c| c.id),
        topic: topic.clone(),
        content: content.clone(),
        rendered_content: rendered.html.clone(),
        date_sent: plan.date_sent,
        client: req.client.clone(),
        is_me_message: rendered.is_me_message as i64,
        last_edit_timestamp: None,
        last_moved_timestamp: None,
        edit_history: None,
        has_attachment: 0,
        has_image: 0,
        has_link: 0,
    };
    let mut users: HashMap<i64, UserRow> = named_users.iter().cloned().map(|u| (u.id, u)).collect();
    users.insert(me.id, me.clone());
    let mut group_members_map = HashMap::new();
    if recipient_type == RecipientType::DirectMessageGroup {
        group_members_map.insert(0, dm_user_ids.clone());
    }
    let mut channel_names = HashMap::new();
    if let Some(c) = channel_row {
        channel_names.insert(c.id, c.name.clone());
    }
    let ctx = MessageContext {
        viewer: crate::domain::users::anyone(),
        settings: settings.clone(),
        realm_host: req.realm_host.clone(),
        users,
        group_members: group_members_map,
        reactions: HashMap::new(),
        channel_names,
        topic_linker: crate::markdown::TopicLinker::new(linkifiers),
    };
    let opts = MessageOptions { apply_markdown: true, allow_empty_topic_name: true, client_gravatar: false };
    let mut dict = message_dict(&message, None, &ctx, &opts);
    if let Value::Object(map) = &mut dict {
        map.remove("flags");
    }
    dict
}

/// The `user_topic` events of the policies the send set, each with its user: the sender's
/// automatic one, and `Followed` for each mentioned user who follows topics where they are
/// mentioned.
fn topic_policy_events(plan: &SendPlan) -> Vec<(Event, i64)> {
    let Some(c) = plan.channel_row.as_ref() else { return Vec::new() };
    let event = |policy| Event::UserTopic {
        stream_id: c.id,
        topic_name: plan.topic.clone(),
        last_updated: plan.date_sent,
        visibility_policy: policy,
    };
    let sender = plan.auto_policy.map(|policy| (event(policy), plan.sender.id));
    let followers = plan.mention_follows.iter().map(|user_id| (event(VisibilityPolicy::Followed), *user_id));
    sender.into_iter().chain(followers).collect()
}
