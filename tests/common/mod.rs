//! Helpers shared by the end-to-end tests: they speak HTTP to the `wrangler dev` server
//! that `make test` starts (its URL in `TEST_SERVER_URL`).
#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use serde_json::Value;

pub mod openapi;
#[allow(unused_imports)]
pub use openapi::assert_matches_openapi;

pub fn server_url() -> String {
    std::env::var("TEST_SERVER_URL").expect("TEST_SERVER_URL is not set: run the end-to-end tests with `make test`")
}

/// The Host header of an organization: `None` for the default one.
pub fn host_for(realm: Option<&str>) -> Option<String> {
    let url = server_url();
    let port = url.rsplit(':').next().unwrap().to_string();
    realm.map(|r| format!("{r}.localhost:{port}"))
}

/// A string unique to this test run, for names that must not collide across tests and runs.
pub fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("{prefix}{}{}", nanos % 1_000_000_000_000, COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// A response: HTTP status, headers we look at, and the JSON body.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub www_authenticate: Option<String>,
    pub content_type: Option<String>,
    /// `X-D1-Round-Trips`: the D1 round trips the request cost (development servers).
    pub d1_round_trips: Option<u32>,
    pub body: Value,
}

impl Resp {
    /// Asserts a success envelope and answers the body.
    #[track_caller]
    pub fn success(self) -> Value {
        assert_eq!(self.status, 200, "expected success, got {:?}", self.body);
        assert_eq!(self.body["result"], "success", "{:?}", self.body);
        assert_eq!(self.body["msg"], "", "{:?}", self.body);
        self.body
    }

    /// Asserts an error envelope with this status, code and exact message (Zulip's wording)
    /// and answers the body.
    #[track_caller]
    pub fn error(self, status: u16, code: &str, msg: &str) -> Value {
        assert_eq!(self.status, status, "unexpected status for {:?}", self.body);
        assert_eq!(self.body["result"], "error", "{:?}", self.body);
        assert_eq!(self.body["code"], code, "{:?}", self.body);
        assert_eq!(self.body["msg"], msg, "{:?}", self.body);
        self.body
    }

    /// Asserts a 400 error with this code and exact message.
    #[track_caller]
    pub fn bad_request(self, code: &str, msg: &str) -> Value {
        self.error(400, code, msg)
    }
}

/// How a request authenticates.
#[derive(Clone, Debug)]
pub struct Client {
    pub email: String,
    pub api_key: String,
    pub user_id: i64,
    pub realm: Option<String>,
}

