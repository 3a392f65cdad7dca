//! Group-setting values given as a set of users and groups (Zulip's anonymous groups,
//! `{"direct_members": [...], "direct_subgroups": [...]}`) for a channel's, a user group's
//! and the organization's permission settings: stored, shown back in that form, enforced,
//! never listed as groups, and a channel's creator administers it by default. The
//! organization-level tests make their own organization.

mod accounts;
mod chat;
mod common;
mod event_support;

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
fn cordelia() -> Client {
    Client::dev("cordelia@zulip.com")
}

fn groups(client: &Client) -> Vec<Value> {
    client.get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone()
}

fn system_group(client: &Client, name: &str) -> i64 {
    groups(client).iter().find(|g| g["name"] == name).unwrap_or_else(|| panic!("no {name}"))["id"].as_i64().unwrap()
}

fn stream(client: &Client, id: i64) -> Value {
    client.get(&format!("/streams/{id}"), &[]).success()["stream"].clone()
}

fn set(admin: &Client, channel_id: i64, setting: &str, value: Value) -> Resp {
    admin.patch(&format!("/streams/{channel_id}"), &[(setting, &value.to_string())])
}

fn post(client: &Client, channel_id: i64, content: &str) -> Resp {
    let to = channel_id.to_string();
    client.post("/messages", &[("type", "stream"), ("to", &to), ("topic", "anonymous groups"), ("content", content)])
}

fn set_of(members: &[i64], subgroups: &[i64]) -> Value {
    json!({ "direct_members": members, "direct_subgroups": subgroups })
}

// ---- channels

#[test]
fn a_new_channel_is_administered_by_its_creator() {
    let (_, id) = new_channel(&hamlet(), &[&othello()], false, true);
    assert_eq!(stream(&othello(), id)["can_administer_channel_group"], set_of(&[hamlet().user_id], &[]));
    let new_name = unique("creator-renamed-");
    othello().patch(&format!("/streams/{id}"), &[("new_name", &new_name)]).bad_request("BAD_REQUEST", NO_ADMINISTERING);
    hamlet().patch(&format!("/streams/{id}"), &[("new_name", &new_name)]).success();
    assert_eq!(stream(&othello(), id)["name"], new_name.as_str());
}

#[test]
fn a_set_of_users_and_groups_is_stored_shown_and_enforced() {
    let (_, id) = new_channel(&hamlet(), &[&othello(), &cordelia()], false, true);
    let admins = system_group(&iago(), "role:administrators");
    let mut queue = register_for(&cordelia(), r#"["stream"]"#);
    // Sent unsorted and with a repeat; shown sorted, once.
    let (othello_id, hamlet_id) = (othello().user_id, hamlet().user_id);
    let sent = json!({ "direct_members": [othello_id, hamlet_id, othello_id], "direct_subgroups": [admins] });
    set(&iago(), id, "can_send_message_group", json!({ "new": sent })).success();
    let mut members = vec![othello_id, hamlet_id];
    members.sort();
    let expected = set_of(&members, &[admins]);
    let event = queue.wait_for("the update", |e| {
        e["type"] == "stream" && e["op"] == "update" && e["stream_id"] == id && e["property"] == "can_send_message_group"
    });
    assert_eq!(event["value"], expected);
    assert_eq!(stream(&cordelia(), id)["can_send_message_group"], expected);
    post(&othello(), id, "a direct member posts").success();
    post(&iago(), id, "an administrator, through the subgroup, posts").success();
    post(&cordelia(), id, "refused").bad_request("BAD_REQUEST", NO_POSTING);
}

#[test]
fn an_anonymous_group_is_never_listed_as_a_group() {
    // An organization of its own: nobody else makes groups there meanwhile.
    let (owner, member) = organization_with_member("unlisted", "Unlisted groups", "a-long-member-password");
    let name = unique("unlisted-");
    let subs = json!([{ "name": name }]).to_string();
    owner.post("/users/me/subscriptions", &[("subscriptions", &subs)]).success();
    let id = owner.get("/get_stream_id", &[("stream", &name)]).success()["stream_id"].as_i64().unwrap();
    let before = groups(&owner).len();
    set(&owner, id, "can_send_message_group", json!({ "new": set_of(&[member.user_id], &[]) })).success();
    let listed = groups(&owner);
    assert_eq!(listed.len(), before, "GET /user_groups lists no new group");
    assert!(listed.iter().all(|g| !g["name"].as_str().unwrap().starts_with('@')));
    let state = owner.post("/register", &[("fetch_event_types", r#"["realm_user_groups"]"#)]).success();
    assert_eq!(state["realm_user_groups"].as_array().unwrap().len(), before);
}

#[test]
fn old_is_compared_as_a_set() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    let (a, b) = (othello().user_id, cordelia().user_id);
    set(&iago(), id, "can_send_message_group", json!({ "new": set_of(&[a, b], &[]) })).success();
    let everyone = system_group(&iago(), "role:everyone");
    set(&iago(), id, "can_send_message_group", json!({ "new": everyone, "old": set_of(&[a], &[]) }))
        .bad_request("BAD_REQUEST", "'old' value does not match the expected value.");
    set(&iago(), id, "can_send_message_group", json!({ "new": everyone, "old": set_of(&[b, a], &[]) })).success();
    assert_eq!(stream(&hamlet(), id)["can_send_message_group"], everyone);
}

#[test]
fn a_set_naming_an_unknown_user_changes_nothing() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    let everyone = system_group(&iago(), "role:everyone");
    set(&iago(), id, "can_send_message_group", json!({ "new": set_of(&[987654321], &[]) }))
        .bad_request("BAD_REQUEST", "Invalid user ID: 987654321");
    set(&iago(), id, "can_send_message_group", json!({ "new": set_of(&[othello().user_id], &[987654321]) }))
        .bad_request("BAD_REQUEST", "Invalid user group");
    assert_eq!(stream(&hamlet(), id)["can_send_message_group"], everyone);
}

#[test]
fn a_set_with_an_unsuitable_subgroup_is_refused() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    let everyone = system_group(&iago(), "role:everyone");
    set(&iago(), id, "can_administer_channel_group", json!({ "new": set_of(&[othello().user_id], &[everyone]) }))
        .bad_request("BAD_REQUEST", "'can_administer_channel_group' setting cannot be set to 'role:everyone' group.");
    assert_eq!(stream(&hamlet(), id)["can_administer_channel_group"], set_of(&[hamlet().user_id], &[]));
}

#[test]
fn an_empty_set_is_nobody() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    set(&iago(), id, "can_administer_channel_group", json!({ "new": set_of(&[], &[]) })).success();
    assert_eq!(stream(&hamlet(), id)["can_administer_channel_group"], system_group(&iago(), "role:nobody"));
}

