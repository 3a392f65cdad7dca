//! Default channels: `POST`/`DELETE /default_streams` (administrators), how they are listed
//! (`GET /streams?include_default=true`, `realm_default_streams` in `/register`), the
//! `default_streams` event, and the people who join subscribed to them.
//!
//! Default channels change what every new account of an organization joins, so these tests
//! work in `lear` (the default organization only where a guest is needed, restoring it).

mod chat;
mod common;
mod event_support;
mod onboarding;

use chat::{create_channel, lear, new_channel};
use common::*;
use event_support::*;
use onboarding::{accounts, join_key, last_email_to};
use serde_json::{json, Value};

const PASSWORD: &str = "a-long-test-password";

fn king() -> Client {
    lear("king@lear.org")
}

/// A new public channel of `lear`, its creator subscribed.
fn lear_channel(creator: &Client) -> i64 {
    create_channel(creator, &unique("default-"), &[], &[])
}

fn is_default(client: &Client, id: i64) -> Option<bool> {
    let listed = client.get("/streams", &[("include_default", "true")]).success();
    listed["streams"].as_array().unwrap().iter().find(|s| s["stream_id"] == id).and_then(|s| s["is_default"].as_bool())
}

fn registered_defaults(client: &Client) -> Vec<i64> {
    let state = client.post("/register", &[("fetch_event_types", r#"["default_streams"]"#)]).success();
    state["realm_default_streams"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect()
}

fn members(client: &Client, id: i64) -> Vec<i64> {
    let body = client.get(&format!("/streams/{id}/members"), &[]).success();
    body["subscribers"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect()
}

fn default_streams_event(with: i64, present: bool) -> impl Fn(&Value) -> bool {
    move |e: &Value| {
        e["type"] == "default_streams" && e["default_streams"].as_array().is_some_and(|ids| ids.contains(&json!(with)) == present)
    }
}

#[test]
fn an_administrator_makes_a_channel_default_and_members_hear_of_it() {
    let king = king();
    let cordelia = lear("cordelia@lear.org");
    let id = lear_channel(&king);
    let mut queue = register_for(&cordelia, r#"["default_streams"]"#);
    let body = king.post("/default_streams", &[("stream_id", &id.to_string())]).success();
    assert_matches_openapi("POST", "/default_streams", &body);
    queue.wait_for("default_streams with it", default_streams_event(id, true));
    assert_eq!(is_default(&cordelia, id), Some(true));
    assert!(registered_defaults(&cordelia).contains(&id));

    king.delete("/default_streams", &[("stream_id", &id.to_string())]).success();
    queue.wait_for("default_streams without it", default_streams_event(id, false));
    assert_eq!(is_default(&cordelia, id), Some(false));
    assert!(!registered_defaults(&cordelia).contains(&id));
}

#[test]
fn only_administrators_choose_default_channels() {
    let king = king();
    let cordelia = lear("cordelia@lear.org");
    let id = lear_channel(&cordelia);
    cordelia.post("/default_streams", &[("stream_id", &id.to_string())]).error(
        400,
        "UNAUTHORIZED_PRINCIPAL",
        "Must be an organization administrator",
    );
    assert_eq!(is_default(&king, id), Some(false));
    king.post("/default_streams", &[("stream_id", &id.to_string())]).success();
    cordelia.delete("/default_streams", &[("stream_id", &id.to_string())]).error(
        400,
        "UNAUTHORIZED_PRINCIPAL",
        "Must be an organization administrator",
    );
    assert_eq!(is_default(&king, id), Some(true));
    king.delete("/default_streams", &[("stream_id", &id.to_string())]).success();
}

#[test]
fn private_unknown_and_archived_channels_cannot_be_default() {
    let king = king();
    let private = create_channel(&king, &unique("private-default-"), &[("invite_only", "true")], &[]);
    king.post("/default_streams", &[("stream_id", &private.to_string())])
        .bad_request("BAD_REQUEST", "Private channels cannot be made default.");
    king.post("/default_streams", &[("stream_id", "987654321")]).bad_request("BAD_REQUEST", "Invalid channel ID");
    king.post("/default_streams", &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'stream_id' argument");
    let archived = lear_channel(&king);
    king.delete(&format!("/streams/{archived}"), &[]).success();
    king.post("/default_streams", &[("stream_id", &archived.to_string())])
        .bad_request("BAD_REQUEST", "Archived channels cannot be made default.");
    let defaults = registered_defaults(&king);
    assert!(!defaults.contains(&private) && !defaults.contains(&archived), "{defaults:?}");
}

#[test]
fn a_default_channel_cannot_be_made_private() {
    let king = king();
    let id = lear_channel(&king);
    king.post("/default_streams", &[("stream_id", &id.to_string())]).success();
    king.patch(&format!("/streams/{id}"), &[("is_private", "true")]).bad_request("BAD_REQUEST", "A default channel cannot be private.");
    assert_eq!(king.get(&format!("/streams/{id}"), &[]).success()["stream"]["invite_only"], false);
    king.delete("/default_streams", &[("stream_id", &id.to_string())]).success();
}

#[test]
fn archiving_a_default_channel_takes_it_out_of_the_defaults() {
    let king = king();
    let id = lear_channel(&king);
    king.post("/default_streams", &[("stream_id", &id.to_string())]).success();
    let mut queue = register_for(&king, r#"["default_streams"]"#);
    king.delete(&format!("/streams/{id}"), &[]).success();
    queue.wait_for("default_streams without it", default_streams_event(id, false));
    assert!(!registered_defaults(&king).contains(&id));
}

#[test]
fn an_account_made_by_an_administrator_joins_the_default_channels() {
    let king = king();
    let default = lear_channel(&king);
    let other = lear_channel(&king);
    king.post("/default_streams", &[("stream_id", &default.to_string())]).success();
    let email = format!("{}@lear.org", unique("joiner"));
    let user_id =
        king.post("/users", &[("email", &email), ("password", PASSWORD), ("full_name", "Joiner")]).success()["user_id"].as_i64().unwrap();
    king.delete("/default_streams", &[("stream_id", &default.to_string())]).success();
    assert!(members(&king, default).contains(&user_id));
    assert!(!members(&king, other).contains(&user_id));
}

#[test]
fn an_invitation_with_the_default_channels_subscribes_to_them_and_one_without_does_not() {
    let king = king();
    let default = lear_channel(&king);
    king.post("/default_streams", &[("stream_id", &default.to_string())]).success();
    let join = |with_defaults: bool| -> i64 {
        let address = format!("{}@example.org", unique("invitee").to_lowercase());
        let flag = if with_defaults { "true" } else { "false" };
        let own = lear_channel(&king).to_string();
        king.post(
            "/invites",
            &[("invitee_emails", &address), ("stream_ids", &format!("[{own}]")), ("include_realm_default_subscriptions", flag)],
        )
        .success();
        let key = join_key(&last_email_to(Some("lear"), &address));
        let joined = accounts(
            Some("lear"),
            "POST",
            "/accounts/register/",
            &[("key", key.as_str()), ("full_name", "Invitee"), ("password", PASSWORD)],
            None,
        );
        joined.success()["user_id"].as_i64().unwrap()
    };
    let with = join(true);
    let without = join(false);
    king.delete("/default_streams", &[("stream_id", &default.to_string())]).success();
    let subscribers = members(&king, default);
    assert!(subscribers.contains(&with), "{subscribers:?}");
    assert!(!subscribers.contains(&without), "{subscribers:?}");
}

#[test]
fn guests_are_not_told_which_channels_are_default_and_only_administrators_change_them() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, id) = new_channel(&iago, &[], false, true);
    iago.post("/default_streams", &[("stream_id", &id.to_string())]).success();
    for email in ["shiva@zulip.com", "polonius@zulip.com"] {
        let refused = Client::dev(email).delete("/default_streams", &[("stream_id", &id.to_string())]);
        refused.error(400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    }
    let seen_by_member = registered_defaults(&hamlet);
    let seen_by_guest = registered_defaults(&Client::dev("polonius@zulip.com"));
    iago.delete("/default_streams", &[("stream_id", &id.to_string())]).success();
    assert!(seen_by_member.contains(&id));
    assert_eq!(seen_by_guest, Vec::<i64>::new());
}
