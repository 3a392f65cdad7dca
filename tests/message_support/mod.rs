//! Helpers shared by the edit, move and delete tests: channels, sending, fetching, and the
//! restrictive settings of the `lear` organization.
//!
//! Organization settings are shared by every test running in parallel, so the default
//! organization keeps Zulip's defaults, and the tests that need restrictive settings use
//! `lear`, where every such test applies the same values ([`restrict_lear`]): one-second
//! edit, delete and move time limits, topic moves and resolving for administrators only
//! (moves between channels stay with Zulip's default, members).
#![allow(dead_code)]

use serde_json::{json, Value};

use crate::common::*;

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

pub fn send(client: &Client, channel_id: i64, topic: &str, content: &str) -> i64 {
    client.post("/messages", &[("type", "channel"), ("to", &channel_id.to_string()), ("topic", topic), ("content", content)]).success()
        ["id"]
        .as_i64()
        .unwrap()
}

pub fn send_dm(client: &Client, to: &[i64], content: &str) -> i64 {
    client.post("/messages", &[("type", "direct"), ("to", &json!(to).to_string()), ("content", content)]).success()["id"].as_i64().unwrap()
}

/// The message as `client` fetches it (HTML content, empty topic as is).
pub fn fetch(client: &Client, id: i64) -> Value {
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
    let admins = administrators_group_id(&king);
    king.patch(
        "/realm",
        &[
            ("allow_message_editing", "true"),
            ("message_content_edit_limit_seconds", "1"),
            ("message_content_delete_limit_seconds", "1"),
            ("move_messages_within_stream_limit_seconds", "1"),
            ("move_messages_between_streams_limit_seconds", "1"),
            ("can_move_messages_between_topics_group", &json!({ "new": admins }).to_string()),
            ("can_resolve_topics_group", &json!({ "new": admins }).to_string()),
        ],
    )
    .success();
}

/// Waits until messages sent before the call are past `lear`'s one-second limits (the test
/// server allows no grace beyond them: `EDIT_LIMIT_GRACE_SECS=0`).
pub fn wait_past_lear_limits() {
    std::thread::sleep(std::time::Duration::from_secs(3));
}

pub fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
