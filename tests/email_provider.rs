//! Email in production (issue 29): a server with a provider configured (`EMAIL_API_URL`,
//! `EMAIL_API_KEY`) hands each queued email to the provider's HTTP API from the
//! organization's alarm: one JSON POST with the key as a bearer token and an idempotency
//! key; an email the provider refuses stays queued and is handed over again later. The
//! provider is a test double on 127.0.0.1; the server is this test's own, in production
//! configuration.

mod common;
mod http_double;
mod server_support;

use std::sync::mpsc::Receiver;
use std::time::Duration;

use common::*;
use http_double::*;
use serde_json::Value;
use server_support::*;

const ADMIN_SECRET: &str = "test-admin-secret";
const EMAIL_KEY: &str = "test-email-key";

/// A production server of this test's own whose emails go to `provider_url`.
fn production_server_mailing_to(provider_url: &str) -> Server {
    let vars = [
        "API_KEY_SECRET:test-production-secret".to_string(),
        format!("SERVER_ADMIN_SECRET:{ADMIN_SECRET}"),
        format!("EMAIL_API_URL:{provider_url}"),
        format!("EMAIL_API_KEY:{EMAIL_KEY}"),
        "EMAIL_FROM:Acme Chat <chat@acme.test>".to_string(),
    ];
    let vars: Vec<&str> = vars.iter().map(String::as_str).collect();
    production_server(&vars)
}

/// Creates the default organization with its owner and asks a password reset for them,
/// which queues one email.
fn ask_for_a_password_reset() -> &'static str {
    let owner = "owner@acme.test";
    let fields = [("string_id", "zulip"), ("name", "Acme"), ("owner_email", owner), ("owner_full_name", "Ada Owner")];
    server_admin_post(Some(ADMIN_SECRET), "/server_admin/organizations", &fields).success();
    ureq::post(&format!("{}/accounts/password/reset/", server_url())).send_form(&[("email", owner)]).expect("the reset is asked");
    owner
}

#[track_caller]
fn next_email(requests: &Receiver<Received>, within: Duration) -> Received {
    requests.recv_timeout(within).expect("the provider got no email in time")
}

// Each test starts its own server; they run one at a time (TEST_SERVER_URL is the process's).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn each_email_is_one_authenticated_json_post_to_the_provider() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (url, requests) = double(Box::new(|_| Some((200, r#"{"id": "sent-1"}"#.into()))));
    let server = production_server_mailing_to(&url);
    let owner = ask_for_a_password_reset();
    let email = next_email(&requests, Duration::from_secs(60));
    assert_eq!(email.content_type, "application/json");
    assert_eq!(email.header("authorization"), Some(format!("Bearer {EMAIL_KEY}").as_str()));
    assert!(email.header("idempotency-key").is_some_and(|k| k.starts_with("outbox-")), "{:?}", email.headers);
    let body: Value = serde_json::from_str(&email.body).unwrap();
    assert_eq!(body["from"], "Acme Chat <chat@acme.test>");
    assert_eq!(body["to"], serde_json::json!([owner]));
    assert!(body["text"].as_str().unwrap().contains("/password/reset/"), "{body}");
    assert!(body["html"].as_str().unwrap().contains("/password/reset/"), "{body}");
    assert!(!body["subject"].as_str().unwrap().is_empty());
    server.stop();
}

#[test]
fn an_email_the_provider_refuses_is_handed_over_again_later() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut answered = 0;
    let (url, requests) = double(Box::new(move |_| {
        answered += 1;
        Some(if answered == 1 { (503, r#"{"message": "try later"}"#.into()) } else { (200, r#"{"id": "sent-2"}"#.into()) })
    }));
    let server = production_server_mailing_to(&url);
    ask_for_a_password_reset();
    let refused = next_email(&requests, Duration::from_secs(60));
    // The first retry is due a minute after the refusal.
    let again = next_email(&requests, Duration::from_secs(150));
    assert_eq!(again.body, refused.body);
    assert_eq!(again.header("idempotency-key"), refused.header("idempotency-key"));
    server.stop();
}
