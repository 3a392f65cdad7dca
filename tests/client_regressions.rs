//! Regressions that real clients (zulip-terminal, zulip-js, the mobile app) hit: the
//! first-unread anchor outside channel narrows, the anchor flag's priority, the legacy
//! reaction `user` object, flag narrows of event queues, unknown HTTP methods.

mod chat;
mod common;
mod event_support;
use chat::*;
use common::*;
use event_support::*;
use serde_json::{json, Value};

/// Direct messages from othello to hamlet: one read (hamlet's own reply) and one unread,
/// both holding a word no other test uses; answers (word, hamlet's own id, unread id).
fn unread_conversation() -> (String, i64, i64) {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let word = unique("firstunread");
    let to = serde_json::to_string(&[othello.user_id]).unwrap();
    let content = format!("mine {word}");
    let own = hamlet.post("/messages", &[("type", "direct"), ("to", &to), ("content", &content), ("read_by_sender", "true")]).success()
        ["id"]
        .as_i64()
        .unwrap();
    let unread = send_direct(&othello, &[hamlet.user_id], &format!("yours {word}"));
    (word, own, unread)
}

/// Zulip's OpenAPI file dropped the legacy reaction `user` object (feature level 328) that
/// older clients such as zulip-terminal 0.7 still read; everything else must match it.
fn assert_matches_openapi_but_reaction_users(method: &str, path: &str, body: &Value, messages: &str) {
    let mut body = body.clone();
    let list = if messages == "message" { vec![&mut body["message"]] } else { body[messages].as_array_mut().unwrap().iter_mut().collect() };
    for message in list {
        for reaction in message["reactions"].as_array_mut().unwrap() {
            reaction.as_object_mut().unwrap().remove("user");
        }
    }
    assert_matches_openapi(method, path, &body);
}

fn fetch_first_unread(client: &Client, narrow: &Value, extra: &[(&str, &str)]) -> Value {
    let narrow = narrow.to_string();
    let mut query = vec![("narrow", narrow.as_str()), ("num_before", "5"), ("num_after", "5")];
    query.extend_from_slice(extra);
    let body = client.get("/messages", &query).success();
    assert_matches_openapi_but_reaction_users("get", "/messages", &body, "messages");
    body
}

#[test]
fn first_unread_anchor_works_in_the_home_view() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = fetch_first_unread(&hamlet, &json!([]), &[("anchor", "first_unread")]);
    assert!(body["anchor"].is_i64(), "{body}");
    let body = fetch_first_unread(&hamlet, &json!([]), &[("use_first_unread_anchor", "true")]);
    assert!(body["anchor"].is_i64(), "{body}");
}

#[test]
fn first_unread_anchor_works_in_flag_and_dm_narrows() {
    let hamlet = Client::dev("hamlet@zulip.com");
    for narrow in [json!([["is", "dm"]]), json!([["is", "starred"]]), json!([{"operator": "is", "operand": "mentioned"}])] {
        let body = fetch_first_unread(&hamlet, &narrow, &[("anchor", "first_unread")]);
        assert!(body["anchor"].is_i64(), "{narrow}: {body}");
    }
}

