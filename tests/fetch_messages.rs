//! `GET /messages/{message_id}` and `GET /messages`.

mod chat;
mod common;
use chat::*;
use common::*;
use serde_json::Value;

#[test]
fn single_message_has_every_documented_field() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("fetch-one");
    let channel_id = create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "body");
    let body = hamlet.get(&format!("/messages/{id}"), &[]).success();
    assert_eq!(body["raw_content"], "body");
    let m = &body["message"];
    assert_message_shape(m);
    assert_eq!(m["id"], id);
    assert_eq!(m["stream_id"], channel_id);
    assert_eq!(m["sender_realm_str"], "zulip");
    assert_eq!(m["sender_email"], "hamlet@zulip.com");
    assert_eq!(m["sender_full_name"], "King Hamlet");
    assert_eq!(m["content_type"], "text/html");
    assert_eq!(m["is_me_message"], false);
    assert_eq!(m["reactions"], serde_json::json!([]));
    assert_eq!(m["submessages"], serde_json::json!([]));
    assert!(m["timestamp"].is_i64());
    for absent in ["edit_history", "last_edit_timestamp", "last_moved_timestamp"] {
        assert!(m.get(absent).is_none(), "{absent} must be absent for an unedited message: {m}");
    }
}

#[test]
fn apply_markdown_false_gives_raw_content() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("fetch-raw");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "**bold**");
    let m = hamlet.get(&format!("/messages/{id}"), &[("apply_markdown", "false")]).success()["message"].clone();
    assert_eq!(m["content"], "**bold**");
    assert_eq!(m["content_type"], "text/x-markdown");
}

#[test]
fn missing_message_is_invalid() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.get("/messages/999999999", &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn others_direct_message_is_invalid() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let id = send_direct(&hamlet, &[othello.user_id], "secret");
    iago.get(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn private_channel_message_is_invalid_for_non_subscribers() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("fetch-priv");
    create_channel(&hamlet, &name, &[("invite_only", "true")], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "private");
    othello.get(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn protected_history_hides_messages_from_before_subscribing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("protected");
    let subs = format!("[{{\"name\": \"{name}\"}}]");
    hamlet
        .post("/users/me/subscriptions", &[("subscriptions", &subs), ("invite_only", "true"), ("history_public_to_subscribers", "false")])
        .success();
    let before = send_to_channel(&hamlet, &name, "t", "before");
    let principals = format!("[{}]", othello.user_id);
    hamlet.post("/users/me/subscriptions", &[("subscriptions", &subs), ("principals", &principals)]).success();
    let after = send_to_channel(&hamlet, &name, "t", "after");
    othello.get(&format!("/messages/{before}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
    assert_eq!(fetch(&othello, after)["content"], "<p>after</p>");
}

#[test]
fn public_history_is_visible_to_later_subscribers_of_private_channels() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("shared-history");
    let subs = format!("[{{\"name\": \"{name}\"}}]");
    hamlet
        .post("/users/me/subscriptions", &[("subscriptions", &subs), ("invite_only", "true"), ("history_public_to_subscribers", "true")])
        .success();
    let before = send_to_channel(&hamlet, &name, "t", "before");
    hamlet.post("/users/me/subscriptions", &[("subscriptions", &subs), ("principals", &format!("[{}]", othello.user_id))]).success();
    let m = fetch(&othello, before);
    assert_eq!(flags(&m), vec!["read", "historical"]);
}

#[test]
fn public_channel_messages_are_visible_to_non_subscribers_but_not_guests() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let polonius = Client::dev("polonius@zulip.com");
    let name = unique("public-history");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "open");
    assert_eq!(flags(&fetch(&cordelia, id)), vec!["read", "historical"]);
    polonius.get(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn empty_topic_reads_as_display_name_unless_allowed() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("fetch-empty");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "", "x");
    assert_eq!(fetch(&hamlet, id)["subject"], "general chat");
    let m = hamlet.get(&format!("/messages/{id}"), &[("allow_empty_topic_name", "true")]).success()["message"].clone();
    assert_eq!(m["subject"], "");
}

fn ids(body: &Value) -> Vec<i64> {
    body["messages"].as_array().unwrap().iter().map(|m| m["id"].as_i64().unwrap()).collect()
}

fn narrow_channel_topic(name: &str, topic: &str) -> String {
    serde_json::json!([{"operator": "channel", "operand": name}, {"operator": "topic", "operand": topic}]).to_string()
}

#[test]
fn newest_anchor_answers_the_latest_messages() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("list-newest");
    create_channel(&hamlet, &name, &[], &[]);
    let sent: Vec<i64> = (0..5).map(|i| send_to_channel(&hamlet, &name, "t", &format!("m{i}"))).collect();
    let narrow = narrow_channel_topic(&name, "t");
    let body = hamlet.get("/messages", &[("anchor", "newest"), ("num_before", "3"), ("num_after", "0"), ("narrow", &narrow)]).success();
    assert_eq!(ids(&body), sent[2..].to_vec());
    assert_eq!(body["found_newest"], true);
    assert_eq!(body["found_oldest"], false);
    assert_eq!(body["found_anchor"], false);
    assert_eq!(body["history_limited"], false);
    for m in body["messages"].as_array().unwrap() {
        assert_message_shape(m);
    }
}

