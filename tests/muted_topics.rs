//! Topic muting through the legacy `PATCH /users/me/subscriptions/muted_topics`, which
//! shares its state with `POST /user_topics`.

mod chat;
mod common;
mod event_support;
use chat::*;
use common::*;
use event_support::*;
use serde_json::Value;

const PATH: &str = "/users/me/subscriptions/muted_topics";

/// The caller's visibility policy of a topic, as `POST /register` shows it.
fn policy_of(client: &Client, channel_id: i64, topic: &str) -> Option<i64> {
    let body = client.post("/register", &[("fetch_event_types", r#"["user_topic"]"#)]).success();
    body["user_topics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["stream_id"] == channel_id && t["topic_name"] == topic)
        .map(|t| t["visibility_policy"].as_i64().unwrap())
}

fn mute(client: &Client, channel_id: i64, topic: &str, op: &str) -> Value {
    client.patch(PATH, &[("stream_id", &channel_id.to_string()), ("topic", topic), ("op", op)]).success()
}

#[test]
fn muting_by_stream_id_sets_policy_muted_and_emits_user_topic() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = create_channel(&hamlet, &unique("mute-id"), &[], &[]);
    let topic = unique("quiet");
    let mut queue = register_for(&hamlet, r#"["user_topic"]"#);
    let body = mute(&hamlet, channel, &topic, "add");
    assert_matches_openapi("PATCH", PATH, &body);
    assert!(body.get("ignored_parameters_unsupported").is_none(), "{body}");
    let event = queue.wait_for("user_topic", |e| e["type"] == "user_topic" && e["topic_name"] == topic.as_str());
    assert_eq!(event["stream_id"], channel);
    assert_eq!(event["visibility_policy"], 1);
    assert!(event["last_updated"].is_i64());
    assert_eq!(policy_of(&hamlet, channel, &topic), Some(1));
}

#[test]
fn muting_by_stream_name_works() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("mute-name");
    let channel = create_channel(&hamlet, &name, &[], &[]);
    let topic = unique("quiet");
    hamlet.patch(PATH, &[("stream", &name), ("topic", &topic), ("op", "add")]).success();
    assert_eq!(policy_of(&hamlet, channel, &topic), Some(1));
}

#[test]
fn unmuting_removes_the_policy_and_emits_user_topic_with_policy_zero() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = create_channel(&hamlet, &unique("unmute"), &[], &[]);
    let topic = unique("quiet");
    mute(&hamlet, channel, &topic, "add");
    let mut queue = register_for(&hamlet, r#"["user_topic"]"#);
    mute(&hamlet, channel, &topic, "remove");
    let event = queue.wait_for("user_topic", |e| e["type"] == "user_topic" && e["topic_name"] == topic.as_str());
    assert_eq!(event["visibility_policy"], 0);
    assert_eq!(policy_of(&hamlet, channel, &topic), None);
}

#[test]
fn muting_an_already_muted_topic_succeeds() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = create_channel(&hamlet, &unique("mute-twice"), &[], &[]);
    let topic = unique("quiet");
    mute(&hamlet, channel, &topic, "add");
    mute(&hamlet, channel, &topic, "add");
    assert_eq!(policy_of(&hamlet, channel, &topic), Some(1));
}

#[test]
fn unmuting_an_unmuted_topic_succeeds() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = create_channel(&hamlet, &unique("unmute-twice"), &[], &[]);
    let topic = unique("never-muted");
    mute(&hamlet, channel, &topic, "remove");
    assert_eq!(policy_of(&hamlet, channel, &topic), None);
}

#[test]
fn muting_a_topic_with_messages_shows_in_register_like_one_without() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("mute-msgs");
    let channel = create_channel(&hamlet, &name, &[], &[]);
    let topic = unique("busy");
    send_to_channel(&hamlet, &name, &topic, "hello");
    mute(&hamlet, channel, &topic, "add");
    assert_eq!(policy_of(&hamlet, channel, &topic), Some(1));
}

