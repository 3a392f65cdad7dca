//! Missed-message email notifications (issue 29): a direct message or a mention left unread
//! by someone away is mailed after their batching period (the organization's alarm), one
//! email per conversation with the content, the sender and a `#narrow` link; reading it
//! first cancels it; every email's unsubscribe link works without signing in. Absence is
//! proven with a later sentinel: the alarm mails recipients in the order they fall due.

mod accounts;
mod common;
mod onboarding;

use std::time::{Duration, Instant};

use accounts::new_user;
use common::*;
use onboarding::*;
use serde_json::Value;

/// A new member, away (no presence), mailed after one second.
fn away_user(prefix: &str) -> Client {
    away_user_mailed_after(prefix, 1)
}

fn away_user_mailed_after(prefix: &str, seconds: u32) -> Client {
    let user = new_user(prefix);
    user.patch("/settings", &[("email_notifications_batching_period_seconds", &seconds.to_string())]).success();
    user
}

/// Waits for the first email to `address` (the alarm runs after the batching period).
#[track_caller]
fn wait_for_email_to(address: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Some(mail) = emails_to(None, address).into_iter().next() {
            return mail;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    panic!("no email to {address} within 60 s");
}

fn dm(from: &Client, to: &Client, content: &str) -> i64 {
    let body = from.post("/messages", &[("type", "direct"), ("to", &format!("[{}]", to.user_id)), ("content", content)]).success();
    body["id"].as_i64().unwrap()
}

#[test]
fn a_direct_message_to_someone_away_is_mailed_with_a_link_and_an_unsubscribe_link() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let away = away_user("mmdm");
    let content = format!("are you there {}", unique("x"));
    dm(&hamlet, &away, &content);
    let mail = wait_for_email_to(&away.email);
    assert_eq!(mail["subject"], "King Hamlet [Zulip Dev]");
    let text = mail["text"].as_str().unwrap();
    assert!(text.contains("King Hamlet:") && text.contains(&content), "{text}");
    assert!(text.contains(&format!("/#narrow/dm/{}-King-Hamlet", hamlet.user_id)), "{text}");
    let html = mail["html"].as_str().unwrap();
    assert!(html.contains(&content) && html.contains("Unsubscribe"), "{html}");

    let start = text.find("/accounts/unsubscribe/").expect("an unsubscribe link");
    let path = text[start..].split_whitespace().next().unwrap().to_string();
    let page = ureq::get(&format!("{}{path}", server_url())).call().expect("the link works without signing in");
    assert_eq!(page.status(), 200);
    assert!(page.into_string().unwrap().contains("no longer get emails"));
    let state = away.post("/register", &[("fetch_event_types", r#"["user_settings"]"#)]).success();
    assert_eq!(state["user_settings"]["enable_offline_email_notifications"], false);
}

#[test]
fn a_forged_unsubscribe_link_is_not_found() {
    accounts(None, "GET", "/accounts/unsubscribe/missed_messages/12-0000000000000000/", &[], None).error(
        404,
        "BAD_REQUEST",
        "We couldn't find your confirmation ID.",
    );
}

#[test]
fn reading_a_message_first_cancels_its_email() {
    let hamlet = Client::dev("hamlet@zulip.com");
    // Five seconds to read it first, even on a loaded machine.
    let reader = away_user_mailed_after("mmread", 5);
    let id = dm(&hamlet, &reader, "read me before the email");
    reader.post("/messages/flags", &[("messages", &format!("[{id}]")), ("op", "add"), ("flag", "read")]).success();
    // The sentinel falls due after the reader's message did.
    let sentinel = away_user_mailed_after("mmsentinel", 5);
    dm(&hamlet, &sentinel, "sentinel");
    wait_for_email_to(&sentinel.email);
    assert!(emails_to(None, &reader.email).is_empty(), "a read message is not mailed");
}

#[test]
fn a_channel_message_is_mailed_only_when_it_mentions_or_email_notifications_are_on() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let plain = away_user("mmplain");
    let mentioned = away_user("mmmention");
    for user in [&plain, &mentioned] {
        user.post("/users/me/subscriptions", &[("subscriptions", r#"[{"name": "Verona"}]"#)]).success();
    }
    let topic = unique("mm topic");
    let content = format!("@**Test User|{}** look", mentioned.user_id);
    hamlet.post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", &topic), ("content", &content)]).success();
    let mail = wait_for_email_to(&mentioned.email);
    assert_eq!(mail["subject"], format!("#Verona > {topic} [Zulip Dev]"));
    assert!(mail["text"].as_str().unwrap().contains("/#narrow/channel/"), "{}", mail["text"]);
    assert!(emails_to(None, &plain.email).is_empty(), "no email for a channel message without email notifications");
}

#[test]
fn a_scheduled_direct_message_delivered_to_someone_away_is_mailed_too() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let away = away_user("mmsched");
    let content = format!("scheduled for you {}", unique("x"));
    let at = (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 2).to_string();
    let to = format!("[{}]", away.user_id);
    hamlet
        .post("/scheduled_messages", &[("type", "direct"), ("to", &to), ("content", &content), ("scheduled_delivery_timestamp", &at)])
        .success();
    let mail = wait_for_email_to(&away.email);
    assert_eq!(mail["subject"], "King Hamlet [Zulip Dev]");
    assert!(mail["text"].as_str().unwrap().contains(&content), "{}", mail["text"]);
}

#[test]
fn an_edit_that_adds_a_mention_mails_the_newly_mentioned() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let away = away_user("mmedit");
    away.post("/users/me/subscriptions", &[("subscriptions", r#"[{"name": "Verona"}]"#)]).success();
    let topic = unique("mm edit");
    let sent =
        hamlet.post("/messages", &[("type", "stream"), ("to", "Verona"), ("topic", &topic), ("content", "no one named yet")]).success();
    let content = format!("@**Test User|{}** now you are {}", away.user_id, unique("x"));
    hamlet.patch(&format!("/messages/{}", sent["id"]), &[("content", &content)]).success();
    let mail = wait_for_email_to(&away.email);
    assert_eq!(mail["subject"], format!("#Verona > {topic} [Zulip Dev]"));
    assert!(mail["text"].as_str().unwrap().contains("now you are"), "{}", mail["text"]);
}
