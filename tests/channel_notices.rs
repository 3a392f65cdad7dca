//! The notification bot's messages about subscribing: each new channel opens with its
//! creation message in "channel events", and people another user subscribes to existing
//! channels get a direct message, unless `send_new_subscription_messages` is false. Every
//! test creates channels of its own.

mod accounts;
mod common;

use accounts::new_bot;
use common::*;
use serde_json::{json, Value};

const BOT: &str = "notification-bot@zulip.com";

fn iago() -> Client {
    Client::dev("iago@zulip.com")
}
fn hamlet() -> Client {
    Client::dev("hamlet@zulip.com")
}
fn othello() -> Client {
    Client::dev("othello@zulip.com")
}

fn subscribe(client: &Client, names: &[&str], principals: &[i64], extra: &[(&str, &str)]) -> Value {
    let subscriptions = json!(names.iter().map(|n| json!({ "name": n })).collect::<Vec<_>>()).to_string();
    let principals = json!(principals).to_string();
    let mut form = vec![("subscriptions", subscriptions.as_str()), ("principals", principals.as_str())];
    form.extend_from_slice(extra);
    client.post("/users/me/subscriptions", &form).success()
}

/// The messages of a narrow as `client` reads them, oldest first, raw Markdown.
fn messages(client: &Client, narrow: Value) -> Vec<Value> {
    let narrow = narrow.to_string();
    let query = [("anchor", "newest"), ("num_before", "50"), ("num_after", "0"), ("narrow", narrow.as_str()), ("apply_markdown", "false")];
    client.get("/messages", &query).success()["messages"].as_array().unwrap().clone()
}

fn channel_messages(client: &Client, name: &str) -> Vec<Value> {
    messages(client, json!([{ "operator": "channel", "operand": name }]))
}

