//! Push notifications follow the recipient's settings and the channel's
//! `push_notifications`, as Zulip's rules do; bulk reads remove shown notifications.
//! Each test creates its own users, so no shared user's settings change. A notification's
//! absence is proven by a witness: another user with a phone who receives the same message
//! and is notified of it by the same background job.

mod chat;
mod common;
mod push_support;

use common::{unique, Client};
use push_support::*;
use serde_json::{json, Value};

/// A new member of the default organization with a registered E2EE device.
struct Phone {
    user: Client,
    device: Device,
    relay_id: String,
}

fn new_user_with_phone() -> Phone {
    let email = format!("{}@zulip.com", unique("pushset"));
    Client::dev("iago@zulip.com")
        .post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", &unique("Pusher"))])
        .success();
    let user = Client::dev(&email);
    let device = register(&user);
    let relay_id = relay_device_id(&device.token);
    Phone { user, device, relay_id }
}

impl Phone {
    fn set(&self, name: &str, value: &str) {
        self.user.patch("/settings", &[(name, value)]).success();
    }

    /// Waits for a message notification with exactly this content.
    fn notified_of(&self, content: &str) -> Vec<Value> {
        payloads_for(&self.relay_id, &self.device.key, |p| p["content"] == content)
    }

    fn already_notified_of(&self, content: &str) -> bool {
        !payloads_now(&self.relay_id, &self.device.key, &|p: &Value| p["content"] == content).is_empty()
    }

    fn removals_of(&self, id: i64) -> Vec<Value> {
        payloads_for(&self.relay_id, &self.device.key, |p| {
            p["type"] == "remove" && p["message_ids"].as_array().is_some_and(|ids| ids.contains(&json!(id)))
        })
    }
}

fn channel_with(phones: &[&Phone]) -> (Client, String, i64) {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("push settings");
    let mut members = vec![hamlet.user_id];
    members.extend(phones.iter().map(|p| p.user.user_id));
    let id = chat::create_channel(&hamlet, &name, &[], &members);
    (hamlet, name, id)
}

fn full_name(phone: &Phone) -> String {
    phone.user.get("/users/me", &[]).success()["full_name"].as_str().unwrap().to_string()
}

fn follow(phone: &Phone, channel_id: i64, topic: &str) {
    phone.user.post("/user_topics", &[("stream_id", &channel_id.to_string()), ("topic", topic), ("visibility_policy", "3")]).success();
}

/// Push payloads whose content contains `text`, waiting for the first (none after 15 s).
fn pushed(phone: &Phone, text: &str) -> usize {
    payloads_for(&phone.relay_id, &phone.device.key, |p| p["content"].as_str().is_some_and(|c| c.contains(text))).len()
}

/// Push payloads whose content contains `text`, now.
fn pushed_now(phone: &Phone, text: &str) -> usize {
    payloads_now(&phone.relay_id, &phone.device.key, &|p: &Value| p["content"].as_str().is_some_and(|c| c.contains(text))).len()
}