#[test]
fn creation_takes_a_set_for_any_setting() {
    let name = unique("created-with-set-");
    let value = set_of(&[othello().user_id], &[]).to_string();
    let id = create_channel(&hamlet(), &name, &[("can_send_message_group", &value), ("can_administer_channel_group", &value)], &[]);
    let s = stream(&hamlet(), id);
    assert_eq!(s["can_send_message_group"], set_of(&[othello().user_id], &[]));
    assert_eq!(s["can_administer_channel_group"], set_of(&[othello().user_id], &[]), "the creator is not added");
}

#[test]
fn a_group_named_in_a_set_cannot_be_deactivated() {
    let (_, id) = new_channel(&hamlet(), &[], false, true);
    let form = [("name", unique("in-a-set")), ("description", "x".into()), ("members", json!([othello().user_id]).to_string())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let group = hamlet().post("/user_groups/create", &form).success()["group_id"].as_i64().unwrap();
    set(&iago(), id, "can_send_message_group", json!({ "new": set_of(&[cordelia().user_id], &[group]) })).success();
    let body = hamlet()
        .post(&format!("/user_groups/{group}/deactivate"), &[])
        .bad_request("CANNOT_DEACTIVATE_GROUP_IN_USE", "Cannot deactivate user group in use.");
    assert_eq!(body["objections"], json!([{ "type": "channel", "channel_id": id, "settings": ["can_send_message_group"] }]));
}

// ---- user groups

#[test]
fn a_user_groups_setting_takes_a_set() {
    let form = [("name", unique("set-managed")), ("description", "x".into()), ("members", json!([hamlet().user_id]).to_string())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let group = hamlet().post("/user_groups/create", &form).success()["group_id"].as_i64().unwrap();
    let value = set_of(&[othello().user_id], &[]);
    othello().patch(&format!("/user_groups/{group}"), &[("description", "not yet")]).bad_request("BAD_REQUEST", "Insufficient permission");
    hamlet().patch(&format!("/user_groups/{group}"), &[("can_manage_group", &json!({ "new": value }).to_string())]).success();
    let listed = groups(&hamlet()).into_iter().find(|g| g["id"] == group).unwrap();
    assert_eq!(listed["can_manage_group"], value);
    othello().patch(&format!("/user_groups/{group}"), &[("description", "managed through a set")]).success();
}

// ---- the organization

#[test]
fn an_organization_setting_takes_a_set_and_register_shows_it() {
    let (owner, member) = organization_with_member("anongroups", "Anonymous groups", "a-long-member-password");
    let admins = system_group(&owner, "role:administrators");
    let mut queue = register_for(&member, r#"["realm"]"#);
    let value = set_of(&[member.user_id], &[admins]);
    owner.patch("/realm", &[("can_add_custom_emoji_group", &json!({ "new": value }).to_string())]).success();
    let event = queue.wait_for("the update", |e| e["type"] == "realm" && e["op"] == "update_dict");
    assert_eq!(event["data"]["can_add_custom_emoji_group"], value);
    let state = member.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_can_add_custom_emoji_group"], value);
}
