//! Which queue wants an event, and how an event looks to one queue. Pure functions: the
//! hub calls [`queue_wants`] when it picks target queues, the shard calls [`expand`] when it
//! stores an event and [`present`] when it answers a poll.

use serde_json::{json, Value};

use crate::protocol::QueueSpec;

/// Whether a queue asked for this event: its `event_types`, its narrow (message events),
/// and capabilities that gate whole event kinds (channel typing). `flags` are the receiving
/// user's message flags: they travel beside the event, one list per user.
pub fn queue_wants(spec: &QueueSpec, event: &Value, flags: Option<&[String]>) -> bool {
    let kind = event["type"].as_str().unwrap_or("");
    if let Some(types) = &spec.event_types {
        if !types.iter().any(|t| t == kind) {
            return false;
        }
    }
    if !capability_gate_allows(spec, event) {
        return false;
    }
    match kind {
        "message" => narrow_matches(&spec.narrow, &event["message"], flags),
        "typing" => {
            let channel = matches!(event["message_type"].as_str(), Some("stream" | "channel"));
            !channel || spec.capabilities.stream_typing_notifications
        }
        // A client that reads `user_settings` gets the `user_settings` event alone.
        "update_display_settings" | "update_global_notifications" => !spec.capabilities.user_settings_object,
        _ => true,
    }
}

/// An event meant only for queues with (`with_capability`) or without
/// (`without_capability`) a client capability.
fn capability_gate_allows(spec: &QueueSpec, event: &Value) -> bool {
    let with = event["with_capability"].as_str().is_none_or(|c| spec.capabilities.has(c));
    let without = event["without_capability"].as_str().is_none_or(|c| !spec.capabilities.has(c));
    with && without
}

/// Zulip's narrow filter of event queues, for the operators a queue narrow can hold.
fn narrow_matches(narrow: &[(String, String)], message: &Value, flags: Option<&[String]>) -> bool {
    let has_flag = |flag: &str| flags.is_some_and(|f| f.iter().any(|x| x == flag));
    let is_channel = message["type"] == "stream";
    narrow.iter().all(|(operator, operand)| match operator.as_str() {
        "stream" | "channel" => {
            is_channel
                && (message["display_recipient"].as_str().is_some_and(|n| n.eq_ignore_ascii_case(operand))
                    || message["stream_id"].as_i64().is_some_and(|id| id.to_string() == *operand))
        }
        "topic" | "subject" => is_channel && message["subject"].as_str().is_some_and(|t| t.to_lowercase() == operand.to_lowercase()),
        "sender" => message["sender_email"].as_str().is_some_and(|e| e.eq_ignore_ascii_case(operand)),
        "is" => match operand.as_str() {
            "dm" | "private" => message["type"] == "private",
            "mentioned" => has_flag("mentioned") || has_flag("wildcard_mentioned"),
            "starred" => has_flag("starred"),
            "alerted" => has_flag("has_alert_word"),
            _ => true,
        },
        _ => true,
    })
}

/// The parts one stored event becomes in a queue: clients without `bulk_message_deletion`
/// get one `delete_message` event per message (`Some(message_id)`), everything else is one
/// event (`None`).
pub fn expand(spec: &QueueSpec, event: &Value) -> Vec<Option<i64>> {
    if event["type"] == "delete_message" && !spec.capabilities.bulk_message_deletion {
        if let Some(ids) = event["message_ids"].as_array() {
            return ids.iter().filter_map(Value::as_i64).map(Some).collect();
        }
    }
    vec![None]
}

/// Per-delivery facts about one stored event in one queue.
pub struct Stored<'a> {
    pub id: i64,
    pub flags: Option<Vec<String>>,
    pub part: Option<i64>,
    pub sender_queue_id: Option<&'a str>,
    pub local_id: Option<&'a str>,
}

