//! `PATCH /messages/{message_id}` moving messages: topic edits, channel moves, the three
//! propagate modes, resolving topics, move notifications, permissions and time limits.

mod chat;
mod common;
use chat::*;
use common::*;
use serde_json::Value;

fn hamlet() -> Client {
    Client::dev("hamlet@zulip.com")
}

fn subject(client: &Client, id: i64) -> String {
    fetch_with_empty_topic(client, id)["subject"].as_str().unwrap().to_string()
}

/// The messages of a topic not sent by the notification bot.
fn human_ids(client: &Client, channel: i64, topic: &str) -> Vec<i64> {
    topic_messages(client, channel, topic)
        .iter()
        .filter(|m| m["sender_email"] != "notification-bot@zulip.com")
        .map(|m| m["id"].as_i64().unwrap())
        .collect()
}

fn notifications(client: &Client, channel: i64, topic: &str) -> Vec<String> {
    topic_messages(client, channel, topic)
        .iter()
        .filter(|m| m["sender_email"] == "notification-bot@zulip.com")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

// ---- topic edits and propagate modes ----

#[test]
fn topic_edit_change_one_moves_only_the_target_message() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let a = send_to_channel_id(&hamlet, channel, "old", "a");
    let b = send_to_channel_id(&hamlet, channel, "old", "b");
    let c = send_to_channel_id(&hamlet, channel, "old", "c");
    edit(&hamlet, b, &[("topic", "new"), ("propagate_mode", "change_one"), ("send_notification_to_new_thread", "false")]).success();
    assert_eq!(human_ids(&hamlet, channel, "old"), vec![a, c]);
    assert_eq!(human_ids(&hamlet, channel, "new"), vec![b]);
}

#[test]
fn topic_edit_change_later_moves_the_target_and_following_messages() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let a = send_to_channel_id(&hamlet, channel, "old", "a");
    let b = send_to_channel_id(&hamlet, channel, "old", "b");
    let c = send_to_channel_id(&hamlet, channel, "old", "c");
    edit(&hamlet, b, &[("topic", "new"), ("propagate_mode", "change_later"), ("send_notification_to_new_thread", "false")]).success();
    assert_eq!(human_ids(&hamlet, channel, "old"), vec![a]);
    assert_eq!(human_ids(&hamlet, channel, "new"), vec![b, c]);
}

#[test]
fn topic_edit_change_all_moves_the_whole_topic() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let a = send_to_channel_id(&hamlet, channel, "old", "a");
    let b = send_to_channel_id(&hamlet, channel, "OLD", "b");
    let c = send_to_channel_id(&hamlet, channel, "old", "c");
    edit(&hamlet, b, &[("topic", "new"), ("propagate_mode", "change_all"), ("send_notification_to_new_thread", "false")]).success();
    assert!(human_ids(&hamlet, channel, "old").is_empty());
    assert_eq!(human_ids(&hamlet, channel, "new"), vec![a, b, c]);
    // Every moved message records the edited message's topic name, as Zulip does.
    let moved = fetch_with_empty_topic(&hamlet, a);
    assert_eq!(moved["edit_history"][0]["prev_topic"], "OLD");
    assert_eq!(moved["edit_history"][0]["topic"], "new");
}

#[test]
fn topic_move_sets_last_moved_timestamp_but_not_last_edit_timestamp() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "old", "a");
    edit(&hamlet, id, &[("topic", "new")]).success();
    let message = fetch_with_empty_topic(&hamlet, id);
    assert!(message["last_moved_timestamp"].is_i64(), "{message}");
    assert!(message.get("last_edit_timestamp").is_none(), "{message}");
    let entry = &message["edit_history"][0];
    assert!(entry.get("prev_content").is_none() && entry.get("prev_stream").is_none(), "{entry}");
}