#[test]
fn oldest_anchor_and_num_after() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("list-oldest");
    create_channel(&hamlet, &name, &[], &[]);
    let sent: Vec<i64> = (0..4).map(|i| send_to_channel(&hamlet, &name, "t", &format!("m{i}"))).collect();
    let narrow = narrow_channel_topic(&name, "t");
    let body = hamlet.get("/messages", &[("anchor", "oldest"), ("num_before", "0"), ("num_after", "2"), ("narrow", &narrow)]).success();
    assert_eq!(ids(&body), sent[..2].to_vec());
    assert_eq!(body["found_oldest"], true);
    assert_eq!(body["found_newest"], false);
}

#[test]
fn numeric_anchor_is_found_and_included() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("list-anchor");
    create_channel(&hamlet, &name, &[], &[]);
    let sent: Vec<i64> = (0..5).map(|i| send_to_channel(&hamlet, &name, "t", &format!("m{i}"))).collect();
    let narrow = narrow_channel_topic(&name, "t");
    let anchor = sent[2].to_string();
    let body = hamlet.get("/messages", &[("anchor", &anchor), ("num_before", "1"), ("num_after", "1"), ("narrow", &narrow)]).success();
    assert_eq!(ids(&body), sent[1..4].to_vec());
    assert_eq!(body["found_anchor"], true);
    assert_eq!(body["anchor"], sent[2]);
}

#[test]
fn first_unread_anchor() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("list-unread");
    create_channel(&hamlet, &name, &[], &[othello.user_id]);
    let sent: Vec<i64> = (0..3).map(|i| send_to_channel(&hamlet, &name, "t", &format!("m{i}"))).collect();
    othello.post("/messages/flags", &[("messages", &format!("[{}]", sent[0])), ("op", "add"), ("flag", "read")]).success();
    let narrow = narrow_channel_topic(&name, "t");
    let body =
        othello.get("/messages", &[("anchor", "first_unread"), ("num_before", "0"), ("num_after", "0"), ("narrow", &narrow)]).success();
    assert_eq!(body["anchor"], sent[1]);
    assert_eq!(ids(&body), vec![sent[1]]);
}

#[test]
fn dm_narrow_finds_the_conversation() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let prospero = Client::dev("prospero@zulip.com");
    let marker = unique("dmnarrow");
    let a = send_direct(&hamlet, &[prospero.user_id], &marker);
    let b = send_direct(&prospero, &[hamlet.user_id], &marker);
    let narrow =
        serde_json::json!([{"operator": "dm", "operand": [prospero.user_id]}, {"operator": "search", "operand": marker}]).to_string();
    let body = hamlet.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &narrow)]).success();
    assert_eq!(ids(&body), vec![a, b]);
}

