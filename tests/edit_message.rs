//! `PATCH /messages/{message_id}` editing content, and `GET /messages/{message_id}/history`.
//! Moves (topic and channel) are in move_messages.rs.

mod chat;
mod common;
use chat::*;
use common::*;

fn hamlet() -> Client {
    Client::dev("hamlet@zulip.com")
}

fn othello() -> Client {
    Client::dev("othello@zulip.com")
}

// ---- content edits ----

#[test]
fn content_edit_replaces_content_and_rendering() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "first draft");
    let body = edit(&hamlet, id, &[("content", "**final** text")]).success();
    assert_eq!(body["detached_uploads"], serde_json::json!([]));
    let message = fetch_with_empty_topic(&hamlet, id);
    assert!(message["content"].as_str().unwrap().contains("<strong>final</strong>"), "{message}");
    assert_eq!(raw_content(&hamlet, id), "**final** text");
}

#[test]
fn content_edit_records_history_and_last_edit_timestamp() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "before");
    let rendered_before = fetch_with_empty_topic(&hamlet, id)["content"].clone();
    edit(&hamlet, id, &[("content", "after")]).success();
    let message = fetch_with_empty_topic(&hamlet, id);
    assert!(message["last_edit_timestamp"].is_i64(), "{message}");
    assert!(message.get("last_moved_timestamp").is_none(), "{message}");
    let history = message["edit_history"].as_array().unwrap();
    assert_eq!(history.len(), 1);
    let entry = &history[0];
    assert_eq!(entry["user_id"], hamlet.user_id);
    assert!(entry["timestamp"].is_i64());
    assert_eq!(entry["prev_content"], "before");
    assert_eq!(entry["prev_rendered_content"], rendered_before);
    for absent in ["prev_topic", "topic", "prev_stream", "stream"] {
        assert!(entry.get(absent).is_none(), "{absent} in {entry}");
    }
}

#[test]
fn unedited_message_has_no_edit_history() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "untouched");
    let message = fetch_with_empty_topic(&hamlet, id);
    for absent in ["edit_history", "last_edit_timestamp", "last_moved_timestamp"] {
        assert!(message.get(absent).is_none(), "{absent} in {message}");
    }
}

#[test]
fn edit_history_lists_most_recent_edit_first_with_only_changed_fields() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "one");
    edit(&hamlet, id, &[("content", "two")]).success();
    edit(&hamlet, id, &[("topic", "tower")]).success();
    let message = fetch_with_empty_topic(&hamlet, id);
    let history = message["edit_history"].as_array().unwrap();
    assert_eq!(history.len(), 2, "{message}");
    assert_eq!(history[0]["prev_topic"], "castle");
    assert_eq!(history[0]["topic"], "tower");
    assert!(history[0].get("prev_content").is_none());
    assert_eq!(history[1]["prev_content"], "one");
    assert!(history[1].get("prev_topic").is_none());
    assert!(history[0]["timestamp"].as_i64() >= history[1]["timestamp"].as_i64());
}

#[test]
fn empty_content_becomes_deleted_marker() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "regret");
    edit(&hamlet, id, &[("content", "   ")]).success();
    assert_eq!(raw_content(&hamlet, id), "(deleted)");
}

#[test]
fn content_longer_than_max_message_length_is_truncated_as_when_sending() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "short");
    let long = "a".repeat(10_001);
    edit(&hamlet, id, &[("content", &long)]).success();
    let stored = raw_content(&hamlet, id);
    assert_eq!(stored.chars().count(), 10_000);
    assert!(stored.ends_with("\n[message truncated]"), "{}", &stored[stored.len() - 30..]);
}

#[test]
fn direct_message_content_can_be_edited() {
    let hamlet = hamlet();
    let othello = othello();
    let id = send_direct(&hamlet, &[othello.user_id], "psst");
    edit(&hamlet, id, &[("content", "psst, edited")]).success();
    assert_eq!(raw_content(&othello, id), "psst, edited");
    assert_eq!(fetch_with_empty_topic(&othello, id)["edit_history"][0]["prev_content"], "psst");
}

#[test]
fn nothing_to_change_is_an_error() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "text");
    edit(&hamlet, id, &[]).bad_request("BAD_REQUEST", "Nothing to change");
}

#[test]
fn content_together_with_stream_id_is_an_error() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let (_, other) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "text");
    edit(&hamlet, id, &[("content", "new"), ("stream_id", &other.to_string())])
        .bad_request("BAD_REQUEST", "Cannot change message content while changing channel");
    assert_eq!(raw_content(&hamlet, id), "text");
}