#[test]
fn topic_and_content_can_change_together() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "old", "a");
    edit(&hamlet, id, &[("topic", "new"), ("content", "b")]).success();
    let message = fetch_with_empty_topic(&hamlet, id);
    assert_eq!(message["subject"], "new");
    let entry = &message["edit_history"][0];
    assert_eq!(entry["prev_content"], "a");
    assert_eq!(entry["prev_topic"], "old");
    assert!(message["last_edit_timestamp"].is_i64() && message["last_moved_timestamp"].is_i64());
}

#[test]
fn no_topic_reads_as_the_empty_topic() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "named", "a");
    edit(&hamlet, id, &[("topic", "(no topic)")]).success();
    assert_eq!(subject(&hamlet, id), "");
}

#[test]
fn empty_topic_display_name_reads_as_the_empty_topic() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "named", "a");
    edit(&hamlet, id, &[("topic", "general chat")]).success();
    assert_eq!(subject(&hamlet, id), "");
    let shown = hamlet.get(&format!("/messages/{id}"), &[]).success()["message"]["subject"].clone();
    assert_eq!(shown, "general chat");
}

#[test]
fn topic_longer_than_max_topic_length_is_truncated_as_when_sending() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "named", "a");
    let long = "t".repeat(61);
    edit(&hamlet, id, &[("topic", &long)]).success();
    assert_eq!(subject(&hamlet, id), format!("{}...", "t".repeat(57)));
}

#[test]
fn subject_is_an_alias_of_topic() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "named", "a");
    edit(&hamlet, id, &[("subject", "aliased")]).success();
    assert_eq!(subject(&hamlet, id), "aliased");
}

// ---- channel moves ----

#[test]
fn channel_move_moves_the_message_and_records_both_channels() {
    let hamlet = hamlet();
    let (_, from) = new_channel(&hamlet, &[], false, true);
    let (_, to) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, from, "travel", "a");
    edit(&hamlet, id, &[("stream_id", &to.to_string()), ("send_notification_to_new_thread", "false")]).success();
    let message = fetch_with_empty_topic(&hamlet, id);
    assert_eq!(message["stream_id"], to);
    assert_eq!(message["subject"], "travel");
    let entry = &message["edit_history"][0];
    assert_eq!(entry["prev_stream"], from);
    assert_eq!(entry["stream"], to);
    assert!(entry.get("prev_topic").is_none(), "{entry}");
    assert!(message["last_moved_timestamp"].is_i64());
}

#[test]
fn channel_move_change_all_moves_the_topic_with_a_new_name() {
    let hamlet = hamlet();
    let (_, from) = new_channel(&hamlet, &[], false, true);
    let (_, to) = new_channel(&hamlet, &[], false, true);
    let a = send_to_channel_id(&hamlet, from, "travel", "a");
    let b = send_to_channel_id(&hamlet, from, "travel", "b");
    edit(
        &hamlet,
        b,
        &[
            ("stream_id", &to.to_string()),
            ("topic", "arrived"),
            ("propagate_mode", "change_all"),
            ("send_notification_to_new_thread", "false"),
        ],
    )
    .success();
    assert!(human_ids(&hamlet, from, "travel").is_empty());
    assert_eq!(human_ids(&hamlet, to, "arrived"), vec![a, b]);
    let entry = &fetch_with_empty_topic(&hamlet, a)["edit_history"][0];
    assert_eq!((entry["prev_stream"].as_i64(), entry["stream"].as_i64()), (Some(from), Some(to)));
    assert_eq!((entry["prev_topic"].as_str(), entry["topic"].as_str()), (Some("travel"), Some("arrived")));
}

#[test]
fn channel_move_to_an_unknown_channel_is_an_error() {
    let hamlet = hamlet();
    let (_, from) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, from, "travel", "a");
    edit(&hamlet, id, &[("stream_id", "999999999")]).bad_request("BAD_REQUEST", "Invalid channel ID");
}

