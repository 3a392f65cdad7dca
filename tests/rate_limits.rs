//! Rate limits in Zulip's shape, on a server of this test's own with low limits (the
//! shared test server runs without them): per user, per IP address for unauthenticated
//! requests, and for failed logins of one account.

mod common;
mod server_support;

use std::sync::Mutex;

use base64::Engine;
use common::*;
use server_support::*;

/// The limits of the test's server: 5 requests a minute per user and per address, 2
/// failed logins of one account per 30 minutes, and 3 "forgot password" requests an hour
/// per IP address.
const VARS: &[&str] =
    &["RATE_LIMIT_USER_REQUESTS:5", "RATE_LIMIT_IP_REQUESTS:5", "RATE_LIMIT_LOGIN_FAILURES:2", "RATE_LIMIT_PASSWORD_RESET_IP:3"];

/// The tests share `TEST_SERVER_URL`, so they run one at a time, each on a new server.
static SERIAL: Mutex<()> = Mutex::new(());

fn with_own_server(test: impl FnOnce(&str)) {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (state, port) = own_server_address();
    let url = format!("http://127.0.0.1:{port}");
    let server = Server::start(&state, port, VARS);
    test(&url);
    server.stop();
    let _ = std::fs::remove_dir_all(&state);
}

/// A raw request, to read headers.
fn call(url: &str, method: &str, path: &str, auth: Option<(&str, &str)>, form: &[(&str, &str)]) -> ureq::Response {
    let mut req = ureq::request(method, &format!("{url}/api/v1{path}"));
    if let Some((email, key)) = auth {
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{email}:{key}"));
        req = req.set("Authorization", &format!("Basic {token}"));
    }
    let result = if form.is_empty() { req.call() } else { req.send_form(form) };
    match result {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {path}: {e}"),
    }
}

#[track_caller]
fn assert_rate_limited(resp: ureq::Response, window_secs: f64) {
    assert_eq!(resp.status(), 429);
    let retry_header: i64 = resp.header("Retry-After").expect("Retry-After header").parse().unwrap();
    // A refused request names its limit like every rate-limited answer.
    assert!(resp.header("X-RateLimit-Limit").is_some_and(|l| l.parse::<u32>().is_ok()), "X-RateLimit-Limit");
    assert_eq!(resp.header("X-RateLimit-Remaining"), Some("0"));
    let reset: i64 = resp.header("X-RateLimit-Reset").expect("X-RateLimit-Reset").parse().unwrap();
    assert!(reset > 1_700_000_000, "a UNIX time: {reset}");
    let body: serde_json::Value = serde_json::from_str(&resp.into_string().unwrap()).unwrap();
    assert_eq!(body["result"], "error");
    assert_eq!(body["code"], "RATE_LIMIT_HIT");
    assert_eq!(body["msg"], "API usage exceeded rate limit");
    let retry_after = body["retry-after"].as_f64().expect("retry-after in the body");
    assert!(retry_after > 0.0 && retry_after <= window_secs, "{retry_after}");
    assert_eq!(retry_header, retry_after.ceil() as i64);
}

#[test]
fn a_user_over_the_limit_gets_rate_limit_hit_and_others_do_not() {
    with_own_server(|url| {
        let hamlet = Client::dev("hamlet@zulip.com");
        let auth = Some((hamlet.email.as_str(), hamlet.api_key.as_str()));
        for remaining in (0..5).rev() {
            let resp = call(url, "GET", "/users/me", auth, &[]);
            assert_eq!(resp.status(), 200);
            assert_eq!(resp.header("X-RateLimit-Limit"), Some("5"));
            assert_eq!(resp.header("X-RateLimit-Remaining").map(str::to_string), Some(remaining.to_string()));
            let reset: i64 = resp.header("X-RateLimit-Reset").unwrap().parse().unwrap();
            assert!(reset > 1_700_000_000, "a UNIX time: {reset}");
        }
        assert_rate_limited(call(url, "GET", "/users/me", auth, &[]), 60.0);
        // Nothing is done over the limit.
        let sent = call(url, "POST", "/messages", auth, &[("type", "stream"), ("to", "Verona"), ("topic", "limits"), ("content", "over")]);
        assert_eq!(sent.status(), 429);
        let othello = Client::dev("othello@zulip.com");
        othello.get("/users/me", &[]).success();
    });
}

