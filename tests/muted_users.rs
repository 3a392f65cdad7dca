//! Muted users: `GET /users/me/muted_users`, `POST`/`DELETE
//! /users/me/muted_users/{muted_user_id}`, the `muted_users` event and register key, and
//! muted senders' messages arriving read.

mod accounts;
mod chat;
mod common;
mod event_support;
use chat::*;
use common::*;
use event_support::*;
use serde_json::Value;

fn muted_ids(list: &Value) -> Vec<i64> {
    list.as_array().unwrap().iter().map(|m| m["id"].as_i64().unwrap()).collect()
}

#[test]
fn muting_lists_the_user_and_sends_the_list() {
    let iago = Client::dev("iago@zulip.com");
    let user = accounts::new_user("muter");
    let mut queue = register_for(&user, r#"["muted_users"]"#);
    let body = user.post(&format!("/users/me/muted_users/{}", iago.user_id), &[]).success();
    assert_matches_openapi("post", "/users/me/muted_users/{muted_user_id}", &body);
    // Zulip's OpenAPI file has no GET here; the list has register's `muted_users` shape.
    let list = user.get("/users/me/muted_users", &[]).success();
    assert_eq!(muted_ids(&list["muted_users"]), vec![iago.user_id]);
    assert!(list["muted_users"][0]["timestamp"].is_i64());
    let event = queue.wait_for("muted_users", |e| e["type"] == "muted_users");
    assert_eq!(muted_ids(&event["muted_users"]), vec![iago.user_id]);
    let state = user.post("/register", &[("fetch_event_types", r#"["muted_users"]"#)]).success();
    assert_eq!(muted_ids(&state["muted_users"]), vec![iago.user_id]);
}

#[test]
fn muting_marks_the_users_messages_read() {
    let iago = Client::dev("iago@zulip.com");
    let user = accounts::new_user("muter");
    let id = send_direct(&iago, &[user.user_id], "before muting");
    assert!(!flags(&fetch(&user, id)).contains(&"read".to_string()));
    let mut queue = register_for(&user, r#"["update_message_flags"]"#);
    user.post(&format!("/users/me/muted_users/{}", iago.user_id), &[]).success();
    assert!(flags(&fetch(&user, id)).contains(&"read".to_string()));
    let event = queue.wait_for("update_message_flags", |e| e["type"] == "update_message_flags");
    assert_eq!(event["messages"], serde_json::json!([id]));
}

#[test]
fn messages_of_a_muted_user_arrive_read() {
    let iago = Client::dev("iago@zulip.com");
    let user = accounts::new_user("muter");
    user.post(&format!("/users/me/muted_users/{}", iago.user_id), &[]).success();
    let id = send_direct(&iago, &[user.user_id], "after muting");
    assert!(flags(&fetch(&user, id)).contains(&"read".to_string()));
}

#[test]
fn channel_messages_of_a_muted_user_arrive_read() {
    let iago = Client::dev("iago@zulip.com");
    let user = accounts::new_user("muter");
    let (name, _) = new_channel(&iago, &[&user], false, true);
    user.post(&format!("/users/me/muted_users/{}", iago.user_id), &[]).success();
    let id = send_to_channel(&iago, &name, "t", "after muting");
    assert!(flags(&fetch(&user, id)).contains(&"read".to_string()));
    let unmuted = send_to_channel(&user, &name, "t", "from the muter");
    assert!(!flags(&fetch(&iago, unmuted)).contains(&"read".to_string()), "only the muter's copies are read");
}

#[test]
fn muting_rules() {
    let iago = Client::dev("iago@zulip.com");
    let user = accounts::new_user("muter");
    user.post(&format!("/users/me/muted_users/{}", user.user_id), &[]).bad_request("BAD_REQUEST", "Cannot mute self");
    user.post("/users/me/muted_users/99999999", &[]).bad_request("BAD_REQUEST", "No such user");
    user.post(&format!("/users/me/muted_users/{}", iago.user_id), &[]).success();
    user.post(&format!("/users/me/muted_users/{}", iago.user_id), &[]).bad_request("BAD_REQUEST", "User already muted");
}

#[test]
fn unmuting_removes_the_user_and_needs_a_mute() {
    let iago = Client::dev("iago@zulip.com");
    let user = accounts::new_user("muter");
    user.delete(&format!("/users/me/muted_users/{}", iago.user_id), &[]).bad_request("BAD_REQUEST", "User is not muted");
    user.post(&format!("/users/me/muted_users/{}", iago.user_id), &[]).success();
    let mut queue = register_for(&user, r#"["muted_users"]"#);
    let body = user.delete(&format!("/users/me/muted_users/{}", iago.user_id), &[]).success();
    assert_matches_openapi("delete", "/users/me/muted_users/{muted_user_id}", &body);
    assert!(muted_ids(&user.get("/users/me/muted_users", &[]).success()["muted_users"]).is_empty());
    let event = queue.wait_for("muted_users", |e| e["type"] == "muted_users");
    assert!(muted_ids(&event["muted_users"]).is_empty());
}
