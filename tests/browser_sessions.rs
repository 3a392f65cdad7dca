//! The web client's browser sessions: `POST /accounts/login/` (and the development login)
//! set an HttpOnly session cookie and a CSRF cookie; requests from the page authenticate
//! with the cookie, and writes must repeat the CSRF token in `X-CSRFToken`; signing out
//! ends the session on the server. HTTP Basic keeps working for every other client.

mod accounts;
mod common;
use accounts::{new_user, PASSWORD};
use common::*;
use serde_json::Value;

/// A browser's cookie jar for one organization host: the two cookies a sign-in set.
struct Browser {
    session: String,
    csrf: String,
    host: Option<String>,
}

/// One raw HTTP exchange: status, `Set-Cookie` values, `WWW-Authenticate`, JSON body.
struct Exchange {
    status: u16,
    set_cookies: Vec<String>,
    www_authenticate: Option<String>,
    location: Option<String>,
    body: Value,
}

fn exchange(method: &str, path: &str, headers: &[(&str, &str)], form: Option<&[(&str, &str)]>) -> Exchange {
    let agent = ureq::AgentBuilder::new().redirects(0).timeout(std::time::Duration::from_secs(60)).build();
    let mut req = agent.request(method, &format!("{}{path}", server_url()));
    for (name, value) in headers {
        req = req.set(name, value);
    }
    let result = match form {
        Some(form) => req.send_form(form),
        None => req.call(),
    };
    let response = match result {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {path}: {e}"),
    };
    let status = response.status();
    let set_cookies = response.all("Set-Cookie").into_iter().map(str::to_string).collect();
    let www_authenticate = response.header("WWW-Authenticate").map(str::to_string);
    let location = response.header("Location").map(str::to_string);
    let text = response.into_string().unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Exchange { status, set_cookies, www_authenticate, location, body }
}

/// The value a `Set-Cookie` of `name` sets.
fn cookie_value(exchange: &Exchange, name: &str) -> Option<String> {
    exchange.set_cookies.iter().find_map(|c| c.strip_prefix(&format!("{name}=")).map(|rest| rest.split(';').next().unwrap().to_string()))
}

fn set_cookie<'a>(exchange: &'a Exchange, name: &str) -> &'a str {
    exchange.set_cookies.iter().find(|c| c.starts_with(&format!("{name}="))).unwrap_or_else(|| panic!("no {name} cookie"))
}

fn sign_in(path: &str, form: &[(&str, &str)], host: Option<String>) -> (Exchange, Browser) {
    let headers: Vec<(&str, &str)> = host.iter().map(|h| ("Host", h.as_str())).collect();
    let answer = exchange("POST", path, &headers, Some(form));
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    let browser = Browser { session: cookie_value(&answer, "sessionid").unwrap(), csrf: cookie_value(&answer, "csrftoken").unwrap(), host };
    (answer, browser)
}

fn log_in(email: &str, password: &str) -> Browser {
    sign_in("/accounts/login/", &[("username", email), ("password", password)], None).1
}

fn dev_log_in(email: &str) -> Browser {
    sign_in("/accounts/login/local/", &[("direct_email", email)], None).1
}

impl Browser {
    /// A request from the page: the session cookie, and `csrf` as the CSRF header if any.
    fn send(&self, method: &str, path: &str, form: Option<&[(&str, &str)]>, csrf: Option<&str>) -> Exchange {
        let cookie = format!("sessionid={}; csrftoken={}", self.session, self.csrf);
        let mut headers = vec![("Cookie", cookie.as_str()), ("Sec-Fetch-Mode", "cors")];
        if let Some(token) = csrf {
            headers.push(("X-CSRFToken", token));
        }
        if let Some(host) = &self.host {
            headers.push(("Host", host.as_str()));
        }
        exchange(method, path, &headers, form)
    }

    fn get(&self, path: &str) -> Exchange {
        self.send("GET", path, None, None)
    }

    fn post(&self, path: &str, form: &[(&str, &str)]) -> Exchange {
        self.send("POST", path, Some(form), Some(&self.csrf))
    }
}

fn assert_error(exchange: &Exchange, status: u16, code: &str, msg: &str) {
    assert_eq!(exchange.status, status, "{:?}", exchange.body);
    assert_eq!(exchange.body["code"], code, "{:?}", exchange.body);
    assert_eq!(exchange.body["msg"], msg, "{:?}", exchange.body);
}