#[test]
fn first_unread_anchor_is_the_first_unread_message_of_the_narrow() {
    let (word, own, unread) = unread_conversation();
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = fetch_first_unread(&hamlet, &json!([["is", "dm"], ["search", word]]), &[("anchor", "first_unread")]);
    assert_eq!(body["anchor"], unread);
    assert_eq!(body["found_anchor"], true);
    let ids: Vec<i64> = body["messages"].as_array().unwrap().iter().map(|m| m["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, vec![own, unread]);
}

#[test]
fn use_first_unread_anchor_wins_over_anchor() {
    let (word, _, unread) = unread_conversation();
    let hamlet = Client::dev("hamlet@zulip.com");
    let narrow = json!([["search", word]]);
    let body = fetch_first_unread(&hamlet, &narrow, &[("anchor", "0"), ("use_first_unread_anchor", "true")]);
    assert_eq!(body["anchor"], unread);
    let body = fetch_first_unread(&hamlet, &narrow, &[("anchor", "0"), ("use_first_unread_anchor", "false")]);
    assert_eq!(body["anchor"], 0);
}

#[test]
fn reactions_in_fetched_messages_carry_the_legacy_user_object() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let id = send_direct(&hamlet, &[othello.user_id], "react to me");
    othello.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "smile")]).success();
    let expected = json!({"id": othello.user_id, "email": "othello@zulip.com", "full_name": "Othello, the Moor of Venice"});

    let single = hamlet.get(&format!("/messages/{id}"), &[]).success();
    assert_matches_openapi_but_reaction_users("get", "/messages/{message_id}", &single, "message");
    let reaction = &single["message"]["reactions"][0];
    assert_eq!(reaction["user_id"], othello.user_id);
    assert_eq!(reaction["user"], expected);

    let narrow = json!([["id", id]]).to_string();
    let many = hamlet.get("/messages", &[("narrow", &narrow), ("anchor", "newest"), ("num_before", "1"), ("num_after", "0")]).success();
    assert_eq!(many["messages"][0]["reactions"][0]["user"], expected);
}

#[test]
fn mentioned_narrow_queue_receives_mentions_only() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("mention-queue");
    create_channel(&othello, &name, &[], &[othello.user_id, hamlet.user_id]);
    let mut queue = register(&hamlet, &[("event_types", r#"["message"]"#), ("narrow", r#"[["is", "mentioned"]]"#)]);
    let plain = send_to_channel(&othello, &name, "t", "no mention here");
    let mention = send_to_channel(&othello, &name, "t", "hello @**King Hamlet**");
    // Only this test's channel: other tests mention hamlet at the same time.
    let event = queue.wait_for("message", |e| e["type"] == "message" && e["message"]["display_recipient"] == name);
    assert_eq!(event["message"]["id"], mention, "the unmentioned message {plain} must not arrive first");
    assert!(event["flags"].as_array().unwrap().contains(&json!("mentioned")), "{event}");
}

#[test]
fn starred_narrow_queue_gets_no_new_messages() {
    // New messages are never starred, so a starred narrow sees none; a mention queue of the
    // same user is the sentinel that the messages were delivered.
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("starred-queue");
    create_channel(&othello, &name, &[], &[othello.user_id, hamlet.user_id]);
    let mut starred = register(&hamlet, &[("event_types", r#"["message"]"#), ("narrow", r#"[["is", "starred"]]"#)]);
    let mut sentinel = register(&hamlet, &[("event_types", r#"["message"]"#), ("narrow", r#"[["is", "mentioned"]]"#)]);
    send_to_channel(&othello, &name, "t", "plain");
    let mention = send_to_channel(&othello, &name, "t", "@**King Hamlet** sentinel");
    sentinel.wait_for("the mention", |e| e["type"] == "message" && e["message"]["id"] == mention);
    let events = starred.poll(true);
    assert!(events.iter().all(|e| e["type"] != "message" || e["message"]["display_recipient"] != name), "{events:?}");
}

#[test]
fn unknown_http_methods_are_not_allowed() {
    // The runtime itself refuses methods it does not know (`FOO`: 501); `QUERY` reaches the
    // Worker, which must not read it as GET.
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.with_query("QUERY", "/users/me", &[]).error(405, "BAD_REQUEST", "Method Not Allowed");
    assert!(body["allowed_methods"].as_array().unwrap().contains(&json!("GET")), "{body}");
}

#[test]
fn a_known_path_with_a_method_it_lacks_is_405_with_its_allowed_methods() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.with_query("PUT", "/messages", &[]).error(405, "BAD_REQUEST", "Method Not Allowed");
    assert_eq!(body["allowed_methods"], json!(["GET", "POST"]));
    let body = hamlet.delete("/users/me/alert_words/x", &[]).error(404, "BAD_REQUEST", "Not Found");
    assert!(body.get("allowed_methods").is_none(), "an unknown path is 404: {body}");
}
