//! Drafts: `GET/POST /drafts`, `PATCH/DELETE /drafts/{draft_id}`, their events and the
//! `drafts` register state.

mod chat;
mod common;
mod event_support;

use chat::channel_id;
use common::*;
use event_support::register_for;
use serde_json::{json, Value};

fn create(client: &Client, drafts: Value) -> Vec<i64> {
    let body = client.post("/drafts", &[("drafts", &drafts.to_string())]).success();
    assert_matches_openapi("post", "/drafts", &body);
    body["ids"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect()
}

fn listed(client: &Client, id: i64) -> Option<Value> {
    let body = client.get("/drafts", &[]).success();
    assert_matches_openapi("get", "/drafts", &body);
    assert_eq!(body["count"].as_u64().unwrap() as usize, body["drafts"].as_array().unwrap().len());
    body["drafts"].as_array().unwrap().iter().find(|d| d["id"] == id).cloned()
}

fn not_found(resp: Resp) {
    resp.error(404, "BAD_REQUEST", "Draft does not exist");
}

#[test]
fn drafts_are_created_in_order_and_listed() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let verona = channel_id(&hamlet, "Verona");
    let othello = Client::dev("othello@zulip.com").user_id;
    let ids = create(
        &hamlet,
        json!([
            {"type": "stream", "to": [verona], "topic": "plans", "content": "channel draft", "timestamp": 1700000000},
            {"type": "private", "to": [othello], "topic": "", "content": "direct draft"},
            {"type": "", "to": [], "topic": "", "content": "nowhere yet"},
        ]),
    );
    assert_eq!(ids.len(), 3);
    let d = listed(&hamlet, ids[0]).unwrap();
    assert_eq!(
        d,
        json!({"id": ids[0], "type": "stream", "to": [verona], "topic": "plans", "content": "channel draft", "timestamp": 1700000000})
    );
    let d = listed(&hamlet, ids[1]).unwrap();
    assert_eq!(d["type"], "private");
    assert_eq!(d["to"], json!([othello]));
    assert!(d["timestamp"].as_i64().unwrap() > 1700000000);
    assert_eq!(listed(&hamlet, ids[2]).unwrap()["to"], json!([]));
}

#[test]
fn a_channel_draft_names_exactly_one_accessible_channel() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let verona = channel_id(&hamlet, "Verona");
    let two = json!([{"type": "stream", "to": [verona, verona + 1], "topic": "t", "content": "x"}]).to_string();
    hamlet.post("/drafts", &[("drafts", &two)]).bad_request("BAD_REQUEST", "Must specify exactly 1 channel ID for channel messages");
    let missing = json!([{"type": "stream", "to": [999999], "topic": "t", "content": "x"}]).to_string();
    hamlet.post("/drafts", &[("drafts", &missing)]).bad_request("BAD_REQUEST", "Invalid channel ID");
}

#[test]
fn draft_validation_refuses_bad_drafts_and_creates_none() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let marker = unique("none of these ");
    let bad_user =
        json!([{"type": "", "to": [], "topic": "", "content": marker}, {"type": "private", "to": [999999], "topic": "", "content": "x"}])
            .to_string();
    hamlet.post("/drafts", &[("drafts", &bad_user)]).bad_request("BAD_REQUEST", "Invalid user ID 999999");
    let negative = json!([{"type": "", "to": [], "topic": "", "content": "x", "timestamp": -5}]).to_string();
    hamlet.post("/drafts", &[("drafts", &negative)]).bad_request("BAD_REQUEST", "Timestamp must not be negative.");
    let empty = json!([{"type": "", "to": [], "topic": "", "content": "   "}]).to_string();
    hamlet.post("/drafts", &[("drafts", &empty)]).bad_request("BAD_REQUEST", "Message must not be empty");
    let extra = json!([{"type": "", "to": [], "topic": "", "content": "x", "id": 5}]).to_string();
    hamlet.post("/drafts", &[("drafts", &extra)]).bad_request("BAD_REQUEST", "drafts is not a list of drafts");
    hamlet.post("/drafts", &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'drafts' argument");
    let all = hamlet.get("/drafts", &[]).success();
    assert!(!all["drafts"].as_array().unwrap().iter().any(|d| d["content"] == marker.as_str()));
}

#[test]
fn editing_a_draft_replaces_it_and_sends_an_update_event() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, r#"["drafts"]"#);
    let ids = create(&hamlet, json!([{"type": "", "to": [], "topic": "", "content": "first"}]));
    queue.wait_for("add", |e| e["type"] == "drafts" && e["op"] == "add" && e["drafts"][0]["id"] == ids[0]);
    let verona = channel_id(&hamlet, "Verona");
    let draft = json!({"type": "stream", "to": [verona], "topic": "edited", "content": "second", "timestamp": 1750000000}).to_string();
    let body = hamlet.patch(&format!("/drafts/{}", ids[0]), &[("draft", &draft)]).success();
    assert_matches_openapi("patch", "/drafts/{draft_id}", &body);
    let d = listed(&hamlet, ids[0]).unwrap();
    assert_eq!(d["content"], "second");
    assert_eq!(d["topic"], "edited");
    assert_eq!(d["timestamp"], 1750000000);
    let update = queue.wait_for("update", |e| e["type"] == "drafts" && e["op"] == "update" && e["draft"]["id"] == ids[0]);
    assert_eq!(update["draft"]["content"], "second");
}

#[test]
fn deleting_a_draft_removes_it_and_sends_a_remove_event() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, r#"["drafts"]"#);
    let ids = create(&hamlet, json!([{"type": "", "to": [], "topic": "", "content": "bye"}]));
    let body = hamlet.delete(&format!("/drafts/{}", ids[0]), &[]).success();
    assert_matches_openapi("delete", "/drafts/{draft_id}", &body);
    queue.wait_for("remove", |e| e["type"] == "drafts" && e["op"] == "remove" && e["draft_id"] == ids[0]);
    assert!(listed(&hamlet, ids[0]).is_none());
    not_found(hamlet.delete(&format!("/drafts/{}", ids[0]), &[]));
}

#[test]
fn another_users_draft_behaves_as_a_missing_one() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let ids = create(&hamlet, json!([{"type": "", "to": [], "topic": "", "content": "secret"}]));
    assert!(listed(&othello, ids[0]).is_none());
    let draft = json!({"type": "", "to": [], "topic": "", "content": "stolen"}).to_string();
    not_found(othello.patch(&format!("/drafts/{}", ids[0]), &[("draft", &draft)]));
    not_found(othello.delete(&format!("/drafts/{}", ids[0]), &[]));
    assert_eq!(listed(&hamlet, ids[0]).unwrap()["content"], "secret");
}

#[test]
fn register_includes_the_users_drafts() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let ids = create(&cordelia, json!([{"type": "", "to": [], "topic": "", "content": "in register"}]));
    let body = cordelia.post("/register", &[("fetch_event_types", r#"["drafts"]"#)]).success();
    assert!(body["drafts"].as_array().unwrap().iter().any(|d| d["id"] == ids[0] && d["content"] == "in register"));
}
