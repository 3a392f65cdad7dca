//! Helpers for the tests of joining and coming back: the development outbox
//! (`GET /dev_emails`), links in the mails, the open `/accounts/...` routes with their
//! cookies, fresh organizations (whose settings a test may change), and direct edits of
//! the local database (to age a link past its expiry).
#![allow(dead_code)]

use std::process::Command;

use serde_json::Value;

use crate::common::*;

/// Every email the organization's outbox kept, newest first.
pub fn dev_emails(realm: Option<&str>) -> Vec<Value> {
    let body = request("GET", "/dev_emails", &[], None, None, realm).success();
    body["emails"].as_array().unwrap().clone()
}

/// The emails to `address`, newest first.
pub fn emails_to(realm: Option<&str>, address: &str) -> Vec<Value> {
    dev_emails(realm).into_iter().filter(|e| e["to"] == address).collect()
}

/// The newest email to `address` (panics without one).
#[track_caller]
pub fn last_email_to(realm: Option<&str>, address: &str) -> Value {
    emails_to(realm, address).into_iter().next().unwrap_or_else(|| panic!("no email to {address}"))
}

/// Proves that nothing was mailed to `address`: a sentinel email (an invitation by
/// `inviter` to a fresh address) is sent now, and once it is in the outbox no email to
/// `address` is. Emails are queued in the batch of the request that causes them, so one
/// caused earlier would be there before the sentinel.
#[track_caller]
pub fn assert_nothing_mailed_to(realm: Option<&str>, address: &str, inviter: &Client) {
    let sentinel = format!("{}@example.org", unique("sentinel").to_lowercase());
    inviter.post("/invites", &[("invitee_emails", sentinel.as_str()), ("stream_ids", "[]")]).success();
    let all = dev_emails(realm);
    assert!(all.iter().any(|e| e["to"] == sentinel.as_str()), "the sentinel email arrived");
    let mailed: Vec<&Value> = all.iter().filter(|e| e["to"] == address).collect();
    assert!(mailed.is_empty(), "nothing mailed to {address}: {mailed:?}");
}

/// The key of the sign-up link in an email (`/join/<key>/`).
#[track_caller]
pub fn join_key(email: &Value) -> String {
    link_token(email, "/join/")
}

/// The token of the reset link in an email (`/password/reset/<token>/`).
#[track_caller]
pub fn reset_token(email: &Value) -> String {
    link_token(email, "/password/reset/")
}

#[track_caller]
fn link_token(email: &Value, prefix: &str) -> String {
    let text = email["text"].as_str().unwrap();
    let start = text.find(prefix).unwrap_or_else(|| panic!("no {prefix} link in {text}")) + prefix.len();
    text[start..].split('/').next().unwrap().to_string()
}

/// An answer of an `/accounts/...` route: status, JSON body and the cookies it set.
pub struct AccountsResp {
    pub status: u16,
    pub body: Value,
    pub set_cookies: Vec<String>,
}

impl AccountsResp {
    #[track_caller]
    pub fn success(self) -> Value {
        assert_eq!(self.status, 200, "{}", self.body);
        assert_eq!(self.body["result"], "success", "{}", self.body);
        self.body
    }

    #[track_caller]
    pub fn error(self, status: u16, code: &str, msg: &str) -> Value {
        assert_eq!((self.status, self.body["code"].as_str(), self.body["msg"].as_str()), (status, Some(code), Some(msg)), "{}", self.body);
        self.body
    }

    /// The value of the cookie `name` this answer set.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.set_cookies.iter().find_map(|c| c.strip_prefix(&format!("{name}=")).map(|rest| rest.split(';').next().unwrap().to_string()))
    }
}

/// A request to an open `/accounts/...` route of an organization (form body for POST),
/// optionally with a client address (`CF-Connecting-IP`).
pub fn accounts(realm: Option<&str>, method: &str, path: &str, form: &[(&str, &str)], ip: Option<&str>) -> AccountsResp {
    let agent = ureq::AgentBuilder::new().redirects(0).timeout(std::time::Duration::from_secs(60)).build();
    let mut req = agent.request(method, &format!("{}{path}", server_url()));
    if let Some(host) = host_for(realm) {
        req = req.set("Host", &host);
    }
    if let Some(ip) = ip {
        req = req.set("CF-Connecting-IP", ip);
    }
    let result = if method == "GET" { req.call() } else { req.send_form(form) };
    let response = match result {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {path}: {e}"),
    };
    let status = response.status();
    let set_cookies = response.all("Set-Cookie").into_iter().map(str::to_string).collect();
    let text = response.into_string().unwrap();
    let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: not JSON ({status}): {text}"));
    AccountsResp { status, body, set_cookies }
}

/// A new organization with its owner signed in (its settings are the test's own).
pub fn new_organization() -> Client {
    let string_id = unique("org").to_lowercase();
    let email = format!("owner@{string_id}.example.com");
    let fields = [
        ("string_id", string_id.as_str()),
        ("name", "Onboarding Org"),
        ("owner_email", email.as_str()),
        ("owner_full_name", "Olive Owner"),
    ];
    let response = ureq::post(&format!("{}/api/v1/server_admin/organizations", server_url()))
        .set("Authorization", "Bearer dev-server-admin-secret")
        .send_form(&fields)
        .unwrap_or_else(|e| panic!("organization not created: {e}"));
    let body: Value = serde_json::from_str(&response.into_string().unwrap()).unwrap();
    let password = body["owner"]["password"].as_str().unwrap().to_string();
    password_login_in(Some(&string_id), &email, &password)
}

/// Logs in with a password on an organization's host.
#[track_caller]
pub fn password_login_in(realm: Option<&str>, email: &str, password: &str) -> Client {
    let body =
        request("POST", "/fetch_api_key", &[], Some(Body::Form(&[("username", email), ("password", password)])), None, realm).success();
    Client {
        email: body["email"].as_str().unwrap().to_string(),
        api_key: body["api_key"].as_str().unwrap().to_string(),
        user_id: body["user_id"].as_i64().unwrap(),
        realm: realm.map(str::to_string),
    }
}

/// Runs one write on the default organization's local database (`DB`) of the test server
/// (`TEST_SERVER_STATE`): how a test ages a link past its expiry without waiting.
pub fn execute_on_database(sql: &str) {
    let state = std::env::var("TEST_SERVER_STATE").expect("TEST_SERVER_STATE is not set: run under scripts/with-test-server.sh");
    for attempt in 1..=5 {
        let out = Command::new("node_modules/.bin/wrangler")
            .args(["d1", "execute", "DB", "--local", "--json", "--persist-to", &state, "--command", sql])
            .env("WRANGLER_SEND_METRICS", "false")
            .output()
            .expect("wrangler runs");
        if out.status.success() {
            return;
        }
        assert!(attempt < 5, "wrangler d1 execute: {}", String::from_utf8_lossy(&out.stderr));
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
}

/// A channel's id by name, as `client` sees it.
pub fn channel_id(client: &Client, name: &str) -> i64 {
    client.get("/get_stream_id", &[("stream", name)]).success()["stream_id"].as_i64().unwrap()
}
