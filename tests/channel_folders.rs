//! Channel folders: administrators create, update, archive and reorder them; everyone sees
//! them, with their events and register state; channels carry `folder_id`.

mod chat;
mod common;
mod event_support;
use chat::*;
use common::*;
use event_support::*;
use serde_json::{json, Value};

fn create(admin: &Client, name: &str, description: &str) -> i64 {
    let body = admin.post("/channel_folders/create", &[("name", name), ("description", description)]).success();
    body["channel_folder_id"].as_i64().expect("channel_folder_id")
}

fn folder(client: &Client, id: i64) -> Option<Value> {
    let body = client.get("/channel_folders", &[("include_archived", "true")]).success();
    body["channel_folders"].as_array().unwrap().iter().find(|f| f["id"] == id).cloned()
}

fn register_limit(client: &Client, key: &str) -> i64 {
    client.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success()[key].as_i64().unwrap()
}

#[test]
fn an_administrator_creates_a_folder_that_everyone_sees() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("Frontend ");
    let body = iago.post("/channel_folders/create", &[("name", &name), ("description", "The **UI** team")]).success();
    assert_matches_openapi("POST", "/channel_folders/create", &body);
    assert!(body.get("ignored_parameters_unsupported").is_none(), "{body}");
    let id = body["channel_folder_id"].as_i64().unwrap();
    let list = hamlet.get("/channel_folders", &[]).success();
    assert_matches_openapi("GET", "/channel_folders", &list);
    let f = list["channel_folders"].as_array().unwrap().iter().find(|f| f["id"] == id).cloned().expect("listed");
    assert_eq!(f["name"], name.as_str());
    assert_eq!(f["description"], "The **UI** team");
    assert!(f["rendered_description"].as_str().unwrap().contains("<strong>UI</strong>"), "{f}");
    assert_eq!(f["creator_id"], iago.user_id);
    assert_eq!(f["is_archived"], false);
    assert!(f["date_created"].is_i64() && f["order"].is_i64());
}

#[test]
fn creating_emits_channel_folder_add_to_every_user() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, r#"["channel_folder"]"#);
    let name = unique("Evt ");
    let id = create(&iago, &name, "");
    let event =
        queue.wait_for("channel_folder add", |e| e["type"] == "channel_folder" && e["op"] == "add" && e["channel_folder"]["id"] == id);
    assert_eq!(event["channel_folder"]["name"], name.as_str());
    assert_eq!(event["channel_folder"]["is_archived"], false);
}

