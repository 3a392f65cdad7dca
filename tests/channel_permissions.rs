//! A channel's permission groups (`can_send_message_group`, `can_administer_channel_group`,
//! `can_add_subscribers_group`, `can_remove_subscribers_group`, `can_subscribe_group`,
//! `can_move_messages_within_channel_group`, `can_move_messages_out_of_channel_group`,
//! `can_resolve_topics_group`, `can_delete_any_message_group`, `can_delete_own_message_group`), set when
//! `POST /users/me/subscriptions` creates the channel or by `PATCH /streams/{stream_id}`,
//! shown in channel objects and `stream` `update` events, and enforced by sending, channel
//! administration, subscribing, moving, resolving and deleting. Every test makes its own
//! channel and groups; the tests of moving, resolving and deleting make their own
//! organization, whose organization-level settings they restrict.

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
/// The rendered messages of a channel but its notification-bot notices.
fn contents(viewer: &Client, channel_id: i64) -> Vec<String> {
    let narrow = json!([{"operator": "channel", "operand": channel_id}]).to_string();
    let body = viewer.get("/messages", &[("anchor", "newest"), ("num_before", "100"), ("num_after", "0"), ("narrow", &narrow)]).success();
    let messages = body["messages"].as_array().unwrap().iter().filter(|m| !is_channel_event_notice(m));
    messages.map(|m| m["content"].as_str().unwrap().to_string()).collect()
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
    assert_eq!(s["can_administer_channel_group"], json!({"direct_members": [hamlet().user_id], "direct_subgroups": []}));
    assert_eq!(s["can_remove_subscribers_group"], system_group("role:administrators"));
    for setting in NOBODY_BY_DEFAULT {
        assert_eq!(s[setting], system_group("role:nobody"), "{setting}");
    }
}

/// The settings whose default is `role:nobody`, besides `can_administer_channel_group`.
const NOBODY_BY_DEFAULT: [&str; 7] = [
    "can_add_subscribers_group",
    "can_subscribe_group",
    "can_move_messages_within_channel_group",
    "can_move_messages_out_of_channel_group",
    "can_resolve_topics_group",
    "can_delete_any_message_group",
    "can_delete_own_message_group",
];

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
}

// ---- can_administer_channel_group

#[test]
fn members_may_not_change_permission_groups() {
    let (_, id) = new_channel(&hamlet(), &[&othello()], false, true);
    set(&othello(), id, "can_send_message_group", json!(system_group("role:administrators"))).bad_request("BAD_REQUEST", NO_ADMINISTERING);
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
    assert_eq!(s["can_administer_channel_group"], json!({"direct_members": [hamlet().user_id], "direct_subgroups": []}));
    assert_eq!(s["can_send_message_group"], system_group("role:everyone"));
}

// ---- every setting: creation, PATCH, events

/// The settings beyond posting and administering, each with a group that suits it.
fn the_other_settings() -> Vec<(&'static str, i64)> {
    let group = group_of(&[othello().user_id]);
    let admins = system_group("role:administrators");
    vec![
        ("can_add_subscribers_group", group),
        ("can_remove_subscribers_group", group),
        ("can_subscribe_group", group),
        ("can_move_messages_within_channel_group", group),
        ("can_move_messages_out_of_channel_group", group),
        ("can_resolve_topics_group", group),
        ("can_delete_any_message_group", admins),
        ("can_delete_own_message_group", admins),
    ]
}