#[derive(Clone, Copy)]
pub enum Body<'a> {
    Form(&'a [(&'a str, &'a str)]),
    Multipart(&'a [(&'a str, &'a str)]),
}

pub fn request(
    method: &str,
    path: &str,
    query: &[(&str, &str)],
    body: Option<Body>,
    auth: Option<(&str, &str)>,
    realm: Option<&str>,
) -> Resp {
    request_attempt(method, path, query, body, auth, realm, 0)
}

fn request_attempt(
    method: &str,
    path: &str,
    query: &[(&str, &str)],
    body: Option<Body>,
    auth: Option<(&str, &str)>,
    realm: Option<&str>,
    attempt: u32,
) -> Resp {
    let url = format!("{}/api/v1{}", server_url(), path);
    let agent = ureq::AgentBuilder::new().timeout(std::time::Duration::from_secs(90)).build();
    let mut req = agent.request(method, &url);
    for (k, v) in query {
        req = req.query(k, v);
    }
    if let Some(host) = host_for(realm) {
        req = req.set("Host", &host);
    }
    if let Some((email, key)) = auth {
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{email}:{key}"));
        req = req.set("Authorization", &format!("Basic {token}"));
    }
    let result = match body {
        None => req.call(),
        Some(Body::Form(fields)) => req.send_form(fields),
        Some(Body::Multipart(fields)) => {
            let boundary = "----teamchatboundary7MA4YWxkTrZu0gW";
            let mut data = String::new();
            for (k, v) in fields {
                data.push_str(&format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"));
            }
            data.push_str(&format!("--{boundary}--\r\n"));
            req.set("Content-Type", &format!("multipart/form-data; boundary={boundary}")).send_string(&data)
        }
    };
    let response = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {path}: transport error {e}"),
    };
    let status = response.status();
    if status == 503
        && attempt == 0
        && response.header("Retry-After") == Some("0")
        && response.header("Content-Type").is_none_or(|t| t.starts_with("text/plain"))
    {
        // wrangler dev's own proxy answers this (text, not this server's JSON) when its
        // kept-alive connection to the runtime drops under a request although the worker
        // did not restart (workers-sdk#14641); one retry, as the proxy itself suggests.
        let text = response.into_string().unwrap_or_default();
        if text.starts_with("Your worker restarted mid-request") {
            return request_attempt(method, path, query, body, auth, realm, 1);
        }
        panic!("{method} {path}: not JSON (503): {text}");
    }
    let www_authenticate = response.header("WWW-Authenticate").map(str::to_string);
    let content_type = response.header("Content-Type").map(str::to_string);
    let d1_round_trips = response.header("X-D1-Round-Trips").and_then(|v| v.parse().ok());
    let text = response.into_string().unwrap();
    let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: not JSON ({status}): {text}"));
    Resp { status, www_authenticate, content_type, d1_round_trips, body }
}

impl Client {
    /// Logs in a seeded development user of the default organization.
    pub fn dev(email: &str) -> Client {
        Client::dev_in(None, email)
    }

    /// Logs in a seeded development user of an organization (`None`: the default one).
    pub fn dev_in(realm: Option<&str>, email: &str) -> Client {
        let body = request("POST", "/dev_fetch_api_key", &[], Some(Body::Form(&[("username", email)])), None, realm).success();
        Client {
            email: body["email"].as_str().unwrap().to_string(),
            api_key: body["api_key"].as_str().unwrap().to_string(),
            user_id: body["user_id"].as_i64().unwrap(),
            realm: realm.map(str::to_string),
        }
    }

    pub fn auth(&self) -> Option<(&str, &str)> {
        Some((&self.email, &self.api_key))
    }

    pub fn get(&self, path: &str, query: &[(&str, &str)]) -> Resp {
        request("GET", path, query, None, self.auth(), self.realm.as_deref())
    }

    pub fn post(&self, path: &str, form: &[(&str, &str)]) -> Resp {
        request("POST", path, &[], Some(Body::Form(form)), self.auth(), self.realm.as_deref())
    }

    pub fn post_multipart(&self, path: &str, form: &[(&str, &str)]) -> Resp {
        request("POST", path, &[], Some(Body::Multipart(form)), self.auth(), self.realm.as_deref())
    }

    pub fn patch(&self, path: &str, form: &[(&str, &str)]) -> Resp {
        request("PATCH", path, &[], Some(Body::Form(form)), self.auth(), self.realm.as_deref())
    }

    pub fn delete(&self, path: &str, form: &[(&str, &str)]) -> Resp {
        request("DELETE", path, &[], Some(Body::Form(form)), self.auth(), self.realm.as_deref())
    }

    /// A request with the parameters in the query string, as zulip-js sends PATCH/DELETE.
    pub fn with_query(&self, method: &str, path: &str, query: &[(&str, &str)]) -> Resp {
        request(method, path, query, None, self.auth(), self.realm.as_deref())
    }
}

/// An unauthenticated request to the default organization.
pub fn anonymous(method: &str, path: &str, form: &[(&str, &str)]) -> Resp {
    let body = if method == "GET" { None } else { Some(Body::Form(form)) };
    let query = if method == "GET" { form } else { &[] };
    request(method, path, query, body, None, None)
}

/// A `POST` to a server administrator's route (`path` under `/api/v1`) with `secret`, if
/// any: its status and JSON. Like [`request`], one retry when wrangler dev's own proxy
/// answers that the worker restarted mid-request.
/// A `ureq` answer, error statuses included, as its status and body text; a transport
/// error panics, naming `what` was sent.
pub fn status_and_text(result: Result<ureq::Response, ureq::Error>, what: &str) -> (u16, String) {
    let response = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{what}: transport error {e}"),
    };
    let status = response.status();
    (status, response.into_string().unwrap())
}

/// A JSON answer (see [`status_and_text`]) as a [`Resp`] without headers.
pub fn json_resp(status: u16, text: &str, what: &str) -> Resp {
    let body: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{what}: not JSON ({status}): {text}"));
    Resp { status, www_authenticate: None, content_type: None, d1_round_trips: None, body }
}

pub fn server_admin_post(secret: Option<&str>, path: &str, fields: &[(&str, &str)]) -> Resp {
    let url = format!("{}/api/v1{path}", server_url());
    for attempt in 0..2 {
        let mut req = ureq::post(&url);
        if let Some(secret) = secret {
            req = req.set("Authorization", &format!("Bearer {secret}"));
        }
        let what = format!("POST {path}");
        let (status, text) = status_and_text(req.send_form(fields), &what);
        if status == 503 && attempt == 0 && text.starts_with("Your worker restarted mid-request") {
            continue;
        }
        return json_resp(status, &text, &what);
    }
    unreachable!("the loop answers on its second attempt")
}

/// The development server administrator's secret (`wrangler.toml` `[vars]`).
pub const DEV_SERVER_ADMIN_SECRET: &str = "dev-server-admin-secret";

/// A new member of the development organization, created by iago (so that a test may
/// deactivate or rekey them without disturbing others), signed in.
pub fn new_dev_member(prefix: &str, full_name: &str) -> Client {
    let email = format!("{}@zulip.com", unique(prefix));
    Client::dev("iago@zulip.com").post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", full_name)]).success();
    Client::dev(&email)
}

