//! Outgoing-webhook bots (`bot_type` 3): the service each one calls is kept and shown
//! (`POST /bots`, `PATCH /bots/{bot_id}`, `/register`'s `realm_bots`, `realm_bot` events);
//! a mention of one, or a direct message to one, is POSTed to its service after the send
//! answered, and the service's answer is posted back as the bot's reply. The service is a
//! test double on 127.0.0.1 started by each test (development allows loopback).

mod chat;
mod common;
mod event_support;
mod http_double;
use chat::*;
use common::*;
use event_support::*;
use http_double::*;
use serde_json::{json, Value};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// A double answering every request with this JSON.
fn answering(answer: Value) -> (String, Receiver<Received>) {
    double(Box::new(move |_| Some((200, answer.to_string()))))
}

/// The next request the double reads (within 30 s).
#[track_caller]
fn next_request(requests: &Receiver<Received>) -> Received {
    requests.recv_timeout(Duration::from_secs(30)).expect("the service got no request within 30 s")
}

struct Bot {
    id: i64,
    full_name: String,
    email: String,
}

/// An outgoing-webhook bot of `owner` calling `url` in this interface.
fn outgoing_bot(owner: &Client, url: &str, interface: &str) -> Bot {
    let short = unique("out");
    let full_name = format!("Echo {short}");
    let created = owner
        .post(
            "/bots",
            &[
                ("full_name", &full_name),
                ("short_name", &short),
                ("bot_type", "3"),
                ("payload_url", &json!(url).to_string()),
                ("interface_type", interface),
            ],
        )
        .success();
    let id = created["user_id"].as_i64().unwrap();
    let email = owner.get(&format!("/users/{id}"), &[]).success()["user"]["email"].as_str().unwrap().to_string();
    Bot { id, full_name, email }
}

