//! Attachments: which messages link which upload, listing and deleting uploads, and the
//! uploads an edit detaches.

mod chat;
mod common;
mod event_support;
mod upload_support;
use chat::*;
use common::*;
use event_support::*;
use serde_json::Value;
use upload_support::*;

fn attachment_for(client: &Client, url: &str) -> Value {
    let body = client.get("/attachments", &[]).success();
    assert_matches_openapi("get", "/attachments", &body);
    let path_id = url.trim_start_matches("/user_uploads/");
    body["attachments"].as_array().unwrap().iter().find(|a| a["path_id"] == path_id).cloned().unwrap_or(Value::Null)
}

#[test]
fn attachments_list_the_messages_linking_each_upload() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = format!("{}.txt", unique("att"));
    let url = upload(&hamlet, &name, b"12345");
    let listed = attachment_for(&hamlet, &url);
    assert_eq!(listed["name"], name.as_str());
    assert_eq!(listed["size"], 5);
    assert_eq!(listed["messages"], serde_json::json!([]));
    let id = send_direct(&hamlet, &[othello.user_id], &format!("[{name}]({url})"));
    let listed = attachment_for(&hamlet, &url);
    assert_eq!(listed["messages"][0]["id"], id);
}

#[test]
fn upload_space_used_counts_the_users_uploads() {
    let hamlet = Client::dev("prospero@zulip.com");
    let before = hamlet.get("/attachments", &[]).success()["upload_space_used"].as_i64().unwrap();
    upload(&hamlet, "space.bin", &binary_bytes(1234));
    let after = hamlet.get("/attachments", &[]).success()["upload_space_used"].as_i64().unwrap();
    assert!(after - before >= 1234, "{before} -> {after}");
}

#[test]
fn deleting_an_attachment_removes_the_file() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = upload(&hamlet, "doomed.txt", b"bye");
    let id = attachment_for(&hamlet, &url)["id"].as_i64().unwrap();
    hamlet.delete(&format!("/attachments/{id}"), &[]).success();
    assert_eq!(attachment_for(&hamlet, &url), Value::Null);
    assert_eq!(download(Some(&hamlet), &url, &[]).status, 404);
}

#[test]
fn only_the_uploader_may_delete_an_attachment() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let url = upload(&hamlet, "mine.txt", b"mine");
    let id = attachment_for(&hamlet, &url)["id"].as_i64().unwrap();
    othello.delete(&format!("/attachments/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid attachment");
    assert_eq!(download(Some(&hamlet), &url, &[]).bytes, b"mine");
}

#[test]
fn upload_and_delete_send_attachment_events() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, "[\"attachment\"]");
    let url = upload(&hamlet, "evented.txt", b"ev");
    let path_id = url.trim_start_matches("/user_uploads/").to_string();
    let added =
        queue.wait_for("attachment add", |e| e["type"] == "attachment" && e["op"] == "add" && e["attachment"]["path_id"] == path_id);
    assert!(added["upload_space_used"].is_i64());
    assert_eq!(added["attachment"]["name"], "evented.txt");
    let id = added["attachment"]["id"].as_i64().unwrap();
    hamlet.delete(&format!("/attachments/{id}"), &[]).success();
    queue.wait_for("attachment remove", |e| e["type"] == "attachment" && e["op"] == "remove" && e["attachment"]["id"] == id);
}

#[test]
fn edit_removing_the_last_link_answers_detached_uploads() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let url = upload(&hamlet, "detach.txt", b"d");
    let kept = upload(&hamlet, "kept.txt", b"k");
    let id = send_direct(&hamlet, &[othello.user_id], &format!("[a]({url}) [b]({kept})"));
    let body = hamlet.patch(&format!("/messages/{id}"), &[("content", &format!("only [b]({kept})"))]).success();
    let detached = body["detached_uploads"].as_array().unwrap();
    assert_eq!(detached.len(), 1, "{body}");
    let path_id = url.trim_start_matches("/user_uploads/");
    assert_eq!(detached[0]["path_id"], path_id);
    assert_eq!(detached[0]["name"], "detach.txt");
    assert_eq!(detached[0]["size"], 1);
    assert_eq!(detached[0]["message_ids"], serde_json::json!([]));
    let create_time = detached[0]["create_time"].as_i64().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    assert!((now - create_time).abs() < 600, "create_time is in seconds: {create_time}");
    assert_eq!(download(Some(&othello), &url, &[]).status, 403, "the recipient no longer sees a link to it");
    assert_eq!(download(Some(&othello), &kept, &[]).status, 200);
}

#[test]
fn edit_keeping_another_link_detaches_nothing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let url = upload(&hamlet, "twice.txt", b"t");
    send_direct(&hamlet, &[othello.user_id], &format!("first {url}"));
    let id = send_direct(&hamlet, &[othello.user_id], &format!("second {url}"));
    let body = hamlet.patch(&format!("/messages/{id}"), &[("content", "no link now")]).success();
    assert_eq!(body["detached_uploads"], serde_json::json!([]));
}

#[test]
fn edit_adding_a_link_shares_the_file() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let url = upload(&hamlet, "later.txt", b"later");
    let id = send_direct(&hamlet, &[othello.user_id], "no link yet");
    assert_eq!(download(Some(&othello), &url, &[]).status, 403);
    hamlet.patch(&format!("/messages/{id}"), &[("content", &format!("now {url}"))]).success();
    assert_eq!(download(Some(&othello), &url, &[]).bytes, b"later");
}

#[test]
fn deleting_the_message_unlinks_the_file() {
    let hamlet = Client::dev("iago@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let url = upload(&hamlet, "gone.txt", b"g");
    let id = send_direct(&hamlet, &[othello.user_id], &url.to_string());
    assert_eq!(download(Some(&othello), &url, &[]).status, 200);
    hamlet.delete(&format!("/messages/{id}"), &[]).success();
    assert_eq!(download(Some(&othello), &url, &[]).status, 403);
    assert_eq!(attachment_for(&hamlet, &url)["messages"], serde_json::json!([]));
}

#[test]
fn sending_a_link_sends_an_attachment_update_event() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mut queue = register_for(&hamlet, "[\"attachment\"]");
    let url = upload(&hamlet, "linked.txt", b"l");
    let path_id = url.trim_start_matches("/user_uploads/").to_string();
    let id = send_direct(&hamlet, &[othello.user_id], &format!("[linked]({url})"));
    let update =
        queue.wait_for("attachment update", |e| e["type"] == "attachment" && e["op"] == "update" && e["attachment"]["path_id"] == path_id);
    assert_eq!(update["attachment"]["messages"][0]["id"], id);
    assert!(update["upload_space_used"].is_i64());
}
