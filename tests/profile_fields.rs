//! Custom profile fields (`POST`/`GET`/`PATCH /realm/profile_fields`) and `PATCH /users/me/profile_data`.
//! Reordering happens in organizations of their own: an order names every field.

mod accounts;
mod common;
mod event_support;

use accounts::new_user;
use common::*;
use serde_json::{json, Value};

/// Creates a field as iago; answers its id.
fn create_field(field_type: i64, extra: &[(&str, &str)]) -> i64 {
    let iago = Client::dev("iago@zulip.com");
    let name = unique("F");
    let field_type = field_type.to_string();
    let mut form: Vec<(&str, &str)> = vec![("name", name.as_str()), ("field_type", field_type.as_str())];
    form.extend_from_slice(extra);
    iago.post("/realm/profile_fields", &form).success()["id"].as_i64().unwrap()
}

fn set(client: &Client, id: i64, value: Value) -> Resp {
    let data = json!([{ "id": id, "value": value }]).to_string();
    client.patch("/users/me/profile_data", &[("data", &data)])
}

fn profile_data(viewer: &Client, user_id: i64) -> Value {
    let body = viewer.get(&format!("/users/{user_id}"), &[("include_custom_profile_fields", "true")]).success();
    assert_matches_openapi("GET", "/users/{user_id}", &body);
    body["user"]["profile_data"].clone()
}

#[test]
fn administrator_creates_a_field_that_everyone_lists() {
    let iago = Client::dev("iago@zulip.com");
    let name = unique("Team");
    let body = iago
        .post(
            "/realm/profile_fields",
            &[("name", &name), ("hint", "Your team"), ("field_type", "1"), ("display_in_profile_summary", "true")],
        )
        .success();
    let id = body["id"].as_i64().unwrap();
    assert_matches_openapi("POST", "/realm/profile_fields", &body);
    let hamlet = Client::dev("hamlet@zulip.com");
    let listed = hamlet.get("/realm/profile_fields", &[]).success();
    assert_matches_openapi("GET", "/realm/profile_fields", &listed);
    let fields = listed["custom_fields"].as_array().unwrap().clone();
    let field = fields.iter().find(|f| f["id"] == id).expect("created field listed");
    assert_eq!(field["name"], name.as_str());
    assert_eq!(field["hint"], "Your team");
    assert_eq!(field["type"], 1);
    assert_eq!(field["field_data"], "");
    assert_eq!(field["display_in_profile_summary"], true);
    assert_eq!(field["required"], false);
    assert_eq!(field["editable_by_user"], true);
    assert!(field["order"].is_i64());
}

#[test]
fn only_administrators_create_fields() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/realm/profile_fields", &[("name", &unique("Nope")), ("field_type", "1")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
}

/// An organization of its own with three fields; answers its owner, a member and the ids.
fn organization_with_fields() -> (Client, Client, Vec<i64>) {
    let (owner, member) = organization_with_member("fields", "Fields Org", "a-long-test-password");
    let ids = ["Team", "Desk", "Pager"]
        .iter()
        .map(|name| owner.post("/realm/profile_fields", &[("name", name), ("field_type", "1")]).success()["id"].as_i64().unwrap())
        .collect();
    (owner, member, ids)
}

fn listed_ids(client: &Client) -> Vec<i64> {
    let fields = client.get("/realm/profile_fields", &[]).success()["custom_fields"].as_array().unwrap().clone();
    fields.iter().map(|f| f["id"].as_i64().unwrap()).collect()
}