#[test]
fn only_change_one_is_valid_when_editing_only_content() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "text");
    for mode in ["change_later", "change_all"] {
        edit(&hamlet, id, &[("content", "new"), ("propagate_mode", mode)])
            .bad_request("BAD_REQUEST", "Invalid propagate_mode without topic edit");
    }
    assert_eq!(raw_content(&hamlet, id), "text");
}

#[test]
fn unknown_propagate_mode_is_an_error() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "text");
    edit(&hamlet, id, &[("topic", "x"), ("propagate_mode", "change_some")]).bad_request("BAD_REQUEST", "Invalid propagate_mode");
}

#[test]
fn prev_content_sha256_mismatch_is_an_error() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "original");
    edit(&hamlet, id, &[("content", "mine"), ("prev_content_sha256", &sha256_hex("something else"))])
        .bad_request("BAD_REQUEST", "'prev_content_sha256' value does not match the expected value.");
    assert_eq!(raw_content(&hamlet, id), "original");
}

#[test]
fn prev_content_sha256_match_allows_the_edit() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "original");
    edit(&hamlet, id, &[("content", "mine"), ("prev_content_sha256", &sha256_hex("original"))]).success();
    assert_eq!(raw_content(&hamlet, id), "mine");
}

#[test]
fn topic_on_a_direct_message_is_an_error() {
    let hamlet = hamlet();
    let othello = othello();
    let id = send_direct(&hamlet, &[othello.user_id], "psst");
    edit(&hamlet, id, &[("topic", "secrets")]).bad_request("BAD_REQUEST", "Direct messages cannot have topics.");
}

#[test]
fn stream_id_on_a_direct_message_is_an_error() {
    let hamlet = hamlet();
    let othello = othello();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_direct(&hamlet, &[othello.user_id], "psst");
    edit(&hamlet, id, &[("stream_id", &channel.to_string())]).bad_request("BAD_REQUEST", "Direct messages cannot be moved to channels.");
}

