//! `DELETE /messages/{message_id}`.

mod chat;
mod common;
use chat::*;
use common::*;

#[test]
fn sender_can_delete_own_recent_message() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "t", "oops");
    hamlet.delete(&format!("/messages/{id}"), &[]).success();
    hamlet.get(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
    assert!(topic_messages(&hamlet, channel, "t").is_empty());
}

#[test]
fn deleting_another_users_message_is_rejected_for_members() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let (_, channel) = new_channel(&hamlet, &[&othello], false, true);
    let id = send_to_channel_id(&hamlet, channel, "t", "mine");
    othello.delete(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", "You don't have permission to delete this message");
    assert_eq!(raw_content(&hamlet, id), "mine");
}

#[test]
fn administrators_can_delete_any_message() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let (_, channel) = new_channel(&hamlet, &[&iago], false, true);
    let id = send_to_channel_id(&hamlet, channel, "t", "mine");
    iago.delete(&format!("/messages/{id}"), &[]).success();
    hamlet.get(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn direct_messages_can_be_deleted_by_their_sender() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let id = send_direct(&hamlet, &[othello.user_id], "sorry");
    othello.delete(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", "You don't have permission to delete this message");
    hamlet.delete(&format!("/messages/{id}"), &[]).success();
    othello.get(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn deleting_an_invisible_or_missing_message_is_an_error() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let id = send_direct(&othello, &[cordelia.user_id], "private");
    hamlet.delete(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
    hamlet.delete("/messages/999999999", &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn the_organizations_delete_time_limit_is_in_the_register_state() {
    restrict_lear();
    let state = lear("cordelia@lear.org").post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_message_content_delete_limit_seconds"], LEAR_LIMIT_SECONDS);
}

#[test]
fn deleting_own_message_after_message_content_delete_limit_is_rejected() {
    restrict_lear();
    let cordelia = lear("cordelia@lear.org");
    let king = lear("king@lear.org");
    let (_, channel) = new_channel(&cordelia, &[&king], false, true);
    let old = send_to_channel_id(&cordelia, channel, "t", "old");
    wait_past_lear_limits();
    cordelia.delete(&format!("/messages/{old}"), &[]).bad_request("BAD_REQUEST", "The time limit for deleting this message has passed");
    king.delete(&format!("/messages/{old}"), &[]).success();
}

#[test]
fn ids_of_deleted_messages_are_never_reused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let deleted = send_to_channel_id(&hamlet, channel, "t", "gone");
    hamlet.delete(&format!("/messages/{deleted}"), &[]).success();
    let next = send_to_channel_id(&hamlet, channel, "t", "next");
    assert!(next > deleted, "{next} <= {deleted}");
    hamlet.get(&format!("/messages/{deleted}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
    assert_eq!(topic_ids(&hamlet, channel, "t"), vec![next]);
}