/// The event as this queue sees it: its `id`, the queue's markdown/gravatar/topic
/// preferences, the owner's flags and (for the sending queue) `local_message_id`.
pub fn present(spec: &QueueSpec, queue_id: &str, mut event: Value, stored: &Stored<'_>) -> Value {
    let raw_content = event.as_object_mut().and_then(|e| e.remove("raw_content"));
    if let Some(obj) = event.as_object_mut() {
        obj.remove("with_capability");
        obj.remove("without_capability");
    }
    match event["type"].as_str() {
        Some("message") => {
            let message = &mut event["message"];
            let raw = raw_content.or_else(|| message.as_object_mut().and_then(|m| m.remove("raw_content")));
            if !spec.apply_markdown {
                if let Some(raw) = raw {
                    message["content"] = raw;
                    message["content_type"] = json!("text/x-markdown");
                }
            }
            present_message_fields(spec, message);
            event["flags"] = json!(stored.flags.clone().unwrap_or_default());
            if stored.sender_queue_id == Some(queue_id) {
                if let Some(local_id) = stored.local_id {
                    event["local_message_id"] = json!(local_id);
                }
            }
        }
        Some("user_topic") => empty_topic_name(spec, &mut event, &["topic_name"]),
        Some("delete_message") => {
            empty_topic_name(spec, &mut event, &["topic"]);
            if let (Some(message_id), Some(obj)) = (stored.part, event.as_object_mut()) {
                obj.remove("message_ids");
                obj.insert("message_id".into(), json!(message_id));
            }
        }
        Some("typing") => empty_topic_name(spec, &mut event, &["topic"]),
        Some("update_message") => {
            empty_topic_name(spec, &mut event, &["subject", "topic", "orig_subject"]);
            if let Some(flags) = &stored.flags {
                event["flags"] = json!(flags);
            }
        }
        _ => {
            if let Some(flags) = &stored.flags {
                event["flags"] = json!(flags);
            }
        }
    }
    event["id"] = json!(stored.id);
    event
}

/// Clients without the `empty_topic_name` capability see the realm's display name in place
/// of the empty topic.
fn empty_topic_name(spec: &QueueSpec, event: &mut Value, keys: &[&str]) {
    if spec.capabilities.empty_topic_name {
        return;
    }
    for key in keys {
        if event.get(*key).is_some_and(|t| t == "") {
            event[*key] = json!(spec.realm_empty_topic_display_name);
        }
    }
}

fn present_message_fields(spec: &QueueSpec, message: &mut Value) {
    if !spec.capabilities.empty_topic_name && message["type"] == "stream" && message["subject"] == "" {
        message["subject"] = json!(spec.realm_empty_topic_display_name);
    }
    // With `client_gravatar` the client computes third-party avatar URLs itself.
    if spec.client_gravatar && message["avatar_url"].as_str().is_some_and(|u| u.starts_with("https://secure.gravatar.com/")) {
        message["avatar_url"] = Value::Null;
    }
}