#[test]
fn a_member_cannot_create_a_folder() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("Sneaky ");
    hamlet
        .post("/channel_folders/create", &[("name", &name), ("description", "")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    let list = hamlet.get("/channel_folders", &[("include_archived", "true")]).success();
    assert!(!list["channel_folders"].as_array().unwrap().iter().any(|f| f["name"] == name.as_str()));
}

#[test]
fn name_and_description_are_required() {
    let iago = Client::dev("iago@zulip.com");
    iago.post("/channel_folders/create", &[("description", "")]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'name' argument");
    iago.post("/channel_folders/create", &[("name", &unique("NoDesc "))])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'description' argument");
}

#[test]
fn blank_name_is_refused() {
    let iago = Client::dev("iago@zulip.com");
    iago.post("/channel_folders/create", &[("name", "   "), ("description", "")])
        .bad_request("BAD_REQUEST", "Channel folder name can't be empty.");
}

#[test]
fn name_longer_than_the_register_limit_is_refused() {
    let iago = Client::dev("iago@zulip.com");
    let max = register_limit(&iago, "max_channel_folder_name_length");
    let long = format!("{}{}", unique("L"), "x".repeat(max as usize));
    iago.post("/channel_folders/create", &[("name", &long), ("description", "")])
        .bad_request("BAD_REQUEST", &format!("name is too long (limit: {max} characters)"));
}

#[test]
fn description_longer_than_the_register_limit_is_refused() {
    let iago = Client::dev("iago@zulip.com");
    let max = register_limit(&iago, "max_channel_folder_description_length");
    let long = "d".repeat(max as usize + 1);
    let name = unique("LongDesc ");
    iago.post("/channel_folders/create", &[("name", &name), ("description", &long)])
        .bad_request("BAD_REQUEST", &format!("description is too long (limit: {max} characters)"));
    create(&iago, &name, &"d".repeat(max as usize));
}

#[test]
fn names_are_unique_in_the_organization_ignoring_case() {
    let iago = Client::dev("iago@zulip.com");
    let name = unique("Dup ");
    create(&iago, &name, "");
    let upper = name.to_uppercase();
    iago.post("/channel_folders/create", &[("name", &upper), ("description", "")])
        .bad_request("BAD_REQUEST", &format!("Channel folder '{upper}' already exists"));
}

#[test]
fn register_lists_folders_including_archived_ones() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let live = create(&iago, &unique("Live "), "");
    let archived = create(&iago, &unique("Old "), "");
    iago.patch(&format!("/channel_folders/{archived}"), &[("is_archived", "true")]).success();
    let body = hamlet.post("/register", &[("fetch_event_types", r#"["channel_folders"]"#)]).success();
    let folders = body["channel_folders"].as_array().unwrap();
    assert!(folders.iter().any(|f| f["id"] == live && f["is_archived"] == false));
    assert!(folders.iter().any(|f| f["id"] == archived && f["is_archived"] == true));
}

#[test]
fn archived_folders_are_listed_only_with_include_archived() {
    let iago = Client::dev("iago@zulip.com");
    let id = create(&iago, &unique("Archive me "), "");
    let mut queue = register_for(&iago, r#"["channel_folder"]"#);
    let body = iago.patch(&format!("/channel_folders/{id}"), &[("is_archived", "true")]).success();
    assert_matches_openapi("PATCH", "/channel_folders/{channel_folder_id}", &body);
    let event = queue.wait_for("channel_folder update", |e| e["type"] == "channel_folder" && e["channel_folder_id"] == id);
    assert_eq!(event["op"], "update");
    assert_eq!(event["data"], json!({ "is_archived": true }));
    let plain = iago.get("/channel_folders", &[]).success();
    assert!(!plain["channel_folders"].as_array().unwrap().iter().any(|f| f["id"] == id));
    assert_eq!(folder(&iago, id).unwrap()["is_archived"], true);
    iago.patch(&format!("/channel_folders/{id}"), &[("is_archived", "false")]).success();
    assert_eq!(folder(&iago, id).unwrap()["is_archived"], false);
}

#[test]
fn renaming_and_describing_emit_one_update_each() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = create(&iago, &unique("Before "), "old");
    let mut queue = register_for(&hamlet, r#"["channel_folder"]"#);
    let name = unique("After ");
    iago.patch(&format!("/channel_folders/{id}"), &[("name", &name), ("description", "*new*")]).success();
    // Both events may arrive in one poll: gather them.
    let mut updates: Vec<Value> = Vec::new();
    while updates.len() < 2 {
        updates.extend(queue.poll(false).into_iter().filter(|e| e["type"] == "channel_folder" && e["channel_folder_id"] == id));
    }
    let (first, second) = (&updates[0], &updates[1]);
    assert_eq!(first["data"], json!({ "name": name }));
    assert_eq!(second["data"]["description"], "*new*");
    assert!(second["data"]["rendered_description"].as_str().unwrap().contains("<em>new</em>"));
    let f = folder(&hamlet, id).unwrap();
    assert_eq!(f["name"], name.as_str());
    assert_eq!(f["description"], "*new*");
}

#[test]
fn updating_to_a_taken_name_is_refused_and_nothing_changes() {
    let iago = Client::dev("iago@zulip.com");
    let taken = unique("Taken ");
    create(&iago, &taken, "");
    let id = create(&iago, &unique("Mine "), "keep");
    iago.patch(&format!("/channel_folders/{id}"), &[("name", &taken), ("description", "changed")])
        .bad_request("BAD_REQUEST", &format!("Channel folder '{taken}' already exists"));
    assert_eq!(folder(&iago, id).unwrap()["description"], "keep");
}

#[test]
fn updating_with_invalid_values_is_refused() {
    let iago = Client::dev("iago@zulip.com");
    let id = create(&iago, &unique("Valid "), "");
    iago.patch(&format!("/channel_folders/{id}"), &[("name", " ")]).bad_request("BAD_REQUEST", "Channel folder name can't be empty.");
    iago.patch(&format!("/channel_folders/{id}"), &[("is_archived", "perhaps")]).bad_request("BAD_REQUEST", "is_archived is not a boolean");
    let long = "d".repeat(register_limit(&iago, "max_channel_folder_description_length") as usize + 1);
    iago.patch(&format!("/channel_folders/{id}"), &[("description", &long)])
        .bad_request("BAD_REQUEST", "description is too long (limit: 1024 characters)");
    assert_eq!(folder(&iago, id).unwrap()["description"], "");
}

#[test]
fn unknown_folder_id_is_a_bad_request() {
    let iago = Client::dev("iago@zulip.com");
    iago.patch("/channel_folders/999999999", &[("name", "x")]).bad_request("BAD_REQUEST", "Invalid channel folder ID");
}

#[test]
fn a_member_cannot_update_a_folder_and_nothing_changes() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("Guarded ");
    let id = create(&iago, &name, "kept");
    let mut queue = register_for(&hamlet, r#"["channel_folder"]"#);
    hamlet
        .patch(&format!("/channel_folders/{id}"), &[("name", "hijacked"), ("is_archived", "true")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    let f = folder(&hamlet, id).unwrap();
    assert_eq!(f["name"], name.as_str());
    assert_eq!(f["is_archived"], false);
    // The sentinel: the first event about this folder is the administrator's later change.
    iago.patch(&format!("/channel_folders/{id}"), &[("description", "sentinel")]).success();
    let event = queue.wait_for("channel_folder", |e| e["type"] == "channel_folder" && e["channel_folder_id"] == id);
    assert_eq!(event["data"]["description"], "sentinel");
}

#[test]
fn reordering_sets_the_order_and_emits_reorder() {
    let iago = Client::dev("iago@zulip.com");
    create(&iago, &unique("Order A "), "");
    create(&iago, &unique("Order B "), "");
    let mut queue = register_for(&iago, r#"["channel_folder"]"#);
    // Other tests create folders concurrently: retry when the list changed under us.
    let mut attempts = 0;
    let order: Vec<i64> = loop {
        let all = iago.get("/channel_folders", &[("include_archived", "true")]).success();
        let mut ids: Vec<i64> = all["channel_folders"].as_array().unwrap().iter().map(|f| f["id"].as_i64().unwrap()).collect();
        ids.reverse();
        let resp = iago.patch("/channel_folders", &[("order", &serde_json::to_string(&ids).unwrap())]);
        if resp.status == 200 {
            assert_matches_openapi("PATCH", "/channel_folders", &resp.success());
            break ids;
        }
        attempts += 1;
        assert!(attempts < 10, "{:?}", resp.body);
    };
    let event =
        queue.wait_for("channel_folder reorder", |e| e["type"] == "channel_folder" && e["op"] == "reorder" && e["order"] == json!(order));
    assert_eq!(event["order"], json!(order));
    let first = folder(&iago, order[0]).unwrap();
    let last = folder(&iago, *order.last().unwrap()).unwrap();
    assert!(first["order"].as_i64().unwrap() < last["order"].as_i64().unwrap());
}

#[test]
fn reordering_must_list_every_folder() {
    let iago = Client::dev("iago@zulip.com");
    let id = create(&iago, &unique("Partial "), "");
    iago.patch("/channel_folders", &[("order", &format!("[{id}]"))]).bad_request("BAD_REQUEST", "Invalid order mapping.");
    iago.patch("/channel_folders", &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'order' argument");
}

#[test]
fn a_member_cannot_reorder_folders() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.patch("/channel_folders", &[("order", "[]")]).bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
}

#[test]
fn channels_carry_a_null_folder_id_when_in_no_folder() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = create_channel(&hamlet, &unique("nofolder"), &[], &[]);
    let body = hamlet.get(&format!("/streams/{id}"), &[]).success();
    assert!(body["stream"].get("folder_id").is_some_and(Value::is_null), "{body}");
}

#[test]
fn unknown_parameters_are_reported_as_ignored() {
    let iago = Client::dev("iago@zulip.com");
    let body = iago.post("/channel_folders/create", &[("name", &unique("Ign ")), ("description", ""), ("color", "red")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], json!(["color"]));
    let id = body["channel_folder_id"].as_i64().unwrap();
    let body = iago.patch(&format!("/channel_folders/{id}"), &[("description", "x"), ("icon", "y")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], json!(["icon"]));
    let body = iago.get("/channel_folders", &[("include_archived", "false"), ("limit", "3")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], json!(["limit"]));
}