/// The notification bot's direct messages to `client`, oldest first.
fn bot_direct_messages(client: &Client) -> Vec<String> {
    let narrow = json!([{ "operator": "dm", "operand": [BOT] }]);
    messages(client, narrow).iter().map(|m| m["content"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_new_channel_opens_with_the_notification_bots_creation_message() {
    let name = unique("opened-");
    let subscriptions = json!([{ "name": name, "description": "Plans for **spring**" }]).to_string();
    hamlet().post("/users/me/subscriptions", &[("subscriptions", subscriptions.as_str())]).success();
    let messages = channel_messages(&hamlet(), &name);
    assert_eq!(messages.len(), 1, "{messages:?}");
    let m = &messages[0];
    assert_eq!(m["sender_email"], BOT);
    assert_eq!(m["subject"], "channel events");
    let expected = format!(
        "**Public** channel created by @_**King Hamlet|{}**. **Description:**\n```` quote\nPlans for **spring**\n````",
        hamlet().user_id
    );
    assert_eq!(m["content"], expected.as_str());
    assert!(m["flags"].as_array().unwrap().contains(&json!("read")), "read for its creator: {m}");
}

#[test]
fn the_creation_message_names_a_private_channels_history_and_a_missing_description() {
    let name = unique("opened-private-");
    let subscribers = json!([iago().user_id]).to_string();
    let form = [
        ("name", name.as_str()),
        ("subscribers", subscribers.as_str()),
        ("invite_only", "true"),
        ("history_public_to_subscribers", "true"),
    ];
    let id = iago().post("/channels/create", &form).success()["id"].as_i64().unwrap();
    let messages = messages(&iago(), json!([{ "operator": "channel", "operand": id }]));
    let content = messages[0]["content"].as_str().unwrap();
    assert!(content.starts_with("**Private, shared history** channel created by @_**Iago|"), "{content}");
    assert!(content.ends_with("```` quote\n*No description.*\n````"), "{content}");
}

#[test]
fn the_creation_message_is_unread_for_the_other_subscribers() {
    let name = unique("opened-unread-");
    subscribe(&hamlet(), &[&name], &[hamlet().user_id, othello().user_id], &[]);
    let messages = channel_messages(&othello(), &name);
    assert_eq!(messages.len(), 1);
    assert!(!messages[0]["flags"].as_array().unwrap().contains(&json!("read")), "{}", messages[0]);
}

#[test]
fn someone_subscribed_to_an_existing_channel_by_another_user_gets_a_direct_message() {
    let name = unique("told-");
    subscribe(&hamlet(), &[&name], &[], &[]);
    let body = subscribe(&iago(), &[&name], &[othello().user_id], &[]);
    assert_eq!(body["new_subscription_messages_sent"], true);
    let expected = format!("@_**Iago|{}** subscribed you to #**{name}**.", iago().user_id);
    let told = bot_direct_messages(&othello());
    assert_eq!(told.iter().find(|m| m.contains(&name)), Some(&expected), "{told:?}");
}

#[test]
fn several_channels_are_listed_in_one_direct_message() {
    let (a, b) = (unique("told-a-"), unique("told-b-"));
    subscribe(&hamlet(), &[&a, &b], &[], &[]);
    subscribe(&iago(), &[&b, &a], &[othello().user_id], &[]);
    let expected = format!("@_**Iago|{}** subscribed you to the following channels:\n\n* #**{a}**\n* #**{b}**", iago().user_id);
    let told = bot_direct_messages(&othello());
    assert_eq!(told.iter().find(|m| m.contains(&a)), Some(&expected), "{told:?}");
}

#[test]
fn no_direct_message_when_the_request_says_not_to_send_them() {
    let (quiet, sentinel) = (unique("quiet-"), unique("sentinel-"));
    subscribe(&hamlet(), &[&quiet, &sentinel], &[], &[]);
    let body = subscribe(&iago(), &[&quiet], &[othello().user_id], &[("send_new_subscription_messages", "false")]);
    assert!(body.get("new_subscription_messages_sent").is_none(), "{body}");
    subscribe(&iago(), &[&sentinel], &[othello().user_id], &[]);
    let told = bot_direct_messages(&othello());
    assert!(told.iter().any(|m| m.contains(&sentinel)), "{told:?}");
    assert!(!told.iter().any(|m| m.contains(&quiet)), "{told:?}");
}

#[test]
fn nobody_is_told_of_a_channel_the_request_created_or_of_subscribing_themselves() {
    let (created, own, sentinel) = (unique("created-"), unique("own-"), unique("sentinel-"));
    subscribe(&hamlet(), &[&own, &sentinel], &[], &[]);
    subscribe(&iago(), &[&created], &[iago().user_id, othello().user_id], &[]);
    subscribe(&othello(), &[&own], &[othello().user_id], &[]);
    subscribe(&iago(), &[&sentinel], &[othello().user_id], &[]);
    let told = bot_direct_messages(&othello());
    assert!(told.iter().any(|m| m.contains(&sentinel)), "{told:?}");
    assert!(!told.iter().any(|m| m.contains(&created) || m.contains(&own)), "{told:?}");
}

#[test]
fn bots_are_not_told_of_their_subscriptions() {
    let bot = new_bot(&hamlet(), "1", &[]);
    let (name, sentinel) = (unique("bot-told-"), unique("sentinel-"));
    subscribe(&hamlet(), &[&name, &sentinel], &[], &[]);
    subscribe(&iago(), &[&name], &[bot.user_id], &[]);
    subscribe(&iago(), &[&sentinel], &[othello().user_id], &[]);
    assert!(bot_direct_messages(&othello()).iter().any(|m| m.contains(&sentinel)), "the people of the same kind of request are told");
    assert_eq!(bot_direct_messages(&bot), Vec::<String>::new(), "the bot is not");
}

#[test]
fn nobody_is_told_when_more_than_a_hundred_people_are_subscribed_at_once() {
    let (owner, member) = organization_with_member("bulk-told-", "Bulk", "a-long-member-password-7");
    let name = unique("bulk-");
    subscribe(&owner, &[&name], &[], &[]);
    let mut people = vec![member.user_id];
    for i in 0..100 {
        let email = format!("person{i}@{}.example.com", owner.realm.as_deref().unwrap());
        let body = owner.post("/users", &[("email", email.as_str()), ("password", "a-long-password-of-theirs"), ("full_name", "Person")]);
        people.push(body.success()["user_id"].as_i64().unwrap());
    }
    let body = subscribe(&owner, &[&name], &people, &[]);
    assert_eq!(body["new_subscription_messages_sent"], false);
    assert_eq!(bot_direct_messages(&member), Vec::<String>::new(), "nobody is told");
}

/// A new organization's first channel ("general"), as its owner sees it.
fn general_of(owner: &Client) -> i64 {
    owner.get("/get_stream_id", &[("stream", "general")]).success()["stream_id"].as_i64().unwrap()
}

#[test]
fn a_new_organization_announces_in_its_first_channel() {
    let (owner, _) = organization_with_member("announcing-", "Announcing", "a-long-member-password-7");
    let general = general_of(&owner);
    let state = owner.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    for setting in ["new_stream_announcements_stream_id", "signup_announcements_stream_id", "zulip_update_announcements_stream_id"] {
        assert_eq!(state[format!("realm_{setting}")], general, "{setting}");
    }
}

#[test]
fn a_new_member_is_announced_in_signups() {
    let (owner, member) = organization_with_member("signups-", "Signups", "a-long-member-password-7");
    let messages =
        messages(&owner, json!([{ "operator": "channel", "operand": general_of(&owner) }, { "operator": "topic", "operand": "signups" }]));
    let contents: Vec<&str> = messages.iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(contents, vec![format!("@_**Mo Member|{}** joined this organization.", member.user_id)]);
}

#[test]
fn announce_posts_new_channels_where_the_organization_announces_them() {
    let (owner, _) = organization_with_member("announced-", "Announced", "a-long-member-password-7");
    let (a, b) = (unique("announced-a-"), unique("announced-b-"));
    subscribe(&owner, &[&a], &[], &[("announce", "true")]);
    subscribe(&owner, &[&b], &[], &[]);
    let narrow = json!([{ "operator": "channel", "operand": general_of(&owner) }, { "operator": "topic", "operand": "new channels" }]);
    let contents: Vec<String> = messages(&owner, narrow).iter().map(|m| m["content"].as_str().unwrap().to_string()).collect();
    assert_eq!(contents, vec![format!("@_**Ada Owner|{}** created a new channel #**{a}**.", owner.user_id)]);
}

#[test]
fn announcement_channels_are_set_by_administrators_to_channels_they_can_read() {
    let (owner, member) = organization_with_member("announce-set-", "Announce settings", "a-long-member-password-7");
    let private = unique("hidden-");
    let id = member.post("/channels/create", &[("name", private.as_str()), ("subscribers", "[]"), ("invite_only", "true")]).success()["id"]
        .as_i64()
        .unwrap();
    let id = id.to_string();
    member
        .patch("/realm", &[("signup_announcements_stream_id", "-1")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    owner.patch("/realm", &[("signup_announcements_stream_id", id.as_str())]).bad_request("BAD_REQUEST", "Invalid channel ID");
    let body = owner.patch("/realm", &[("signup_announcements_stream_id", "-1")]).success();
    assert_eq!(body["signup_announcements_stream_id"], -1);
    let state = owner.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_signup_announcements_stream_id"], -1);
    assert_eq!(state["realm_new_stream_announcements_stream_id"], general_of(&owner), "the others keep their channel");
}
