//! Editing a user group: `PATCH /user_groups/{user_group_id}` (`name`, `description`),
//! who may, the `user_group` `update` event, and what a refused request leaves.

mod common;
mod event_support;

use common::*;
use event_support::*;
use serde_json::{json, Value};

fn hamlet() -> Client {
    Client::dev("hamlet@zulip.com")
}

/// A new group of hamlet's with these members; answers its id.
fn create_group(members: &[i64]) -> i64 {
    let form = [("name", unique("editable")), ("description", "before".to_string()), ("members", json!(members).to_string())];
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    hamlet().post("/user_groups/create", &form).success()["group_id"].as_i64().unwrap()
}

fn group(viewer: &Client, id: i64) -> Value {
    let groups = viewer.get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
    groups.into_iter().find(|g| g["id"] == id).expect("the group")
}

fn group_update(id: i64) -> impl Fn(&Value) -> bool {
    move |e: &Value| e["type"] == "user_group" && e["op"] == "update" && e["group_id"] == id
}

fn assert_event_matches_openapi(event: &Value) {
    let body = json!({ "result": "success", "msg": "", "queue_id": "q", "events": [event] });
    assert_matches_openapi("GET", "/events", &body);
}

#[test]
fn a_member_renames_a_group_and_everyone_hears_of_it() {
    let id = create_group(&[hamlet().user_id]);
    let mut queue = register_for(&Client::dev("othello@zulip.com"), r#"["user_group"]"#);
    let name = unique("renamed");
    let body = hamlet().patch(&format!("/user_groups/{id}"), &[("name", &format!(" {name} "))]).success();
    assert_matches_openapi("PATCH", "/user_groups/{user_group_id}", &body);
    let event = queue.wait_for("the rename", group_update(id));
    assert_event_matches_openapi(&event);
    assert_eq!(event["data"], json!({ "name": name }));
    assert_eq!(group(&hamlet(), id)["name"], name.as_str());
}

#[test]
fn each_changed_field_has_its_own_event() {
    let id = create_group(&[hamlet().user_id]);
    let mut queue = register_for(&hamlet(), r#"["user_group"]"#);
    let name = unique("both");
    hamlet().patch(&format!("/user_groups/{id}"), &[("name", &name), ("description", "after")]).success();
    assert_eq!(queue.wait_for("the name", group_update(id))["data"], json!({ "name": name }));
    assert_eq!(queue.wait_for("the description", group_update(id))["data"], json!({ "description": "after" }));
    assert_eq!(group(&hamlet(), id)["description"], "after");
}

#[test]
fn an_owner_edits_any_group_and_outsiders_none() {
    let id = create_group(&[hamlet().user_id]);
    // Zulip's default `can_manage_all_groups` is the owners: an administrator is an outsider.
    for outsider in ["othello@zulip.com", "iago@zulip.com"] {
        Client::dev(outsider)
            .patch(&format!("/user_groups/{id}"), &[("description", "outsider")])
            .bad_request("BAD_REQUEST", "Insufficient permission");
    }
    assert_eq!(group(&hamlet(), id)["description"], "before");
    Client::dev("desdemona@zulip.com").patch(&format!("/user_groups/{id}"), &[("description", "owner")]).success();
    assert_eq!(group(&hamlet(), id)["description"], "owner");
}

#[test]
fn system_groups_keep_their_names() {
    let iago = Client::dev("iago@zulip.com");
    let groups = iago.get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
    let admins = groups.iter().find(|g| g["name"] == "role:administrators").unwrap()["id"].as_i64().unwrap();
    iago.patch(&format!("/user_groups/{admins}"), &[("name", "bosses")]).bad_request("BAD_REQUEST", "Insufficient permission");
    assert_eq!(group(&iago, admins)["name"], "role:administrators");
}

#[test]
fn names_are_checked_and_a_refused_rename_changes_nothing() {
    let id = create_group(&[hamlet().user_id]);
    let before = group(&hamlet(), id)["name"].clone();
    let taken = group(&hamlet(), create_group(&[]))["name"].as_str().unwrap().to_string();
    hamlet()
        .patch(&format!("/user_groups/{id}"), &[("name", &taken)])
        .bad_request("BAD_REQUEST", &format!("User group '{taken}' already exists."));
    hamlet()
        .patch(&format!("/user_groups/{id}"), &[("name", "role:mine")])
        .bad_request("BAD_REQUEST", "User group name cannot start with 'role:'.");
    hamlet().patch(&format!("/user_groups/{id}"), &[]).bad_request("BAD_REQUEST", "No new data supplied");
    hamlet().patch("/user_groups/987654321", &[("name", &unique("x"))]).bad_request("BAD_REQUEST", "Invalid user group");
    assert_eq!(group(&hamlet(), id)["name"], before);
}

#[test]
fn guests_cannot_edit_groups() {
    let id = create_group(&[hamlet().user_id]);
    Client::dev("polonius@zulip.com")
        .patch(&format!("/user_groups/{id}"), &[("description", "guest")])
        .bad_request("BAD_REQUEST", "Not allowed for guest users");
    assert_eq!(group(&hamlet(), id)["description"], "before");
}
