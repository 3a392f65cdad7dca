//! Channels in folders: `folder_id` on channel creation (`POST /users/me/subscriptions`) and
//! by `PATCH /streams/{stream_id}` (administrators), with the `stream` `update` event.

mod chat;
mod common;
mod event_support;

use chat::new_channel;
use common::*;
use event_support::*;
use serde_json::{json, Value};

fn create_folder(admin: &Client, name: &str) -> i64 {
    admin.post("/channel_folders/create", &[("name", name), ("description", "")]).success()["channel_folder_id"].as_i64().unwrap()
}

fn stream(client: &Client, id: i64) -> Value {
    client.get(&format!("/streams/{id}"), &[]).success()["stream"].clone()
}

#[test]
fn a_channel_created_in_a_folder_carries_its_folder_id() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let folder = create_folder(&iago, &unique("Filed "));
    let mut queue = register_for(&hamlet, r#"["stream"]"#);
    let name = unique("filed-");
    let subscriptions = json!([{ "name": name }]).to_string();
    hamlet.post("/users/me/subscriptions", &[("subscriptions", &subscriptions), ("folder_id", &folder.to_string())]).success();
    let created =
        queue.wait_for("stream create", |e| e["type"] == "stream" && e["op"] == "create" && e["streams"][0]["name"] == name.as_str());
    assert_eq!(created["streams"][0]["folder_id"], folder);
    let id = created["streams"][0]["stream_id"].as_i64().unwrap();
    assert_eq!(stream(&hamlet, id)["folder_id"], folder);
    let listed = hamlet.get("/streams", &[]).success();
    assert_matches_openapi("GET", "/streams", &listed);
    assert!(listed["streams"].as_array().unwrap().iter().any(|s| s["stream_id"] == id && s["folder_id"] == folder));
    let (_, unfiled) = new_channel(&hamlet, &[], false, true);
    assert!(stream(&hamlet, unfiled)["folder_id"].is_null());
}

#[test]
fn creating_a_channel_in_a_missing_folder_creates_nothing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("unfiled-");
    hamlet
        .post("/users/me/subscriptions", &[("subscriptions", &json!([{ "name": name }]).to_string()), ("folder_id", "987654321")])
        .bad_request("BAD_REQUEST", "Invalid channel folder ID");
    hamlet.get("/get_stream_id", &[("stream", &name)]).bad_request("BAD_REQUEST", &format!("Invalid channel name '{name}'"));
}

#[test]
fn an_administrator_moves_a_channel_between_folders_and_everyone_hears_of_it() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let first = create_folder(&iago, &unique("First "));
    let (name, id) = new_channel(&hamlet, &[], false, true);
    let mut queue = register_for(&hamlet, r#"["stream"]"#);
    let path = format!("/streams/{id}");
    let body = iago.patch(&path, &[("folder_id", &first.to_string())]).success();
    assert_matches_openapi("PATCH", "/streams/{stream_id}", &body);
    let moved = queue.wait_for("stream update", |e| e["type"] == "stream" && e["op"] == "update" && e["stream_id"] == id);
    assert_eq!(
        (moved["property"].as_str(), &moved["value"], moved["name"].as_str()),
        (Some("folder_id"), &json!(first), Some(name.as_str()))
    );
    assert_eq!(stream(&hamlet, id)["folder_id"], first);
    iago.patch(&path, &[("folder_id", "null")]).success();
    let moved =
        queue.wait_for("stream update", |e| e["type"] == "stream" && e["op"] == "update" && e["stream_id"] == id && e["value"].is_null());
    assert!(moved["value"].is_null());
    assert!(stream(&hamlet, id)["folder_id"].is_null());
}

#[test]
fn refused_moves_change_nothing() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let first = create_folder(&iago, &unique("Kept "));
    let second = create_folder(&iago, &unique("Other "));
    // Created by the administrator: a channel's creator administers it.
    let (_, id) = new_channel(&iago, &[], false, true);
    let path = format!("/streams/{id}");
    iago.patch(&path, &[("folder_id", &first.to_string())]).success();
    hamlet
        .patch(&path, &[("folder_id", &second.to_string())])
        .bad_request("BAD_REQUEST", "You do not have permission to administer this channel.");
    iago.patch(&path, &[("folder_id", "987654321")]).bad_request("BAD_REQUEST", "Invalid channel folder ID");
    iago.patch(&path, &[("folder_id", "\"first\"")]).bad_request("BAD_REQUEST", "folder_id is not an integer or null");
    iago.patch("/streams/987654321", &[("folder_id", &first.to_string())]).bad_request("BAD_REQUEST", "Invalid channel ID");
    assert_eq!(stream(&hamlet, id)["folder_id"], first);
    let body = iago.patch(&path, &[("folder_id", &second.to_string()), ("not_a_channel_setting", "2")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], json!(["not_a_channel_setting"]));
}

#[test]
fn a_private_channel_move_reaches_its_subscribers_only() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let folder = create_folder(&iago, &unique("Private "));
    let (_, private) = new_channel(&hamlet, &[], true, false);
    let (_, public) = new_channel(&hamlet, &[], false, true);
    let mut subscriber = register_for(&hamlet, r#"["stream"]"#);
    let mut outsider = register_for(&othello, r#"["stream"]"#);
    othello.patch(&format!("/streams/{private}"), &[("folder_id", &folder.to_string())]).bad_request("BAD_REQUEST", "Invalid channel ID");
    iago.patch(&format!("/streams/{private}"), &[("folder_id", &folder.to_string())]).success();
    subscriber.wait_for("private move", |e| e["type"] == "stream" && e["stream_id"] == private);
    // The sentinel: a public channel's move, which the outsider does hear of.
    iago.patch(&format!("/streams/{public}"), &[("folder_id", &folder.to_string())]).success();
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !seen.iter().any(|e: &Value| e["stream_id"] == public) {
        assert!(std::time::Instant::now() < deadline, "the sentinel never arrived: {seen:?}");
        seen.extend(outsider.poll(false));
    }
    assert!(seen.iter().all(|e| e["stream_id"] != private), "a non-subscriber heard of a private channel: {seen:?}");
}

#[test]
fn a_folder_holding_a_channel_cannot_be_archived() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let folder = create_folder(&iago, &unique("Busy "));
    let (_, id) = new_channel(&hamlet, &[], false, true);
    iago.patch(&format!("/streams/{id}"), &[("folder_id", &folder.to_string())]).success();
    iago.patch(&format!("/channel_folders/{folder}"), &[("is_archived", "true")])
        .bad_request("BAD_REQUEST", "You need to remove all the channels from this folder to archive it.");
    iago.patch(&format!("/streams/{id}"), &[("folder_id", "null")]).success();
    iago.patch(&format!("/channel_folders/{folder}"), &[("is_archived", "true")]).success();
}