#[test]
fn signing_in_with_a_password_sets_an_http_only_session_cookie_and_a_readable_csrf_cookie() {
    let user = new_user("session");
    let (answer, _) = sign_in("/accounts/login/", &[("username", &user.email), ("password", PASSWORD)], None);
    assert_eq!(answer.body["result"], "success");
    assert_eq!(answer.body["user_id"], user.user_id);
    let session = set_cookie(&answer, "sessionid");
    assert!(session.contains("HttpOnly") && session.contains("SameSite=Lax") && session.contains("Path=/"), "{session}");
    assert!(session.contains("Max-Age=1209600"), "{session}");
    let csrf = set_cookie(&answer, "csrftoken");
    assert!(!csrf.contains("HttpOnly") && csrf.contains("SameSite=Lax"), "{csrf}");
}

/// Served over plain HTTP, loopback cannot keep `Secure` cookies; every other host's are
/// `Secure` (tests/production_mode.rs).
#[test]
fn cookies_are_not_secure_on_loopback() {
    let (loopback, _) = sign_in("/accounts/login/local/", &[("direct_email", "hamlet@zulip.com")], None);
    assert!(!set_cookie(&loopback, "sessionid").contains("Secure"));
    assert!(!set_cookie(&loopback, "csrftoken").contains("Secure"));
}

#[test]
fn a_wrong_password_is_refused_as_fetch_api_key_refuses_it_and_sets_no_cookie() {
    let user = new_user("session");
    let answer = exchange("POST", "/accounts/login/", &[], Some(&[("username", &user.email), ("password", "not-the-password")]));
    assert_error(&answer, 401, "AUTHENTICATION_FAILED", "Your username or password is incorrect");
    assert!(answer.set_cookies.is_empty(), "{:?}", answer.set_cookies);
}

#[test]
fn a_deactivated_user_cannot_sign_in() {
    let user = new_user("session");
    Client::dev("iago@zulip.com").delete(&format!("/users/{}", user.user_id), &[]).success();
    let answer = exchange("POST", "/accounts/login/", &[], Some(&[("username", &user.email), ("password", PASSWORD)]));
    assert_error(&answer, 401, "USER_DEACTIVATED", "Account is deactivated");
}

#[test]
fn a_session_reads_the_api_without_the_csrf_header() {
    let user = new_user("session");
    let browser = log_in(&user.email, PASSWORD);
    let me = browser.get("/api/v1/users/me");
    assert_eq!(me.status, 200, "{:?}", me.body);
    assert_eq!(me.body["user_id"], user.user_id);
}

#[test]
fn a_session_write_without_the_csrf_header_is_refused_and_changes_nothing() {
    let browser = dev_log_in("hamlet@zulip.com");
    let topic = unique("csrf");
    let form = [("type", "stream"), ("to", "Verona"), ("topic", topic.as_str()), ("content", "no token")];
    let answer = browser.send("POST", "/api/v1/messages", Some(&form), None);
    assert_error(&answer, 403, "CSRF_FAILED", "CSRF error: CSRF token missing.");
    assert_eq!(answer.body["reason"], "CSRF token missing.");
    assert_no_message_in(&topic);
}

#[test]
fn a_session_write_with_another_csrf_token_is_refused() {
    let browser = dev_log_in("hamlet@zulip.com");
    let other = dev_log_in("hamlet@zulip.com");
    let topic = unique("csrf");
    let form = [("type", "stream"), ("to", "Verona"), ("topic", topic.as_str()), ("content", "wrong token")];
    let answer = browser.send("POST", "/api/v1/messages", Some(&form), Some(&other.csrf));
    assert_error(&answer, 403, "CSRF_FAILED", "CSRF error: CSRF token incorrect.");
    assert_no_message_in(&topic);
}

