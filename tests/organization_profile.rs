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
    let response = ureq::post(&format!("{}/api/v1/server_admin/organizations", server_url()))
        .set("Authorization", "Bearer dev-server-admin-secret")
        .send_form(&fields)
        .expect("organization created");
    let created: Value = serde_json::from_str(&response.into_string().unwrap()).unwrap();
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