#[test]
fn unknown_or_invisible_message_is_an_error() {
    let hamlet = hamlet();
    let cordelia = Client::dev("cordelia@zulip.com");
    let othello = othello();
    let id = send_direct(&othello, &[cordelia.user_id], "between us");
    edit(&hamlet, id, &[("content", "hijack")]).bad_request("BAD_REQUEST", "Invalid message(s)");
    edit(&hamlet, 999_999_999, &[("content", "x")]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

// ---- who may edit content ----

#[test]
fn content_of_another_users_message_cannot_be_edited() {
    let hamlet = hamlet();
    let othello = othello();
    let (_, channel) = new_channel(&hamlet, &[&othello], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "mine");
    edit(&othello, id, &[("content", "yours")]).bad_request("BAD_REQUEST", "You don't have permission to edit this message");
    assert_eq!(raw_content(&hamlet, id), "mine");
}

#[test]
fn administrators_cannot_edit_content_of_others() {
    let hamlet = hamlet();
    let iago = Client::dev("iago@zulip.com");
    let (_, channel) = new_channel(&hamlet, &[&iago], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "mine");
    edit(&iago, id, &[("content", "the admin's")]).bad_request("BAD_REQUEST", "You don't have permission to edit this message");
}

#[test]
fn content_edit_after_message_content_edit_limit_is_rejected() {
    restrict_lear();
    let cordelia = lear("cordelia@lear.org");
    let (_, channel) = new_channel(&cordelia, &[], false, true);
    let old = send_to_channel_id(&cordelia, channel, "castle", "old words");
    wait_past_lear_limits();
    let fresh = send_to_channel_id(&cordelia, channel, "castle", "new words");
    edit(&cordelia, old, &[("content", "late")]).bad_request("BAD_REQUEST", "The time limit for editing this message has passed");
    edit(&cordelia, fresh, &[("content", "in time")]).success();
}

// ---- mentions and rendering ----

#[test]
fn content_edit_updates_mention_flags() {
    let hamlet = hamlet();
    let othello = othello();
    let (_, channel) = new_channel(&hamlet, &[&othello], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "hello");
    let flags = |c: &Client| fetch_with_empty_topic(c, id)["flags"].as_array().unwrap().clone();
    assert!(!flags(&othello).contains(&"mentioned".into()));
    edit(&hamlet, id, &[("content", "hello @**Othello, the Moor of Venice**")]).success();
    assert!(flags(&othello).contains(&"mentioned".into()), "{:?}", flags(&othello));
    edit(&hamlet, id, &[("content", "hello again")]).success();
    assert!(!flags(&othello).contains(&"mentioned".into()), "{:?}", flags(&othello));
}

#[test]
fn content_edit_updates_wildcard_mention_flags() {
    let hamlet = hamlet();
    let othello = othello();
    let (_, channel) = new_channel(&hamlet, &[&othello], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "hello");
    edit(&hamlet, id, &[("content", "hello @**all**")]).success();
    let flags = fetch_with_empty_topic(&othello, id)["flags"].as_array().unwrap().clone();
    assert!(flags.contains(&"stream_wildcard_mentioned".into()), "{flags:?}");
    assert!(flags.contains(&"wildcard_mentioned".into()), "{flags:?}");
}

/// Sixteen users besides hamlet (more than Zulip's wildcard threshold of 15).
fn sixteen_others() -> Vec<Client> {
    let mut emails: Vec<String> = (0..8).map(|i| format!("extrauser{i}@zulip.com")).collect();
    for email in ["othello", "cordelia", "prospero", "aaron", "ZOE", "iago", "shiva", "desdemona"] {
        emails.push(format!("{email}@zulip.com"));
    }
    emails.iter().map(|e| Client::dev(e)).collect()
}

#[test]
fn channel_wildcard_added_by_edit_in_a_large_channel_needs_permission() {
    let hamlet = hamlet();
    let others = sixteen_others();
    let refs: Vec<&Client> = others.iter().collect();
    let (_, channel) = new_channel(&hamlet, &refs, false, true);
    let id = send_to_channel_id(&hamlet, channel, "t", "hello");
    edit(&hamlet, id, &[("content", "hello @**all**")])
        .bad_request("STREAM_WILDCARD_MENTION_NOT_ALLOWED", "You do not have permission to use channel wildcard mentions in this channel.");
    assert_eq!(raw_content(&hamlet, id), "hello");
}

#[test]
fn topic_wildcard_added_by_edit_in_a_busy_topic_needs_permission() {
    let hamlet = hamlet();
    let others = sixteen_others();
    let refs: Vec<&Client> = others.iter().collect();
    let (_, channel) = new_channel(&hamlet, &refs, false, true);
    let id = send_to_channel_id(&hamlet, channel, "crowd", "first");
    for other in &others {
        send_to_channel_id(other, channel, "crowd", "me too");
    }
    edit(&hamlet, id, &[("content", "first @**topic**")])
        .bad_request("TOPIC_WILDCARD_MENTION_NOT_ALLOWED", "You do not have permission to use topic wildcard mentions in this topic.");
    assert_eq!(raw_content(&hamlet, id), "first");
}

// ---- edit history endpoint ----

#[test]
fn message_history_lists_versions_oldest_first() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "castle", "v1");
    edit(&hamlet, id, &[("content", "v2")]).success();
    edit(&hamlet, id, &[("topic", "keep")]).success();
    let history = hamlet.get(&format!("/messages/{id}/history"), &[]).success()["message_history"].as_array().unwrap().clone();
    assert_eq!(history.len(), 3, "{history:?}");
    assert_eq!(history[0]["content"], "v1");
    assert_eq!(history[0]["topic"], "castle");
    assert_eq!(history[0]["user_id"], hamlet.user_id);
    assert!(history[0].get("prev_content").is_none());
    assert_eq!(history[1]["content"], "v2");
    assert_eq!(history[1]["prev_content"], "v1");
    assert!(history[1]["rendered_content"].as_str().unwrap().contains("v2"));
    assert!(history[1]["prev_rendered_content"].as_str().unwrap().contains("v1"));
    assert_eq!(history[1]["topic"], "castle");
    assert_eq!(history[2]["topic"], "keep");
    assert_eq!(history[2]["prev_topic"], "castle");
    assert_eq!(history[2]["content"], "v2");
}

#[test]
fn message_history_of_an_invisible_message_is_an_error() {
    let hamlet = hamlet();
    let othello = othello();
    let cordelia = Client::dev("cordelia@zulip.com");
    let id = send_direct(&othello, &[cordelia.user_id], "private");
    hamlet.get(&format!("/messages/{id}/history"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

// ---- response shapes ----

#[test]
fn edit_history_and_delete_responses_match_zulips_schema() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let (_, other) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "shapes", "v1");
    let body = edit(&hamlet, id, &[("content", "v2"), ("topic", "forms")]).success();
    assert_matches_openapi("PATCH", "/messages/{message_id}", &body);
    edit(&hamlet, id, &[("stream_id", &other.to_string())]).success();
    let fetched = hamlet.get(&format!("/messages/{id}"), &[]).success();
    assert_matches_openapi("GET", "/messages/{message_id}", &fetched);
    let history = hamlet.get(&format!("/messages/{id}/history"), &[]).success();
    assert_matches_openapi("GET", "/messages/{message_id}/history", &history);
    let body = hamlet.delete(&format!("/messages/{id}"), &[]).success();
    assert_matches_openapi("DELETE", "/messages/{message_id}", &body);
}