/// A new organization (its settings may change freely) named `name`, with its owner and one
/// member whose password is `member_password`.
pub fn organization_with_member(prefix: &str, name: &str, member_password: &str) -> (Client, Client) {
    let id = unique(prefix).to_lowercase();
    let email = format!("owner@{id}.example.com");
    let form = [("string_id", id.as_str()), ("name", name), ("owner_email", email.as_str()), ("owner_full_name", "Ada Owner")];
    let created = server_admin_post(Some(DEV_SERVER_ADMIN_SECRET), "/server_admin/organizations", &form).success();
    let login = |email: &str, password: &str| -> Client {
        let form: &[(&str, &str)] = &[("username", email), ("password", password)];
        let body = request("POST", "/fetch_api_key", &[], Some(Body::Form(form)), None, Some(&id)).success();
        Client {
            email: email.to_string(),
            api_key: body["api_key"].as_str().unwrap().to_string(),
            user_id: body["user_id"].as_i64().unwrap(),
            realm: Some(id.clone()),
        }
    };
    let owner = login(&email, created["owner"]["password"].as_str().unwrap());
    let member_email = format!("member@{id}.example.com");
    owner.post("/users", &[("email", member_email.as_str()), ("password", member_password), ("full_name", "Mo Member")]).success();
    let member = login(&member_email, member_password);
    (owner, member)
}

/// Whether `message` is one of the notification bot's messages in a channel's "channel
/// events" topic (every new channel opens with one), which tests about other messages
/// leave aside.
pub fn is_channel_event_notice(message: &Value) -> bool {
    message["sender_email"] == "notification-bot@zulip.com" && message["subject"] == "channel events"
}

/// `wrangler d1 execute` of `sql` in one local database of the test server (`DB`, `DB_2`).
/// The running server may hold the SQLite file's lock for a moment: a statement refused as
/// busy (nothing of it done) is tried again.
pub fn execute_in_test_database(database: &str, sql: &str) -> std::process::Output {
    let state = std::env::var("TEST_SERVER_STATE").expect("TEST_SERVER_STATE is not set: run under scripts/with-test-server.sh");
    execute_in_database(std::path::Path::new(&state), database, sql)
}

/// [`execute_in_test_database`] for the server whose state is in `state`.
pub fn execute_in_database(state: &std::path::Path, database: &str, sql: &str) -> std::process::Output {
    let mut attempt = 0;
    loop {
        let out = std::process::Command::new("node_modules/.bin/wrangler")
            .args(["d1", "execute", database, "--local", "--json", "--persist-to"])
            .arg(state)
            .args(["--command", sql])
            .env("WRANGLER_SEND_METRICS", "false")
            .output()
            .expect("wrangler runs");
        attempt += 1;
        let busy = [&out.stdout, &out.stderr].iter().any(|text| String::from_utf8_lossy(text).contains("SQLITE_BUSY"));
        if out.status.success() || !busy || attempt == 5 {
            return out;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
}

/// Runs `sql` in each of the test server's local databases, for tests that must make
/// something old; the statement should name its organization.
pub fn execute_in_test_databases(sql: &str) {
    for database in ["DB", "DB_2"] {
        let out = execute_in_test_database(database, sql);
        assert!(out.status.success(), "wrangler d1 execute: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// The organization's group-valued settings this server keeps, by Zulip's names.
pub const REALM_GROUP_SETTINGS: [&str; 15] = [
    "can_resolve_topics_group",
    "can_move_messages_between_channels_group",
    "can_move_messages_between_topics_group",
    "can_mention_many_users_group",
    "can_delete_any_message_group",
    "can_delete_own_message_group",
    "can_add_custom_emoji_group",
    "can_invite_users_group",
    "create_multiuse_invite_group",
    "can_create_public_channel_group",
    "can_create_private_channel_group",
    "can_create_groups",
    "can_set_topics_policy_group",
    "can_add_subscribers_group",
    "can_manage_all_groups",
];

/// A channel's group-valued settings this server keeps.
pub const CHANNEL_GROUP_SETTINGS: [&str; 10] = [
    "can_send_message_group",
    "can_administer_channel_group",
    "can_add_subscribers_group",
    "can_remove_subscribers_group",
    "can_subscribe_group",
    "can_move_messages_within_channel_group",
    "can_move_messages_out_of_channel_group",
    "can_resolve_topics_group",
    "can_delete_any_message_group",
    "can_delete_own_message_group",
];

/// A named group's group-valued settings.
pub const NAMED_GROUP_SETTINGS: [&str; 6] =
    ["can_add_members_group", "can_join_group", "can_leave_group", "can_manage_group", "can_mention_group", "can_remove_members_group"];
