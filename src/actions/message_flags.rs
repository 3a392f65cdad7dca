//! Changing personal message flags (`read`, `starred`, `collapsed`), with the event.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::json;
use worker::{D1Database, Env};

use crate::db::batch::Batch;
use crate::db::message_window::{add_window, WindowRequest};
use crate::db::user_messages;
use crate::db::users::UserRow;
use crate::domain::messages::invalid_message;
use crate::error::{ApiError, ApiResult};
use crate::event_types::FlagsEvent;
use crate::events::{send_event, Event, EventUser};
use crate::model::ids::{RealmId, UserId};
use crate::model::message_flags::{MessageFlag, ANY_MENTION, NO_ROW};
use crate::model::recipients::RecipientType;

#[derive(Deserialize)]
struct Found {
    id: i64,
    flags: Option<i64>,
    accessible: i64,
    channel_id: Option<i64>,
    subscribed: i64,
    topic: String,
    sender_id: i64,
    recipient_type: RecipientType,
    recipient_type_id: i64,
    /// Direct-message groups: the members, as a JSON array.
    group_members: Option<String>,
    channel_muted: Option<i64>,
}

/// Zulip's `message_details` of an event marking messages unread: what clients need to put
/// them back in their unread counts.
fn message_details(found: &[Found], changed: &[i64], me: i64) -> serde_json::Value {
    let mut details = serde_json::Map::new();
    for f in found.iter().filter(|f| changed.contains(&f.id)) {
        let mut d = json!({});
        if let Some(channel_id) = f.channel_id {
            d["type"] = json!("stream");
            d["stream_id"] = json!(channel_id);
            d["topic"] = json!(f.topic);
            d["unmuted_stream_msg"] = json!(f.channel_muted.unwrap_or(0) == 0);
        } else {
            d["type"] = json!("private");
            let mut ids: Vec<i64> = match f.recipient_type {
                RecipientType::DirectMessageGroup => {
                    f.group_members.as_deref().and_then(|j| serde_json::from_str(j).ok()).unwrap_or_default()
                }
                _ => vec![f.sender_id, f.recipient_type_id],
            };
            ids.sort_unstable();
            ids.dedup();
            ids.retain(|id| *id != me);
            d["user_ids"] = json!(ids);
        }
        let bits = f.flags.unwrap_or(0);
        if bits & ANY_MENTION != 0 {
            d["mentioned"] = json!(true);
        }
        details.insert(f.id.to_string(), d);
    }
    serde_json::Value::Object(details)
}

/// What changed: the ids whose flag changed and, when marking messages unread, the channels
/// whose messages were skipped because the user is not subscribed (Zulip keeps every unread
/// message in a subscribed channel).
pub struct FlagsUpdate {
    pub messages: Vec<i64>,
    pub ignored_because_not_subscribed_channels: Option<Vec<i64>>,
}

/// The messages a narrow's window held and what changed on them.
pub struct NarrowFlagsUpdate {
    /// The ids of the window's messages, oldest first.
    pub processed: Vec<i64>,
    pub found_oldest: bool,
    pub found_newest: bool,
    pub update: FlagsUpdate,
}

/// Reads the window of the narrow with what the flag change needs to know about its
/// messages (one batch), then sets or clears the flag on them as `do_update_message_flags`
/// does, in one more.
pub async fn do_update_message_flags_for_narrow(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    window: &WindowRequest<'_>,
    op: &str,
    flag: &str,
) -> ApiResult<NarrowFlagsUpdate> {
    let mut batch = Batch::new();
    let pending = add_window(&mut batch, me, window)?;
    let targets = batch.add::<Found>(user_messages::flag_targets_in_window_stmt(&pending));
    let results = batch.run(db).await?;
    let targets = results.rows(targets)?;
    let window = pending.take(&results)?;
    let processed: Vec<i64> = window.rows.iter().map(|(m, _)| m.id).collect();
    let change = FlagChange::parse(op, flag)?;
    // The window's neighbours were read too; only its own messages change.
    let shown: HashSet<i64> = processed.iter().copied().collect();
    let found: Vec<Found> = targets.into_iter().filter(|f| shown.contains(&f.id)).collect();
    let update = update_found_flags(db, env, me, change, &processed, found).await?;
    Ok(NarrowFlagsUpdate { processed, found_oldest: window.found_oldest, found_newest: window.found_newest, update })
}