#[test]
fn sender_narrow() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("list-sender");
    create_channel(&hamlet, &name, &[], &[othello.user_id]);
    send_to_channel(&hamlet, &name, "t", "from hamlet");
    let o = send_to_channel(&othello, &name, "t", "from othello");
    let narrow = serde_json::json!([["stream", name], ["sender", "othello@zulip.com"]]).to_string();
    let body = hamlet.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &narrow)]).success();
    assert_eq!(ids(&body), vec![o]);
}

#[test]
fn is_starred_and_is_mentioned_narrows() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("list-is");
    create_channel(&hamlet, &name, &[], &[othello.user_id]);
    let plain = send_to_channel(&hamlet, &name, "t", "plain");
    let mention = send_to_channel(&hamlet, &name, "t", "hi @**Othello, the Moor of Venice**");
    othello.post("/messages/flags", &[("messages", &format!("[{plain}]")), ("op", "add"), ("flag", "starred")]).success();
    let starred = serde_json::json!([["stream", name], ["is", "starred"]]).to_string();
    let body = othello.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &starred)]).success();
    assert_eq!(ids(&body), vec![plain]);
    let mentioned = serde_json::json!([["stream", name], ["is", "mentioned"]]).to_string();
    let body =
        othello.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &mentioned)]).success();
    assert_eq!(ids(&body), vec![mention]);
}

#[test]
fn search_narrow_matches_keywords() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("list-search");
    create_channel(&hamlet, &name, &[], &[]);
    let word = unique("kw");
    send_to_channel(&hamlet, &name, "t", "nothing here");
    let hit = send_to_channel(&hamlet, &name, "t", &format!("the {word} appears"));
    let narrow = serde_json::json!([["stream", name], ["search", word]]).to_string();
    let body = hamlet.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &narrow)]).success();
    assert_eq!(ids(&body), vec![hit]);
    assert!(body["messages"][0]["match_content"].is_string());
}

#[test]
fn channel_narrow_includes_history_before_subscribing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let name = unique("list-history");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "old news");
    let narrow = serde_json::json!([["stream", name]]).to_string();
    let body = cordelia.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &narrow)]).success();
    assert_eq!(ids(&body).last(), Some(&id), "the history, after the channel's opening message");
}

#[test]
fn unknown_narrow_operator_is_rejected() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .get("/messages", &[("anchor", "newest"), ("num_before", "1"), ("num_after", "0"), ("narrow", "[[\"bogus\", \"x\"]]")])
        .bad_request("BAD_REQUEST", "Invalid narrow operator: unknown operator bogus");
}

#[test]
fn group_dm_narrow_and_is_unread() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let prospero = Client::dev("prospero@zulip.com");
    let marker = unique("groupnarrow");
    let a = send_direct(&hamlet, &[othello.user_id, prospero.user_id], &marker);
    let b = send_direct(&othello, &[hamlet.user_id, prospero.user_id], &marker);
    let narrow = serde_json::json!([["dm", [hamlet.user_id, othello.user_id]], ["search", marker]]).to_string();
    let body = prospero.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &narrow)]).success();
    assert_eq!(ids(&body), vec![a, b]);
    prospero.post("/messages/flags", &[("messages", &format!("[{a}]")), ("op", "add"), ("flag", "read")]).success();
    let unread = serde_json::json!([["dm", [hamlet.user_id, othello.user_id]], ["search", marker], ["is", "unread"]]).to_string();
    let body = prospero.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &unread)]).success();
    assert_eq!(ids(&body), vec![b]);
}

#[test]
fn num_before_and_num_after_are_required() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .get("/messages", &[("anchor", "newest"), ("num_after", "0")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'num_before' argument");
}
