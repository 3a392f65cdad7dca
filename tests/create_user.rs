//! `POST /users`: administrators with `can_create_users` create accounts with a password.

mod accounts;
mod common;

use accounts::{password_login, PASSWORD};
use common::*;

fn fresh_email() -> String {
    format!("{}@zulip.com", unique("newuser"))
}

#[test]
fn administrator_with_can_create_users_creates_a_user_who_can_log_in() {
    let iago = Client::dev("iago@zulip.com");
    let email = fresh_email();
    let body = iago.post("/users", &[("email", &email), ("password", PASSWORD), ("full_name", "  New Person ")]).success();
    assert_matches_openapi("POST", "/users", &body);
    let user_id = body["user_id"].as_i64().unwrap();

    let user = iago.get(&format!("/users/{user_id}"), &[]).success()["user"].clone();
    assert_eq!(user["email"], email.as_str());
    assert_eq!(user["full_name"], "New Person");
    assert_eq!((user["role"].as_i64(), user["is_active"].as_bool(), user["is_bot"].as_bool()), (Some(400), Some(true), Some(false)));

    let client = password_login(&email);
    assert_eq!(client.user_id, user_id);
    client.get("/users/me", &[]).success();
}

#[test]
fn password_is_checked_on_login() {
    let iago = Client::dev("iago@zulip.com");
    let email = fresh_email();
    iago.post("/users", &[("email", &email), ("password", PASSWORD), ("full_name", "Checked")]).success();
    anonymous("POST", "/fetch_api_key", &[("username", &email), ("password", "a-wrong-password")]).error(
        401,
        "AUTHENTICATION_FAILED",
        "Your username or password is incorrect",
    );
}

#[test]
fn administrator_without_can_create_users_is_refused() {
    let desdemona = Client::dev("desdemona@zulip.com");
    let email = fresh_email();
    desdemona
        .post("/users", &[("email", &email), ("password", PASSWORD), ("full_name", "Nope")])
        .bad_request("BAD_REQUEST", "User not authorized to create users");
    anonymous("POST", "/fetch_api_key", &[("username", &email), ("password", PASSWORD)]).error(
        401,
        "AUTHENTICATION_FAILED",
        "Your username or password is incorrect",
    );
}

#[test]
fn non_administrator_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/users", &[("email", &fresh_email()), ("password", PASSWORD), ("full_name", "Nope")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
}

#[test]
fn email_in_use_is_a_bad_request() {
    let iago = Client::dev("iago@zulip.com");
    iago.post("/users", &[("email", "hamlet@zulip.com"), ("password", PASSWORD), ("full_name", "Hamlet Again")])
        .bad_request("BAD_REQUEST", "Email 'hamlet@zulip.com' already in use");
    iago.post("/users", &[("email", "HAMLET@zulip.com"), ("password", PASSWORD), ("full_name", "Hamlet Again")])
        .bad_request("BAD_REQUEST", "Email 'HAMLET@zulip.com' already in use");
}

#[test]
fn invalid_email_is_a_bad_request() {
    let iago = Client::dev("iago@zulip.com");
    for email in ["not-an-email", "two@@zulip.com", "spaces in@zulip.com", "nodomain@"] {
        iago.post("/users", &[("email", email), ("password", PASSWORD), ("full_name", "Bad Email")])
            .bad_request("BAD_REQUEST", "Bad name or username");
    }
}

#[test]
fn weak_password_is_refused() {
    let iago = Client::dev("iago@zulip.com");
    iago.post("/users", &[("email", &fresh_email()), ("password", "abc"), ("full_name", "Weak")])
        .bad_request("BAD_REQUEST", "The password is too weak.");
}

#[test]
fn a_long_but_easily_guessed_password_is_refused() {
    let iago = Client::dev("iago@zulip.com");
    let email = fresh_email();
    iago.post("/users", &[("email", &email), ("password", "qwertyuiop"), ("full_name", "Guessable")])
        .bad_request("BAD_REQUEST", "The password is too weak.");
    iago.get(&format!("/users/{email}"), &[]).bad_request("BAD_REQUEST", "No such user");
}

#[test]
fn invalid_full_name_is_refused() {
    let iago = Client::dev("iago@zulip.com");
    iago.post("/users", &[("email", &fresh_email()), ("password", PASSWORD), ("full_name", "   ")])
        .bad_request("BAD_REQUEST", "Name too short!");
    iago.post("/users", &[("email", &fresh_email()), ("password", PASSWORD), ("full_name", "a*b")])
        .bad_request("BAD_REQUEST", "Invalid characters in name!");
}

#[test]
fn every_parameter_is_required() {
    let iago = Client::dev("iago@zulip.com");
    let body = iago
        .post("/users", &[("email", &fresh_email()), ("full_name", "No Password")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'password' argument");
    assert_eq!(body["var_name"], "password");
    let body = iago
        .post("/users", &[("password", PASSWORD), ("full_name", "No Email")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'email' argument");
    assert_eq!(body["var_name"], "email");
}
