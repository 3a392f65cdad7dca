//! Missed-message emails survive a restart (issue 29): this test runs its own `wrangler dev`
//! on its own state, leaves a direct message unread by someone away, stops the server before
//! their batching period is over, starts it again on the same state after it, and checks that
//! the organization's alarm mails it exactly once.

mod accounts;
mod common;
mod onboarding;
mod server_support;

use std::time::{Duration, Instant};

use common::*;
use onboarding::*;
use server_support::{own_server_address, Server};

const VARS: &[&str] = &["EVENT_QUEUE_IDLE_TIMEOUT_SECS:600", "EVENT_QUEUE_HEARTBEAT_SECS:3"];

/// Seconds the away person's emails wait: longer than the stop takes.
const BATCHING_SECONDS: u64 = 8;

#[test]
fn an_email_due_while_the_server_is_down_is_sent_once_after_the_restart() {
    let (state, port) = own_server_address();
    let server = Server::start(&state, port, VARS);
    let hamlet = Client::dev("hamlet@zulip.com");
    let away = accounts::new_user("mmrestart");
    away.patch("/settings", &[("email_notifications_batching_period_seconds", &BATCHING_SECONDS.to_string())]).success();
    let content = format!("across a restart {}", unique("x"));
    let sent_at = Instant::now();
    hamlet.post("/messages", &[("type", "direct"), ("to", &format!("[{}]", away.user_id)), ("content", &content)]).success();
    // The recipients are queued just after the response; give that a moment, then stop.
    std::thread::sleep(Duration::from_secs(2));
    server.stop();

    // Down past the due time, then up again on the same state.
    while sent_at.elapsed() < Duration::from_secs(BATCHING_SECONDS + 2) {
        std::thread::sleep(Duration::from_millis(500));
    }
    let server = Server::start(&state, port, VARS);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mail = loop {
        if let Some(mail) = emails_to(None, &away.email).into_iter().next() {
            break mail;
        }
        assert!(Instant::now() < deadline, "the email was not sent after the restart");
        std::thread::sleep(Duration::from_millis(500));
    };
    assert!(mail["text"].as_str().unwrap().contains(&content), "{mail}");
    // Mailed once: a sentinel email arrives after it, and still one email to the person.
    let sentinel = format!("{}@example.org", unique("sentinel").to_lowercase());
    hamlet.post("/invites", &[("invitee_emails", sentinel.as_str()), ("stream_ids", "[]")]).success();
    assert_eq!(emails_to(None, &sentinel).len(), 1);
    assert_eq!(emails_to(None, &away.email).len(), 1, "mailed exactly once");
    server.stop();
    let _ = std::fs::remove_dir_all(&state);
}
