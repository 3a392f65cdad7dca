//! `POST /user_groups/{user_group_id}/deactivate` and reactivation by `PATCH` with
//! `deactivated: false`: who may, the objections of a group still in use, the `user_group`
//! events for clients with and without `include_deactivated_groups`, and where deactivated
//! groups are listed. Every test makes its own groups.

mod chat;
mod common;
mod event_support;

use chat::create_channel;
use common::*;
use event_support::*;
use serde_json::{json, Value};

fn hamlet() -> Client {
    Client::dev("hamlet@zulip.com")
}

/// A new group created by `creator` with these members.
fn group_of(creator: &Client, members: &[i64]) -> i64 {
    let form = [("name", unique("deact")), ("description", "to deactivate".into()), ("members", json!(members).to_string())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    creator.post("/user_groups/create", &form).success()["group_id"].as_i64().unwrap()
}

fn listed(viewer: &Client, include_deactivated: bool) -> Vec<Value> {
    let flag = include_deactivated.to_string();
    let body = viewer.get("/user_groups", &[("include_deactivated_groups", &flag)]).success();
    assert_matches_openapi("GET", "/user_groups", &body);
    body["user_groups"].as_array().unwrap().clone()
}

fn find(groups: &[Value], id: i64) -> Option<&Value> {
    groups.iter().find(|g| g["id"] == id)
}

fn system_group(viewer: &Client, name: &str) -> i64 {
    find_by_name(&listed(viewer, false), name)
}

fn find_by_name(groups: &[Value], name: &str) -> i64 {
    groups.iter().find(|g| g["name"] == name).unwrap_or_else(|| panic!("no {name}"))["id"].as_i64().unwrap()
}

fn deactivate(client: &Client, id: i64) -> Resp {
    client.post(&format!("/user_groups/{id}/deactivate"), &[])
}

fn assert_event_matches_openapi(event: &Value) {
    let body = json!({ "result": "success", "msg": "", "queue_id": "q", "events": [event] });
    assert_matches_openapi("GET", "/events", &body);
}

fn in_use(resp: Resp) -> Value {
    resp.bad_request("CANNOT_DEACTIVATE_GROUP_IN_USE", "Cannot deactivate user group in use.")["objections"].clone()
}

#[test]
fn the_creator_deactivates_a_group_and_clients_that_show_deactivated_groups_hear_an_update() {
    let id = group_of(&hamlet(), &[hamlet().user_id]);
    let othello = Client::dev("othello@zulip.com");
    let mut queue =
        register(&othello, &[("event_types", r#"["user_group"]"#), ("client_capabilities", r#"{"include_deactivated_groups": true}"#)]);
    let body = deactivate(&hamlet(), id).success();
    assert_matches_openapi("POST", "/user_groups/{user_group_id}/deactivate", &body);
    let event = queue.wait_for("the deactivation", |e| e["type"] == "user_group" && e["group_id"] == id);
    assert_event_matches_openapi(&event);
    assert_eq!((event["op"].clone(), event["data"].clone()), (json!("update"), json!({"deactivated": true})));
    assert_eq!(find(&listed(&othello, true), id).unwrap()["deactivated"], true);
}

#[test]
fn clients_without_include_deactivated_groups_hear_a_remove() {
    let id = group_of(&hamlet(), &[hamlet().user_id]);
    let mut queue = register_for(&Client::dev("othello@zulip.com"), r#"["user_group"]"#);
    deactivate(&hamlet(), id).success();
    let event = queue.wait_for("the removal", |e| e["type"] == "user_group" && e["group_id"] == id);
    assert_event_matches_openapi(&event);
    assert_eq!(event["op"], "remove");
}

#[test]
fn deactivated_groups_are_listed_only_when_asked_for() {
    let id = group_of(&hamlet(), &[hamlet().user_id]);
    deactivate(&hamlet(), id).success();
    assert!(find(&listed(&hamlet(), false), id).is_none());
    assert!(find(&listed(&hamlet(), true), id).is_some());
    let groups = |capabilities: &str| {
        let form = [("fetch_event_types", r#"["realm_user_groups"]"#), ("client_capabilities", capabilities)];
        hamlet().post("/register", &form).success()["realm_user_groups"].as_array().unwrap().clone()
    };
    assert!(find(&groups("{}"), id).is_none());
    assert_eq!(find(&groups(r#"{"include_deactivated_groups": true}"#), id).unwrap()["deactivated"], true);
}

#[test]
fn members_who_do_not_manage_the_group_and_guests_may_not_deactivate_it() {
    let othello = Client::dev("othello@zulip.com");
    let id = group_of(&hamlet(), &[hamlet().user_id, othello.user_id]);
    deactivate(&othello, id).bad_request("BAD_REQUEST", "Insufficient permission");
    deactivate(&Client::dev("polonius@zulip.com"), id).bad_request("BAD_REQUEST", "Insufficient permission");
    assert_eq!(find(&listed(&hamlet(), false), id).unwrap()["deactivated"], false);
}

#[test]
fn owners_deactivate_any_group() {
    let id = group_of(&hamlet(), &[hamlet().user_id]);
    deactivate(&Client::dev("iago@zulip.com"), id).bad_request("BAD_REQUEST", "Insufficient permission");
    deactivate(&Client::dev("desdemona@zulip.com"), id).success();
    assert!(find(&listed(&hamlet(), false), id).is_none());
}

#[test]
fn system_groups_are_never_deactivated() {
    let owner = Client::dev("desdemona@zulip.com");
    let members = system_group(&owner, "role:members");
    deactivate(&owner, members).bad_request("BAD_REQUEST", "Insufficient permission");
    assert!(find(&listed(&owner, false), members).is_some());
}

#[test]
fn a_subgroup_of_an_active_group_is_in_use_until_that_group_is_deactivated() {
    let inner = group_of(&hamlet(), &[hamlet().user_id]);
    let outer = group_of(&hamlet(), &[]);
    hamlet().post(&format!("/user_groups/{outer}/subgroups"), &[("add", &json!([inner]).to_string())]).success();
    assert_eq!(in_use(deactivate(&hamlet(), inner)), json!([{"type": "subgroup", "supergroup_ids": [outer]}]));
    assert!(find(&listed(&hamlet(), false), inner).is_some());
    deactivate(&hamlet(), outer).success();
    deactivate(&hamlet(), inner).success();
}

#[test]
fn a_group_named_by_an_organization_setting_is_in_use() {
    let (owner, _) = organization_with_member("deact", "Deactivation Org", "a-long-test-password");
    let id = group_of(&owner, &[owner.user_id]);
    owner.patch("/realm", &[("can_add_custom_emoji_group", &id.to_string())]).success();
    assert_eq!(in_use(deactivate(&owner, id)), json!([{"type": "realm", "settings": ["can_add_custom_emoji_group"]}]));
}

#[test]
fn a_group_named_by_a_channel_setting_is_in_use() {
    let id = group_of(&hamlet(), &[hamlet().user_id]);
    let channel = create_channel(&hamlet(), &unique("deact-"), &[("can_send_message_group", &id.to_string())], &[]);
    let objections = in_use(deactivate(&hamlet(), id));
    assert_eq!(objections, json!([{"type": "channel", "channel_id": channel, "settings": ["can_send_message_group"]}]));
}

#[test]
fn a_group_named_by_another_groups_setting_is_in_use() {
    let id = group_of(&hamlet(), &[hamlet().user_id]);
    let other = group_of(&hamlet(), &[hamlet().user_id]);
    hamlet().patch(&format!("/user_groups/{other}"), &[("can_mention_group", &json!({"new": id}).to_string())]).success();
    let objections = in_use(deactivate(&hamlet(), id));
    assert_eq!(objections, json!([{"type": "user_group", "group_id": other, "settings": ["can_mention_group"]}]));
}

#[test]
fn a_deactivated_group_is_reactivated_by_patch() {
    let id = group_of(&hamlet(), &[hamlet().user_id]);
    deactivate(&hamlet(), id).success();
    let mut queue =
        register(&hamlet(), &[("event_types", r#"["user_group"]"#), ("client_capabilities", r#"{"include_deactivated_groups": true}"#)]);
    hamlet().patch(&format!("/user_groups/{id}"), &[("deactivated", "false")]).success();
    let event = queue.wait_for("the reactivation", |e| e["type"] == "user_group" && e["group_id"] == id);
    assert_eq!(event["data"], json!({"deactivated": false}));
    assert_eq!(find(&listed(&hamlet(), false), id).unwrap()["deactivated"], false);
}

#[test]
fn clients_without_include_deactivated_groups_hear_a_reactivated_group_added() {
    let id = group_of(&hamlet(), &[hamlet().user_id]);
    deactivate(&hamlet(), id).success();
    let mut queue = register_for(&hamlet(), r#"["user_group"]"#);
    hamlet().patch(&format!("/user_groups/{id}"), &[("deactivated", "false")]).success();
    let event = queue.wait_for("the group added", |e| e["type"] == "user_group" && e["op"] == "add" && e["group"]["id"] == id);
    assert_eq!((event["group"]["members"].clone(), event["group"]["deactivated"].clone()), (json!([hamlet().user_id]), json!(false)));
}
