//! A user group's permission settings (`can_add_members_group`, `can_join_group`,
//! `can_leave_group`, `can_manage_group`, `can_mention_group`, `can_remove_members_group`):
//! their defaults, changing them by `PATCH /user_groups/{user_group_id}` with Zulip's
//! `{"new": ..., "old": ...}`, the `user_group` `update` event, and their effect on joining,
//! leaving, adding and removing members, managing the group and mentioning it. Every test
//! makes its own groups.

mod chat;
mod common;
mod event_support;

use chat::*;
use common::*;
use event_support::*;
use serde_json::{json, Value};

fn hamlet() -> Client {
    Client::dev("hamlet@zulip.com")
}

fn othello() -> Client {
    Client::dev("othello@zulip.com")
}

/// A new group of hamlet's with these members.
fn group_of(members: &[i64]) -> i64 {
    let form = [("name", unique("perm")), ("description", "permissions".into()), ("members", json!(members).to_string())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    hamlet().post("/user_groups/create", &form).success()["group_id"].as_i64().unwrap()
}

fn groups() -> Vec<Value> {
    hamlet().get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone()
}

fn group(id: i64) -> Value {
    groups().into_iter().find(|g| g["id"] == id).expect("the group")
}

fn system_group(name: &str) -> i64 {
    groups().iter().find(|g| g["name"] == name).unwrap_or_else(|| panic!("no {name}"))["id"].as_i64().unwrap()
}

fn set(client: &Client, id: i64, setting: &str, value: Value) -> Resp {
    client.patch(&format!("/user_groups/{id}"), &[(setting, &value.to_string())])
}

fn members(client: &Client, id: i64, op: &str, users: &[i64]) -> Resp {
    client.post(&format!("/user_groups/{id}/members"), &[(op, &json!(users).to_string())])
}

fn direct_members(id: i64) -> Value {
    hamlet().get(&format!("/user_groups/{id}/members"), &[("direct_member_only", "true")]).success()["members"].clone()
}

#[test]
fn a_new_group_has_zulips_default_permissions() {
    let id = group_of(&[hamlet().user_id]);
    let g = group(id);
    let creator_only = json!({"direct_members": [hamlet().user_id], "direct_subgroups": []});
    assert_eq!((g["can_manage_group"].clone(), g["can_add_members_group"].clone()), (creator_only.clone(), creator_only));
    assert_eq!(
        (g["can_join_group"].as_i64(), g["can_remove_members_group"].as_i64()),
        (Some(system_group("role:nobody")), Some(system_group("role:nobody")))
    );
    assert_eq!(
        (g["can_leave_group"].as_i64(), g["can_mention_group"].as_i64()),
        (Some(system_group("role:everyone")), Some(system_group("role:everyone")))
    );
}

#[test]
fn system_groups_answer_nobody_for_every_permission() {
    let nobody = system_group("role:nobody");
    let admins = groups().into_iter().find(|g| g["name"] == "role:administrators").unwrap();
    assert_eq!((admins["can_manage_group"].as_i64(), admins["can_join_group"].as_i64()), (Some(nobody), Some(nobody)));
}

#[test]
fn the_manager_changes_a_permission_and_everyone_hears_of_it() {
    let id = group_of(&[hamlet().user_id]);
    let members_group = system_group("role:members");
    let mut queue = register_for(&othello(), r#"["user_group"]"#);
    let body = set(&hamlet(), id, "can_join_group", json!({"new": members_group, "old": system_group("role:nobody")})).success();
    assert_matches_openapi("PATCH", "/user_groups/{user_group_id}", &body);
    let event = queue.wait_for("the change", |e| e["type"] == "user_group" && e["op"] == "update" && e["group_id"] == id);
    assert_eq!(event["data"], json!({"can_join_group": members_group}));
    assert_eq!(group(id)["can_join_group"], members_group);
}

#[test]
fn a_stale_old_value_changes_nothing() {
    let id = group_of(&[hamlet().user_id]);
    let value = json!({"new": system_group("role:members"), "old": system_group("role:moderators")});
    set(&hamlet(), id, "can_join_group", value).bad_request("BAD_REQUEST", "'old' value does not match the expected value.");
    assert_eq!(group(id)["can_join_group"], system_group("role:nobody"));
}

#[test]
fn the_creator_default_is_matched_as_old() {
    let id = group_of(&[hamlet().user_id]);
    let old = json!({"direct_members": [hamlet().user_id], "direct_subgroups": []});
    set(&hamlet(), id, "can_manage_group", json!({"new": system_group("role:administrators"), "old": old})).success();
    assert_eq!(group(id)["can_manage_group"], system_group("role:administrators"));
}

#[test]
fn everyone_is_refused_where_zulip_refuses_it() {
    let id = group_of(&[hamlet().user_id]);
    set(&hamlet(), id, "can_join_group", json!({"new": system_group("role:everyone")}))
        .bad_request("BAD_REQUEST", "'can_join_group' setting cannot be set to 'role:everyone' group.");
    set(&hamlet(), id, "can_mention_group", json!({"new": system_group("role:internet")}))
        .bad_request("BAD_REQUEST", "'can_mention_group' setting cannot be set to 'role:internet' group.");
    set(&hamlet(), id, "can_leave_group", json!({"new": 987654321})).bad_request("BAD_REQUEST", "Invalid user group");
    assert_eq!(group(id)["can_join_group"], system_group("role:nobody"));
}

#[test]
fn those_who_do_not_manage_the_group_cannot_change_its_permissions() {
    let id = group_of(&[hamlet().user_id, othello().user_id]);
    set(&othello(), id, "can_join_group", json!({"new": system_group("role:members")}))
        .bad_request("BAD_REQUEST", "Insufficient permission");
    assert_eq!(group(id)["can_join_group"], system_group("role:nobody"));
}

#[test]
fn can_join_group_lets_its_members_join_but_not_add_others() {
    let id = group_of(&[hamlet().user_id]);
    members(&othello(), id, "add", &[othello().user_id]).bad_request("BAD_REQUEST", "Insufficient permission");
    set(&hamlet(), id, "can_join_group", json!({"new": system_group("role:members")})).success();
    let cordelia = Client::dev("cordelia@zulip.com");
    members(&othello(), id, "add", &[othello().user_id, cordelia.user_id]).bad_request("BAD_REQUEST", "Insufficient permission");
    members(&othello(), id, "add", &[othello().user_id]).success();
    assert_eq!(direct_members(id), json!([hamlet().user_id, othello().user_id]));
}

#[test]
fn can_leave_group_decides_who_leaves() {
    let id = group_of(&[hamlet().user_id, othello().user_id]);
    set(&hamlet(), id, "can_leave_group", json!({"new": system_group("role:nobody")})).success();
    members(&othello(), id, "delete", &[othello().user_id]).bad_request("BAD_REQUEST", "Insufficient permission");
    assert_eq!(direct_members(id), json!([hamlet().user_id, othello().user_id]));
    set(&hamlet(), id, "can_leave_group", json!({"new": system_group("role:members")})).success();
    members(&othello(), id, "delete", &[othello().user_id]).success();
    assert_eq!(direct_members(id), json!([hamlet().user_id]));
}

#[test]
fn can_add_members_group_lets_its_members_add_others() {
    let id = group_of(&[hamlet().user_id]);
    let cordelia = Client::dev("cordelia@zulip.com");
    members(&othello(), id, "add", &[cordelia.user_id]).bad_request("BAD_REQUEST", "Insufficient permission");
    let adders = group_of(&[othello().user_id]);
    set(&hamlet(), id, "can_add_members_group", json!({"new": adders})).success();
    members(&othello(), id, "add", &[cordelia.user_id]).success();
    assert_eq!(direct_members(id), json!([hamlet().user_id, cordelia.user_id]));
}

#[test]
fn can_remove_members_group_lets_its_members_remove_others() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let id = group_of(&[hamlet().user_id, cordelia.user_id]);
    members(&othello(), id, "delete", &[cordelia.user_id]).bad_request("BAD_REQUEST", "Insufficient permission");
    set(&hamlet(), id, "can_remove_members_group", json!({"new": group_of(&[othello().user_id])})).success();
    members(&othello(), id, "delete", &[cordelia.user_id]).success();
    assert_eq!(direct_members(id), json!([hamlet().user_id]));
}

#[test]
fn can_manage_group_lets_its_members_rename_the_group() {
    let id = group_of(&[hamlet().user_id]);
    let name = unique("managed");
    othello().patch(&format!("/user_groups/{id}"), &[("name", &name)]).bad_request("BAD_REQUEST", "Insufficient permission");
    set(&hamlet(), id, "can_manage_group", json!({"new": group_of(&[othello().user_id])})).success();
    othello().patch(&format!("/user_groups/{id}"), &[("name", &name)]).success();
    assert_eq!(group(id)["name"], name.as_str());
}

/// A new group of hamlet's that only administrators may mention: (id, name).
fn group_only_administrators_mention() -> (i64, String) {
    let id = group_of(&[hamlet().user_id]);
    let value = json!({"new": system_group("role:administrators"), "old": system_group("role:everyone")});
    set(&hamlet(), id, "can_mention_group", value).success();
    (id, group(id)["name"].as_str().unwrap().to_string())
}

fn not_allowed(name: &str) -> String {
    format!("You are not allowed to mention user group '{name}'.")
}

#[test]
fn can_mention_group_decides_who_mentions_the_group_and_a_refused_message_is_not_sent() {
    let (_, name) = group_only_administrators_mention();
    let (channel, channel_id) = new_channel(&hamlet(), &[], false, true);
    let topic = unique("mention ");
    let content = format!("@*{name}* please look");
    let form = [("type", "stream"), ("to", channel.as_str()), ("topic", topic.as_str()), ("content", content.as_str())];
    hamlet().post("/messages", &form).bad_request("BAD_REQUEST", &not_allowed(&name));
    assert!(topic_ids(&hamlet(), channel_id, &topic).is_empty(), "nothing was sent");
    send_to_channel(&Client::dev("iago@zulip.com"), &channel, &topic, &content);
    assert_eq!(topic_ids(&hamlet(), channel_id, &topic).len(), 1);
}

#[test]
fn a_silent_group_mention_needs_no_permission() {
    let (_, name) = group_only_administrators_mention();
    let (channel, _) = new_channel(&hamlet(), &[], false, true);
    send_to_channel(&hamlet(), &channel, "silent", &format!("@_*{name}* for the record"));
}

#[test]
fn a_direct_message_mentioning_the_group_is_refused_too() {
    let (_, name) = group_only_administrators_mention();
    post_direct(&hamlet(), &[othello().user_id], &format!("@*{name}*")).bad_request("BAD_REQUEST", &not_allowed(&name));
}

#[test]
fn members_of_the_group_named_by_can_mention_group_may_mention() {
    let id = group_of(&[hamlet().user_id]);
    let mentioners = group_of(&[othello().user_id]);
    set(&hamlet(), id, "can_mention_group", json!({"new": mentioners, "old": system_group("role:everyone")})).success();
    let name = group(id)["name"].as_str().unwrap().to_string();
    let (channel, _) = new_channel(&hamlet(), &[], false, true);
    send_to_channel(&othello(), &channel, "mentions", &format!("@*{name}*"));
    let form = [("type", "stream"), ("to", channel.as_str()), ("topic", "mentions"), ("content", &format!("@*{name}*"))];
    hamlet().post("/messages", &form).bad_request("BAD_REQUEST", &not_allowed(&name));
}

#[test]
fn an_edit_adding_a_refused_group_mention_changes_nothing() {
    let (_, name) = group_only_administrators_mention();
    let (channel, _) = new_channel(&hamlet(), &[], false, true);
    let id = send_to_channel(&hamlet(), &channel, "edit", "first words");
    edit(&hamlet(), id, &[("content", &format!("now @*{name}*"))]).bad_request("BAD_REQUEST", &not_allowed(&name));
    assert_eq!(raw_content(&hamlet(), id), "first words");
}

/// `POST /user_groups/create` as hamlet, with these extra fields.
fn create_with(extra: &[(&str, String)]) -> (String, Resp) {
    let name = unique("created");
    let mut form = vec![("name", name.clone()), ("description", "made with settings".into()), ("members", "[]".into())];
    form.extend(extra.iter().map(|(k, v)| (*k, v.clone())));
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    (name.clone(), hamlet().post("/user_groups/create", &form))
}

#[test]
fn a_group_created_with_permission_settings_has_them() {
    let admins = system_group("role:administrators");
    let members = system_group("role:members");
    let anonymous = json!({"direct_members": [], "direct_subgroups": [members]}).to_string();
    let (_, created) = create_with(&[("can_mention_group", admins.to_string()), ("can_join_group", anonymous)]);
    let g = group(created.success()["group_id"].as_i64().unwrap());
    assert_eq!((g["can_mention_group"].as_i64(), g["can_join_group"].as_i64()), (Some(admins), Some(members)));
    assert_eq!(g["can_leave_group"].as_i64(), Some(system_group("role:everyone")), "a setting not given keeps its default");
}

#[test]
fn a_creation_with_a_refused_permission_group_creates_nothing() {
    let refusals = [
        ("can_mention_group", system_group("role:internet"), "'can_mention_group' setting cannot be set to 'role:internet' group."),
        ("can_join_group", system_group("role:everyone"), "'can_join_group' setting cannot be set to 'role:everyone' group."),
        ("can_manage_group", 9_999_999, "Invalid user group"),
    ];
    for (setting, value, message) in refusals {
        let (name, refused) = create_with(&[(setting, value.to_string())]);
        refused.bad_request("BAD_REQUEST", message);
        assert!(groups().iter().all(|g| g["name"] != name.as_str()), "{name} was not created");
    }
}
