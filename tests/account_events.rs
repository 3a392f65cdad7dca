//! Events of accounts, profile data, bots and groups, seen through an event queue.

mod accounts;
mod common;
mod event_support;

use accounts::{new_bot, new_user};
use common::*;
use event_support::register_for;
use serde_json::json;

#[test]
fn profile_data_change_emits_realm_user_update() {
    let iago = Client::dev("iago@zulip.com");
    let name = unique("Ev");
    let field_id = iago.post("/realm/profile_fields", &[("name", &name), ("field_type", "1")]).success()["id"].as_i64().unwrap();
    let user = new_user("evprofile");
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, "[\"realm_user\"]");
    let data = json!([{ "id": field_id, "value": "*hi*" }]).to_string();
    user.patch("/users/me/profile_data", &[("data", &data)]).success();
    let event =
        queue.wait_for("realm_user update", |e| e["type"] == "realm_user" && e["op"] == "update" && e["person"]["user_id"] == user.user_id);
    assert_eq!(event["person"]["custom_profile_field"], json!({ "id": field_id, "value": "*hi*", "rendered_value": "<p><em>hi</em></p>" }));

    let data = json!([{ "id": field_id, "value": null }]).to_string();
    user.patch("/users/me/profile_data", &[("data", &data)]).success();
    let event = queue.wait_for("realm_user removal", |e| {
        e["type"] == "realm_user" && e["person"]["user_id"] == user.user_id && e["person"]["custom_profile_field"]["value"].is_null()
    });
    assert_eq!(event["person"]["custom_profile_field"]["id"], field_id);
}

#[test]
fn created_user_emits_realm_user_add() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, "[\"realm_user\"]");
    let user = new_user("evadd");
    let event = queue.wait_for("realm_user add", |e| e["op"] == "add" && e["person"]["user_id"] == user.user_id);
    assert_eq!(event["person"]["email"], user.email.as_str());
}

#[test]
fn deactivation_and_role_change_emit_realm_user_update() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let user = new_user("evrole");
    let mut queue = register_for(&hamlet, "[\"realm_user\"]");
    iago.patch(&format!("/users/{}", user.user_id), &[("role", "300")]).success();
    queue.wait_for("role update", |e| e["person"] == json!({ "user_id": user.user_id, "role": 300 }));
    user.delete("/users/me", &[]).success();
    queue.wait_for("deactivation", |e| e["person"] == json!({ "user_id": user.user_id, "is_active": false }));
}

#[test]
fn bot_creation_emits_realm_bot_add_to_its_owner() {
    let owner = new_user("evbot");
    let mut queue = register_for(&owner, "[\"realm_bot\", \"realm_user\"]");
    let bot = new_bot(&owner, "1", &[]);
    let event = queue.wait_for("realm_bot add", |e| e["type"] == "realm_bot" && e["op"] == "add");
    assert_eq!(event["bot"]["user_id"], bot.user_id);
    assert_eq!(event["bot"]["owner_id"], owner.user_id);
    assert_eq!(event["bot"]["api_key"], bot.api_key.as_str());
}

#[test]
fn group_changes_emit_user_group_events() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mut queue = register_for(&othello, "[\"user_group\"]");
    let name = unique("evgroup");
    let group_id = hamlet
        .post("/user_groups/create", &[("name", &name), ("description", "events"), ("members", &json!([hamlet.user_id]).to_string())])
        .success()["group_id"]
        .as_i64()
        .unwrap();
    let event = queue.wait_for("user_group add", |e| e["op"] == "add" && e["group"]["id"] == group_id);
    assert_eq!(event["group"]["members"], json!([hamlet.user_id]));

    hamlet.post(&format!("/user_groups/{group_id}/members"), &[("add", &json!([othello.user_id]).to_string())]).success();
    queue.wait_for("add_members", |e| e["op"] == "add_members" && e["group_id"] == group_id && e["user_ids"] == json!([othello.user_id]));

    let sub =
        hamlet.post("/user_groups/create", &[("name", &unique("evsub")), ("description", "sub")]).success()["group_id"].as_i64().unwrap();
    hamlet.post(&format!("/user_groups/{group_id}/subgroups"), &[("add", &json!([sub]).to_string())]).success();
    queue
        .wait_for("add_subgroups", |e| e["op"] == "add_subgroups" && e["group_id"] == group_id && e["direct_subgroup_ids"] == json!([sub]));

    hamlet.post(&format!("/user_groups/{group_id}/members"), &[("delete", &json!([othello.user_id]).to_string())]).success();
    queue.wait_for("remove_members", |e| e["op"] == "remove_members" && e["group_id"] == group_id);
}

#[test]
fn new_profile_field_emits_custom_profile_fields() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let mut queue = register_for(&hamlet, "[\"custom_profile_fields\"]");
    let name = unique("EvF");
    let id = iago.post("/realm/profile_fields", &[("name", &name), ("field_type", "4")]).success()["id"].as_i64().unwrap();
    let event = queue.wait_for("custom_profile_fields", |e| {
        e["type"] == "custom_profile_fields" && e["fields"].as_array().is_some_and(|f| f.iter().any(|f| f["id"] == id))
    });
    let field = event["fields"].as_array().unwrap().iter().find(|f| f["id"] == id).unwrap().clone();
    assert_eq!((field["name"].as_str(), field["type"].as_i64()), (Some(name.as_str()), Some(4)));
}