#[test]
fn a_key_that_stopped_authenticating_uses_up_none_of_its_former_owners_limit() {
    with_own_server(|url| {
        let hamlet = Client::dev("hamlet@zulip.com");
        let old = Some((hamlet.email.as_str(), hamlet.api_key.as_str()));
        assert_eq!(call(url, "GET", "/users/me", old, &[]).status(), 200);
        let regenerated = call(url, "POST", "/users/me/api_key/regenerate", old, &[]);
        assert_eq!(regenerated.header("X-RateLimit-Remaining"), Some("3"));
        let body: serde_json::Value = serde_json::from_str(&regenerated.into_string().unwrap()).unwrap();
        let new_key = body["api_key"].as_str().expect("the new key").to_string();
        // The server knew whom the old key belonged to; that request is still nobody's.
        assert_eq!(call(url, "GET", "/users/me", old, &[]).status(), 401);
        let resp = call(url, "GET", "/users/me", Some((hamlet.email.as_str(), &new_key)), &[]);
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.header("X-RateLimit-Remaining"), Some("2"));
    });
}

/// A direct message of `sender` to `to`, through `call` (to read its headers).
fn send_direct_raw(url: &str, sender: &Client, to: i64, content: &str) -> ureq::Response {
    let auth = Some((sender.email.as_str(), sender.api_key.as_str()));
    call(url, "POST", "/messages", auth, &[("type", "direct"), ("to", &format!("[{to}]")), ("content", content)])
}

#[test]
fn a_repeated_send_counts_once_whether_or_not_it_reads_again() {
    with_own_server(|url| {
        let hamlet = Client::dev("hamlet@zulip.com");
        let othello = Client::dev("othello@zulip.com");
        for (content, remaining) in [("first", "4"), ("second", "3")] {
            assert_eq!(send_direct_raw(url, &hamlet, othello.user_id, content).header("X-RateLimit-Remaining"), Some(remaining));
        }
        // Planned from the answers of the send before, in one round trip.
        let third = send_direct_raw(url, &hamlet, othello.user_id, "third");
        assert_eq!((third.header("X-D1-Round-Trips"), third.header("X-RateLimit-Remaining")), (Some("1"), Some("2")));
        othello.post(&format!("/users/me/muted_users/{}", hamlet.user_id), &[]).success();
        // The answers changed: the write fails, the send reads again, and counts once.
        let fourth = send_direct_raw(url, &hamlet, othello.user_id, "fourth");
        assert_eq!((fourth.header("X-D1-Round-Trips"), fourth.header("X-RateLimit-Remaining")), (Some("3"), Some("1")));
    });
}

#[test]
fn a_repeated_send_with_a_regenerated_key_uses_up_none_of_its_former_owners_limit() {
    with_own_server(|url| {
        let hamlet = Client::dev("hamlet@zulip.com");
        let othello = Client::dev("othello@zulip.com");
        send_direct_raw(url, &hamlet, othello.user_id, "first");
        send_direct_raw(url, &hamlet, othello.user_id, "second");
        let old = Some((hamlet.email.as_str(), hamlet.api_key.as_str()));
        let regenerated = call(url, "POST", "/users/me/api_key/regenerate", old, &[]);
        let body: serde_json::Value = serde_json::from_str(&regenerated.into_string().unwrap()).unwrap();
        let new_key = body["api_key"].as_str().expect("the new key").to_string();
        assert_eq!(send_direct_raw(url, &hamlet, othello.user_id, "third").status(), 401);
        let resp = call(url, "GET", "/users/me", Some((hamlet.email.as_str(), &new_key)), &[]);
        assert_eq!(resp.header("X-RateLimit-Remaining"), Some("1"));
    });
}

