//! Presence: `POST /users/me/presence`, `GET /users/{user_id_or_email}/presence`,
//! `GET /realm/presence`, the `presence` event and register keys.

mod common;
mod event_support;
use common::*;
use event_support::*;

/// A new user (its first ping is news; other tests' users are not touched).
fn new_user() -> Client {
    let iago = Client::dev("iago@zulip.com");
    let email = format!("{}@zulip.com", unique("presence"));
    iago.post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", "Present")]).success();
    Client::dev(&email)
}

#[test]
fn a_ping_answers_the_modern_format_with_last_update_id() {
    let user = new_user();
    let body = user.post("/users/me/presence", &[("status", "active"), ("last_update_id", "-1"), ("new_user_input", "true")]).success();
    assert_matches_openapi("post", "/users/me/presence", &body);
    let mine = &body["presences"][user.user_id.to_string()];
    assert!(mine["active_timestamp"].is_i64(), "{body}");
    assert!(mine["idle_timestamp"].is_i64(), "{body}");
    let last = body["presence_last_update_id"].as_i64().unwrap();
    assert!(last >= 1);
    // Asking again from that id: nothing older comes back.
    let again = user.post("/users/me/presence", &[("status", "active"), ("last_update_id", &last.to_string())]).success();
    assert!(again["presences"].get(user.user_id.to_string()).is_none(), "{again}");
    assert!(again["presence_last_update_id"].as_i64().unwrap() >= last);
}

#[test]
fn without_slim_presence_the_legacy_format_is_keyed_by_email() {
    let user = new_user();
    let body = user.post("/users/me/presence", &[("status", "idle")]).success();
    assert_matches_openapi("post", "/users/me/presence", &body);
    let mine = &body["presences"][user.email.as_str()];
    assert_eq!(mine["website"]["client"], "website");
    assert_eq!(mine["aggregated"]["status"], "idle");
}

#[test]
fn ping_only_answers_nothing_else() {
    let user = new_user();
    let body = user.post("/users/me/presence", &[("status", "active"), ("ping_only", "true")]).success();
    assert_matches_openapi("post", "/users/me/presence", &body);
    assert!(body.get("presences").is_none(), "{body}");
}

#[test]
fn status_must_be_active_or_idle() {
    let user = Client::dev("hamlet@zulip.com");
    user.post("/users/me/presence", &[("status", "away")]).bad_request("BAD_REQUEST", "Invalid status: away");
    user.post("/users/me/presence", &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'status' argument");
}

#[test]
fn one_users_presence_by_id_or_email() {
    let user = new_user();
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .get(&format!("/users/{}/presence", user.user_id), &[])
        .bad_request("BAD_REQUEST", &format!("No presence data for {}", user.user_id));
    user.post("/users/me/presence", &[("status", "active"), ("ping_only", "true")]).success();
    let body = hamlet.get(&format!("/users/{}/presence", user.email), &[]).success();
    assert_matches_openapi("get", "/users/{user_id_or_email}/presence", &body);
    assert_eq!(body["presence"]["aggregated"]["status"], "active");
    hamlet.get("/users/99999999/presence", &[]).bad_request("BAD_REQUEST", "No such user");
}

#[test]
fn realm_presence_lists_users_by_email() {
    let user = new_user();
    user.post("/users/me/presence", &[("status", "active"), ("ping_only", "true")]).success();
    let body = Client::dev("hamlet@zulip.com").get("/realm/presence", &[]).success();
    assert_matches_openapi("get", "/realm/presence", &body);
    assert_eq!(body["presences"][user.email.as_str()]["website"]["status"], "active");
}

#[test]
fn a_users_first_ping_is_sent_to_the_organization_and_shown_at_register() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let mut queue = register_for(&cordelia, r#"["presence"]"#);
    let user = new_user();
    user.post("/users/me/presence", &[("status", "active"), ("ping_only", "true")]).success();
    let event = queue.wait_for("presence", |e| e["type"] == "presence" && e["user_id"] == user.user_id);
    assert_eq!(event["presence"]["website"]["status"], "active");
    assert!(event["server_timestamp"].is_f64() || event["server_timestamp"].is_i64());
    let state = cordelia.post("/register", &[("fetch_event_types", r#"["presence"]"#), ("slim_presence", "true")]).success();
    assert!(state["presences"][user.user_id.to_string()]["active_timestamp"].is_i64(), "{}", state["presences"]);
    assert!(state["presence_last_update_id"].as_i64().unwrap() >= 1);
}

#[test]
fn a_second_ping_within_a_minute_is_no_news() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let user = new_user();
    user.post("/users/me/presence", &[("status", "active"), ("ping_only", "true")]).success();
    let mut queue = register_for(&cordelia, r#"["presence", "user_status"]"#);
    user.post("/users/me/presence", &[("status", "active"), ("ping_only", "true")]).success();
    // Sentinel: a status change of the same user, sent after the second ping.
    user.post("/users/me/status", &[("status_text", "sentinel")]).success();
    let mut events = Vec::new();
    while !events.iter().any(|e: &serde_json::Value| e["type"] == "user_status" && e["user_id"] == user.user_id) {
        events.extend(queue.poll(false));
    }
    assert!(events.iter().all(|e| !(e["type"] == "presence" && e["user_id"] == user.user_id)), "{events:?}");
}

#[test]
fn any_history_limit_days_answers_a_window_never_a_server_error() {
    let user = new_user();
    for days in ["-3480161665362", "9007199254740991", "0"] {
        let body =
            user.post("/users/me/presence", &[("status", "active"), ("last_update_id", "-1"), ("history_limit_days", days)]).success();
        assert_matches_openapi("post", "/users/me/presence", &body);
    }
    // A huge window still holds the caller's own fresh presence.
    let huge = user
        .post("/users/me/presence", &[("status", "active"), ("last_update_id", "-1"), ("history_limit_days", "9007199254740991")])
        .success();
    assert!(huge["presences"].get(user.user_id.to_string()).is_some(), "{huge}");
}