#[test]
fn channel_move_by_a_user_outside_can_move_messages_between_channels_group_is_rejected() {
    // Guests are outside the default group (role:members).
    let hamlet = hamlet();
    let polonius = Client::dev("polonius@zulip.com");
    let (name, from) = new_channel(&hamlet, &[&polonius], false, true);
    let (_, to) = new_channel(&hamlet, &[&polonius], false, true);
    let _ = name;
    let id = send_to_channel_id(&polonius, from, "travel", "a");
    edit(&polonius, id, &[("stream_id", &to.to_string())]).bad_request("BAD_REQUEST", "You don't have permission to move this message");
    assert_eq!(fetch_with_empty_topic(&hamlet, id)["stream_id"], from);
}

#[test]
fn topic_edit_by_a_user_outside_can_move_messages_between_topics_group_is_rejected() {
    restrict_lear();
    let cordelia = lear("cordelia@lear.org");
    let king = lear("king@lear.org");
    // Created by the king: a channel's creator administers it, and may move its topics.
    let (_, channel) = new_channel(&king, &[&cordelia], false, true);
    let id = send_to_channel_id(&cordelia, channel, "old", "a");
    edit(&cordelia, id, &[("topic", "new")]).bad_request("BAD_REQUEST", "You don't have permission to edit this message");
    edit(&king, id, &[("topic", "new")]).success();
}

// ---- resolving ----

#[test]
fn resolving_prefixes_the_topic_and_notifies_without_a_move_notification() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let a = send_to_channel_id(&hamlet, channel, "bug", "a");
    let b = send_to_channel_id(&hamlet, channel, "bug", "b");
    edit(&hamlet, b, &[("topic", "✔ bug"), ("propagate_mode", "change_all")]).success();
    assert_eq!(human_ids(&hamlet, channel, "✔ bug"), vec![a, b]);
    assert_eq!(
        notifications(&hamlet, channel, "✔ bug"),
        vec![format!("{} has marked this topic as resolved.", silent_mention("King Hamlet", hamlet.user_id))]
    );
    assert!(topic_messages(&hamlet, channel, "bug").is_empty());
}

#[test]
fn resolving_does_not_set_last_moved_timestamp() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "bug", "a");
    edit(&hamlet, id, &[("topic", "✔ bug"), ("propagate_mode", "change_all")]).success();
    let message = fetch_with_empty_topic(&hamlet, id);
    assert!(message.get("last_moved_timestamp").is_none(), "{message}");
    assert_eq!(message["edit_history"][0]["prev_topic"], "bug");
    assert_eq!(message["edit_history"][0]["topic"], "✔ bug");
}

#[test]
fn unresolving_removes_the_prefix_and_notifies() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "✔ done", "a");
    edit(&hamlet, id, &[("topic", "done"), ("propagate_mode", "change_all")]).success();
    assert_eq!(subject(&hamlet, id), "done");
    assert_eq!(
        notifications(&hamlet, channel, "done"),
        vec![format!("{} has marked this topic as unresolved.", silent_mention("King Hamlet", hamlet.user_id))]
    );
}

#[test]
fn unresolving_right_after_resolving_deletes_the_resolve_notification() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "oops", "a");
    edit(&hamlet, id, &[("topic", "✔ oops"), ("propagate_mode", "change_all")]).success();
    assert_eq!(notifications(&hamlet, channel, "✔ oops").len(), 1);
    edit(&hamlet, id, &[("topic", "oops"), ("propagate_mode", "change_all")]).success();
    assert_eq!(topic_ids(&hamlet, channel, "oops"), vec![id]);
    assert!(topic_messages(&hamlet, channel, "✔ oops").is_empty());
}

#[test]
fn the_empty_topic_cannot_be_resolved() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "", "a");
    for topic in ["✔ ", "✔ general chat"] {
        edit(&hamlet, id, &[("topic", topic), ("propagate_mode", "change_all")])
            .bad_request("BAD_REQUEST", "General chat cannot be marked as resolved");
    }
    assert_eq!(subject(&hamlet, id), "");
}