#[test]
fn a_repeated_send_over_the_limit_is_refused_and_writes_nothing() {
    with_own_server(|url| {
        let hamlet = Client::dev("hamlet@zulip.com");
        let othello = Client::dev("othello@zulip.com");
        let word = unique("limit").to_lowercase();
        for n in 0..5 {
            assert_eq!(send_direct_raw(url, &hamlet, othello.user_id, &format!("within{n} {word}")).status(), 200);
        }
        assert_rate_limited(send_direct_raw(url, &hamlet, othello.user_id, &format!("over {word}")), 60.0);
        let narrow = format!(r#"[{{"operator": "search", "operand": "{word}"}}]"#);
        let found = othello.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &narrow)]);
        let contents: Vec<String> =
            found.success()["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_string()).collect();
        assert_eq!(contents.len(), 5, "{contents:?}");
        assert!(contents.iter().all(|c| c.contains("within")), "{contents:?}");
    });
}

#[test]
fn unauthenticated_requests_are_limited_per_address() {
    with_own_server(|url| {
        // Credentials do not make an open endpoint authenticated: they count all the same.
        let bogus = Some(("hamlet@zulip.com", "not-a-key"));
        let mut answered = 0;
        loop {
            let resp = call(url, "GET", "/server_settings", if answered % 2 == 0 { None } else { bogus }, &[]);
            if resp.status() == 429 {
                assert_rate_limited(resp, 60.0);
                break;
            }
            assert_eq!(resp.status(), 200);
            answered += 1;
            assert!(answered <= 5, "more than 5 unauthenticated requests answered");
        }
    });
}

#[test]
fn failed_logins_of_one_account_are_limited() {
    with_own_server(|url| {
        let wrong = [("username", "cordelia@zulip.com"), ("password", "wrong")];
        for _ in 0..2 {
            let resp = call(url, "POST", "/fetch_api_key", None, &wrong);
            assert_eq!(resp.status(), 401);
        }
        // Over the limit, even the right password is refused untried.
        let right = [("username", "cordelia@zulip.com"), ("password", "dev-password")];
        let resp = call(url, "POST", "/fetch_api_key", None, &right);
        assert_rate_limited(resp, 1800.0);
        // Another account is unaffected.
        let other = [("username", "prospero@zulip.com"), ("password", "dev-password")];
        assert_eq!(call(url, "POST", "/fetch_api_key", None, &other).status(), 200);
    });
}

#[test]
fn failed_jwt_logins_of_one_account_are_limited() {
    use jwt_compact::alg::{Hs256, Hs256Key};
    use jwt_compact::{AlgorithmExt, Claims, Header};
    let token = |email: &str, secret: &[u8]| {
        let claims = Claims::new(serde_json::json!({ "email": email }));
        Hs256.token(&Header::empty(), &claims, &Hs256Key::new(secret)).unwrap()
    };
    with_own_server(|url| {
        let forged = token("othello@zulip.com", b"a guessed secret");
        for _ in 0..2 {
            assert_eq!(call(url, "POST", "/jwt/fetch_api_key", None, &[("token", &forged)]).status(), 400);
        }
        let genuine = token("othello@zulip.com", b"dev-jwt-secret-for-the-zulip-organization");
        assert_rate_limited(call(url, "POST", "/jwt/fetch_api_key", None, &[("token", &genuine)]), 1800.0);
        let other = token("prospero@zulip.com", b"dev-jwt-secret-for-the-zulip-organization");
        assert_eq!(call(url, "POST", "/jwt/fetch_api_key", None, &[("token", &other)]).status(), 200);
    });
}

#[test]
fn forgot_password_requests_are_limited_per_ip_address() {
    with_own_server(|url| {
        let reset = |email: &str| match ureq::post(&format!("{url}/accounts/password/reset/")).send_form(&[("email", email)]) {
            Ok(r) | Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{e}"),
        };
        for i in 0..3 {
            assert_eq!(reset(&format!("nobody-{i}@example.org")).status(), 200);
        }
        assert_rate_limited(reset("nobody-else@example.org"), 3600.0);
    });
}
