//! The worker under the production configuration of `wrangler.toml` (`--env production`,
//! local bindings): no development routes, no development mode on a public root domain,
//! and `GET /health` for monitors.

mod common;
mod server_support;
use common::*;
use server_support::*;

fn raw_get(path: &str) -> (u16, serde_json::Value) {
    let response = match ureq::get(&format!("{}{path}", server_url())).call() {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("GET {path}: {e}"),
    };
    let status = response.status();
    (status, serde_json::from_str(&response.into_string().unwrap()).unwrap_or_default())
}

// One server for the whole binary's rules would share state between them; each test
// starts its own, and they run one at a time (TEST_SERVER_URL is the process's).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn production_answers_development_routes_with_404_and_serves_health() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = production_server(&["API_KEY_SECRET:test-production-secret"]);
    for (method, path) in [("POST", "/dev_fetch_api_key"), ("GET", "/dev_list_users"), ("GET", "/dev_bench/noop")] {
        let body = if method == "POST" { Some(Body::Form(&[("username", "hamlet@zulip.com")])) } else { None };
        request(method, path, &[], body, None, None).error(404, "BAD_REQUEST", "Not Found");
    }
    let login = ureq::post(&format!("{}/accounts/login/local/", server_url())).send_form(&[("direct_email", "hamlet@zulip.com")]);
    assert!(matches!(login, Err(ureq::Error::Status(404, _))), "{login:?}");
    // No organization is seeded in production: the bare host names none, and health
    // still checks every part.
    let (status, body) = raw_get("/health");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"], "success");
    assert_eq!(body["checks"], serde_json::json!({ "database": "ok", "uploads": "ok", "realm_hub": "ok" }));
    // `make smoke`'s checks, development logins closed included, pass against it.
    let smoke = std::process::Command::new("scripts/smoke.sh").env("SERVER_URL", server_url()).output().expect("smoke runs");
    assert!(smoke.status.success(), "{}", String::from_utf8_lossy(&smoke.stdout));
    server.stop();
}

#[test]
fn session_cookies_are_secure_on_a_public_host() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = production_server(&["API_KEY_SECRET:test-production-secret", "SERVER_ADMIN_SECRET:test-admin-secret"]);
    let fields = [("string_id", "zulip"), ("name", "Acme"), ("owner_email", "owner@acme.test"), ("owner_full_name", "Ada Owner")];
    let created = server_admin_post(Some("test-admin-secret"), "/server_admin/organizations", &fields).success();
    let password = created["owner"]["password"].as_str().unwrap();
    // wrangler dev forwards every request of this environment to the host of its first
    // route (chat.example.com, the default organization's), as the deployment would see it.
    let answer = ureq::post(&format!("{}/accounts/login/", server_url()))
        .send_form(&[("username", "owner@acme.test"), ("password", password)])
        .unwrap_or_else(|e| match e {
            ureq::Error::Status(status, r) => panic!("sign-in answered {status}: {}", r.into_string().unwrap()),
            other => panic!("{other}"),
        });
    let cookies: Vec<&str> = answer.all("Set-Cookie");
    assert_eq!(cookies.len(), 2, "{cookies:?}");
    assert!(cookies.iter().all(|c| c.contains("; Secure")), "{cookies:?}");
    server.stop();
}

#[test]
fn development_mode_on_a_public_root_domain_is_refused() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = production_server(&["DEVELOPMENT:true", "API_KEY_SECRET:test-production-secret"]);
    let (status, body) = raw_get("/api/v1/server_settings");
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["msg"], "Server misconfigured: DEVELOPMENT is set while ROOT_DOMAIN (chat.example.com) is not localhost or loopback");
    let dev_login = request("POST", "/dev_fetch_api_key", &[], Some(Body::Form(&[("username", "hamlet@zulip.com")])), None, None);
    assert_eq!(dev_login.status, 500, "{:?}", dev_login.body);
    assert!(dev_login.body.get("api_key").is_none());
    server.stop();
}

#[test]
fn development_mode_answers_loopback_hosts_only() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The development configuration, as if deployed by mistake and reached by a public name.
    let (state, port) = own_server_address();
    let server = Server::start(&state, port, &[]);
    let refused = ureq::post(&format!("{}/api/v1/dev_fetch_api_key", server_url()))
        .set("Host", "team-chat.example.workers.dev")
        .send_form(&[("username", "hamlet@zulip.com")]);
    let Err(ureq::Error::Status(status, response)) = refused else { panic!("answered {refused:?}") };
    assert_eq!(status, 500);
    let body: serde_json::Value = serde_json::from_str(&response.into_string().unwrap()).unwrap();
    assert_eq!(body["msg"], "Server misconfigured: development mode serves localhost only, not team-chat.example.workers.dev");
    server.stop();
}