/// Zulip's heartbeat event.
pub fn heartbeat(id: i64) -> Value {
    json!({"type": "heartbeat", "id": id})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Capabilities;

    fn spec() -> QueueSpec {
        QueueSpec {
            realm_id: 1,
            user_id: 10,
            event_types: None,
            narrow: vec![],
            all_public_streams: false,
            apply_markdown: true,
            client_gravatar: false,
            capabilities: Capabilities::default(),
            realm_empty_topic_display_name: "general chat".into(),
        }
    }

    fn message_event() -> Value {
        json!({"type": "message", "raw_content": "**hi**", "message": {
            "type": "stream", "display_recipient": "Verona", "subject": "", "content": "<p><strong>hi</strong></p>",
            "content_type": "text/html", "avatar_url": "https://secure.gravatar.com/avatar/x"}})
    }

    fn stored(id: i64) -> Stored<'static> {
        Stored { id, flags: Some(vec!["read".into()]), part: None, sender_queue_id: Some("0:q"), local_id: Some("7.01") }
    }

    #[test]
    fn event_types_filter() {
        let mut s = spec();
        s.event_types = Some(vec!["message".into()]);
        assert!(queue_wants(&s, &message_event(), None));
        assert!(!queue_wants(&s, &json!({"type": "typing"}), None));
    }

    #[test]
    fn channel_typing_needs_the_capability() {
        let mut s = spec();
        let event = json!({"type": "typing", "message_type": "stream"});
        assert!(!queue_wants(&s, &event, None));
        assert!(queue_wants(&s, &json!({"type": "typing", "message_type": "direct"}), None));
        s.capabilities.stream_typing_notifications = true;
        assert!(queue_wants(&s, &event, None));
    }

    #[test]
    fn legacy_settings_events_skip_user_settings_object_clients() {
        let event = json!({"type": "update_display_settings", "setting_name": "emojiset", "setting": "text"});
        let mut s = spec();
        assert!(queue_wants(&s, &event, None));
        s.capabilities.user_settings_object = true;
        assert!(!queue_wants(&s, &event, None));
    }

    #[test]
    fn narrow_filters_messages() {
        let mut s = spec();
        s.narrow = vec![("stream".into(), "verona".into())];
        assert!(queue_wants(&s, &message_event(), None));
        s.narrow = vec![("stream".into(), "Denmark".into())];
        assert!(!queue_wants(&s, &message_event(), None));
        s.narrow = vec![("is".into(), "dm".into())];
        assert!(!queue_wants(&s, &message_event(), None));
    }

    #[test]
    fn flag_narrows_read_the_receivers_flags() {
        let mut s = spec();
        let mentioned = vec!["mentioned".to_string()];
        let starred = vec!["starred".to_string()];
        let alerted = vec!["has_alert_word".to_string()];
        s.narrow = vec![("is".into(), "mentioned".into())];
        assert!(queue_wants(&s, &message_event(), Some(&mentioned)));
        assert!(!queue_wants(&s, &message_event(), Some(&starred)));
        s.narrow = vec![("is".into(), "starred".into())];
        assert!(queue_wants(&s, &message_event(), Some(&starred)));
        assert!(!queue_wants(&s, &message_event(), None));
        s.narrow = vec![("is".into(), "alerted".into())];
        assert!(queue_wants(&s, &message_event(), Some(&alerted)));
    }

    #[test]
    fn raw_markdown_for_apply_markdown_false() {
        let mut s = spec();
        let html = present(&s, "0:other", message_event(), &stored(3));
        assert_eq!(html["message"]["content"], "<p><strong>hi</strong></p>");
        assert!(html.get("raw_content").is_none());
        assert!(html.get("local_message_id").is_none());
        assert_eq!(html["id"], 3);
        assert_eq!(html["flags"], json!(["read"]));
        s.apply_markdown = false;
        let raw = present(&s, "0:q", message_event(), &stored(3));
        assert_eq!(raw["message"]["content"], "**hi**");
        assert_eq!(raw["message"]["content_type"], "text/x-markdown");
        assert_eq!(raw["local_message_id"], "7.01");
    }

    #[test]
    fn empty_topic_name_and_gravatar() {
        let mut s = spec();
        s.client_gravatar = true;
        let e = present(&s, "0:x", message_event(), &stored(1));
        assert_eq!(e["message"]["subject"], "general chat");
        assert!(e["message"]["avatar_url"].is_null());
        s.capabilities.empty_topic_name = true;
        assert_eq!(present(&s, "0:x", message_event(), &stored(1))["message"]["subject"], "");
    }

    #[test]
    fn delete_message_single_or_bulk() {
        let mut s = spec();
        let event = json!({"type": "delete_message", "message_ids": [4, 5], "message_type": "stream"});
        assert_eq!(expand(&s, &event), vec![Some(4), Some(5)]);
        let single =
            present(&s, "0:x", event.clone(), &Stored { id: 2, flags: None, part: Some(5), sender_queue_id: None, local_id: None });
        assert_eq!(single["message_id"], 5);
        assert!(single.get("message_ids").is_none());
        s.capabilities.bulk_message_deletion = true;
        assert_eq!(expand(&s, &event), vec![None]);
    }

    #[test]
    fn archiving_reaches_each_queue_once_in_the_form_it_knows() {
        let mut s = spec();
        let update = json!({"type": "stream", "op": "update", "property": "is_archived", "with_capability": "archived_channels"});
        let delete = json!({"type": "stream", "op": "delete", "stream_ids": [3], "without_capability": "archived_channels"});
        assert!(!queue_wants(&s, &update, None));
        assert!(queue_wants(&s, &delete, None));
        s.capabilities.archived_channels = true;
        assert!(queue_wants(&s, &update, None));
        assert!(!queue_wants(&s, &delete, None));
        let shown = present(&s, "0:x", update, &stored(4));
        assert!(shown.get("with_capability").is_none());
    }
}
