//! New-login emails (issue 29; Zulip's `email_on_new_login`): a password sign-in through the
//! API or the web client mails the person, unless they just joined or turned it off with
//! the email's unsubscribe link. A returning person is made by aging a new account's
//! `date_joined` with a direct write to the test server's local database; the write locks
//! the database for a moment, so this binary's tests run one at a time.

mod accounts;
mod common;
mod onboarding;

use std::sync::Mutex;

use common::*;
use onboarding::*;
use serde_json::Value;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const FIREFOX_ON_LINUX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

/// A person who joined an hour ago.
fn returning_user(prefix: &str) -> Client {
    let user = accounts::new_user(prefix);
    execute_on_database(&format!("UPDATE users SET date_joined = date_joined - 3600 WHERE id = {}", user.user_id));
    user
}

/// Signs in with the password at `path` (`/api/v1/fetch_api_key` or `/accounts/login/`) from
/// Firefox on Linux at 203.0.113.7.
fn sign_in(path: &str, email: &str) {
    let response = ureq::post(&format!("{}{path}", server_url()))
        .set("User-Agent", FIREFOX_ON_LINUX)
        .set("CF-Connecting-IP", "203.0.113.7")
        .send_form(&[("username", email), ("password", accounts::PASSWORD)])
        .unwrap_or_else(|e| panic!("POST {path}: {e}"));
    assert_eq!(response.status(), 200);
}

fn login_notices(address: &str) -> Vec<Value> {
    emails_to(None, address).into_iter().filter(|e| e["subject"].as_str().is_some_and(|s| s.starts_with("New login from"))).collect()
}

#[test]
fn a_password_sign_in_through_the_api_mails_the_returning_person() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let user = returning_user("loginapi");
    sign_in("/api/v1/fetch_api_key", &user.email);
    let notices = login_notices(&user.email);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0]["subject"], "New login from Firefox on Linux");
    let text = notices[0]["text"].as_str().unwrap();
    assert!(text.contains(&format!("Email: {}", user.email)), "{text}");
    assert!(text.contains("IP address: 203.0.113.7"), "{text}");
    assert!(text.contains("/accounts/password/reset/"), "{text}");
}

#[test]
fn a_password_sign_in_in_the_browser_mails_the_returning_person() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let user = returning_user("loginweb");
    sign_in("/accounts/login/", &user.email);
    assert_eq!(login_notices(&user.email).len(), 1);
}

#[test]
fn a_person_who_just_joined_is_not_mailed_about_signing_in() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // new_user signs in with the password right after joining.
    let user = accounts::new_user("loginnew");
    sign_in("/api/v1/fetch_api_key", &user.email);
    assert_nothing_mailed_to(None, &user.email, &Client::dev("hamlet@zulip.com"));
}

#[test]
fn the_unsubscribe_link_turns_login_emails_off_without_signing_in() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let user = returning_user("loginoff");
    sign_in("/api/v1/fetch_api_key", &user.email);
    let text = login_notices(&user.email)[0]["text"].as_str().unwrap().to_string();
    let link = text.lines().find_map(|l| l.split_once("Unsubscribe from login notifications: ")).map(|(_, url)| url.trim().to_string());
    let link = link.unwrap_or_else(|| panic!("no unsubscribe link in {text}"));
    let page = ureq::get(&link).call().unwrap_or_else(|e| panic!("GET {link}: {e}"));
    assert_eq!(page.status(), 200);
    let settings = user.post("/register", &[("event_types", r#"["user_settings"]"#)]).success();
    assert_eq!(settings["user_settings"]["enable_login_emails"], false);
    // A second sign-in mails nothing: the sentinel arrives, and still one notice.
    sign_in("/api/v1/fetch_api_key", &user.email);
    assert_nothing_more_than_one_notice(&user.email);
}

fn assert_nothing_more_than_one_notice(address: &str) {
    let sentinel = format!("{}@example.org", unique("sentinel").to_lowercase());
    Client::dev("hamlet@zulip.com").post("/invites", &[("invitee_emails", sentinel.as_str()), ("stream_ids", "[]")]).success();
    assert_eq!(emails_to(None, &sentinel).len(), 1, "the sentinel email arrived");
    assert_eq!(login_notices(address).len(), 1, "no notice after unsubscribing");
}

#[test]
fn a_forged_unsubscribe_link_is_not_found_and_changes_nothing() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let user = accounts::new_user("loginforged");
    accounts(None, "GET", &format!("/accounts/unsubscribe/login/{}-0123456789abcdef0123456789abcdef/", user.user_id), &[], None).error(
        404,
        "BAD_REQUEST",
        "We couldn't find your confirmation ID.",
    );
    let settings = user.post("/register", &[("event_types", r#"["user_settings"]"#)]).success();
    assert_eq!(settings["user_settings"]["enable_login_emails"], true);
}