#[test]
fn resolving_by_a_user_outside_can_resolve_topics_group_is_rejected() {
    restrict_lear();
    let cordelia = lear("cordelia@lear.org");
    let king = lear("king@lear.org");
    let (_, channel) = new_channel(&cordelia, &[&king], false, true);
    let id = send_to_channel_id(&cordelia, channel, "issue", "a");
    edit(&cordelia, id, &[("topic", "✔ issue"), ("propagate_mode", "change_all")])
        .bad_request("BAD_REQUEST", "You don't have permission to resolve topics in this channel.");
    edit(&king, id, &[("topic", "✔ issue"), ("propagate_mode", "change_all")]).success();
}

// ---- notifications ----

#[test]
fn a_moved_topic_gets_a_notification_in_the_new_thread_by_default() {
    let hamlet = hamlet();
    let (from_name, from) = new_channel(&hamlet, &[], false, true);
    let (_, to) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, from, "trip", "a");
    edit(&hamlet, id, &[("stream_id", &to.to_string()), ("propagate_mode", "change_all")]).success();
    assert_eq!(
        notifications(&hamlet, to, "trip"),
        vec![format!("This topic was moved here from #**{from_name}>trip** by {}.", silent_mention("King Hamlet", hamlet.user_id))]
    );
    assert!(topic_messages(&hamlet, from, "trip").is_empty(), "no old-thread notification by default");
}

#[test]
fn send_notification_to_old_thread_notifies_the_old_topic() {
    let hamlet = hamlet();
    let (name, channel) = new_channel(&hamlet, &[], false, true);
    let a = send_to_channel_id(&hamlet, channel, "mixed", "a");
    let b = send_to_channel_id(&hamlet, channel, "mixed", "b");
    edit(&hamlet, b, &[("topic", "split"), ("send_notification_to_old_thread", "true"), ("send_notification_to_new_thread", "false")])
        .success();
    assert_eq!(human_ids(&hamlet, channel, "mixed"), vec![a]);
    assert_eq!(
        notifications(&hamlet, channel, "mixed"),
        vec![format!("A message was moved from this topic to #**{name}>split** by {}.", silent_mention("King Hamlet", hamlet.user_id))]
    );
    assert!(notifications(&hamlet, channel, "split").is_empty());
}

#[test]
fn no_notifications_when_both_flags_are_false() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "quiet", "a");
    edit(&hamlet, id, &[("topic", "hush"), ("send_notification_to_old_thread", "false"), ("send_notification_to_new_thread", "false")])
        .success();
    assert_eq!(topic_ids(&hamlet, channel, "hush"), vec![id]);
    assert!(topic_messages(&hamlet, channel, "quiet").is_empty());
}

#[test]
fn moving_some_messages_into_an_existing_topic_counts_them_in_the_notification() {
    let hamlet = hamlet();
    let (name, channel) = new_channel(&hamlet, &[], false, true);
    send_to_channel_id(&hamlet, channel, "target", "already here");
    let _a = send_to_channel_id(&hamlet, channel, "source", "a");
    let b = send_to_channel_id(&hamlet, channel, "source", "b");
    let _c = send_to_channel_id(&hamlet, channel, "source", "c");
    edit(&hamlet, b, &[("topic", "target"), ("propagate_mode", "change_later")]).success();
    assert_eq!(
        notifications(&hamlet, channel, "target"),
        vec![format!("2 messages were moved here from #**{name}>source** by {}.", silent_mention("King Hamlet", hamlet.user_id))]
    );
}

// ---- time limits ----

#[test]
fn channel_move_of_a_message_older_than_the_limit_is_rejected_for_members() {
    restrict_lear();
    let cordelia = lear("cordelia@lear.org");
    let (_, from) = new_channel(&cordelia, &[], false, true);
    let (_, to) = new_channel(&cordelia, &[], false, true);
    let old = send_to_channel_id(&cordelia, from, "t", "old");
    wait_past_lear_limits();
    edit(&cordelia, old, &[("stream_id", &to.to_string())])
        .bad_request("BAD_REQUEST", "The time limit for editing this message's channel has passed");
}