#[test]
fn an_administrator_reorders_the_fields_and_everyone_is_told() {
    let (owner, member, ids) = organization_with_fields();
    let mut queue = event_support::register_for(&member, r#"["custom_profile_fields"]"#);
    let order = vec![ids[2], ids[0], ids[1]];
    let body = owner.patch("/realm/profile_fields", &[("order", &json!(order).to_string())]).success();
    assert_matches_openapi("PATCH", "/realm/profile_fields", &body);
    assert_eq!(listed_ids(&member), order);
    let event = queue.wait_for("the new order", |e| e["type"] == "custom_profile_fields");
    let told: Vec<i64> = event["fields"].as_array().unwrap().iter().map(|f| f["id"].as_i64().unwrap()).collect();
    assert_eq!(told, order);
}

#[test]
fn an_order_that_leaves_out_a_field_is_refused_and_changes_nothing() {
    let (owner, member, ids) = organization_with_fields();
    let partial = json!([ids[2], ids[1]]).to_string();
    owner.patch("/realm/profile_fields", &[("order", &partial)]).bad_request("BAD_REQUEST", "Invalid order mapping.");
    let whole = json!([ids[2], ids[1], ids[0]]).to_string();
    member
        .patch("/realm/profile_fields", &[("order", &whole)])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    assert_eq!(listed_ids(&owner), ids);
}

#[test]
fn field_definitions_are_validated() {
    let iago = Client::dev("iago@zulip.com");
    iago.post("/realm/profile_fields", &[("name", "  "), ("field_type", "1")]).bad_request("BAD_REQUEST", "Label cannot be blank.");
    iago.post("/realm/profile_fields", &[("name", &unique("T")), ("field_type", "99")]).bad_request("BAD_REQUEST", "Invalid field type.");
    iago.post("/realm/profile_fields", &[("name", &unique("C")), ("field_type", "3"), ("field_data", "{}")])
        .bad_request("BAD_REQUEST", "Field must have at least one choice.");
    iago.post("/realm/profile_fields", &[("name", &unique("E")), ("field_type", "7"), ("field_data", r#"{"subtype":"myspace"}"#)])
        .bad_request("BAD_REQUEST", "Invalid external account type");
    let name = unique("Dup");
    iago.post("/realm/profile_fields", &[("name", &name), ("field_type", "1")]).success();
    iago.post("/realm/profile_fields", &[("name", &name), ("field_type", "2")])
        .bad_request("BAD_REQUEST", "A field with that label already exists.");
}

#[test]
fn short_text_value_appears_with_its_rendering() {
    let id = create_field(1, &[]);
    let user = new_user("short");
    set(&user, id, json!("**Rust** team")).success();
    let data = profile_data(&Client::dev("hamlet@zulip.com"), user.user_id);
    assert_eq!(data[id.to_string()]["value"], "**Rust** team");
    assert_eq!(data[id.to_string()]["rendered_value"], "<p><strong>Rust</strong> team</p>");
    set(&user, id, json!("x".repeat(51))).bad_request("BAD_REQUEST", &format!("{} is too long (limit: 50 characters)", field_name(id)));
}

fn field_name(id: i64) -> String {
    let hamlet = Client::dev("hamlet@zulip.com");
    let fields = hamlet.get("/realm/profile_fields", &[]).success()["custom_fields"].as_array().unwrap().clone();
    fields.iter().find(|f| f["id"] == id).unwrap()["name"].as_str().unwrap().to_string()
}

#[test]
fn long_text_pronouns_and_external_account_values_are_strings() {
    let long = create_field(2, &[]);
    let pronouns = create_field(8, &[]);
    let github = create_field(7, &[("field_data", r#"{"subtype":"github"}"#)]);
    let user = new_user("texts");
    let data = json!([
        { "id": long, "value": "A longer biography." },
        { "id": pronouns, "value": "they/them" },
        { "id": github, "value": "octocat" },
    ])
    .to_string();
    user.patch("/users/me/profile_data", &[("data", &data)]).success();
    let shown = profile_data(&user, user.user_id);
    assert_eq!(shown[long.to_string()]["value"], "A longer biography.");
    assert!(shown[long.to_string()]["rendered_value"].is_string());
    assert_eq!(shown[pronouns.to_string()]["value"], "they/them");
    assert!(shown[pronouns.to_string()].get("rendered_value").is_none());
    assert_eq!(shown[github.to_string()]["value"], "octocat");
    set(&user, pronouns, json!(5)).bad_request("BAD_REQUEST", &format!("{} is not a string", field_name(pronouns)));
}

#[test]
fn choice_value_must_be_one_of_the_choices() {
    let choices = r#"{"0":{"text":"Vim","order":"1"},"1":{"text":"Emacs","order":"2"}}"#;
    let id = create_field(3, &[("field_data", choices)]);
    let user = new_user("choice");
    set(&user, id, json!("1")).success();
    assert_eq!(profile_data(&user, user.user_id)[id.to_string()]["value"], "1");
    let name = field_name(id);
    set(&user, id, json!("Vim")).bad_request("BAD_REQUEST", &format!("'Vim' is not a valid choice for '{name}'."));
    assert_eq!(profile_data(&user, user.user_id)[id.to_string()]["value"], "1");
}

#[test]
fn date_value_must_be_a_date() {
    let id = create_field(4, &[]);
    let user = new_user("date");
    set(&user, id, json!("1999-12-31")).success();
    assert_eq!(profile_data(&user, user.user_id)[id.to_string()]["value"], "1999-12-31");
    set(&user, id, json!("1999-02-30")).bad_request("BAD_REQUEST", &format!("{} is not a date", field_name(id)));
}

#[test]
fn link_value_must_be_a_url() {
    let id = create_field(5, &[]);
    let user = new_user("link");
    set(&user, id, json!("https://zulip.com/help")).success();
    assert_eq!(profile_data(&user, user.user_id)[id.to_string()]["value"], "https://zulip.com/help");
    set(&user, id, json!("not a url")).bad_request("BAD_REQUEST", &format!("{} is not a URL", field_name(id)));
}

#[test]
fn users_value_must_list_existing_users() {
    let id = create_field(6, &[]);
    let user = new_user("users");
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    set(&user, id, json!([hamlet.user_id, othello.user_id])).success();
    assert_eq!(profile_data(&user, user.user_id)[id.to_string()]["value"], format!("[{}, {}]", hamlet.user_id, othello.user_id));
    set(&user, id, json!([99999999])).bad_request("BAD_REQUEST", "Invalid user ID: 99999999");
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    set(&user, id, json!([king.user_id])).bad_request("BAD_REQUEST", &format!("Invalid user ID: {}", king.user_id));
    set(&user, id, json!("hamlet")).bad_request("BAD_REQUEST", &format!("{} is not a list of user IDs", field_name(id)));
}

#[test]
fn null_removes_the_value() {
    let id = create_field(1, &[]);
    let user = new_user("remove");
    set(&user, id, json!("present")).success();
    assert_eq!(profile_data(&user, user.user_id)[id.to_string()]["value"], "present");
    set(&user, id, Value::Null).success();
    assert!(profile_data(&user, user.user_id).get(id.to_string()).is_none());
}

#[test]
fn unknown_field_is_a_bad_request_and_nothing_changes() {
    let id = create_field(1, &[]);
    let user = new_user("unknown");
    let data = json!([{ "id": id, "value": "kept out" }, { "id": 99999999, "value": "x" }]).to_string();
    user.patch("/users/me/profile_data", &[("data", &data)]).bad_request("BAD_REQUEST", "Field id 99999999 not found.");
    assert!(profile_data(&user, user.user_id).get(id.to_string()).is_none());
}

#[test]
fn field_of_another_organization_is_unknown() {
    let id = create_field(1, &[]);
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    set(&king, id, json!("x")).bad_request("BAD_REQUEST", &format!("Field id {id} not found."));
}

#[test]
fn field_not_editable_by_users_is_refused_to_members() {
    let id = create_field(1, &[("editable_by_user", "false")]);
    let user = new_user("locked");
    set(&user, id, json!("mine"))
        .bad_request("BAD_REQUEST", "You are not allowed to change this field. Contact an administrator to update it.");
    assert!(profile_data(&user, user.user_id).get(id.to_string()).is_none());

    // Administrators may set it, for themselves or for others.
    let iago = Client::dev("iago@zulip.com");
    let data = json!([{ "id": id, "value": "set by iago" }]).to_string();
    iago.patch(&format!("/users/{}", user.user_id), &[("profile_data", &data)]).success();
    assert_eq!(profile_data(&user, user.user_id)[id.to_string()]["value"], "set by iago");
}

#[test]
fn malformed_data_is_a_bad_request() {
    let user = new_user("malformed");
    user.patch("/users/me/profile_data", &[("data", "{\"id\": 1}")]).bad_request("BAD_REQUEST", "data is not a list");
    user.patch("/users/me/profile_data", &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'data' argument");
}

#[test]
fn user_lists_include_profile_data_only_when_asked() {
    let id = create_field(1, &[]);
    let user = new_user("listed");
    set(&user, id, json!("visible")).success();
    let hamlet = Client::dev("hamlet@zulip.com");

    let listed = hamlet.get("/users", &[("include_custom_profile_fields", "true")]).success();
    assert_matches_openapi("GET", "/users", &listed);
    let members = listed["members"].as_array().unwrap().clone();
    let me = members.iter().find(|m| m["user_id"] == user.user_id).unwrap();
    assert_eq!(me["profile_data"][id.to_string()]["value"], "visible");
    assert!(members.iter().all(|m| m["is_bot"] == true || m["profile_data"].is_object()));

    let members = hamlet.get("/users", &[]).success()["members"].as_array().unwrap().clone();
    assert!(members.iter().all(|m| m.get("profile_data").is_none()));
    assert!(hamlet.get(&format!("/users/{}", user.user_id), &[]).success()["user"].get("profile_data").is_none());

    let own = user.get("/users/me", &[("include_custom_profile_fields", "true")]).success();
    assert_eq!(own["profile_data"][id.to_string()]["value"], "visible");
}