/// The bot's entry in `owner`'s `/register` `realm_bots`.
fn realm_bot(owner: &Client, bot_id: i64) -> Value {
    let state = owner.post("/register", &[("fetch_event_types", r#"["realm_bot"]"#)]).success();
    state["realm_bots"].as_array().unwrap().iter().find(|b| b["user_id"] == bot_id).cloned().expect("the bot is in realm_bots")
}

/// A queue of `client`'s message events, with raw Markdown content.
fn message_queue(client: &Client) -> Queue {
    register(client, &[("event_types", r#"["message"]"#), ("apply_markdown", "false")])
}

/// Waits for the next message the bot sends that `client`'s queue sees.
#[track_caller]
fn bot_message(queue: &mut Queue, bot: &Bot) -> Value {
    queue.wait_for("bot message", |e| e["type"] == "message" && e["message"]["sender_id"] == bot.id)["message"].clone()
}

/// A fresh channel of hamlet's and a mention of the bot in it: (channel id, topic, message id).
fn mention(hamlet: &Client, bot: &Bot, text: &str) -> (i64, String, i64) {
    let channel = unique("outgoing-");
    let channel_id = create_channel(hamlet, &channel, &[], &[]);
    let topic = unique("topic ");
    let id = send_to_channel(hamlet, &channel, &topic, &format!("@**{}** {text}", bot.full_name));
    (channel_id, topic, id)
}

#[test]
fn a_mention_posts_zulips_payload_and_the_answer_is_the_bots_reply_in_the_topic() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (url, requests) = answering(json!({ "content": "pong" }));
    let bot = outgoing_bot(&hamlet, &url, "1");
    let token = realm_bot(&hamlet, bot.id)["services"][0]["token"].as_str().unwrap().to_string();
    let mut queue = message_queue(&hamlet);
    let (channel_id, topic, id) = mention(&hamlet, &bot, "ping");

    let request = next_request(&requests);
    assert_eq!(request.content_type, "application/json");
    let payload: Value = serde_json::from_str(&request.body).unwrap();
    let content = format!("@**{}** ping", bot.full_name);
    assert_eq!(payload["data"], content.as_str());
    assert_eq!(payload["trigger"], "mention");
    assert_eq!(payload["token"], token.as_str());
    assert_eq!(payload["bot_email"], bot.email.as_str());
    assert_eq!(payload["bot_full_name"], bot.full_name.as_str());
    assert_eq!(payload["message"]["id"], id);
    assert_eq!(payload["message"]["content"], content.as_str());
    assert_eq!(payload["message"]["stream_id"], channel_id);
    assert_eq!(payload["message"]["subject"], topic.as_str());
    assert_eq!(payload["message"]["sender_id"], hamlet.user_id);
    assert!(payload["message"]["rendered_content"].as_str().unwrap().contains("user-mention"));

    let reply = bot_message(&mut queue, &bot);
    assert_eq!(reply["content"], "pong");
    assert_eq!(reply["stream_id"], channel_id);
    assert_eq!(reply["subject"], topic.as_str());
}

#[test]
fn a_direct_message_to_the_bot_triggers_it_and_the_reply_goes_to_the_conversation() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (url, requests) = answering(json!({ "content": "direct pong" }));
    let bot = outgoing_bot(&hamlet, &url, "1");
    let mut queue = message_queue(&hamlet);
    let id = send_direct(&hamlet, &[bot.id], "hello bot");

    let payload: Value = serde_json::from_str(&next_request(&requests).body).unwrap();
    assert_eq!(payload["trigger"], "direct_message");
    assert_eq!(payload["data"], "hello bot");
    assert_eq!(payload["message"]["id"], id);
    assert_eq!(payload["message"]["type"], "private");

    let reply = bot_message(&mut queue, &bot);
    assert_eq!(reply["content"], "direct pong");
    assert_eq!(reply["type"], "private");
    let mut ids: Vec<i64> = reply["display_recipient"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    ids.sort();
    let mut expected = vec![hamlet.user_id, bot.id];
    expected.sort();
    assert_eq!(ids, expected);
}

#[test]
fn an_answer_that_needs_no_response_posts_nothing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    // The first request needs no response; the second one's reply is the sentinel:
    // deliveries run in order, so once it is posted the first was answered.
    let mut count = 0;
    let (url, requests) = double(Box::new(move |_| {
        count += 1;
        let answer =
            if count == 1 { json!({ "response_not_required": true, "content": "never" }) } else { json!({ "content": "sentinel" }) };
        Some((200, answer.to_string()))
    }));
    let bot = outgoing_bot(&hamlet, &url, "1");
    let mut queue = message_queue(&hamlet);
    let (channel_id, topic, first) = mention(&hamlet, &bot, "quiet please");
    next_request(&requests);
    let channel = hamlet.get(&format!("/streams/{channel_id}"), &[]).success()["stream"]["name"].as_str().unwrap().to_string();
    let second = send_to_channel(&hamlet, &channel, &topic, &format!("@**{}** now answer", bot.full_name));
    next_request(&requests);
    assert_eq!(bot_message(&mut queue, &bot)["content"], "sentinel");

    let ids = topic_ids(&hamlet, channel_id, &topic);
    assert_eq!(ids.len(), 3, "the two mentions and the sentinel reply only");
    assert_eq!(&ids[..2], &[first, second]);
}

#[test]
fn a_slow_service_never_delays_the_send() {
    let hamlet = Client::dev("hamlet@zulip.com");
    // The double holds its answer until the test, holding the send's answer, releases it
    // (or 60 s pass, which would mean the send waited for the service).
    let (release, released) = channel::<()>();
    let (outcome, held) = channel::<bool>();
    let (url, requests) = double(Box::new(move |_| {
        let _ = outcome.send(released.recv_timeout(Duration::from_secs(60)).is_ok());
        Some((200, json!({ "content": "finally" }).to_string()))
    }));
    let bot = outgoing_bot(&hamlet, &url, "1");
    let mut queue = message_queue(&hamlet);
    let (channel_id, topic, id) = mention(&hamlet, &bot, "take your time");
    assert!(id > 0, "the send answered");
    release.send(()).unwrap();
    next_request(&requests);
    assert!(held.recv_timeout(Duration::from_secs(90)).unwrap(), "the service was released by the test, after the send answered");
    let reply = bot_message(&mut queue, &bot);
    assert_eq!(reply["content"], "finally");
    assert_eq!((reply["stream_id"].as_i64(), reply["subject"].as_str()), (Some(channel_id), Some(topic.as_str())));
}

#[test]
fn a_dead_service_is_retried_then_the_conversation_and_the_owner_are_told() {
    let hamlet = Client::dev("hamlet@zulip.com");
    // Reads each request, then closes the connection without answering.
    let (url, requests) = double(Box::new(|_| None));
    let bot = outgoing_bot(&hamlet, &url, "1");
    let mut queue = message_queue(&hamlet);
    let (channel_id, topic, id) = mention(&hamlet, &bot, "are you there");
    for _ in 0..4 {
        next_request(&requests);
    }
    let in_topic = bot_message(&mut queue, &bot);
    assert_eq!(in_topic["content"], "Failure! Bot is unavailable");
    assert_eq!(in_topic["stream_id"], channel_id);
    let to_owner = bot_message(&mut queue, &bot);
    assert_eq!(to_owner["type"], "private");
    let text = to_owner["content"].as_str().unwrap();
    assert!(text.starts_with("[A message]("), "{text}");
    assert!(text.contains(&format!("/near/{id}) to your bot @_**{}** triggered an outgoing webhook.", bot.full_name)), "{text}");
    assert!(text.ends_with("\nA connection error occurred. Is my bot server down?"), "{text}");
    assert!(requests.try_recv().is_err(), "one attempt and three retries, no more");
    assert_eq!(topic_ids(&hamlet, channel_id, &topic).len(), 2);
}

#[test]
fn an_error_status_is_told_to_the_conversation_and_the_owner_without_retrying() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (url, requests) = double(Box::new(|_| Some((500, r#"{"error": "boom"}"#.to_string()))));
    let bot = outgoing_bot(&hamlet, &url, "1");
    let mut queue = message_queue(&hamlet);
    mention(&hamlet, &bot, "break");
    next_request(&requests);
    assert_eq!(bot_message(&mut queue, &bot)["content"], "Failure! Third party responded with 500");
    let text = bot_message(&mut queue, &bot)["content"].as_str().unwrap().to_string();
    assert!(
        text.ends_with(
            "triggered an outgoing webhook.\nThe webhook got a response with status code *500*.\n\
             The response contains the following payload:\n```\nb'{\"error\": \"boom\"}'\n```"
        ),
        "{text}"
    );
    assert!(requests.try_recv().is_err(), "a status is not retried");
}

#[test]
fn a_slack_interface_bot_gets_slacks_form_fields_and_its_text_is_the_reply() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (url, requests) = answering(json!({ "text": "slack pong" }));
    let bot = outgoing_bot(&hamlet, &url, "2");
    let token = realm_bot(&hamlet, bot.id)["services"][0]["token"].as_str().unwrap().to_string();
    let mut queue = message_queue(&hamlet);
    let (channel_id, topic, id) = mention(&hamlet, &bot, "slack ping");

    let request = next_request(&requests);
    assert_eq!(request.content_type, "application/x-www-form-urlencoded");
    let fields: std::collections::HashMap<String, String> = form_urlencoded::parse(request.body.as_bytes()).into_owned().collect();
    let message = fetch(&hamlet, id);
    assert_eq!(fields["token"], token);
    assert_eq!(fields["channel_id"], format!("C{channel_id}"));
    assert_eq!(fields["channel_name"], message["display_recipient"].as_str().unwrap());
    assert_eq!(fields["user_id"], format!("U{}", hamlet.user_id));
    assert_eq!(fields["user_name"], message["sender_full_name"].as_str().unwrap());
    assert_eq!(fields["text"], format!("@**{}** slack ping", bot.full_name));
    assert_eq!(fields["trigger_word"], "mention");
    assert_eq!(fields["timestamp"], message["timestamp"].to_string());
    assert_eq!(fields["service_id"], bot.id.to_string());
    assert!(fields["team_id"].starts_with('T'));

    let reply = bot_message(&mut queue, &bot);
    assert_eq!(reply["content"], "slack pong");
    assert_eq!(reply["subject"], topic.as_str());
}

#[test]
fn patching_a_bot_changes_its_service_and_tells_the_owner_with_its_services() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut events = register_for(&hamlet, r#"["realm_bot"]"#);
    let bot = outgoing_bot(&hamlet, "https://bots.example.com/old", "1");
    let added = events.wait_for("realm_bot add", |e| e["op"] == "add" && e["bot"]["user_id"] == bot.id);
    let services = added["bot"]["services"].as_array().unwrap().clone();
    assert_eq!(services.len(), 1);
    assert_eq!(services[0]["base_url"], "https://bots.example.com/old");
    assert_eq!(services[0]["interface"], 1);
    let token = services[0]["token"].as_str().unwrap().to_string();
    assert_eq!(token.len(), 32);

    let (url, requests) = answering(json!({ "text": "moved" }));
    let answer = hamlet
        .patch(&format!("/bots/{}", bot.id), &[("service_payload_url", &json!(url).to_string()), ("service_interface", "2")])
        .success();
    assert_eq!(answer["service_payload_url"], url.as_str());
    assert_eq!(answer["service_interface"], 2);
    assert_eq!(answer["bot_owner"], hamlet.email.as_str());
    let updated = events.wait_for("realm_bot update", |e| e["op"] == "update" && e["bot"]["user_id"] == bot.id);
    assert_eq!(updated["bot"]["services"], json!([{ "base_url": url, "interface": 2, "token": token }]));
    assert_eq!(realm_bot(&hamlet, bot.id)["services"], json!([{ "base_url": url, "interface": 2, "token": token }]));

    // The next mention goes to the new URL, in the new interface.
    mention(&hamlet, &bot, "where are you");
    assert_eq!(next_request(&requests).content_type, "application/x-www-form-urlencoded");
}

#[test]
fn patching_a_bot_is_for_its_owner_and_administrators_and_checks_the_url() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let bot = outgoing_bot(&hamlet, "https://bots.example.com/hook", "1");
    let othello = Client::dev("othello@zulip.com");
    let path = format!("/bots/{}", bot.id);
    othello.patch(&path, &[("full_name", "Mine now")]).bad_request("BAD_REQUEST", "Insufficient permission");
    hamlet.patch(&format!("/bots/{}", hamlet.user_id), &[("full_name", "x")]).bad_request("BAD_REQUEST", "No such bot");
    hamlet.patch(&path, &[("service_payload_url", r#""not a url""#)]).bad_request("BAD_REQUEST", "service_payload_url is not a URL");
    hamlet
        .patch(&path, &[("service_payload_url", r#""https://bots.example.com/x""#), ("service_interface", "7")])
        .bad_request("BAD_REQUEST", "Invalid interface type");
    let iago = Client::dev("iago@zulip.com");
    let renamed = iago.patch(&path, &[("full_name", "Renamed Echo")]).success();
    assert_eq!(renamed["full_name"], "Renamed Echo");
}

#[test]
fn creating_an_outgoing_webhook_bot_checks_its_interface() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let short = unique("badif");
    hamlet
        .post("/bots", &[("full_name", &format!("Bad {short}")), ("short_name", &short), ("bot_type", "3"), ("interface_type", "9")])
        .bad_request("BAD_REQUEST", "Invalid interface type");
}

#[test]
fn mentioning_a_group_the_bot_belongs_to_triggers_it() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (url, requests) = answering(json!({ "content": "on call" }));
    let bot = outgoing_bot(&hamlet, &url, "1");
    let group = unique("oncall");
    let members = json!([bot.id]).to_string();
    hamlet.post("/user_groups/create", &[("name", &group), ("description", "who answers pages"), ("members", &members)]).success();
    let mut queue = message_queue(&hamlet);
    let channel = unique("outgoing-");
    let channel_id = create_channel(&hamlet, &channel, &[], &[]);
    let id = send_to_channel(&hamlet, &channel, "pages", &format!("@*{group}* the site is down"));

    let payload: Value = serde_json::from_str(&next_request(&requests).body).unwrap();
    assert_eq!(payload["trigger"], "mention");
    assert_eq!(payload["message"]["id"], id);
    let reply = bot_message(&mut queue, &bot);
    assert_eq!((reply["content"].as_str(), reply["stream_id"].as_i64()), (Some("on call"), Some(channel_id)));
}