#[test]
fn administrators_are_exempt_from_the_move_time_limits() {
    restrict_lear();
    let cordelia = lear("cordelia@lear.org");
    let king = lear("king@lear.org");
    let (_, from) = new_channel(&cordelia, &[&king], false, true);
    let (_, to) = new_channel(&cordelia, &[&king], false, true);
    let a = send_to_channel_id(&cordelia, from, "t", "old");
    wait_past_lear_limits();
    let b = send_to_channel_id(&cordelia, from, "t", "new");
    edit(&king, b, &[("stream_id", &to.to_string()), ("topic", "u"), ("propagate_mode", "change_all")]).success();
    assert_eq!(human_ids(&king, to, "u"), vec![a, b]);
}

#[test]
fn change_all_past_the_limit_reports_what_may_be_moved_and_change_later_retry_succeeds() {
    restrict_lear();
    let cordelia = lear("cordelia@lear.org");
    let (_, from) = new_channel(&cordelia, &[], false, true);
    let (_, to) = new_channel(&cordelia, &[], false, true);
    let a = send_to_channel_id(&cordelia, from, "t", "old 1");
    let b = send_to_channel_id(&cordelia, from, "t", "old 2");
    wait_past_lear_limits();
    let c = send_to_channel_id(&cordelia, from, "t", "new 1");
    let d = send_to_channel_id(&cordelia, from, "t", "new 2");
    let body = edit(&cordelia, d, &[("stream_id", &to.to_string()), ("propagate_mode", "change_all")])
        .bad_request("MOVE_MESSAGES_TIME_LIMIT_EXCEEDED", "You only have permission to move the 2/4 most recent messages in this topic.");
    assert_eq!(body["first_message_id_allowed_to_move"], c);
    assert_eq!(body["total_messages_allowed_to_move"], 2);
    assert_eq!(body["total_messages_in_topic"], 4);
    assert_eq!(human_ids(&cordelia, from, "t"), vec![a, b, c, d], "nothing moved");

    edit(&cordelia, c, &[("stream_id", &to.to_string()), ("propagate_mode", "change_later")]).success();
    assert_eq!(human_ids(&cordelia, from, "t"), vec![a, b]);
    assert_eq!(human_ids(&cordelia, to, "t"), vec![c, d]);
}

#[test]
fn protected_history_counts_only_accessible_messages_and_moves_them_without_error() {
    restrict_lear();
    let king = lear("king@lear.org");
    let goneril = lear("goneril@lear.org");
    let (name, from) = new_channel(&king, &[], true, false);
    let (_, to) = new_channel(&king, &[&goneril], false, true);
    let hidden = send_to_channel_id(&king, from, "t", "before goneril joined");
    wait_past_lear_limits();
    king.post(
        "/users/me/subscriptions",
        &[
            ("subscriptions", &serde_json::json!([{ "name": name }]).to_string()),
            ("principals", &serde_json::json!([goneril.user_id]).to_string()),
        ],
    )
    .success();
    let seen = send_to_channel_id(&king, from, "t", "after goneril joined");
    edit(&goneril, seen, &[("stream_id", &to.to_string()), ("propagate_mode", "change_all"), ("send_notification_to_new_thread", "false")])
        .success();
    assert_eq!(human_ids(&king, from, "t"), vec![hidden], "the inaccessible message stays");
    assert_eq!(human_ids(&king, to, "t"), vec![seen]);
}

// ---- events ----

#[test]
fn move_response_has_detached_uploads() {
    let hamlet = hamlet();
    let (_, channel) = new_channel(&hamlet, &[], false, true);
    let id = send_to_channel_id(&hamlet, channel, "a", "x");
    let body: Value = edit(&hamlet, id, &[("topic", "b")]).success();
    assert_eq!(body["detached_uploads"], serde_json::json!([]));
}
