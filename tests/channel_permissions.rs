//! A channel's permission groups: `can_send_message_group` and
//! `can_administer_channel_group`, set when `POST /users/me/subscriptions` creates the
//! channel or by `PATCH /streams/{stream_id}`, shown in channel objects and `stream`
//! `update` events, and enforced by sending and by channel administration. Every test
//! makes its own channel and groups.

mod accounts;
mod chat;
mod common;
mod event_support;

use accounts::new_bot;
use chat::{create_channel, new_channel};
use common::*;
use event_support::*;
use serde_json::{json, Value};

const NO_POSTING: &str = "You do not have permission to post in this channel.";
const NO_ADMINISTERING: &str = "You do not have permission to administer this channel.";

fn iago() -> Client {
    Client::dev("iago@zulip.com")
}
fn hamlet() -> Client {
    Client::dev("hamlet@zulip.com")
}
fn othello() -> Client {
    Client::dev("othello@zulip.com")
}

/// The id of the system group named `name` (`role:…`).
fn system_group(name: &str) -> i64 {
    let groups = hamlet().get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
    groups.iter().find(|g| g["name"] == name).unwrap_or_else(|| panic!("no {name}"))["id"].as_i64().unwrap()
}

/// A new user group of these members.
fn group_of(members: &[i64]) -> i64 {
    let form = [("name", unique("perm-group")), ("description", "permissions".into()), ("members", json!(members).to_string())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    hamlet().post("/user_groups/create", &form).success()["group_id"].as_i64().unwrap()
}

fn stream(client: &Client, id: i64) -> Value {
    client.get(&format!("/streams/{id}"), &[]).success()["stream"].clone()
}

fn post(client: &Client, channel_id: i64, content: &str) -> Resp {
    let to = channel_id.to_string();
    client.post("/messages", &[("type", "stream"), ("to", &to), ("topic", "permissions"), ("content", content)])
}

/// The contents of the channel's messages, as `viewer` reads them.
fn contents(viewer: &Client, channel_id: i64) -> Vec<String> {
    let narrow = json!([{"operator": "channel", "operand": channel_id}]).to_string();
    let body = viewer.get("/messages", &[("anchor", "newest"), ("num_before", "100"), ("num_after", "0"), ("narrow", &narrow)]).success();
    body["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_string()).collect()
}

fn set(admin: &Client, channel_id: i64, setting: &str, value: Value) -> Resp {
    admin.patch(&format!("/streams/{channel_id}"), &[(setting, &value.to_string())])
}

/// A public channel of hamlet's, othello subscribed, whose posting is limited to `group`.
fn channel_posting_for(group: i64) -> i64 {
    let name = unique("posting-");
    let group = group.to_string();
    create_channel(&hamlet(), &name, &[("can_send_message_group", group.as_str())], &[othello().user_id])
}

// ---- defaults and shapes

#[test]
fn a_new_channel_has_zulips_default_groups() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    let s = stream(&hamlet(), id);
    assert_eq!(s["can_send_message_group"], system_group("role:everyone"));
    assert_eq!(s["can_administer_channel_group"], system_group("role:nobody"));
    assert_eq!(s["can_remove_subscribers_group"], system_group("role:administrators"));
}

#[test]
fn creation_sets_the_groups_shown_everywhere() {
    let group = group_of(&[hamlet().user_id]);
    let name = unique("created-");
    let (send, administer) = (system_group("role:administrators").to_string(), group.to_string());
    let id = create_channel(&hamlet(), &name, &[("can_send_message_group", &send), ("can_administer_channel_group", &administer)], &[]);
    let s = stream(&othello(), id);
    assert_eq!((s["can_send_message_group"].as_i64(), s["can_administer_channel_group"].as_i64()), (send.parse().ok(), Some(group)));
    let state = hamlet().post("/register", &[("fetch_event_types", r#"["subscription"]"#)]).success();
    let sub = state["subscriptions"].as_array().unwrap().iter().find(|s| s["stream_id"] == id).cloned().unwrap();
    assert_eq!(sub["can_administer_channel_group"], group);
}

#[test]
fn creation_with_an_unsuitable_group_creates_nothing() {
    let name = unique("refused-");
    let subs = json!([{ "name": name }]).to_string();
    let everyone = system_group("role:everyone").to_string();
    hamlet()
        .post("/users/me/subscriptions", &[("subscriptions", &subs), ("can_administer_channel_group", &everyone)])
        .bad_request("BAD_REQUEST", "'can_administer_channel_group' setting cannot be set to 'role:everyone' group.");
    hamlet()
        .post("/users/me/subscriptions", &[("subscriptions", &subs), ("can_send_message_group", "987654321")])
        .bad_request("BAD_REQUEST", "Invalid user group");
    hamlet().get("/get_stream_id", &[("stream", &name)]).bad_request("BAD_REQUEST", &format!("Invalid channel name '{name}'"));
}

// ---- can_send_message_group

#[test]
fn only_the_posting_group_may_post() {
    let id = channel_posting_for(group_of(&[hamlet().user_id]));
    post(&othello(), id, "outsider").bad_request("BAD_REQUEST", NO_POSTING);
    post(&hamlet(), id, "insider").success();
    assert_eq!(contents(&hamlet(), id), vec!["<p>insider</p>"], "the refused message was never stored");
}

#[test]
fn a_bot_posts_where_its_owner_may() {
    let id = channel_posting_for(group_of(&[hamlet().user_id]));
    post(&new_bot(&hamlet(), "1", &[]), id, "owner allowed").success();
    post(&new_bot(&othello(), "1", &[]), id, "owner refused").bad_request("BAD_REQUEST", NO_POSTING);
}

#[test]
fn a_system_group_admits_by_role() {
    let id = channel_posting_for(system_group("role:administrators"));
    post(&hamlet(), id, "member").bad_request("BAD_REQUEST", NO_POSTING);
    post(&iago(), id, "administrator").success();
}

#[test]
fn an_administrator_limits_posting_and_viewers_hear_of_it() {
    let (_, id) = new_channel(&hamlet(), &[&othello()], false, true);
    let mut queue = register_for(&othello(), r#"["stream"]"#);
    let admins = system_group("role:administrators");
    let body = set(&iago(), id, "can_send_message_group", json!({"new": admins, "old": system_group("role:everyone")})).success();
    assert_matches_openapi("PATCH", "/streams/{stream_id}", &body);
    let event = queue.wait_for("the update", |e| {
        e["type"] == "stream" && e["op"] == "update" && e["stream_id"] == id && e["property"] == "can_send_message_group"
    });
    assert_eq!(event["value"], admins);
    assert_eq!(stream(&othello(), id)["can_send_message_group"], admins);
    post(&othello(), id, "now refused").bad_request("BAD_REQUEST", NO_POSTING);
}

#[test]
fn a_stale_old_value_changes_nothing() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    let admins = system_group("role:administrators");
    set(&iago(), id, "can_send_message_group", json!({"new": admins, "old": admins}))
        .bad_request("BAD_REQUEST", "'old' value does not match the expected value.");
    assert_eq!(stream(&hamlet(), id)["can_send_message_group"], system_group("role:everyone"));
}

#[test]
fn an_anonymous_group_is_taken_when_it_is_one_group() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    let group = group_of(&[hamlet().user_id]);
    set(&iago(), id, "can_send_message_group", json!({"new": {"direct_members": [], "direct_subgroups": [group]}})).success();
    assert_eq!(stream(&hamlet(), id)["can_send_message_group"], group);
    set(&iago(), id, "can_send_message_group", json!({"new": {"direct_members": [hamlet().user_id], "direct_subgroups": []}}))
        .bad_request("BAD_REQUEST", "'can_send_message_group' takes one user group on this server, not a set of users and groups.");
    assert_eq!(stream(&hamlet(), id)["can_send_message_group"], group);
}

// ---- can_administer_channel_group

#[test]
fn members_may_not_change_permission_groups() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    set(&hamlet(), id, "can_send_message_group", json!(system_group("role:administrators"))).bad_request("BAD_REQUEST", NO_ADMINISTERING);
    assert_eq!(stream(&hamlet(), id)["can_send_message_group"], system_group("role:everyone"));
}

#[test]
fn the_administering_group_administers_the_channel() {
    let (_, id) = new_channel(&hamlet(), &[&othello()], false, true);
    set(&iago(), id, "can_administer_channel_group", json!(group_of(&[hamlet().user_id]))).success();
    let new_name = unique("administered-");
    othello().patch(&format!("/streams/{id}"), &[("new_name", &new_name)]).bad_request("BAD_REQUEST", NO_ADMINISTERING);
    hamlet().patch(&format!("/streams/{id}"), &[("new_name", &new_name)]).success();
    assert_eq!(stream(&othello(), id)["name"], new_name.as_str());
    othello().delete(&format!("/streams/{id}"), &[]).bad_request("BAD_REQUEST", NO_ADMINISTERING);
    hamlet().delete(&format!("/streams/{id}"), &[]).success();
}

#[test]
fn groups_must_suit_the_setting() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    set(&iago(), id, "can_administer_channel_group", json!(system_group("role:everyone")))
        .bad_request("BAD_REQUEST", "'can_administer_channel_group' setting cannot be set to 'role:everyone' group.");
    set(&iago(), id, "can_send_message_group", json!(system_group("role:internet")))
        .bad_request("BAD_REQUEST", "'can_send_message_group' setting cannot be set to 'role:internet' group.");
    set(&iago(), id, "can_send_message_group", json!(987654321)).bad_request("BAD_REQUEST", "Invalid user group");
    let s = stream(&hamlet(), id);
    assert_eq!(s["can_administer_channel_group"], system_group("role:nobody"));
    assert_eq!(s["can_send_message_group"], system_group("role:everyone"));
}
