//! Messages in the register state: the newest id, recent conversations, starred and
//! unread messages, and topic visibility policies.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Map, Value};

use super::{StateData, StateRequest};
use crate::db::register_state::{self as q, UnreadRow};
use crate::db::users::UserRow;
use crate::model::message_flags::IS_PRIVATE;
use crate::model::recipients::RecipientType;
use crate::model::VisibilityPolicy;

/// `max_message_id`, `recent_private_conversations`, `starred_messages`, `unread_msgs`,
/// `user_topics` and the legacy `muted_topics`. Clients without `empty_topic_name` see
/// the organization's display name for the empty topic.
pub(super) fn message_sections(state: &mut Map<String, Value>, user: &UserRow, data: &StateData, req: &StateRequest<'_>) {
    let empty_topic = |topic: &str| -> String {
        if topic.is_empty() && !req.capabilities.empty_topic_name {
            data.settings.empty_topic_display_name.clone()
        } else {
            topic.to_string()
        }
    };
    if req.want("message") {
        state.insert("max_message_id".into(), json!(data.max_message_id.unwrap_or(-1)));
    }
    if req.want("recent_private_conversations") {
        state.insert("recent_private_conversations".into(), json!(recent_private_conversations(user, data)));
    }
    if req.want("starred_messages") {
        state.insert("starred_messages".into(), json!(data.starred));
    }
    if req.want("update_message_flags") && req.want("message") {
        state.insert("unread_msgs".into(), unread_msgs(user, data, &empty_topic));
    }
    if req.want("user_topic") {
        let topics: Vec<Value> = data
            .user_topics
            .iter()
            .map(|t| json!({"stream_id": t.channel_id, "topic_name": empty_topic(&t.topic), "last_updated": t.last_updated, "visibility_policy": t.visibility_policy}))
            .collect();
        state.insert("user_topics".into(), json!(topics));
    }
    if req.want("muted_topics") && !req.want("user_topic") {
        let muted: Vec<Value> = data
            .user_topics
            .iter()
            .filter(|t| t.visibility_policy == VisibilityPolicy::Muted)
            .map(|t| json!([t.channel_name, empty_topic(&t.topic), t.last_updated]))
            .collect();
        state.insert("muted_topics".into(), json!(muted));
    }
}

/// The other participants of a conversation row (none: with oneself).
fn conversation_user_ids(
    user: &UserRow,
    row_peer: i64,
    recipient_type: RecipientType,
    type_id: i64,
    groups: &HashMap<i64, Vec<i64>>,
) -> Vec<i64> {
    if recipient_type == RecipientType::DirectMessageGroup {
        groups.get(&type_id).map(|m| m.iter().copied().filter(|id| *id != user.id).collect()).unwrap_or_default()
    } else if row_peer == user.id {
        vec![]
    } else {
        vec![row_peer]
    }
}

fn direct_groups(data: &StateData) -> HashMap<i64, Vec<i64>> {
    let mut groups: HashMap<i64, Vec<i64>> = HashMap::new();
    for m in &data.direct_group_members {
        groups.entry(m.group_id).or_default().push(m.user_id);
    }
    groups
}

fn recent_private_conversations(user: &UserRow, data: &StateData) -> Vec<Value> {
    let groups = direct_groups(data);
    data.conversations
        .iter()
        .map(|c| {
            let mut ids = conversation_user_ids(user, c.peer, c.recipient_type, c.recipient_type_id, &groups);
            ids.sort_unstable();
            json!({"max_message_id": c.max_message_id, "user_ids": ids})
        })
        .collect()
}

/// Zulip's `unread_msgs`: unread message ids by direct conversation, group, channel topic,
/// and mentions.
fn unread_msgs(user: &UserRow, data: &StateData, empty_topic: &dyn Fn(&str) -> String) -> Value {
    let groups = direct_groups(data);
    let truncated = data.unread.len() as i64 > q::MAX_UNREAD_MESSAGES;
    let mut rows: Vec<&UnreadRow> = data.unread.iter().take(q::MAX_UNREAD_MESSAGES as usize).collect();
    rows.sort_by_key(|r| r.id);
    let mut pms: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    let mut huddles: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    let mut streams: BTreeMap<(i64, String), Vec<i64>> = BTreeMap::new();
    let mut mentions = Vec::new();
    for r in &rows {
        if r.flags & q::MENTION_BITS != 0 {
            mentions.push(r.id);
        }
        match (r.recipient_type, r.channel_id) {
            (RecipientType::Channel, Some(channel_id)) => streams.entry((channel_id, r.topic.clone())).or_default().push(r.id),
            (RecipientType::DirectMessageGroup, _) => {
                let mut ids = groups.get(&r.recipient_type_id).cloned().unwrap_or_default();
                ids.sort_unstable();
                let key = ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
                huddles.entry(key).or_default().push(r.id);
            }
            _ => {
                let other = if r.recipient_type_id == user.id { r.sender_id } else { r.recipient_type_id };
                pms.entry(other).or_default().push(r.id);
            }
        }
        let _ = IS_PRIVATE;
    }
    json!({
        "count": rows.len(),
        "pms": pms.into_iter().map(|(other, ids)| json!({"other_user_id": other, "sender_id": other, "unread_message_ids": ids})).collect::<Vec<_>>(),
        "huddles": huddles.into_iter().map(|(key, ids)| json!({"user_ids_string": key, "unread_message_ids": ids})).collect::<Vec<_>>(),
        "streams": streams.into_iter().map(|((channel_id, topic), ids)| json!({"stream_id": channel_id, "topic": empty_topic(&topic), "unread_message_ids": ids})).collect::<Vec<_>>(),
        "mentions": mentions,
        "old_unreads_missing": truncated,
    })
}
