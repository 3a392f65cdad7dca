//! Helpers for the channel and message tests: creating channels, sending messages, and
//! checking API objects against the fields Zulip's OpenAPI documents.
#![allow(dead_code)]

use serde_json::Value;

use crate::common::*;

/// Fields every Message object has (OpenAPI `MessagesBase`, spec "Message").
pub const MESSAGE_FIELDS: &[&str] = &[
    "avatar_url",
    "client",
    "content",
    "content_type",
    "display_recipient",
    "id",
    "is_me_message",
    "reactions",
    "recipient_id",
    "sender_email",
    "sender_full_name",
    "sender_id",
    "sender_realm_str",
    "subject",
    "submessages",
    "timestamp",
    "topic_links",
    "type",
    "flags",
];

/// Fields every channel object has (OpenAPI `BasicChannel`, required list).
pub const CHANNEL_FIELDS: &[&str] = &[
    "can_remove_subscribers_group",
    "can_subscribe_group",
    "creator_id",
    "date_created",
    "description",
    "first_message_id",
    "folder_id",
    "history_public_to_subscribers",
    "invite_only",
    "is_announcement_only",
    "is_archived",
    "is_recently_active",
    "is_web_public",
    "message_retention_days",
    "name",
    "rendered_description",
    "stream_id",
    "stream_post_policy",
    "stream_weekly_traffic",
    "subscriber_count",
];

/// The spec's subscription-properties table.
pub const SUBSCRIPTION_PROPERTIES: &[&str] = &[
    "color",
    "is_muted",
    "in_home_view",
    "pin_to_top",
    "desktop_notifications",
    "audible_notifications",
    "push_notifications",
    "email_notifications",
    "wildcard_mentions_notify",
];

#[track_caller]
pub fn assert_message_shape(m: &Value) {
    for field in MESSAGE_FIELDS {
        assert!(m.get(*field).is_some(), "message lacks {field}: {m}");
    }
    match m["type"].as_str().unwrap() {
        "stream" => {
            assert!(m["stream_id"].is_i64(), "{m}");
            assert!(m["display_recipient"].is_string(), "{m}");
        }
        "private" => {
            assert!(m.get("stream_id").is_none(), "{m}");
            assert_eq!(m["subject"], "", "{m}");
            for r in m["display_recipient"].as_array().unwrap() {
                for f in ["id", "email", "full_name", "is_mirror_dummy"] {
                    assert!(r.get(f).is_some(), "recipient lacks {f}: {m}");
                }
            }
        }
        other => panic!("unexpected type {other}"),
    }
}

#[track_caller]
pub fn assert_channel_shape(c: &Value) {
    for field in CHANNEL_FIELDS {
        assert!(c.get(*field).is_some(), "channel lacks {field}: {c}");
    }
}

/// Subscribes `client` (and `principals`, user ids) to a new channel; answers its id.
pub fn create_channel(client: &Client, name: &str, extra: &[(&str, &str)], principals: &[i64]) -> i64 {
    let subs = format!("[{{\"name\": \"{name}\"}}]");
    let principals_json = serde_json::to_string(&principals).unwrap();
    let mut form: Vec<(&str, &str)> = vec![("subscriptions", &subs)];
    if !principals.is_empty() {
        form.push(("principals", &principals_json));
    }
    form.extend_from_slice(extra);
    client.post("/users/me/subscriptions", &form).success();
    client.get("/get_stream_id", &[("stream", name)]).success()["stream_id"].as_i64().unwrap()
}

/// Sends a channel message; answers its id.
pub fn send_to_channel(client: &Client, channel: &str, topic: &str, content: &str) -> i64 {
    client.post("/messages", &[("type", "stream"), ("to", channel), ("topic", topic), ("content", content)]).success()["id"]
        .as_i64()
        .unwrap()
}

/// Sends a direct message to user ids; answers its id.
pub fn send_direct(client: &Client, to: &[i64], content: &str) -> i64 {
    let to = serde_json::to_string(to).unwrap();
    client.post("/messages", &[("type", "direct"), ("to", &to), ("content", content)]).success()["id"].as_i64().unwrap()
}

/// The caller's view of one message.
pub fn fetch(client: &Client, id: i64) -> Value {
    client.get(&format!("/messages/{id}"), &[]).success()["message"].clone()
}

pub fn flags(message: &Value) -> Vec<String> {
    message["flags"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_string()).collect()
}

/// Ids of the seeded extra users (and others) by email.
pub fn user_id(email: &str) -> i64 {
    Client::dev(email).user_id
}