#[test]
fn creation_sets_every_permission_group() {
    let settings = the_other_settings();
    let values: Vec<(&str, String)> = settings.iter().map(|(k, v)| (*k, v.to_string())).collect();
    let form: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let id = create_channel(&iago(), &unique("all-groups-"), &form, &[hamlet().user_id]);
    let s = stream(&hamlet(), id);
    for (setting, group) in &settings {
        assert_eq!(s[setting], *group, "{setting}");
    }
    let state = hamlet().post("/register", &[("fetch_event_types", r#"["subscription"]"#)]).success();
    let sub = state["subscriptions"].as_array().unwrap().iter().find(|s| s["stream_id"] == id).cloned().unwrap();
    for (setting, group) in &settings {
        assert_eq!(sub[setting], *group, "{setting} in /register");
    }
}

#[test]
fn each_permission_group_change_reaches_viewers_as_a_stream_update() {
    let (_, id) = new_channel(&hamlet(), &[&othello()], false, true);
    let mut queue = register_for(&othello(), r#"["stream"]"#);
    for (setting, group) in the_other_settings() {
        set(&iago(), id, setting, json!({ "new": group })).success();
        let event =
            queue.wait_for(setting, |e| e["type"] == "stream" && e["op"] == "update" && e["stream_id"] == id && e["property"] == setting);
        assert_eq!(event["value"], group, "{setting}");
        assert_eq!(stream(&othello(), id)[setting], group, "{setting}");
    }
}

#[test]
fn only_moderators_and_up_let_anyone_delete_messages() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    set(&iago(), id, "can_administer_channel_group", json!(group_of(&[hamlet().user_id]))).success();
    let members = system_group("role:members");
    for setting in ["can_delete_any_message_group", "can_delete_own_message_group"] {
        set(&hamlet(), id, setting, json!(members)).bad_request("BAD_REQUEST", "Insufficient permission");
        assert_eq!(stream(&hamlet(), id)[setting], system_group("role:nobody"), "{setting} unchanged");
        set(&hamlet(), id, setting, json!(system_group("role:nobody"))).success();
    }
    set(&iago(), id, "can_delete_own_message_group", json!(members)).success();
}

#[test]
fn a_member_creating_a_channel_may_not_let_anyone_delete_messages() {
    let name = unique("no-deleters-");
    let subs = json!([{ "name": name }]).to_string();
    let members = system_group("role:members").to_string();
    hamlet()
        .post("/users/me/subscriptions", &[("subscriptions", &subs), ("can_delete_own_message_group", &members)])
        .bad_request("BAD_REQUEST", "Insufficient permission");
    hamlet().get("/get_stream_id", &[("stream", &name)]).bad_request("BAD_REQUEST", &format!("Invalid channel name '{name}'"));
}

#[test]
fn subscribing_settings_refuse_role_everyone() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    let everyone = system_group("role:everyone");
    for setting in ["can_add_subscribers_group", "can_subscribe_group"] {
        set(&iago(), id, setting, json!(everyone))
            .bad_request("BAD_REQUEST", &format!("'{setting}' setting cannot be set to 'role:everyone' group."));
    }
    set(&iago(), id, "can_remove_subscribers_group", json!(everyone)).success();
}

// ---- subscribing

fn subscribe_to(client: &Client, name: &str, principals: &[i64]) -> Resp {
    let subs = json!([{ "name": name }]).to_string();
    let principals = json!(principals).to_string();
    let mut form = vec![("subscriptions", subs.as_str())];
    if principals != "[]" {
        form.push(("principals", principals.as_str()));
    }
    client.post("/users/me/subscriptions", &form)
}

/// The ids of the channel's subscribers, as hamlet (subscribed to every test channel) sees them.
fn members_of(id: i64) -> Vec<i64> {
    let body = hamlet().get(&format!("/streams/{id}/members"), &[]).success();
    body["subscribers"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect()
}

fn cordelia() -> Client {
    Client::dev("cordelia@zulip.com")
}

#[test]
fn can_subscribe_group_lets_a_member_join_a_private_channel() {
    let (name, id) = new_channel(&hamlet(), &[], true, true);
    subscribe_to(&othello(), &name, &[]).bad_request("BAD_REQUEST", &format!("Unable to access channel ({name})."));
    assert!(!members_of(id).contains(&othello().user_id), "the refused request subscribed nobody");
    set(&iago(), id, "can_subscribe_group", json!(group_of(&[othello().user_id]))).success();
    subscribe_to(&othello(), &name, &[]).success();
    assert!(members_of(id).contains(&othello().user_id));
}

#[test]
fn joining_through_can_subscribe_group_also_lets_a_member_add_others() {
    let (name, id) = new_channel(&hamlet(), &[], true, true);
    set(&iago(), id, "can_subscribe_group", json!(group_of(&[othello().user_id]))).success();
    subscribe_to(&othello(), &name, &[cordelia().user_id]).success();
    assert!(members_of(id).contains(&cordelia().user_id), "joining grants access, and members may add subscribers where they may join");
}

#[test]
fn a_guest_never_joins_through_can_subscribe_group() {
    let polonius = Client::dev("polonius@zulip.com");
    let (name, id) = new_channel(&hamlet(), &[], true, true);
    set(&iago(), id, "can_subscribe_group", json!(group_of(&[polonius.user_id]))).success();
    subscribe_to(&polonius, &name, &[]).bad_request("BAD_REQUEST", &format!("Unable to access channel ({name})."));
    assert!(!members_of(id).contains(&polonius.user_id));
}

#[test]
fn can_add_subscribers_group_lets_a_non_subscriber_add_others_to_a_private_channel() {
    let (name, id) = new_channel(&hamlet(), &[], true, true);
    subscribe_to(&othello(), &name, &[cordelia().user_id]).bad_request("BAD_REQUEST", &format!("Unable to access channel ({name})."));
    assert!(!members_of(id).contains(&cordelia().user_id), "the refused request subscribed nobody");
    set(&iago(), id, "can_add_subscribers_group", json!(group_of(&[othello().user_id]))).success();
    let body = subscribe_to(&othello(), &name, &[cordelia().user_id]).success();
    assert_eq!(body["subscribed"][cordelia().user_id.to_string()], json!([name]));
    assert!(members_of(id).contains(&cordelia().user_id));
    assert!(!members_of(id).contains(&othello().user_id), "adding others does not subscribe the adder");
}

// ---- unsubscribing others

fn unsubscribe(client: &Client, name: &str, principals: &[i64]) -> Resp {
    let subs = json!([name]).to_string();
    let principals = json!(principals).to_string();
    client.delete("/users/me/subscriptions", &[("subscriptions", &subs), ("principals", &principals)])
}

#[test]
fn by_default_only_administrators_unsubscribe_others() {
    let (name, id) = new_channel(&hamlet(), &[&cordelia()], false, true);
    unsubscribe(&othello(), &name, &[cordelia().user_id]).bad_request("BAD_REQUEST", "Insufficient permission");
    assert!(members_of(id).contains(&cordelia().user_id), "the refused request removed nobody");
    unsubscribe(&iago(), &name, &[cordelia().user_id]).success();
    assert!(!members_of(id).contains(&cordelia().user_id));
}

#[test]
fn can_remove_subscribers_group_lets_its_members_unsubscribe_others() {
    let (name, id) = new_channel(&hamlet(), &[&cordelia()], false, true);
    set(&iago(), id, "can_remove_subscribers_group", json!(group_of(&[othello().user_id]))).success();
    let body = unsubscribe(&othello(), &name, &[cordelia().user_id]).success();
    assert_eq!(body["removed"], json!([name]));
    assert!(!members_of(id).contains(&cordelia().user_id));
}

#[test]
fn channel_administrators_unsubscribe_others() {
    let (name, id) = new_channel(&hamlet(), &[&cordelia()], false, true);
    set(&iago(), id, "can_administer_channel_group", json!(group_of(&[othello().user_id]))).success();
    unsubscribe(&othello(), &name, &[cordelia().user_id]).success();
    assert!(!members_of(id).contains(&cordelia().user_id));
}

// ---- moving, resolving and deleting, in an organization of their own

/// A new organization where only administrators move and resolve topics and nobody deletes
/// their own messages; its owner, a member, and the owner's channel with the member in it.
struct Organization {
    owner: Client,
    member: Client,
    channel_id: i64,
}

impl Organization {
    fn new() -> Self {
        let (owner, member) = organization_with_member("chanperm", "Channel permissions", "a-long-member-password");
        let group = |name: &str| -> i64 {
            let groups = owner.get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
            groups.iter().find(|g| g["name"] == name).unwrap()["id"].as_i64().unwrap()
        };
        let (admins, nobody) = (group("role:administrators"), group("role:nobody"));
        owner
            .patch(
                "/realm",
                &[
                    ("can_move_messages_between_topics_group", &json!({ "new": admins }).to_string()),
                    ("can_move_messages_between_channels_group", &json!({ "new": admins }).to_string()),
                    ("can_resolve_topics_group", &json!({ "new": admins }).to_string()),
                    ("can_delete_own_message_group", &json!({ "new": nobody }).to_string()),
                ],
            )
            .success();
        let channel_id = create_channel(&owner, &unique("org-channel-"), &[], &[member.user_id]);
        Organization { owner, member, channel_id }
    }

    /// Puts the member in the channel's `setting` (through a group of its own).
    fn grant(&self, setting: &str) {
        set(&self.owner, self.channel_id, setting, json!({ "new": group_of_member(self) })).success();
    }

    fn send(&self, client: &Client, topic: &str) -> i64 {
        chat::send_to_channel_id(client, self.channel_id, topic, "permissions")
    }

    fn topic_of(&self, message_id: i64) -> String {
        chat::fetch(&self.owner, message_id)["subject"].as_str().unwrap().to_string()
    }
}

/// A new group of the organization holding its member.
fn group_of_member(org: &Organization) -> i64 {
    let form = [("name", unique("grant")), ("description", "grant".into()), ("members", json!([org.member.user_id]).to_string())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    org.owner.post("/user_groups/create", &form).success()["group_id"].as_i64().unwrap()
}

const NO_EDITING: &str = "You don't have permission to edit this message";
const NO_RESOLVING: &str = "You don't have permission to resolve topics in this channel.";
const NO_DELETING: &str = "You don't have permission to delete this message";
const NO_MOVING: &str = "You don't have permission to move this message";

#[test]
fn can_move_messages_within_channel_group_lets_a_member_move_topics() {
    let org = Organization::new();
    let id = org.send(&org.owner, "before");
    chat::edit(&org.member, id, &[("topic", "after")]).bad_request("BAD_REQUEST", NO_EDITING);
    assert_eq!(org.topic_of(id), "before", "the refused move changed nothing");
    org.grant("can_move_messages_within_channel_group");
    chat::edit(&org.member, id, &[("topic", "after")]).success();
    assert_eq!(org.topic_of(id), "after");
}

#[test]
fn channel_administrators_move_topics() {
    let org = Organization::new();
    let id = org.send(&org.owner, "before");
    org.grant("can_administer_channel_group");
    chat::edit(&org.member, id, &[("topic", "after")]).success();
    assert_eq!(org.topic_of(id), "after");
}

/// Another channel of the organization, with the member in it.
fn second_channel(org: &Organization) -> i64 {
    create_channel(&org.owner, &unique("org-second-"), &[], &[org.member.user_id])
}

fn channel_of(org: &Organization, message_id: i64) -> i64 {
    chat::fetch(&org.owner, message_id)["stream_id"].as_i64().unwrap()
}

#[test]
fn can_move_messages_out_of_channel_group_lets_a_member_move_messages_to_another_channel() {
    let org = Organization::new();
    let other = second_channel(&org);
    let id = org.send(&org.owner, "leaving");
    let stream_id = other.to_string();
    chat::edit(&org.member, id, &[("stream_id", &stream_id)]).bad_request("BAD_REQUEST", NO_MOVING);
    assert_eq!(channel_of(&org, id), org.channel_id, "the refused move changed nothing");
    org.grant("can_move_messages_out_of_channel_group");
    chat::edit(&org.member, id, &[("stream_id", &stream_id)]).success();
    assert_eq!(channel_of(&org, id), other);
}

#[test]
fn channel_administrators_move_messages_out_of_the_channel() {
    let org = Organization::new();
    let other = second_channel(&org);
    let id = org.send(&org.owner, "leaving");
    org.grant("can_administer_channel_group");
    chat::edit(&org.member, id, &[("stream_id", &other.to_string())]).success();
    assert_eq!(channel_of(&org, id), other);
}

#[test]
fn moving_out_is_governed_by_the_channel_messages_leave() {
    let org = Organization::new();
    let other = second_channel(&org);
    set(&org.owner, other, "can_move_messages_out_of_channel_group", json!({ "new": group_of_member(&org) })).success();
    let id = org.send(&org.owner, "staying");
    chat::edit(&org.member, id, &[("stream_id", &other.to_string())]).bad_request("BAD_REQUEST", NO_MOVING);
    assert_eq!(channel_of(&org, id), org.channel_id);
}

#[test]
fn can_resolve_topics_group_lets_a_member_resolve_topics() {
    let org = Organization::new();
    let id = org.send(&org.owner, "question");
    chat::edit(&org.member, id, &[("topic", "✔ question")]).bad_request("BAD_REQUEST", NO_RESOLVING);
    assert_eq!(org.topic_of(id), "question", "the refused resolve changed nothing");
    org.grant("can_resolve_topics_group");
    chat::edit(&org.member, id, &[("topic", "✔ question")]).success();
    assert_eq!(org.topic_of(id), "✔ question");
}

#[test]
fn can_resolve_topics_group_does_not_let_its_members_rename_topics() {
    let org = Organization::new();
    let id = org.send(&org.owner, "question");
    org.grant("can_resolve_topics_group");
    chat::edit(&org.member, id, &[("topic", "renamed")]).bad_request("BAD_REQUEST", NO_EDITING);
    assert_eq!(org.topic_of(id), "question");
}

fn still_there(org: &Organization, message_id: i64) -> bool {
    org.owner.get(&format!("/messages/{message_id}"), &[]).status == 200
}

#[test]
fn can_delete_any_message_group_lets_a_member_delete_others_messages() {
    let org = Organization::new();
    let id = org.send(&org.owner, "deletions");
    org.member.delete(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", NO_DELETING);
    assert!(still_there(&org, id), "the refused deletion deleted nothing");
    org.grant("can_delete_any_message_group");
    org.member.delete(&format!("/messages/{id}"), &[]).success();
    assert!(!still_there(&org, id));
}

#[test]
fn can_delete_own_message_group_lets_a_member_delete_their_own_where_the_organization_does_not() {
    let org = Organization::new();
    let id = org.send(&org.member, "deletions");
    org.member.delete(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", NO_DELETING);
    assert!(still_there(&org, id), "the refused deletion deleted nothing");
    org.grant("can_delete_own_message_group");
    org.member.delete(&format!("/messages/{id}"), &[]).success();
    assert!(!still_there(&org, id));
}

#[test]
fn can_delete_own_message_group_does_not_reach_others_messages() {
    let org = Organization::new();
    let id = org.send(&org.owner, "deletions");
    org.grant("can_delete_own_message_group");
    org.member.delete(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", NO_DELETING);
    assert!(still_there(&org, id));
}

#[test]
fn a_channel_group_governs_only_its_channel() {
    let org = Organization::new();
    org.grant("can_delete_any_message_group");
    let elsewhere = create_channel(&org.owner, &unique("elsewhere-"), &[], &[org.member.user_id]);
    let id = chat::send_to_channel_id(&org.owner, elsewhere, "deletions", "elsewhere");
    org.member.delete(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", NO_DELETING);
    assert!(still_there(&org, id));
}

// ---- seeing a private channel through its groups (Zulip's metadata access)

/// Whether `viewer` can see the channel: `GET /streams/{stream_id}`.
fn sees(viewer: &Client, id: i64) -> bool {
    let r = viewer.get(&format!("/streams/{id}"), &[]);
    if r.status == 200 {
        return true;
    }
    r.bad_request("BAD_REQUEST", "Invalid channel ID");
    false
}

/// The ids `GET /streams` lists for `viewer` with these parameters.
fn listed(viewer: &Client, params: &[(&str, &str)]) -> Vec<i64> {
    let body = viewer.get("/streams", params).success();
    body["streams"].as_array().unwrap().iter().map(|s| s["stream_id"].as_i64().unwrap()).collect()
}

fn never_subscribed(viewer: &Client) -> Vec<i64> {
    let state = viewer.post("/register", &[("fetch_event_types", r#"["subscription"]"#)]).success();
    state["never_subscribed"].as_array().unwrap().iter().map(|s| s["stream_id"].as_i64().unwrap()).collect()
}

#[test]
fn a_member_who_may_join_a_private_channel_sees_it() {
    let (_, id) = new_channel(&hamlet(), &[], true, true);
    assert!(!sees(&othello(), id), "a private channel is hidden from non-subscribers");
    set(&iago(), id, "can_subscribe_group", json!(group_of(&[othello().user_id]))).success();
    assert!(sees(&othello(), id));
    assert!(never_subscribed(&othello()).contains(&id), "in /register's never_subscribed");
    assert!(listed(&othello(), &[("include_can_access_content", "true")]).contains(&id));
    assert!(!listed(&othello(), &[]).contains(&id), "include_public lists public channels only");
}

#[test]
fn a_member_who_may_add_subscribers_sees_the_private_channel() {
    let (_, id) = new_channel(&hamlet(), &[], true, true);
    set(&iago(), id, "can_add_subscribers_group", json!(group_of(&[othello().user_id]))).success();
    assert!(sees(&othello(), id));
    assert!(listed(&othello(), &[("include_can_access_content", "true")]).contains(&id));
}

#[test]
fn a_channel_administrator_sees_the_private_channel_without_content_access() {
    let (_, id) = new_channel(&hamlet(), &[], true, true);
    set(&iago(), id, "can_administer_channel_group", json!(group_of(&[othello().user_id]))).success();
    assert!(sees(&othello(), id));
    assert!(never_subscribed(&othello()).contains(&id));
    assert!(!listed(&othello(), &[("include_can_access_content", "true")]).contains(&id), "administering is metadata access only");
}

#[test]
fn a_guest_never_sees_a_private_channel_through_its_groups() {
    let polonius = Client::dev("polonius@zulip.com");
    let (_, id) = new_channel(&hamlet(), &[], true, true);
    set(&iago(), id, "can_subscribe_group", json!(group_of(&[polonius.user_id]))).success();
    assert!(!sees(&polonius, id));
    assert!(!never_subscribed(&polonius).contains(&id));
}

#[test]
fn gaining_and_losing_a_private_channel_through_its_groups_is_heard_live() {
    let (_, id) = new_channel(&hamlet(), &[], true, true);
    let mut queue = register_for(&othello(), r#"["stream"]"#);
    set(&iago(), id, "can_subscribe_group", json!(group_of(&[othello().user_id]))).success();
    let created = queue.wait_for("stream create", |e| e["type"] == "stream" && e["op"] == "create" && e["streams"][0]["stream_id"] == id);
    assert_eq!(created["streams"][0]["invite_only"], true);
    set(&iago(), id, "can_subscribe_group", json!(system_group("role:nobody"))).success();
    queue.wait_for("stream delete", |e| e["type"] == "stream" && e["op"] == "delete" && e["stream_ids"] == json!([id]));
    assert!(!sees(&othello(), id));
}

#[test]
fn joining_and_leaving_a_group_that_grants_a_private_channel_is_heard_live() {
    let (_, id) = new_channel(&hamlet(), &[], true, true);
    let group = group_of(&[]);
    set(&iago(), id, "can_subscribe_group", json!(group)).success();
    let mut queue = register_for(&othello(), r#"["stream"]"#);
    let othello_ids = json!([othello().user_id]).to_string();
    hamlet().post(&format!("/user_groups/{group}/members"), &[("add", &othello_ids)]).success();
    let created = queue.wait_for("stream create", |e| e["type"] == "stream" && e["op"] == "create" && e["streams"][0]["stream_id"] == id);
    assert_eq!(created["streams"][0]["invite_only"], true);
    assert!(sees(&othello(), id));
    hamlet().post(&format!("/user_groups/{group}/members"), &[("delete", &othello_ids)]).success();
    queue.wait_for("stream delete", |e| e["type"] == "stream" && e["op"] == "delete" && e["stream_ids"] == json!([id]));
    assert!(!sees(&othello(), id));
}

#[test]
fn a_subgroup_joining_a_granting_group_brings_its_members_the_channel() {
    let (_, id) = new_channel(&hamlet(), &[], true, true);
    let (granting, team) = (group_of(&[]), group_of(&[othello().user_id]));
    set(&iago(), id, "can_administer_channel_group", json!(granting)).success();
    let mut queue = register_for(&othello(), r#"["stream"]"#);
    hamlet().post(&format!("/user_groups/{granting}/subgroups"), &[("add", &json!([team]).to_string())]).success();
    queue.wait_for("stream create", |e| e["type"] == "stream" && e["op"] == "create" && e["streams"][0]["stream_id"] == id);
    assert!(sees(&othello(), id));
}
