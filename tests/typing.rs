//! `POST /typing`: validation and the typing events it sends.

mod chat;
mod common;
mod event_support;

use chat::channel_id;
use common::Client;
use event_support::{register, register_for};
use serde_json::Value;

fn typing_from(sender: &Client) -> impl Fn(&Value) -> bool + '_ {
    move |e: &Value| e["type"] == "typing" && e["sender"]["user_id"] == sender.user_id
}

#[test]
fn direct_typing_reaches_recipients_but_not_the_sender() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mut recipient = register_for(&othello, r#"["typing"]"#);
    let mut sender_queue = register_for(&hamlet, r#"["typing", "message"]"#);
    let to = format!("[{}]", othello.user_id);
    hamlet.post("/typing", &[("op", "start"), ("to", &to)]).success();
    let event = recipient.wait_for("typing start", typing_from(&hamlet));
    assert_eq!(event["op"], "start");
    assert_eq!(event["message_type"], "direct");
    assert_eq!(event["sender"]["email"], "hamlet@zulip.com");
    let recipients: Vec<i64> = event["recipients"].as_array().unwrap().iter().map(|r| r["user_id"].as_i64().unwrap()).collect();
    assert!(recipients.contains(&othello.user_id) && recipients.contains(&hamlet.user_id));
    hamlet.post("/typing", &[("op", "stop"), ("to", &to)]).success();
    assert_eq!(recipient.wait_for("typing stop", typing_from(&hamlet))["op"], "stop");
    let own: Vec<Value> = sender_queue.events_before_sentinel().into_iter().filter(typing_from(&hamlet)).collect();
    assert!(own.is_empty(), "the sender got its own typing notice: {own:?}");
}

#[test]
fn channel_typing_goes_only_to_queues_with_stream_typing_notifications() {
    let iago = Client::dev("iago@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let verona = channel_id(&iago, "Verona");
    let mut capable =
        register(&cordelia, &[("event_types", r#"["typing"]"#), ("client_capabilities", r#"{"stream_typing_notifications": true}"#)]);
    let mut legacy = register_for(&cordelia, r#"["typing"]"#);
    let verona_s = verona.to_string();
    iago.post("/typing", &[("op", "start"), ("type", "channel"), ("stream_id", &verona_s), ("topic", "castle")]).success();
    let event = capable.wait_for("channel typing", typing_from(&iago));
    assert_eq!(event["message_type"], "stream");
    assert_eq!(event["stream_id"], verona);
    assert_eq!(event["topic"], "castle");
    // The legacy queue's next notice from iago is the direct one sent afterwards.
    let to = format!("[{}]", cordelia.user_id);
    iago.post("/typing", &[("op", "start"), ("to", &to)]).success();
    let next = legacy.wait_for("typing", typing_from(&iago));
    assert_eq!(next["message_type"], "direct", "{next}");
}

#[test]
fn stream_type_works_like_channel_and_no_topic_reads_as_empty() {
    let shiva = Client::dev("shiva@zulip.com");
    let prospero = Client::dev("prospero@zulip.com");
    let denmark = channel_id(&shiva, "Denmark");
    let mut queue = register(
        &prospero,
        &[("event_types", r#"["typing"]"#), ("client_capabilities", r#"{"stream_typing_notifications": true, "empty_topic_name": true}"#)],
    );
    let denmark_s = denmark.to_string();
    shiva.post("/typing", &[("op", "start"), ("type", "stream"), ("stream_id", &denmark_s), ("topic", "(no topic)")]).success();
    let event = queue.wait_for("channel typing", typing_from(&shiva));
    assert_eq!(event["topic"], "");
    assert_eq!(event["stream_id"], denmark);
}

#[test]
fn private_type_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/typing", &[("op", "start"), ("type", "private"), ("to", "[1]")]).bad_request("BAD_REQUEST", "Invalid type");
}

#[test]
fn channel_typing_without_stream_id_is_bad_request() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/typing", &[("op", "start"), ("type", "channel"), ("topic", "x")]).bad_request("BAD_REQUEST", "Missing stream_id");
}

#[test]
fn channel_typing_needs_a_topic_and_a_visible_channel() {
    let polonius = Client::dev("polonius@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let core_team = channel_id(&iago, "core team");
    let verona = channel_id(&iago, "Verona").to_string();
    iago.post("/typing", &[("op", "start"), ("type", "channel"), ("stream_id", &verona)]).bad_request("BAD_REQUEST", "Missing topic");
    let core_team = core_team.to_string();
    polonius
        .post("/typing", &[("op", "start"), ("type", "channel"), ("stream_id", &core_team), ("topic", "x")])
        .bad_request("BAD_REQUEST", "Invalid channel ID");
    iago.post("/typing", &[("op", "start"), ("type", "channel"), ("stream_id", "999999"), ("topic", "x")])
        .bad_request("BAD_REQUEST", "Invalid channel ID");
}

#[test]
fn op_is_required_and_checked() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let to = format!("[{}]", Client::dev("othello@zulip.com").user_id);
    hamlet.post("/typing", &[("to", &to)]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'op' argument");
    hamlet.post("/typing", &[("op", "typing"), ("to", &to)]).bad_request("BAD_REQUEST", "Invalid op");
}

#[test]
fn direct_typing_checks_its_recipients() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/typing", &[("op", "start")]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'to' argument");
    hamlet.post("/typing", &[("op", "start"), ("to", "[]")]).bad_request("BAD_REQUEST", "Empty 'to' list");
    hamlet.post("/typing", &[("op", "start"), ("to", "[99999999]")]).bad_request("BAD_REQUEST", "Invalid user ID 99999999");
    hamlet.post("/typing", &[("op", "start"), ("to", "othello")]).bad_request("BAD_REQUEST", "Argument \"to\" is not valid JSON.");
}

fn edit_typing_of(message_id: i64) -> impl Fn(&Value) -> bool {
    move |e: &Value| e["type"] == "typing_edit_message" && e["message_id"] == message_id
}

#[test]
fn editing_a_direct_message_is_told_to_the_conversation() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let id = chat::send_direct(&hamlet, &[othello.user_id], "to be edited");
    let mut queue = register_for(&othello, r#"["typing_edit_message"]"#);
    let body = hamlet.post(&format!("/messages/{id}/typing"), &[("op", "start")]).success();
    common::assert_matches_openapi("post", "/messages/{message_id}/typing", &body);
    let event = queue.wait_for("the edit starting", edit_typing_of(id));
    assert_eq!((event["op"].clone(), event["sender_id"].clone()), (serde_json::json!("start"), serde_json::json!(hamlet.user_id)));
    let mut members = vec![hamlet.user_id, othello.user_id];
    members.sort_unstable();
    assert_eq!(event["recipient"], serde_json::json!({"type": "direct", "user_ids": members}));
    assert_events_match_openapi(&event);
    hamlet.post(&format!("/messages/{id}/typing"), &[("op", "stop")]).success();
    assert_eq!(queue.wait_for("the edit stopping", edit_typing_of(id))["op"], "stop");
}

#[test]
fn editing_a_channel_message_is_told_to_its_subscribers() {
    let iago = Client::dev("iago@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let topic = common::unique("edit typing");
    let id = chat::send_to_channel(&iago, "Verona", &topic, "to be edited");
    let mut queue = register_for(&cordelia, r#"["typing_edit_message"]"#);
    iago.post(&format!("/messages/{id}/typing"), &[("op", "start")]).success();
    let event = queue.wait_for("the edit starting", edit_typing_of(id));
    let verona = channel_id(&iago, "Verona");
    assert_eq!(event["recipient"], serde_json::json!({"type": "channel", "channel_id": verona, "topic": topic}));
    assert_events_match_openapi(&event);
}

/// `event` is one of the events `GET /events` may answer, as Zulip's schema has it.
fn assert_events_match_openapi(event: &Value) {
    let body = serde_json::json!({"result": "success", "msg": "", "queue_id": "1:1", "events": [event]});
    common::assert_matches_openapi("get", "/events", &body);
}

#[test]
fn who_turned_typing_notifications_off_hears_none() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let quiet = common::new_dev_member("quiet", "Quiet Reader");
    quiet.patch("/settings", &[("receives_typing_notifications", "false")]).success();
    let mut quiet_queue = register_for(&quiet, r#"["typing", "typing_edit_message", "message"]"#);
    let mut othello_queue = register_for(&othello, r#"["typing", "typing_edit_message"]"#);
    let to = format!("[{}, {}]", othello.user_id, quiet.user_id);
    hamlet.post("/typing", &[("op", "start"), ("to", &to)]).success();
    let event = othello_queue.wait_for("typing start", typing_from(&hamlet));
    let listed: Vec<i64> = event["recipients"].as_array().unwrap().iter().map(|r| r["user_id"].as_i64().unwrap()).collect();
    assert!(listed.contains(&quiet.user_id), "the conversation is still named whole: {event}");
    let id = chat::send_direct(&hamlet, &[othello.user_id, quiet.user_id], "to be edited");
    hamlet.post(&format!("/messages/{id}/typing"), &[("op", "start")]).success();
    let edit = othello_queue.wait_for("the edit starting", edit_typing_of(id));
    let mut hearing = vec![hamlet.user_id, othello.user_id];
    hearing.sort_unstable();
    assert_eq!(edit["recipient"], serde_json::json!({"type": "direct", "user_ids": hearing}));
    let heard: Vec<Value> =
        quiet_queue.events_before_sentinel().into_iter().filter(|e| e["type"] == "typing" || e["type"] == "typing_edit_message").collect();
    assert!(heard.is_empty(), "a user who turned typing notifications off got {heard:?}");
}

#[test]
fn editing_typing_needs_a_message_the_user_may_access_and_an_op() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let id = chat::send_direct(&hamlet, &[othello.user_id], "between two");
    let outsider = Client::dev("cordelia@zulip.com");
    outsider.post(&format!("/messages/{id}/typing"), &[("op", "start")]).bad_request("BAD_REQUEST", "Invalid message(s)");
    hamlet.post(&format!("/messages/{id}/typing"), &[("op", "typing")]).bad_request("BAD_REQUEST", "Invalid op");
    hamlet.post(&format!("/messages/{id}/typing"), &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'op' argument");
}