fn set_subscription(phone: &Phone, channel_id: i64, property: &str, value: bool) {
    let data = format!(r#"[{{"stream_id": {channel_id}, "property": "{property}", "value": {value}}}]"#);
    phone.user.post("/users/me/subscriptions/properties", &[("subscription_data", &data)]).success();
}

#[test]
fn offline_push_off_silences_direct_messages_and_mentions() {
    let (phone, witness) = (new_user_with_phone(), new_user_with_phone());
    phone.set("enable_offline_push_notifications", "false");
    let (hamlet, channel, _) = channel_with(&[&phone, &witness]);
    let dm = unique("group dm while push is off");
    chat::send_direct(&hamlet, &[phone.user.user_id, witness.user.user_id], &dm);
    let mention = unique("mention while push is off");
    chat::send_to_channel(&hamlet, &channel, "t", &format!("@**{}** @**{}** {mention}", full_name(&phone), full_name(&witness)));
    assert_eq!(pushed(&witness, &dm), 1);
    assert_eq!(pushed(&witness, &mention), 1);
    assert_eq!(pushed_now(&phone, &dm), 0);
    assert_eq!(pushed_now(&phone, &mention), 0);
}

#[test]
fn enable_stream_push_notifies_channel_messages_unless_the_channel_says_otherwise() {
    let (phone, witness) = (new_user_with_phone(), new_user_with_phone());
    phone.set("enable_stream_push_notifications", "true");
    let (hamlet, channel, channel_id) = channel_with(&[&phone, &witness]);
    let notified = unique("global channel push on");
    chat::send_to_channel(&hamlet, &channel, "t", &notified);
    assert_eq!(phone.notified_of(&notified).len(), 1);
    // The channel's push_notifications overrides the global setting, both ways.
    set_subscription(&phone, channel_id, "push_notifications", false);
    set_subscription(&witness, channel_id, "push_notifications", true);
    let overridden = unique("channel push off");
    chat::send_to_channel(&hamlet, &channel, "t", &overridden);
    assert_eq!(witness.notified_of(&overridden).len(), 1);
    assert!(!phone.already_notified_of(&overridden));
}

#[test]
fn a_followed_topic_notifies_unless_followed_topic_push_is_off() {
    let (phone, witness) = (new_user_with_phone(), new_user_with_phone());
    let (hamlet, channel, channel_id) = channel_with(&[&phone, &witness]);
    let topic = unique("followed");
    follow(&phone, channel_id, &topic);
    follow(&witness, channel_id, &topic);
    let followed = unique("in a followed topic");
    chat::send_to_channel(&hamlet, &channel, &topic, &followed);
    assert_eq!(phone.notified_of(&followed).len(), 1);
    phone.set("enable_followed_topic_push_notifications", "false");
    let silenced = unique("followed topic push off");
    chat::send_to_channel(&hamlet, &channel, &topic, &silenced);
    assert_eq!(witness.notified_of(&silenced).len(), 1);
    assert!(!phone.already_notified_of(&silenced));
}

#[test]
fn wildcard_mentions_follow_wildcard_mentions_notify_and_the_channel_override() {
    let (phone, witness) = (new_user_with_phone(), new_user_with_phone());
    let (hamlet, channel, channel_id) = channel_with(&[&phone, &witness]);
    phone.set("wildcard_mentions_notify", "false");
    let silenced = unique("wildcard while off");
    chat::send_to_channel(&hamlet, &channel, "t", &format!("@**all** {silenced}"));
    assert_eq!(pushed(&witness, &silenced), 1);
    assert_eq!(pushed_now(&phone, &silenced), 0);
    set_subscription(&phone, channel_id, "wildcard_mentions_notify", true);
    let notified = unique("wildcard with the channel override");
    chat::send_to_channel(&hamlet, &channel, "t", &format!("@**all** {notified}"));
    assert_eq!(pushed(&phone, &notified), 1);
}

#[test]
fn an_active_user_is_pushed_only_with_online_push_on() {
    let (phone, witness) = (new_user_with_phone(), new_user_with_phone());
    phone.user.post("/users/me/presence", &[("status", "active"), ("new_user_input", "true")]).success();
    phone.set("enable_online_push_notifications", "false");
    let hamlet = Client::dev("hamlet@zulip.com");
    let silenced = unique("while active");
    chat::send_direct(&hamlet, &[phone.user.user_id, witness.user.user_id], &silenced);
    assert_eq!(witness.notified_of(&silenced).len(), 1);
    assert!(!phone.already_notified_of(&silenced));
    phone.set("enable_online_push_notifications", "true");
    let notified = unique("online push on");
    chat::send_direct(&hamlet, &[phone.user.user_id], &notified);
    assert_eq!(phone.notified_of(&notified).len(), 1);
}

#[test]
fn mark_all_as_read_removes_every_shown_notification() {
    let phone = new_user_with_phone();
    let hamlet = Client::dev("hamlet@zulip.com");
    let (a, b) = (unique("first unread"), unique("second unread"));
    let id_a = chat::send_direct(&hamlet, &[phone.user.user_id], &a);
    let id_b = chat::send_direct(&hamlet, &[phone.user.user_id], &b);
    assert_eq!(phone.notified_of(&a).len(), 1);
    assert_eq!(phone.notified_of(&b).len(), 1);
    phone.user.post("/mark_all_as_read", &[]).success();
    let removal = phone.removals_of(id_b);
    assert_eq!(removal.len(), 1);
    assert_eq!(removal[0]["message_ids"], json!([id_a, id_b]));
    assert_eq!(removal[0]["user_id"], phone.user.user_id);
}

#[test]
fn mark_stream_and_topic_as_read_remove_their_notifications() {
    let phone = new_user_with_phone();
    let (hamlet, channel, channel_id) = channel_with(&[&phone]);
    set_subscription(&phone, channel_id, "push_notifications", true);
    let topic = unique("topic read");
    let in_topic = unique("topic message");
    let topic_id = chat::send_to_channel(&hamlet, &channel, &topic, &in_topic);
    assert_eq!(phone.notified_of(&in_topic).len(), 1);
    phone.user.post("/mark_topic_as_read", &[("stream_id", &channel_id.to_string()), ("topic_name", &topic)]).success();
    assert_eq!(phone.removals_of(topic_id)[0]["message_ids"], json!([topic_id]));

    let other = unique("channel message");
    let channel_msg = chat::send_to_channel(&hamlet, &channel, "another topic", &other);
    assert_eq!(phone.notified_of(&other).len(), 1);
    phone.user.post("/mark_stream_as_read", &[("stream_id", &channel_id.to_string())]).success();
    assert_eq!(phone.removals_of(channel_msg)[0]["message_ids"], json!([channel_msg]));
}

#[test]
fn flags_over_a_narrow_marking_read_remove_notifications() {
    let phone = new_user_with_phone();
    let hamlet = Client::dev("hamlet@zulip.com");
    let content = unique("narrow read");
    let id = chat::send_direct(&hamlet, &[phone.user.user_id], &content);
    assert_eq!(phone.notified_of(&content).len(), 1);
    let narrow = format!(r#"[{{"operator": "dm", "operand": [{}]}}]"#, hamlet.user_id);
    phone
        .user
        .post(
            "/messages/flags/narrow",
            &[("anchor", "oldest"), ("num_before", "0"), ("num_after", "100"), ("narrow", &narrow), ("op", "add"), ("flag", "read")],
        )
        .success();
    assert_eq!(phone.removals_of(id)[0]["message_ids"], json!([id]));
}