fn assert_no_message_in(topic: &str) {
    let narrow = format!(r#"[{{"operator":"channel","operand":"Verona"}},{{"operator":"topic","operand":"{topic}"}}]"#);
    let found = Client::dev("hamlet@zulip.com")
        .get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", &narrow)])
        .success();
    assert_eq!(found["messages"].as_array().unwrap().len(), 0, "{found}");
}

#[test]
fn a_session_write_with_its_csrf_token_is_made_as_the_signed_in_user() {
    let browser = dev_log_in("othello@zulip.com");
    let topic = unique("csrf");
    let answer = browser.post("/api/v1/messages", &[("type", "stream"), ("to", "Verona"), ("topic", &topic), ("content", "from the page")]);
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    let id = answer.body["id"].as_i64().unwrap();
    let message = Client::dev("hamlet@zulip.com").get(&format!("/messages/{id}"), &[]).success();
    assert_eq!(message["message"]["sender_email"], "othello@zulip.com");
}

#[test]
fn signing_out_ends_the_session_on_the_server() {
    let browser = dev_log_in("cordelia@zulip.com");
    let answer = browser.post("/accounts/logout/", &[]);
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    assert!(set_cookie(&answer, "sessionid").contains("Max-Age=0"));
    // The same cookie, replayed after signing out, authenticates nothing.
    let replayed = browser.get("/api/v1/users/me");
    assert_error(&replayed, 401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
}

#[test]
fn signing_out_needs_the_csrf_token() {
    let browser = dev_log_in("cordelia@zulip.com");
    let answer = browser.send("POST", "/accounts/logout/", Some(&[]), None);
    assert_error(&answer, 403, "CSRF_FAILED", "CSRF error: CSRF token missing.");
    assert_eq!(browser.get("/api/v1/users/me").status, 200);
}

#[test]
fn a_deactivated_users_session_stops_authenticating() {
    let user = new_user("session");
    let browser = log_in(&user.email, PASSWORD);
    Client::dev("iago@zulip.com").delete(&format!("/users/{}", user.user_id), &[]).success();
    assert_error(&browser.get("/api/v1/users/me"), 401, "USER_DEACTIVATED", "Account is deactivated");
}

#[test]
fn a_session_belongs_to_its_organization() {
    let browser = dev_log_in("hamlet@zulip.com");
    let elsewhere = Browser { host: host_for(Some("lear")), session: browser.session.clone(), csrf: browser.csrf.clone() };
    assert_error(&elsewhere.get("/api/v1/users/me"), 401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
}

#[test]
fn an_unknown_session_cookie_is_not_logged_in_and_challenges_without_basic() {
    let stranger = Browser { session: "x".repeat(32), csrf: "y".repeat(32), host: None };
    let answer = stranger.get("/api/v1/users/me");
    assert_error(&answer, 401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
    // A Basic challenge would open the browser's password dialog over the web client.
    assert_eq!(answer.www_authenticate.as_deref(), Some("Session realm=\"zulip\""));
}

#[test]
fn basic_authentication_wins_over_a_session_cookie() {
    let browser = dev_log_in("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let basic = format!(
        "Basic {}",
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, format!("{}:{}", othello.email, othello.api_key))
    );
    let cookie = format!("sessionid={}", browser.session);
    let answer = exchange("GET", "/api/v1/users/me", &[("Authorization", &basic), ("Cookie", &cookie)], None);
    assert_eq!(answer.body["user_id"], othello.user_id);
}

#[test]
fn uploaded_files_load_through_the_session_cookie() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = upload_text(&hamlet, "session.txt", "cookie bytes");
    let browser = dev_log_in("hamlet@zulip.com");
    let agent = ureq::AgentBuilder::new().build();
    let cookie = format!("sessionid={}", browser.session);
    let response = agent.get(&format!("{}{url}", server_url())).set("Cookie", &cookie).call().unwrap();
    assert_eq!(response.into_string().unwrap(), "cookie bytes");
}

fn upload_text(client: &Client, name: &str, text: &str) -> String {
    let boundary = "----sessionboundary";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: text/plain\r\n\r\n{text}\r\n--{boundary}--\r\n"
    );
    let basic = format!(
        "Basic {}",
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, format!("{}:{}", client.email, client.api_key))
    );
    let response = ureq::post(&format!("{}/api/v1/user_uploads", server_url()))
        .set("Authorization", &basic)
        .set("Content-Type", &format!("multipart/form-data; boundary={boundary}"))
        .send_string(&body)
        .unwrap();
    let json: Value = serde_json::from_str(&response.into_string().unwrap()).unwrap();
    json["url"].as_str().unwrap().to_string()
}

#[test]
fn development_login_is_refused_for_an_unknown_user() {
    let answer = exchange("POST", "/accounts/login/local/", &[], Some(&[("direct_email", "nobody@zulip.com")]));
    assert_error(&answer, 401, "AUTHENTICATION_FAILED", "This user is not registered.");
}

#[test]
fn a_browser_navigating_to_the_login_route_goes_to_the_sign_in_page() {
    let answer = exchange("GET", "/accounts/login/", &[], None);
    assert_eq!(answer.status, 302);
    assert_eq!(answer.location.as_deref(), Some("/login/"));
}