/// A valid flag and whether it is added or removed.
#[derive(Clone, Copy)]
struct FlagChange {
    flag: MessageFlag,
    add: bool,
}

impl FlagChange {
    fn parse(op: &str, flag: &str) -> ApiResult<FlagChange> {
        let flag = MessageFlag::parse_editable(flag)?;
        let add = match op {
            "add" => true,
            "remove" => false,
            _ => return Err(ApiError::bad_request(format!("Invalid message flag operation: '{op}'"))),
        };
        Ok(FlagChange { flag, add })
    }
}

/// Validates the flag and operation, then sets or clears the flag on `message_ids` (messages
/// the user may see but did not receive get a historical row first). Answers the ids whose
/// flag changed. Two round trips whatever the number of messages.
pub async fn do_update_message_flags(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    op: &str,
    flag: &str,
    message_ids: &[i64],
) -> ApiResult<FlagsUpdate> {
    let change = FlagChange::parse(op, flag)?;
    let ids_json = serde_json::to_string(message_ids)?;
    let found: Vec<Found> =
        crate::db::all(db, user_messages::flag_targets_stmt(RealmId(me.realm_id), UserId(me.id), me.is_guest(), &ids_json)?).await?;
    update_found_flags(db, env, me, change, message_ids, found).await
}

/// Changes the flag on `message_ids`, given what `found` read about them ("Invalid
/// message(s)" if one is missing or out of the user's reach). One write batch.
async fn update_found_flags(
    db: &D1Database,
    env: &Env,
    me: &UserRow,
    change: FlagChange,
    message_ids: &[i64],
    found: Vec<Found>,
) -> ApiResult<FlagsUpdate> {
    let FlagChange { flag, add } = change;
    let bit = flag.bits();
    for id in message_ids {
        if !found.iter().any(|f| f.id == *id && f.accessible != 0) {
            return Err(invalid_message());
        }
    }
    let marking_unread = flag == MessageFlag::Read && !add;
    let mut ignored: Vec<i64> = Vec::new();
    if marking_unread {
        for f in &found {
            if let (Some(channel_id), 0) = (f.channel_id, f.subscribed) {
                if !ignored.contains(&channel_id) {
                    ignored.push(channel_id);
                }
            }
        }
    }
    let found: Vec<Found> = found.into_iter().filter(|f| !(marking_unread && f.channel_id.is_some() && f.subscribed == 0)).collect();
    // Messages without a row read as read+historical: marking them read changes nothing.
    let historical: Vec<i64> = found.iter().filter(|f| f.flags.is_none() && flag != MessageFlag::Read).map(|f| f.id).collect();
    let changed: Vec<i64> = found
        .iter()
        .filter(|f| {
            let bits = f.flags.unwrap_or(NO_ROW);
            (bits & bit != 0) != add && (f.flags.is_some() || flag != MessageFlag::Read)
        })
        .map(|f| f.id)
        .collect();
    if !changed.is_empty() {
        let stmts =
            user_messages::update_flag_stmts(me.id, &serde_json::to_string(&changed)?, &serde_json::to_string(&historical)?, bit, add)?;
        crate::db::run_batch(db, stmts).await?;
        let mut flags = FlagsEvent::new(add, flag, changed.clone(), false);
        if marking_unread {
            flags.message_details = Some(message_details(&found, &changed, me.id));
        }
        let event = Event::UpdateMessageFlags(flags);
        send_event(env, me.realm_id, &event, &[EventUser::plain(me.id)]).await;
    }
    Ok(FlagsUpdate { messages: changed, ignored_because_not_subscribed_channels: marking_unread.then_some(ignored) })
}
