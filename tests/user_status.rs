//! User status: `POST /users/me/status`, `GET /users/{user_id}/status`, the `user_status`
//! event and register key.

mod common;
mod event_support;
use common::*;
use event_support::*;

#[test]
fn set_status_is_shown_with_only_its_parts() {
    let prospero = Client::dev("prospero@zulip.com");
    let text = unique("at lunch ");
    let body = prospero.post("/users/me/status", &[("status_text", &format!("  {text} ")), ("emoji_name", "car")]).success();
    assert_matches_openapi("post", "/users/me/status", &body);
    let got = prospero.get(&format!("/users/{}/status", prospero.user_id), &[]).success();
    assert_matches_openapi("get", "/users/{user_id}/status", &got);
    assert_eq!(got["status"]["status_text"], text);
    assert_eq!(got["status"]["emoji_name"], "car");
    assert_eq!(got["status"]["reaction_type"], "unicode_emoji");
    assert!(got["status"]["emoji_code"].is_string());
    assert!(got["status"].get("away").is_none());
}

#[test]
fn clearing_with_empty_strings_leaves_an_empty_status() {
    let hamlet = Client::dev("hamlet@zulip.com");
    // Polonius's status is only changed here.
    let polonius = Client::dev("polonius@zulip.com");
    polonius.post("/users/me/status", &[("status_text", "busy"), ("emoji_name", "car")]).success();
    polonius.post("/users/me/status", &[("status_text", ""), ("emoji_name", "")]).success();
    let got = hamlet.get(&format!("/users/{}/status", polonius.user_id), &[]).success();
    assert_eq!(got["status"], serde_json::json!({}));
}

#[test]
fn status_needs_a_new_value() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/users/me/status", &[]).bad_request("BAD_REQUEST", "Client did not pass any new values.");
    hamlet
        .post("/users/me/status", &[("emoji_code", "1f697")])
        .bad_request("BAD_REQUEST", "Client must pass emoji_name if they pass either emoji_code or reaction_type.");
}

#[test]
fn status_text_is_at_most_60_characters() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/users/me/status", &[("status_text", &"x".repeat(61))])
        .bad_request("BAD_REQUEST", "status_text is too long (limit: 60 characters)");
}

#[test]
fn status_emoji_must_exist() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/users/me/status", &[("emoji_name", "no_such_emoji_x")])
        .bad_request("BAD_REQUEST", "Emoji 'no_such_emoji_x' does not exist");
}

#[test]
fn unknown_user_has_no_status() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.get("/users/99999999/status", &[]).bad_request("BAD_REQUEST", "No such user");
}

#[test]
fn everyone_gets_the_event_with_the_parts_sent() {
    let shiva = Client::dev("shiva@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let mut queue = register_for(&cordelia, r#"["user_status"]"#);
    let text = unique("meeting ");
    shiva.post("/users/me/status", &[("status_text", &text)]).success();
    let event = queue.wait_for("user_status", |e| e["type"] == "user_status" && e["status_text"] == text.as_str());
    assert_eq!(event["user_id"], shiva.user_id);
    assert!(event.get("emoji_name").is_none(), "{event}");
    assert!(event.get("away").is_none(), "{event}");
    let state = cordelia.post("/register", &[("fetch_event_types", r#"["user_status"]"#)]).success();
    assert_eq!(state["user_status"][shiva.user_id.to_string()]["status_text"], text);
}

/// A new member of the seeded organization, whose status only the test that made them changes.
fn new_member() -> Client {
    let email = format!("{}@zulip.com", unique("status"));
    let iago = Client::dev("iago@zulip.com");
    iago.post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", &unique("Status Person"))]).success();
    Client::dev(&email)
}

#[test]
fn an_administrator_sets_another_users_status_and_everyone_is_told() {
    let member = new_member();
    let mut queue = register_for(&Client::dev("othello@zulip.com"), r#"["user_status"]"#);
    let text = unique("on leave ");
    let path = format!("/users/{}/status", member.user_id);
    let body = Client::dev("iago@zulip.com").post(&path, &[("status_text", &text), ("emoji_name", "car")]).success();
    assert_matches_openapi("post", "/users/{user_id}/status", &body);
    let got = member.get(&path, &[]).success();
    assert_eq!(
        (got["status"]["status_text"].clone(), got["status"]["emoji_name"].clone()),
        (serde_json::json!(text), serde_json::json!("car"))
    );
    let event = queue.wait_for("the status", |e| e["type"] == "user_status" && e["user_id"] == member.user_id);
    assert_eq!(event["status_text"], text.as_str());
}

#[test]
fn only_administrators_set_another_users_status() {
    let member = new_member();
    let path = format!("/users/{}/status", member.user_id);
    Client::dev("othello@zulip.com").post(&path, &[("status_text", "hijacked")]).bad_request("BAD_REQUEST", "Insufficient permission");
    let iago = Client::dev("iago@zulip.com");
    iago.post("/users/99999999/status", &[("status_text", "nobody")]).bad_request("BAD_REQUEST", "No such user");
    iago.post(&path, &[]).bad_request("BAD_REQUEST", "Client did not pass any new values.");
    assert_eq!(member.get(&path, &[]).success()["status"], serde_json::json!({}));
}
