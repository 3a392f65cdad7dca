//! Code playgrounds: administrators add and remove them; every user gets the list in
//! register and in `realm_playgrounds` events.

mod common;
mod event_support;
use common::*;
use event_support::*;
use serde_json::{json, Value};

const TEMPLATE: &str = "https://play.example.com/?code={code}";

fn playgrounds(client: &Client) -> Vec<Value> {
    client.post("/register", &[("fetch_event_types", r#"["realm_playgrounds"]"#)]).success()["realm_playgrounds"]
        .as_array()
        .unwrap()
        .clone()
}

fn add(admin: &Client, name: &str, language: &str, template: &str) -> crate::common::Resp {
    admin.post("/realm/playgrounds", &[("name", name), ("pygments_language", language), ("url_template", template)])
}

#[test]
fn an_administrator_adds_a_playground_everyone_sees_with_an_event() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, r#"["realm_playgrounds"]"#);
    let name = unique("Rust playground ");
    let body = add(&iago, &name, "Rust", TEMPLATE).success();
    assert_matches_openapi("POST", "/realm/playgrounds", &body);
    assert!(body.get("ignored_parameters_unsupported").is_none(), "{body}");
    let id = body["id"].as_i64().unwrap();
    let event = queue.wait_for("realm_playgrounds", |e| {
        e["type"] == "realm_playgrounds" && e["realm_playgrounds"].as_array().unwrap().iter().any(|p| p["id"] == id)
    });
    let p = event["realm_playgrounds"].as_array().unwrap().iter().find(|p| p["id"] == id).unwrap().clone();
    assert_eq!(p, json!({ "id": id, "name": name, "pygments_language": "Rust", "url_template": TEMPLATE }));
    assert!(playgrounds(&hamlet).iter().any(|p| p["id"] == id));
}

#[test]
fn a_member_cannot_add_a_playground_and_nothing_changes() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("Sneaky ");
    add(&hamlet, &name, "Python", TEMPLATE).bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    assert!(!playgrounds(&hamlet).iter().any(|p| p["name"] == name.as_str()));
}

#[test]
fn all_three_parameters_are_required() {
    let iago = Client::dev("iago@zulip.com");
    iago.post("/realm/playgrounds", &[("pygments_language", "C"), ("url_template", TEMPLATE)])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'name' argument");
    iago.post("/realm/playgrounds", &[("name", "x"), ("url_template", TEMPLATE)])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'pygments_language' argument");
    iago.post("/realm/playgrounds", &[("name", "x"), ("pygments_language", "C")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'url_template' argument");
}

#[test]
fn url_template_must_parse_as_rfc_6570() {
    let iago = Client::dev("iago@zulip.com");
    let name = unique("Bad ");
    add(&iago, &name, "C", "https://x.example/{code").bad_request("BAD_REQUEST", "Invalid URL template.");
    assert!(!playgrounds(&iago).iter().any(|p| p["name"] == name.as_str()));
}

#[test]
fn url_template_needs_the_code_variable() {
    let iago = Client::dev("iago@zulip.com");
    add(&iago, &unique("NoVar "), "C", "https://x.example/?q={query}")
        .bad_request("BAD_REQUEST", "Missing the required variable \"code\" in the URL template");
}

#[test]
fn code_must_be_the_only_variable() {
    let iago = Client::dev("iago@zulip.com");
    add(&iago, &unique("TwoVars "), "C", "https://x.example/?c={code}&l={lang}")
        .bad_request("BAD_REQUEST", "\"code\" should be the only variable present in the URL template");
}

#[test]
fn invalid_pygments_language_is_refused() {
    let iago = Client::dev("iago@zulip.com");
    add(&iago, &unique("Lang "), "C<script>", TEMPLATE).bad_request("BAD_REQUEST", "Invalid characters in pygments language");
}

#[test]
fn removing_updates_the_list_and_emits_the_event() {
    let iago = Client::dev("iago@zulip.com");
    let id = add(&iago, &unique("Doomed "), "Go", TEMPLATE).success()["id"].as_i64().unwrap();
    let mut queue = register_for(&iago, r#"["realm_playgrounds"]"#);
    let body = iago.delete(&format!("/realm/playgrounds/{id}"), &[]).success();
    assert_matches_openapi("DELETE", "/realm/playgrounds/{playground_id}", &body);
    queue.wait_for("realm_playgrounds", |e| {
        e["type"] == "realm_playgrounds" && !e["realm_playgrounds"].as_array().unwrap().iter().any(|p| p["id"] == id)
    });
    assert!(!playgrounds(&iago).iter().any(|p| p["id"] == id));
    iago.delete(&format!("/realm/playgrounds/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid playground");
}

#[test]
fn a_member_cannot_remove_a_playground() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = add(&iago, &unique("Kept "), "Go", TEMPLATE).success()["id"].as_i64().unwrap();
    hamlet.delete(&format!("/realm/playgrounds/{id}"), &[]).bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    assert!(playgrounds(&hamlet).iter().any(|p| p["id"] == id));
}

#[test]
fn unknown_parameters_are_reported_as_ignored() {
    let iago = Client::dev("iago@zulip.com");
    let body = iago
        .post("/realm/playgrounds", &[("name", &unique("Ign ")), ("pygments_language", "C"), ("url_template", TEMPLATE), ("icon", "x")])
        .success();
    assert_eq!(body["ignored_parameters_unsupported"], json!(["icon"]));
}
