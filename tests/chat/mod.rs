//! Helpers for the channel and message tests: creating channels, sending, fetching and
//! editing messages, checking API objects against the fields Zulip's OpenAPI documents, and
//! the restrictive settings of the `lear` organization.
//!
//! Organization settings are shared by every test running in parallel, so the default
//! organization keeps Zulip's defaults, and the tests that need restrictive settings use
//! `lear`, where every such test applies the same values ([`restrict_lear`]): two-second
//! edit, delete and move time limits, topic moves and resolving for administrators only
//! (moves between channels stay with Zulip's default, members).
#![allow(dead_code)]

use serde_json::{json, Value};

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

/// The id of the channel named `name`.
pub fn channel_id(client: &Client, name: &str) -> i64 {
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
    post_direct(client, to, content).success()["id"].as_i64().unwrap()
}

/// A direct message of `client` to `to`, answered as it is.
pub fn post_direct(client: &Client, to: &[i64], content: &str) -> Resp {
    let to = serde_json::to_string(to).unwrap();
    client.post("/messages", &[("type", "direct"), ("to", &to), ("content", content)])
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

/// Creates a channel (subscribing its creator and `others`) and answers its name and id.
pub fn new_channel(owner: &Client, others: &[&Client], invite_only: bool, history_public: bool) -> (String, i64) {
    let name = unique("edit-");
    let principals: Vec<i64> = std::iter::once(owner.user_id).chain(others.iter().map(|c| c.user_id)).collect();
    owner
        .post(
            "/users/me/subscriptions",
            &[
                ("subscriptions", &json!([{ "name": name }]).to_string()),
                ("principals", &json!(principals).to_string()),
                ("invite_only", if invite_only { "true" } else { "false" }),
                ("history_public_to_subscribers", if history_public { "true" } else { "false" }),
            ],
        )
        .success();
    let id = owner.get("/get_stream_id", &[("stream", &name)]).success()["stream_id"].as_i64().unwrap();
    (name, id)
}

pub fn subscribe(client: &Client, channel: &str) {
    client.post("/users/me/subscriptions", &[("subscriptions", &json!([{ "name": channel }]).to_string())]).success();
}

/// Sends a channel message to the channel with this id; answers its id.
pub fn send_to_channel_id(client: &Client, channel_id: i64, topic: &str, content: &str) -> i64 {
    client.post("/messages", &[("type", "channel"), ("to", &channel_id.to_string()), ("topic", topic), ("content", content)]).success()
        ["id"]
        .as_i64()
        .unwrap()
}

/// The message as `client` fetches it with the empty topic as is (HTML content).
pub fn fetch_with_empty_topic(client: &Client, id: i64) -> Value {
    client.get(&format!("/messages/{id}"), &[("allow_empty_topic_name", "true")]).success()["message"].clone()
}

pub fn raw_content(client: &Client, id: i64) -> String {
    client.get(&format!("/messages/{id}"), &[("apply_markdown", "false")]).success()["message"]["content"].as_str().unwrap().to_string()
}

pub fn edit(client: &Client, id: i64, params: &[(&str, &str)]) -> Resp {
    client.patch(&format!("/messages/{id}"), params)
}

/// The messages of a topic, oldest first (up to 100), as `client` sees them.
pub fn topic_messages(client: &Client, channel_id: i64, topic: &str) -> Vec<Value> {
    let narrow = json!([{ "operator": "channel", "operand": channel_id }, { "operator": "topic", "operand": topic }]);
    client
        .get(
            "/messages",
            &[
                ("anchor", "newest"),
                ("num_before", "100"),
                ("num_after", "0"),
                ("narrow", &narrow.to_string()),
                ("apply_markdown", "false"),
                ("allow_empty_topic_name", "true"),
            ],
        )
        .success()["messages"]
        .as_array()
        .unwrap()
        .clone()
}

/// The ids of a topic's messages, oldest first.
pub fn topic_ids(client: &Client, channel_id: i64, topic: &str) -> Vec<i64> {
    topic_messages(client, channel_id, topic).iter().map(|m| m["id"].as_i64().unwrap()).collect()
}

/// The silent mention Zulip's notifications use for a user.
pub fn silent_mention(full_name: &str, user_id: i64) -> String {
    format!("@_**{full_name}|{user_id}**")
}

/// The id of the `role:administrators` system group of the caller's organization, from
/// `GET /user_groups` where the server has it, else from a channel's
/// `can_remove_subscribers_group` (Zulip's default: administrators).
pub fn administrators_group_id(client: &Client) -> i64 {
    let resp = client.get("/user_groups", &[]);
    if resp.status == 200 {
        let groups = resp.success()["user_groups"].as_array().unwrap().clone();
        return groups.iter().find(|g| g["name"] == "role:administrators").expect("role:administrators")["id"].as_i64().unwrap();
    }
    let streams = client.get("/streams", &[]).success()["streams"].as_array().unwrap().clone();
    streams[0]["can_remove_subscribers_group"].as_i64().expect("a group id")
}

pub fn lear(email: &str) -> Client {
    Client::dev_in(Some("lear"), email)
}

/// The settings every `lear` test runs with (idempotent; the same values in every test).
pub fn restrict_lear() {
    let king = lear("king@lear.org");
    let limit = LEAR_LIMIT_SECONDS.to_string();
    let admins = administrators_group_id(&king);
    king.patch(
        "/realm",
        &[
            ("allow_message_editing", "true"),
            ("message_content_edit_limit_seconds", limit.as_str()),
            ("message_content_delete_limit_seconds", limit.as_str()),
            ("move_messages_within_stream_limit_seconds", limit.as_str()),
            ("move_messages_between_streams_limit_seconds", limit.as_str()),
            ("can_move_messages_between_topics_group", &json!({ "new": admins }).to_string()),
            ("can_resolve_topics_group", &json!({ "new": admins }).to_string()),
        ],
    )
    .success();
}

/// `lear`'s edit, delete and move time limits: long enough that a message sent just before
/// an edit is still within them on a loaded two-core machine (two seconds were not).
pub const LEAR_LIMIT_SECONDS: u64 = 6;

/// Waits until messages sent before the call are past `lear`'s limits (the test server
/// allows no grace beyond them: `EDIT_LIMIT_GRACE_SECS=0`). Ages are whole seconds and a
/// limit is passed when the age exceeds it, so one second more always suffices.
pub fn wait_past_lear_limits() {
    std::thread::sleep(std::time::Duration::from_secs(LEAR_LIMIT_SECONDS + 1));
}

pub fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
