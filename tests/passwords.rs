//! Passwords (issue 29): changing one with `PATCH /settings` (Zulip's errors; the API key
//! and sessions stay valid), and "forgot password" (`POST /accounts/password/reset/`: the
//! same answer whatever the address, a single-use link that expires, rate limits), with
//! the emails read from the development outbox.

mod accounts;
mod common;
mod onboarding;

use accounts::{new_user, PASSWORD};
use common::*;
use onboarding::*;

const NEW_PASSWORD: &str = "another-long-passphrase-42";

// --- PATCH /settings ---

#[test]
fn a_wrong_old_password_changes_nothing() {
    let user = new_user("pwwrong");
    user.patch("/settings", &[("old_password", "not-my-password"), ("new_password", NEW_PASSWORD)])
        .bad_request("BAD_REQUEST", "Wrong password!");
    user.patch("/settings", &[("new_password", NEW_PASSWORD)]).bad_request("BAD_REQUEST", "Wrong password!");
    accounts::password_login(&user.email);
}

#[test]
fn a_weak_new_password_is_refused() {
    let user = new_user("pwweak");
    for weak in ["abc", "password", "qwertyuiop"] {
        user.patch("/settings", &[("old_password", PASSWORD), ("new_password", weak)])
            .bad_request("BAD_REQUEST", "New password is too weak!");
    }
    accounts::password_login(&user.email);
}

#[test]
fn a_new_password_works_and_the_api_key_stays_valid() {
    let user = new_user("pwchange");
    user.patch("/settings", &[("old_password", PASSWORD), ("new_password", NEW_PASSWORD)]).success();
    user.get("/users/me", &[]).success();
    password_login_in(None, &user.email, NEW_PASSWORD);
    request("POST", "/fetch_api_key", &[], Some(Body::Form(&[("username", &user.email), ("password", PASSWORD)])), None, None).error(
        401,
        "AUTHENTICATION_FAILED",
        "Your username or password is incorrect",
    );
}

// --- Forgot password ---

#[test]
fn forgot_password_answers_the_same_for_an_unknown_address_and_mails_nothing() {
    let unknown = format!("{}@example.org", unique("nobody").to_lowercase());
    let known = new_user("pwknown");
    let a = accounts(None, "POST", "/accounts/password/reset/", &[("email", unknown.as_str())], None).success();
    let b = accounts(None, "POST", "/accounts/password/reset/", &[("email", known.email.as_str())], None).success();
    assert_eq!(a, b, "no account discovery");
    assert_nothing_mailed_to(None, &unknown, &Client::dev("hamlet@zulip.com"));
}

#[test]
fn a_reset_link_sets_the_password_signs_in_and_works_once() {
    let user = new_user("pwreset");
    accounts(None, "POST", "/accounts/password/reset/", &[("email", user.email.as_str())], None).success();
    let mail = last_email_to(None, &user.email);
    assert_eq!(mail["subject"], "Reset your password for Zulip Dev");
    assert!(!mail["text"].as_str().unwrap().contains(PASSWORD), "no password is mailed");
    let token = reset_token(&mail);
    let path = format!("/accounts/password/reset/{token}/");
    assert_eq!(accounts(None, "GET", &path, &[], None).success()["email"], user.email);
    accounts(None, "POST", &path, &[("new_password", "password")], None).error(400, "BAD_REQUEST", "The password is too weak.");

    let done = accounts(None, "POST", &path, &[("new_password", NEW_PASSWORD)], None);
    assert!(done.cookie("sessionid").is_some_and(|c| !c.is_empty()), "signed in: {:?}", done.set_cookies);
    assert_eq!(done.success()["user_id"], user.user_id);
    password_login_in(None, &user.email, NEW_PASSWORD);
    user.get("/users/me", &[]).success();

    accounts(None, "POST", &path, &[("new_password", "yet-another-passphrase-7")], None).error(
        400,
        "BAD_REQUEST",
        "This confirmation link has already been used.",
    );
    accounts(None, "GET", &path, &[], None).error(400, "BAD_REQUEST", "This confirmation link has already been used.");
}

#[test]
fn a_forged_reset_link_is_not_found() {
    for token in ["ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "short"] {
        accounts(None, "POST", &format!("/accounts/password/reset/{token}/"), &[("new_password", NEW_PASSWORD)], None).error(
            404,
            "BAD_REQUEST",
            "We couldn't find your confirmation ID.",
        );
    }
}

#[test]
fn reset_requests_are_limited_per_address_without_saying_so() {
    let user = new_user("pwlimit");
    for _ in 0..4 {
        accounts(None, "POST", "/accounts/password/reset/", &[("email", user.email.as_str())], None).success();
    }
    let sentinel = new_user("pwsentinel");
    accounts(None, "POST", "/accounts/password/reset/", &[("email", sentinel.email.as_str())], None).success();
    assert_eq!(emails_to(None, &sentinel.email).len(), 1, "the sentinel arrived");
    assert_eq!(emails_to(None, &user.email).len(), 2, "two links an hour per address");
}
