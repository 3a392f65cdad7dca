//! Message retention (`message_retention_days`): the organization's period (owners only,
//! `PATCH /realm`, `/register`, the `realm` `update` event) and a channel's own, and the
//! deletion of messages older than the period that applies to them. Each test ages its
//! messages by rewriting their `date_sent` in the local database, then waits until the
//! organization's scheduler has deleted them.

mod chat;
mod common;
mod event_support;

use chat::*;
use common::*;
use event_support::*;
use std::time::{Duration, Instant};

/// Moves a message of `client`'s organization 40 days into the past, in whichever of the
/// test server's databases holds the organization.
fn age_by_forty_days(client: &Client, message_id: i64) {
    let string_id = client.realm.as_deref().unwrap_or("zulip");
    execute_in_test_databases(&format!(
        "UPDATE messages SET date_sent = date_sent - 40 * 86400 WHERE id = {message_id} \
         AND realm_id = (SELECT id FROM realms WHERE string_id = '{string_id}')"
    ));
}

/// Waits (at most 60 s) until the message is gone for `client`.
#[track_caller]
fn wait_until_deleted(client: &Client, message_id: i64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while client.get(&format!("/messages/{message_id}"), &[]).status == 200 {
        assert!(Instant::now() < deadline, "message {message_id} was not deleted within 60 s");
        std::thread::sleep(Duration::from_millis(300));
    }
    client.get(&format!("/messages/{message_id}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

fn still_there(client: &Client, message_id: i64) -> bool {
    client.get(&format!("/messages/{message_id}"), &[]).status == 200
}

#[test]
fn only_owners_set_the_organization_period_and_bad_values_change_nothing() {
    let iago = Client::dev("iago@zulip.com");
    iago.patch("/realm", &[("message_retention_days", "30")]).error(400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
    let (owner, member) = organization_with_member("keep", "Keeping", "a long member password 1");
    member.patch("/realm", &[("message_retention_days", "30")]).error(
        400,
        "UNAUTHORIZED_PRINCIPAL",
        "Must be an organization administrator",
    );
    for refused in ["0", "-1", "\"realm_default\"", "\"soon\""] {
        let shown = refused.trim_matches('"');
        owner
            .patch("/realm", &[("message_retention_days", refused)])
            .bad_request("BAD_REQUEST", &format!("Bad value for 'message_retention_days': {shown}"));
    }
    let state = owner.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_message_retention_days"], -1, "forever, Zulip's default");
}

#[test]
fn the_owner_sets_the_organization_period_and_everyone_hears_of_it() {
    let (owner, member) = organization_with_member("keep", "Keeping", "a long member password 1");
    let mut queue = register_for(&member, r#"["realm"]"#);
    owner.patch("/realm", &[("message_retention_days", "3650")]).success();
    let event = queue.wait_for("retention", |e| e["type"] == "realm" && e["op"] == "update" && e["property"] == "message_retention_days");
    assert_eq!(event["value"], 3650);
    let state = member.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_message_retention_days"], 3650);
    owner.patch("/realm", &[("message_retention_days", "\"unlimited\"")]).success();
    let event = queue.wait_for("forever", |e| e["type"] == "realm" && e["op"] == "update" && e["property"] == "message_retention_days");
    assert_eq!(event["value"], -1);
}

#[test]
fn messages_older_than_their_channels_period_are_deleted_and_newer_ones_kept() {
    let (owner, _) = organization_with_member("keep", "Keeping", "a long member password 1");
    let (kept_channel, _) = new_channel(&owner, &[], false, true);
    let (short_channel, short_id) = new_channel(&owner, &[], false, true);
    let old = send_to_channel(&owner, &short_channel, "history", "from long ago");
    let recent = send_to_channel(&owner, &short_channel, "history", "from today");
    let old_elsewhere = send_to_channel(&owner, &kept_channel, "history", "long ago, in a channel keeping everything");
    age_by_forty_days(&owner, old);
    age_by_forty_days(&owner, old_elsewhere);
    owner.patch(&format!("/streams/{short_id}"), &[("message_retention_days", "30")]).success();
    wait_until_deleted(&owner, old);
    // Deleted in the same sweep as the old message, had they been past a period.
    assert!(still_there(&owner, recent), "a message within the period stays");
    assert!(still_there(&owner, old_elsewhere), "the organization keeps messages forever");
}

#[test]
fn the_organization_period_covers_direct_messages_and_channels_without_their_own() {
    let (owner, member) = organization_with_member("keep", "Keeping", "a long member password 1");
    let (forever_channel, forever_id) = new_channel(&owner, &[], false, true);
    owner.patch(&format!("/streams/{forever_id}"), &[("message_retention_days", "\"unlimited\"")]).success();
    let (plain_channel, _) = new_channel(&owner, &[], false, true);
    let direct = send_direct(&owner, &[member.user_id], "an old direct message");
    let in_plain = send_to_channel(&owner, &plain_channel, "history", "old, under the organization's period");
    let in_forever = send_to_channel(&owner, &forever_channel, "history", "old, in a channel keeping everything");
    for id in [direct, in_plain, in_forever] {
        age_by_forty_days(&owner, id);
    }
    owner.patch("/realm", &[("message_retention_days", "30")]).success();
    wait_until_deleted(&owner, direct);
    wait_until_deleted(&owner, in_plain);
    assert!(still_there(&owner, in_forever), "a channel's own period wins over the organization's");
}
