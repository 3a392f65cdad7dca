//! The organization's creation rights (`PATCH /realm`): `can_create_public_channel_group`,
//! `can_create_private_channel_group`, `can_create_groups`, `can_set_topics_policy_group`
//! and `can_add_subscribers_group`, shown in `/register` and enforced by channel creation,
//! group creation, a channel's topics policy and subscribing others. Every test makes its
//! own organization.

mod common;

use common::*;
use serde_json::{json, Value};

fn group(owner: &Client, name: &str) -> i64 {
    let groups = owner.get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
    groups.iter().find(|g| g["name"] == name).unwrap()["id"].as_i64().unwrap()
}

fn restrict(owner: &Client, setting: &str, to: &str) -> Value {
    let id = group(owner, to);
    owner.patch("/realm", &[(setting, &json!({ "new": id }).to_string())]).success();
    json!(id)
}

fn subscribe_to_new(client: &Client, name: &str, private: bool) -> Resp {
    let subs = json!([{ "name": name }]).to_string();
    client.post("/users/me/subscriptions", &[("subscriptions", &subs), ("invite_only", if private { "true" } else { "false" })])
}

fn new_group(client: &Client) -> Resp {
    client.post("/user_groups/create", &[("name", &unique("made")), ("description", "x"), ("members", "[]")])
}

#[test]
fn the_creation_rights_have_zulips_defaults_in_register() {
    let (owner, member) = organization_with_member("createdefaults", "Creation defaults", "a-long-member-password");
    let state = member.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    let members = group(&owner, "role:members");
    assert_eq!(state["realm_can_create_public_channel_group"], members);
    assert_eq!(state["realm_can_create_private_channel_group"], members);
    assert_eq!(state["realm_can_create_groups"], members);
    assert_eq!(state["realm_can_set_topics_policy_group"], group(&owner, "role:moderators"));
    assert_eq!(state["realm_can_add_subscribers_group"], members);
}

#[test]
fn can_create_public_channel_group_limits_who_creates_public_channels() {
    let (owner, member) = organization_with_member("createpublic", "Public channels", "a-long-member-password");
    let admins = restrict(&owner, "can_create_public_channel_group", "role:administrators");
    let state = member.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_can_create_public_channel_group"], admins);
    let name = unique("public-");
    subscribe_to_new(&member, &name, false).bad_request("BAD_REQUEST", "Insufficient permission");
    member.get("/get_stream_id", &[("stream", &name)]).bad_request("BAD_REQUEST", &format!("Invalid channel name '{name}'"));
    subscribe_to_new(&member, &unique("private-"), true).success();
    subscribe_to_new(&owner, &name, false).success();
}

#[test]
fn can_create_private_channel_group_limits_who_creates_private_channels() {
    let (owner, member) = organization_with_member("createprivate", "Private channels", "a-long-member-password");
    restrict(&owner, "can_create_private_channel_group", "role:nobody");
    subscribe_to_new(&member, &unique("private-"), true).bad_request("BAD_REQUEST", "Insufficient permission");
    subscribe_to_new(&owner, &unique("private-"), true).bad_request("BAD_REQUEST", "Insufficient permission");
    subscribe_to_new(&member, &unique("public-"), false).success();
}

#[test]
fn can_create_groups_limits_who_creates_user_groups() {
    let (owner, member) = organization_with_member("creategroups", "User groups", "a-long-member-password");
    restrict(&owner, "can_create_groups", "role:administrators");
    new_group(&member).bad_request("BAD_REQUEST", "Insufficient permission");
    new_group(&owner).success();
}

#[test]
fn can_set_topics_policy_group_decides_who_sets_a_channels_topics_policy() {
    let (owner, member) = organization_with_member("topicspolicy", "Topics policy", "a-long-member-password");
    let name = unique("policy-");
    subscribe_to_new(&member, &name, false).success();
    let id = member.get("/get_stream_id", &[("stream", &name)]).success()["stream_id"].as_i64().unwrap();
    let path = format!("/streams/{id}");
    member.patch(&path, &[("topics_policy", "disable_empty_topic")]).bad_request("BAD_REQUEST", "Insufficient permission");
    restrict(&owner, "can_set_topics_policy_group", "role:members");
    member.patch(&path, &[("topics_policy", "disable_empty_topic")]).success();
    assert_eq!(member.get(&path, &[]).success()["stream"]["topics_policy"], "disable_empty_topic");
}

#[test]
fn can_add_subscribers_group_limits_who_subscribes_others() {
    let (owner, member) = organization_with_member("addothers", "Adding others", "a-long-member-password");
    let name = unique("existing-");
    subscribe_to_new(&owner, &name, false).success();
    restrict(&owner, "can_add_subscribers_group", "role:administrators");
    let subs = json!([{ "name": name }]).to_string();
    let owner_only = json!([owner.user_id]).to_string();
    member
        .post("/users/me/subscriptions", &[("subscriptions", &subs), ("principals", &owner_only)])
        .bad_request("BAD_REQUEST", "Insufficient permission");
    member.post("/users/me/subscriptions", &[("subscriptions", &subs)]).success();
    // A channel the member creates is theirs to fill.
    let created = json!([{ "name": unique("new-") }]).to_string();
    member.post("/users/me/subscriptions", &[("subscriptions", &created), ("principals", &owner_only)]).success();
    let member_only = json!([member.user_id]).to_string();
    owner.delete("/users/me/subscriptions", &[("subscriptions", &json!([name]).to_string()), ("principals", &member_only)]).success();
    owner.post("/users/me/subscriptions", &[("subscriptions", &subs), ("principals", &member_only)]).success();
}

#[test]
fn can_manage_all_groups_decides_who_manages_groups_they_did_not_make() {
    let (owner, member) = organization_with_member("manageall", "Managing groups", "a-long-member-password");
    let id = new_group(&owner).success()["group_id"].as_i64().unwrap();
    let path = format!("/user_groups/{id}");
    member.patch(&path, &[("description", "by the member")]).bad_request("BAD_REQUEST", "Insufficient permission");
    let members = restrict(&owner, "can_manage_all_groups", "role:members");
    let state = member.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_can_manage_all_groups"], members);
    member.patch(&path, &[("description", "by the member")]).success();
}
