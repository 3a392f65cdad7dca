//! The organization's profile: `PATCH /realm` with `name` and `description` (administrators),
//! the `realm` `update` events, and `/register`'s `realm_name` / `realm_description`. Each
//! test changes an organization of its own, since other tests read the seeded ones' names.

mod common;
mod event_support;

use common::*;
use event_support::*;
use serde_json::{json, Value};

/// A new organization and its owner, logged in.
fn fresh_organization() -> Client {
    let string_id = unique("profile").to_lowercase();
    let email = format!("owner@{string_id}.example.com");
    let fields =
        [("string_id", string_id.as_str()), ("name", "Profile Org"), ("owner_email", email.as_str()), ("owner_full_name", "Owner")];
    let created = server_admin_post(Some(DEV_SERVER_ADMIN_SECRET), "/server_admin/organizations", &fields).success();
    let password = created["owner"]["password"].as_str().unwrap();
    let login = [("username", email.as_str()), ("password", password)];
    let key = request("POST", "/fetch_api_key", &[], Some(Body::Form(&login)), None, Some(&string_id)).success()["api_key"]
        .as_str()
        .unwrap()
        .to_string();
    Client { email, api_key: key, user_id: created["owner"]["user_id"].as_i64().unwrap(), realm: Some(string_id) }
}

fn registered(client: &Client) -> Value {
    client.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success()
}

fn realm_update(property: &'static str) -> impl Fn(&Value) -> bool {
    move |e: &Value| e["type"] == "realm" && e["op"] == "update" && e["property"] == property
}

