//! Marking messages read in bulk: `POST /mark_all_as_read`, `/mark_stream_as_read`,
//! `/mark_topic_as_read` and `POST /messages/flags/narrow`.

mod chat;
mod common;
mod event_support;
use chat::*;
use common::*;
use event_support::*;
use serde_json::json;

fn is_read(client: &Client, id: i64) -> bool {
    flags(&fetch(client, id)).contains(&"read".to_string())
}

/// A new channel of othello and hamlet with othello's messages in two topics (unread for
/// hamlet, who has read the rest); answers (name, channel id, ids in topic a, ids in topic b).
fn channel_with_unread() -> (String, i64, Vec<i64>, Vec<i64>) {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("readstate");
    let id = create_channel(&othello, &name, &[], &[othello.user_id, hamlet.user_id]);
    // Hamlet has read the channel's opening notice.
    hamlet.post("/mark_stream_as_read", &[("stream_id", &id.to_string())]).success();
    let a = vec![send_to_channel(&othello, &name, "a", "one"), send_to_channel(&othello, &name, "a", "two")];
    let b = vec![send_to_channel(&othello, &name, "b", "three")];
    (name, id, a, b)
}

#[test]
fn mark_stream_as_read_marks_the_channels_messages_and_sends_their_ids() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, channel_id, a, b) = channel_with_unread();
    let mut queue = register_for(&hamlet, r#"["update_message_flags"]"#);
    let body = hamlet.post("/mark_stream_as_read", &[("stream_id", &channel_id.to_string())]).success();
    assert_matches_openapi("post", "/mark_stream_as_read", &body);
    for id in a.iter().chain(&b) {
        assert!(is_read(&hamlet, *id));
    }
    // Other tests change hamlet's flags at the same time: the event naming this channel's message.
    let event = queue.wait_for("update_message_flags", |e| {
        e["type"] == "update_message_flags" && e["messages"].as_array().is_some_and(|m| m.contains(&json!(a[0])))
    });
    let mut expected: Vec<i64> = a.iter().chain(&b).copied().collect();
    expected.sort_unstable();
    assert_eq!(event["messages"], json!(expected));
    assert_eq!(event["op"], "add");
    assert_eq!(event["flag"], "read");
    assert_eq!(event["all"], false);
}

#[test]
fn mark_stream_as_read_needs_a_visible_channel() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/mark_stream_as_read", &[("stream_id", "99999999")]).bad_request("BAD_REQUEST", "Invalid channel ID");
    hamlet.post("/mark_stream_as_read", &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'stream_id' argument");
}

#[test]
fn mark_topic_as_read_marks_only_that_topic() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, channel_id, a, b) = channel_with_unread();
    let body = hamlet.post("/mark_topic_as_read", &[("stream_id", &channel_id.to_string()), ("topic_name", "A")]).success();
    assert_matches_openapi("post", "/mark_topic_as_read", &body);
    assert!(a.iter().all(|id| is_read(&hamlet, *id)));
    assert!(!is_read(&hamlet, b[0]));
}

#[test]
fn mark_topic_as_read_rejects_an_unknown_topic() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, channel_id, _, b) = channel_with_unread();
    hamlet
        .post("/mark_topic_as_read", &[("stream_id", &channel_id.to_string()), ("topic_name", "nope")])
        .bad_request("BAD_REQUEST", "No such topic 'nope'");
    assert!(!is_read(&hamlet, b[0]));
}

#[test]
fn mark_all_as_read_marks_everything_and_says_all() {
    // A user of its own, so that no concurrent test sends it unread messages meanwhile.
    let iago = Client::dev("iago@zulip.com");
    let email = format!("{}@zulip.com", unique("markall"));
    let created = iago.post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", "Mark All")]).success();
    let user_id = created["user_id"].as_i64().unwrap();
    let id = send_direct(&iago, &[user_id], "unread for the new user");
    let user = Client::dev(&email);
    assert!(!is_read(&user, id));
    let mut queue = register_for(&user, r#"["update_message_flags"]"#);
    let body = user.post("/mark_all_as_read", &[]).success();
    assert_matches_openapi("post", "/mark_all_as_read", &body);
    assert_eq!(body["complete"], true);
    assert!(is_read(&user, id));
    let event = queue.wait_for("update_message_flags", |e| e["type"] == "update_message_flags");
    assert_eq!(event["all"], true);
    assert_eq!(event["messages"], json!([]));
}

#[test]
fn flags_narrow_updates_the_window_of_the_narrow() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (name, _, a, b) = channel_with_unread();
    let narrow = json!([["stream", name], ["topic", "a"]]).to_string();
    let body = hamlet
        .post(
            "/messages/flags/narrow",
            &[("anchor", "oldest"), ("num_before", "0"), ("num_after", "10"), ("narrow", &narrow), ("op", "add"), ("flag", "read")],
        )
        .success();
    assert_matches_openapi("post", "/messages/flags/narrow", &body);
    assert_eq!(body["processed_count"], 2);
    assert_eq!(body["updated_count"], 2);
    assert_eq!(body["first_processed_id"], a[0]);
    assert_eq!(body["last_processed_id"], a[1]);
    assert_eq!(body["found_newest"], true);
    assert!(a.iter().all(|id| is_read(&hamlet, *id)));
    assert!(!is_read(&hamlet, b[0]));
}

#[test]
fn flags_narrow_with_first_unread_anchor_and_no_match_processes_nothing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let narrow = json!([["search", unique("nothingmatches")]]).to_string();
    let body = hamlet
        .post(
            "/messages/flags/narrow",
            &[
                ("anchor", "first_unread"),
                ("num_before", "0"),
                ("num_after", "10"),
                ("narrow", &narrow),
                ("op", "add"),
                ("flag", "starred"),
            ],
        )
        .success();
    assert_matches_openapi("post", "/messages/flags/narrow", &body);
    assert_eq!(body["processed_count"], 0);
    assert!(body["first_processed_id"].is_null());
}

#[test]
fn flags_narrow_cannot_exclude_the_anchor_inside_the_range() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post(
            "/messages/flags/narrow",
            &[("anchor", "newest"), ("num_before", "1"), ("num_after", "1"), ("include_anchor", "false"), ("op", "add"), ("flag", "read")],
        )
        .bad_request("BAD_REQUEST", "The anchor can only be excluded at an end of the range");
}

#[test]
fn flags_narrow_checks_the_flag_as_flags_does() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post(
            "/messages/flags/narrow",
            &[("anchor", "newest"), ("num_before", "1"), ("num_after", "0"), ("op", "add"), ("flag", "mentioned")],
        )
        .bad_request("BAD_REQUEST", "Flag not editable: 'mentioned'");
}
