//! HTTP Basic authentication, login endpoints and organization scoping.

mod common;
use common::*;

#[test]
fn missing_credentials_are_401_with_a_basic_challenge() {
    let resp = anonymous("GET", "/users/me", &[]);
    assert_eq!(resp.www_authenticate.as_deref(), Some("Basic realm=\"zulip\""));
    resp.error(401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
}

#[test]
fn wrong_api_key_is_401() {
    let resp = request("GET", "/users/me", &[], None, Some(("hamlet@zulip.com", "abcdefghijklmnopqrstuvwxyz012345")), None);
    assert_eq!(resp.www_authenticate.as_deref(), Some("Basic realm=\"zulip\""));
    assert_eq!(resp.error(401, "INVALID_API_KEY", "Invalid API key")["msg"], "Invalid API key");
}

#[test]
fn api_key_of_another_user_is_401() {
    let othello = Client::dev("othello@zulip.com");
    let resp = request("GET", "/users/me", &[], None, Some(("hamlet@zulip.com", &othello.api_key)), None);
    resp.error(401, "INVALID_API_KEY", "Invalid API key");
}

#[test]
fn malformed_authorization_header_is_401() {
    let url = format!("{}/api/v1/users/me", server_url());
    let err = ureq::get(&url).set("Authorization", "Basic not-base64!").call().unwrap_err();
    let ureq::Error::Status(status, _) = err else { panic!("expected a status") };
    assert_eq!(status, 401);
}

#[test]
fn api_keys_are_32_alphanumeric_characters() {
    let hamlet = Client::dev("hamlet@zulip.com");
    assert_eq!(hamlet.api_key.len(), 32);
    assert!(hamlet.api_key.chars().all(|c| c.is_ascii_alphanumeric()));
}

#[test]
fn fetched_api_key_authenticates() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let me = hamlet.get("/users/me", &[]).success();
    assert_eq!(me["email"], "hamlet@zulip.com");
    assert_eq!(me["user_id"], hamlet.user_id);
}

#[test]
fn password_login_answers_a_working_key() {
    let body = anonymous("POST", "/fetch_api_key", &[("username", "prospero@zulip.com"), ("password", "dev-password")]).success();
    assert_eq!(body["email"], "prospero@zulip.com");
    let key = body["api_key"].as_str().unwrap();
    request("GET", "/users/me", &[], None, Some(("prospero@zulip.com", key)), None).success();
}

#[test]
fn password_login_with_wrong_password_fails() {
    anonymous("POST", "/fetch_api_key", &[("username", "prospero@zulip.com"), ("password", "wrong")]).error(
        401,
        "AUTHENTICATION_FAILED",
        "Your username or password is incorrect",
    );
}

#[test]
fn password_login_for_unknown_email_fails_the_same_way() {
    anonymous("POST", "/fetch_api_key", &[("username", "nobody@zulip.com"), ("password", "dev-password")]).error(
        401,
        "AUTHENTICATION_FAILED",
        "Your username or password is incorrect",
    );
}

#[test]
fn dev_list_users_lists_seeded_users() {
    let body = anonymous("GET", "/dev_list_users", &[]).success();
    let admins: Vec<&str> = body["direct_admins"].as_array().unwrap().iter().map(|u| u["email"].as_str().unwrap()).collect();
    let users: Vec<&str> = body["direct_users"].as_array().unwrap().iter().map(|u| u["email"].as_str().unwrap()).collect();
    assert!(admins.contains(&"iago@zulip.com") && admins.contains(&"desdemona@zulip.com"));
    assert!(users.contains(&"hamlet@zulip.com") && users.contains(&"polonius@zulip.com"));
}

#[test]
fn user_of_one_organization_cannot_authenticate_against_another() {
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    request("GET", "/users/me", &[], None, Some((&king.email, &king.api_key)), Some("lear")).success();
    request("GET", "/users/me", &[], None, Some((&king.email, &king.api_key)), None).error(401, "INVALID_API_KEY", "Invalid API key");
}

#[test]
fn same_email_in_two_organizations_is_two_users() {
    let in_zulip = Client::dev("cordelia@zulip.com");
    let lear_cordelia = Client::dev_in(Some("lear"), "cordelia@lear.org");
    assert_ne!(in_zulip.user_id, lear_cordelia.user_id);
    let members = lear_cordelia.get("/users", &[]).success()["members"].as_array().unwrap().clone();
    // lear's own notification bot (created by its first topic move, whichever test makes it)
    // has Zulip's address; no user of the default organization appears (ids are unique
    // server-wide).
    assert!(
        members.iter().all(|m| m["email"].as_str().unwrap().ends_with("@lear.org") || m["email"] == "notification-bot@zulip.com"),
        "{members:?}"
    );
    let zulip = in_zulip.get("/users", &[]).success();
    let zulip_ids: Vec<&serde_json::Value> = zulip["members"].as_array().unwrap().iter().map(|u| &u["user_id"]).collect();
    assert!(members.iter().all(|m| !zulip_ids.contains(&&m["user_id"])), "{members:?}");
}

#[test]
fn unknown_subdomain_is_an_error() {
    request("GET", "/server_settings", &[], None, None, Some("nosuchorg")).error(404, "NONEXISTENT_SUBDOMAIN", "Invalid subdomain");
}