#[test]
fn an_owner_renames_the_organization_and_everyone_hears_of_it() {
    let owner = fresh_organization();
    let mut queue = register_for(&owner, r#"["realm"]"#);
    let body = owner.patch("/realm", &[("name", "  Renamed Org  ")]).success();
    assert_eq!(body["name"], "Renamed Org");
    let event = queue.wait_for("realm update name", realm_update("name"));
    assert_eq!(event["value"], "Renamed Org");
    assert_eq!(registered(&owner)["realm_name"], "Renamed Org");
}

#[test]
fn an_owner_describes_the_organization() {
    let owner = fresh_organization();
    let mut queue = register_for(&owner, r#"["realm"]"#);
    owner.patch("/realm", &[("description", "We make **things**.")]).success();
    let event = queue.wait_for("realm update description", realm_update("description"));
    assert_eq!(event["value"], "We make **things**.");
    assert_eq!(registered(&owner)["realm_description"], "We make **things**.");
    // The update_dict of message settings does not carry them.
    owner.patch("/realm", &[("allow_message_editing", "true"), ("name", "Both")]).success();
    let dict = queue.wait_for("update_dict", |e| e["type"] == "realm" && e["op"] == "update_dict");
    assert_eq!(dict["data"], json!({ "allow_message_editing": true }));
    queue.wait_for("realm update name", realm_update("name"));
}

#[test]
fn bad_names_and_descriptions_change_nothing() {
    let owner = fresh_organization();
    owner.patch("/realm", &[("name", "   ")]).bad_request("BAD_REQUEST", "Organization name can't be empty.");
    owner.patch("/realm", &[("name", &"n".repeat(41))]).bad_request("BAD_REQUEST", "Organization name is too long (limit: 40 characters)");
    owner
        .patch("/realm", &[("name", "Never"), ("description", &"d".repeat(1001))])
        .bad_request("BAD_REQUEST", "description is too long (limit: 1000 characters)");
    let state = registered(&owner);
    assert_eq!((state["realm_name"].as_str(), state["realm_description"].as_str()), (Some("Profile Org"), Some("")));
}

#[test]
fn members_cannot_change_the_organization_profile() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let before = registered(&hamlet)["realm_name"].clone();
    hamlet.patch("/realm", &[("name", "Hamlet's")]).error(400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    Client::dev("shiva@zulip.com").patch("/realm", &[("description", "x")]).error(
        400,
        "UNAUTHORIZED_PRINCIPAL",
        "Must be an organization administrator",
    );
    assert_eq!(registered(&hamlet)["realm_name"], before);
}

#[test]
fn an_owner_sets_the_organization_language_and_everyone_hears_of_it() {
    let owner = fresh_organization();
    let mut queue = register_for(&owner, r#"["realm"]"#);
    owner.patch("/realm", &[("default_language", "de")]).success();
    let event = queue.wait_for("realm update default_language", realm_update("default_language"));
    assert_eq!(event["value"], "de");
    assert_eq!(registered(&owner)["realm_default_language"], "de");
}

#[test]
fn people_who_join_later_take_the_organization_language() {
    let owner = fresh_organization();
    owner.patch("/realm", &[("default_language", "fr")]).success();
    let email = format!("{}@{}.example.com", unique("lang").to_lowercase(), owner.realm.as_deref().unwrap());
    owner.post("/users", &[("email", email.as_str()), ("password", "a-long-test-password"), ("full_name", "Fran Cophone")]).success();
    let login = [("username", email.as_str()), ("password", "a-long-test-password")];
    let body = request("POST", "/fetch_api_key", &[], Some(Body::Form(&login)), None, owner.realm.as_deref()).success();
    let newcomer = Client {
        email: email.clone(),
        api_key: body["api_key"].as_str().unwrap().to_string(),
        user_id: body["user_id"].as_i64().unwrap(),
        realm: owner.realm.clone(),
    };
    let form = [("fetch_event_types", r#"["user_settings"]"#), ("client_capabilities", r#"{"user_settings_object": true}"#)];
    assert_eq!(newcomer.post("/register", &form).success()["user_settings"]["default_language"], "fr");
}

#[test]
fn an_unknown_language_changes_nothing() {
    let owner = fresh_organization();
    owner.patch("/realm", &[("default_language", "xx"), ("name", "Never")]).bad_request("BAD_REQUEST", "Invalid language 'xx'");
    let state = registered(&owner);
    assert_eq!((state["realm_default_language"].as_str(), state["realm_name"].as_str()), (Some("en"), Some("Profile Org")));
}

#[test]
fn an_owner_sets_the_waiting_period_and_everyone_hears_of_it() {
    let owner = fresh_organization();
    let mut queue = register_for(&owner, r#"["realm"]"#);
    owner.patch("/realm", &[("waiting_period_threshold", "3")]).success();
    assert_eq!(queue.wait_for("realm update waiting_period_threshold", realm_update("waiting_period_threshold"))["value"], 3);
    assert_eq!(registered(&owner)["realm_waiting_period_threshold"], 3);
}

#[test]
fn a_new_waiting_period_moves_members_out_of_and_back_into_full_members() {
    let (owner, member) = organization_with_member("fullmembers", "Full members", "a-long-member-password");
    let groups = owner.get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
    let full = groups.iter().find(|g| g["name"] == "role:fullmembers").unwrap()["id"].as_i64().unwrap();
    let mut queue = register_for(&owner, r#"["user_group"]"#);
    owner.patch("/realm", &[("waiting_period_threshold", "3")]).success();
    let removed = queue.wait_for("remove_members", |e| e["type"] == "user_group" && e["op"] == "remove_members");
    assert_eq!(removed["group_id"].as_i64(), Some(full));
    assert!(removed["user_ids"].as_array().unwrap().contains(&json!(member.user_id)), "{removed}");
    owner.patch("/realm", &[("waiting_period_threshold", "0")]).success();
    let added = queue.wait_for("add_members", |e| e["type"] == "user_group" && e["op"] == "add_members");
    assert_eq!(added["group_id"].as_i64(), Some(full));
    assert!(added["user_ids"].as_array().unwrap().contains(&json!(member.user_id)), "{added}");
}

#[test]
fn a_member_whose_waiting_period_ends_becomes_a_full_member_and_everyone_hears_of_it() {
    let (owner, member) = organization_with_member("crossing", "Crossing", "a-long-member-password");
    let groups = owner.get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
    let full = groups.iter().find(|g| g["name"] == "role:fullmembers").unwrap()["id"].as_i64().unwrap();
    // The member joined a day ago but ten seconds: a one-day waiting period ends for them soon.
    execute_in_test_databases(&format!("UPDATE users SET date_joined = unixepoch() - 86400 + 10 WHERE id = {}", member.user_id));
    let mut queue = register_for(&owner, r#"["user_group"]"#);
    owner.patch("/realm", &[("waiting_period_threshold", "1")]).success();
    let removed = queue.wait_for("remove_members", |e| e["type"] == "user_group" && e["op"] == "remove_members");
    assert_eq!(removed["group_id"].as_i64(), Some(full));
    assert!(removed["user_ids"].as_array().unwrap().contains(&json!(member.user_id)), "{removed}");
    let added = queue.wait_for("add_members", |e| e["type"] == "user_group" && e["op"] == "add_members");
    assert_eq!(added["group_id"].as_i64(), Some(full));
    assert!(added["user_ids"].as_array().unwrap().contains(&json!(member.user_id)), "{added}");
}

#[test]
fn a_negative_waiting_period_changes_nothing() {
    let owner = fresh_organization();
    owner.patch("/realm", &[("waiting_period_threshold", "-1")]).bad_request("BAD_REQUEST", "waiting_period_threshold is too small");
    assert_eq!(registered(&owner)["realm_waiting_period_threshold"], 0);
}

#[test]
fn members_and_moderators_cannot_change_the_language_or_waiting_period() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let before = registered(&hamlet)["realm_default_language"].clone();
    hamlet.patch("/realm", &[("default_language", "de")]).error(400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    Client::dev("shiva@zulip.com").patch("/realm", &[("waiting_period_threshold", "5")]).error(
        400,
        "UNAUTHORIZED_PRINCIPAL",
        "Must be an organization administrator",
    );
    assert_eq!(registered(&hamlet)["realm_default_language"], before);
}