#[test]
fn legacy_muted_topics_register_key_lists_muted_topics() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("mute-legacy");
    let channel = create_channel(&hamlet, &name, &[], &[]);
    let topic = unique("quiet");
    mute(&hamlet, channel, &topic, "add");
    let body = hamlet.post("/register", &[("fetch_event_types", r#"["muted_topics"]"#)]).success();
    let muted = body["muted_topics"].as_array().unwrap();
    assert!(muted.iter().any(|m| m[0] == name.as_str() && m[1] == topic.as_str() && m[2].is_i64()), "{muted:?}");
}

#[test]
fn it_shares_state_with_post_user_topics() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = create_channel(&hamlet, &unique("mute-shared"), &[], &[]);
    let topic = unique("followed");
    hamlet.post("/user_topics", &[("stream_id", &channel.to_string()), ("topic", &topic), ("visibility_policy", "3")]).success();
    assert_eq!(policy_of(&hamlet, channel, &topic), Some(3));
    mute(&hamlet, channel, &topic, "add");
    assert_eq!(policy_of(&hamlet, channel, &topic), Some(1));
    mute(&hamlet, channel, &topic, "remove");
    assert_eq!(policy_of(&hamlet, channel, &topic), None);
}

#[test]
fn both_stream_and_stream_id_is_an_error() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("mute-both");
    let channel = create_channel(&hamlet, &name, &[], &[]);
    let body = hamlet
        .patch(PATH, &[("stream_id", &channel.to_string()), ("stream", &name), ("topic", "t"), ("op", "add")])
        .bad_request("BAD_REQUEST", "Unsupported parameter combination: stream_id, stream");
    assert_eq!(body["parameters"], "stream_id, stream");
    assert_eq!(policy_of(&hamlet, channel, "t"), None);
}

#[test]
fn neither_stream_nor_stream_id_is_an_error() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.patch(PATH, &[("topic", "t"), ("op", "add")]).bad_request("BAD_REQUEST", "Missing 'stream_id' argument");
}

#[test]
fn topic_is_required() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = create_channel(&hamlet, &unique("mute-notopic"), &[], &[]);
    hamlet
        .patch(PATH, &[("stream_id", &channel.to_string()), ("op", "add")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'topic' argument");
}

#[test]
fn op_is_required_and_must_be_add_or_remove() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = create_channel(&hamlet, &unique("mute-op"), &[], &[]);
    let id = channel.to_string();
    hamlet.patch(PATH, &[("stream_id", &id), ("topic", "t")]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'op' argument");
    hamlet.patch(PATH, &[("stream_id", &id), ("topic", "t"), ("op", "toggle")]).bad_request("BAD_REQUEST", "Invalid op");
    assert_eq!(policy_of(&hamlet, channel, "t"), None);
}

#[test]
fn topic_longer_than_max_topic_length_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = create_channel(&hamlet, &unique("mute-long"), &[], &[]);
    let max = hamlet.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success()["max_topic_length"].as_i64().unwrap();
    let long = "x".repeat(max as usize + 1);
    hamlet
        .patch(PATH, &[("stream_id", &channel.to_string()), ("topic", &long), ("op", "add")])
        .bad_request("BAD_REQUEST", &format!("topic is too long (limit: {max} characters)"));
    let exact = "y".repeat(max as usize);
    mute(&hamlet, channel, &exact, "add");
    assert_eq!(policy_of(&hamlet, channel, &exact), Some(1));
}

#[test]
fn a_channel_the_caller_is_not_subscribed_to_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("mute-unsub");
    let channel = create_channel(&othello, &name, &[], &[]);
    hamlet
        .patch(PATH, &[("stream_id", &channel.to_string()), ("topic", "t"), ("op", "add")])
        .bad_request("BAD_REQUEST", "Invalid channel ID");
    hamlet
        .patch(PATH, &[("stream", &name), ("topic", "t"), ("op", "add")])
        .bad_request("BAD_REQUEST", &format!("Invalid channel name '{name}'"));
    assert_eq!(policy_of(&hamlet, channel, "t"), None);
}

#[test]
fn an_unknown_channel_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.patch(PATH, &[("stream_id", "999999999"), ("topic", "t"), ("op", "add")]).bad_request("BAD_REQUEST", "Invalid channel ID");
}

#[test]
fn unknown_parameters_are_reported_as_ignored() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = create_channel(&hamlet, &unique("mute-ignored"), &[], &[]);
    let body = hamlet.patch(PATH, &[("stream_id", &channel.to_string()), ("topic", "t"), ("op", "add"), ("colour", "red")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], serde_json::json!(["colour"]));
}
