//! `GET /messages/{message_id}/read_receipts`: who read a message, as Zulip answers it. Each
//! test sends its own direct message among users it creates, so nobody else reads it.

mod accounts;
mod chat;
mod common;
mod event_support;

use accounts::new_user;
use common::*;
use serde_json::json;

fn mark_read(client: &Client, message_id: i64) {
    client.post("/messages/flags", &[("messages", &json!([message_id]).to_string()), ("op", "add"), ("flag", "read")]).success();
}

fn receipts(client: &Client, message_id: i64) -> Vec<i64> {
    let body = client.get(&format!("/messages/{message_id}/read_receipts"), &[]).success();
    assert_matches_openapi("get", "/messages/{message_id}/read_receipts", &body);
    body["user_ids"].as_array().unwrap().iter().map(|id| id.as_i64().unwrap()).collect()
}

#[test]
fn those_who_read_a_message_are_listed_but_its_sender() {
    let (sender, reader, unread) = (new_user("sender"), new_user("reader"), new_user("unread"));
    let id = chat::send_direct(&sender, &[reader.user_id, unread.user_id], "read me");
    mark_read(&reader, id);
    assert_eq!(receipts(&sender, id), vec![reader.user_id]);
    assert_eq!(receipts(&unread, id), vec![reader.user_id]);
}

#[test]
fn a_reader_who_does_not_share_receipts_is_left_out() {
    let (sender, private, open) = (new_user("sender"), new_user("private"), new_user("open"));
    private.patch("/settings", &[("send_read_receipts", "false")]).success();
    let id = chat::send_direct(&sender, &[private.user_id, open.user_id], "read me");
    mark_read(&private, id);
    mark_read(&open, id);
    assert_eq!(receipts(&sender, id), vec![open.user_id]);
}

#[test]
fn readers_muted_by_or_muting_the_caller_are_left_out() {
    let (sender, muter, muted, plain) = (new_user("sender"), new_user("muter"), new_user("muted"), new_user("plain"));
    let id = chat::send_direct(&sender, &[muter.user_id, muted.user_id, plain.user_id], "read me");
    for reader in [&muter, &muted, &plain] {
        mark_read(reader, id);
    }
    muter.post(&format!("/users/me/muted_users/{}", sender.user_id), &[]).success();
    sender.post(&format!("/users/me/muted_users/{}", muted.user_id), &[]).success();
    assert_eq!(receipts(&sender, id), vec![plain.user_id]);
}

#[test]
fn a_deactivated_reader_is_left_out() {
    let (sender, leaver, stayer) = (new_user("sender"), new_user("leaver"), new_user("stayer"));
    let id = chat::send_direct(&sender, &[leaver.user_id, stayer.user_id], "read me");
    mark_read(&leaver, id);
    mark_read(&stayer, id);
    Client::dev("iago@zulip.com").delete(&format!("/users/{}", leaver.user_id), &[]).success();
    assert_eq!(receipts(&sender, id), vec![stayer.user_id]);
}

#[test]
fn a_message_the_caller_may_not_access_is_invalid() {
    let (sender, reader, outsider) = (new_user("sender"), new_user("reader"), new_user("outsider"));
    let id = chat::send_direct(&sender, &[reader.user_id], "private");
    mark_read(&reader, id);
    outsider.get(&format!("/messages/{id}/read_receipts"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
    outsider.get("/messages/99999999/read_receipts", &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn an_organization_may_turn_read_receipts_off() {
    let (owner, member) = organization_with_member("receipts-off", "No Receipts", "pw-receipts-123456");
    let mut queue = event_support::register_for(&member, r#"["realm"]"#);
    owner.patch("/realm", &[("enable_read_receipts", "false")]).success();
    let event = queue.wait_for("the setting", |e| e["type"] == "realm" && e["property"] == "enable_read_receipts");
    assert_eq!((event["op"].clone(), event["value"].clone()), (json!("update"), json!(false)));
    let state = member.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_enable_read_receipts"], false);
    let id = chat::send_direct(&member, &[owner.user_id], "read me");
    member
        .get(&format!("/messages/{id}/read_receipts"), &[])
        .bad_request("BAD_REQUEST", "Read receipts are disabled in this organization.");
    owner.patch("/realm", &[("enable_read_receipts", "true")]).success();
    assert_eq!(receipts(&member, id), Vec::<i64>::new());
}
