//! Spec: "Conventions common to all endpoints".

mod common;
use common::*;

#[test]
fn success_envelope_has_result_and_empty_msg() {
    let body = anonymous("GET", "/server_settings", &[]).success();
    assert!(body.get("ignored_parameters_unsupported").is_none());
}

#[test]
fn unknown_parameters_are_listed_as_ignored() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.get("/users/me", &[("bogus", "1"), ("other", "x")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], serde_json::json!(["bogus", "other"]));
}

#[test]
fn ignored_parameters_absent_when_all_parameters_are_known() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.get("/users", &[("client_gravatar", "false")]).success();
    assert!(body.get("ignored_parameters_unsupported").is_none(), "{body:?}");
}

#[test]
fn unknown_route_is_a_json_404() {
    let resp = anonymous("GET", "/no/such/endpoint", &[]);
    assert_eq!(resp.content_type.as_deref(), Some("application/json"));
    resp.error(404, "BAD_REQUEST", "Not Found");
}

/// Paths the worker does not answer belong to the web client (Workers Static Assets):
/// one that names no file gets its page, the single-page fallback.
#[test]
fn a_path_outside_the_servers_routes_serves_the_web_client() {
    let resp = ureq::get(&format!("{}/not-api", server_url())).call().unwrap();
    assert!(resp.content_type().starts_with("text/html"), "{}", resp.content_type());
    assert!(resp.into_string().unwrap().contains("<div id=\"app\""));
}

#[test]
fn a_preflight_from_another_origin_is_answered_with_zulips_cors_headers() {
    let resp = ureq::request("OPTIONS", &format!("{}/api/v1/messages", server_url()))
        .set("Origin", "https://client.example.org")
        .set("Access-Control-Request-Method", "POST")
        .set("Access-Control-Request-Headers", "authorization, content-type")
        .call()
        .unwrap();
    assert_eq!(resp.status(), 204);
    assert_eq!(resp.header("Access-Control-Allow-Origin"), Some("*"));
    let methods = resp.header("Access-Control-Allow-Methods").unwrap();
    assert!(methods.contains("POST") && methods.contains("PATCH") && methods.contains("DELETE"), "{methods}");
    let headers = resp.header("Access-Control-Allow-Headers").unwrap().to_ascii_lowercase();
    assert!(headers.contains("authorization") && headers.contains("content-type"), "{headers}");
}

#[test]
fn api_answers_carry_cors_headers_for_clients_hosted_elsewhere() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let basic = format!(
        "Basic {}",
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, format!("{}:{}", hamlet.email, hamlet.api_key))
    );
    let resp = ureq::get(&format!("{}/api/v1/users/me", server_url()))
        .set("Origin", "https://client.example.org")
        .set("Authorization", &basic)
        .call()
        .unwrap();
    assert_eq!(resp.header("Access-Control-Allow-Origin"), Some("*"));
    // A browser lets the client read the rate limit.
    assert!(resp.header("Access-Control-Expose-Headers").unwrap().contains("X-RateLimit-Remaining"));
}

#[test]
fn missing_required_parameter_names_it() {
    let body = anonymous("POST", "/fetch_api_key", &[("username", "hamlet@zulip.com")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'password' argument");
    assert_eq!(body["var_name"], "password");
}

#[test]
fn wrong_type_is_a_bad_request_naming_the_parameter() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.get("/users", &[("client_gravatar", "maybe")]).bad_request("BAD_REQUEST", "client_gravatar is not a boolean");
}

#[test]
fn parameters_are_read_from_the_query_string_for_post() {
    let resp = request("POST", "/dev_fetch_api_key", &[("username", "othello@zulip.com")], None, None, None);
    assert_eq!(resp.success()["email"], "othello@zulip.com");
}

#[test]
fn multipart_bodies_are_accepted() {
    let resp = request("POST", "/dev_fetch_api_key", &[], Some(Body::Multipart(&[("username", "cordelia@zulip.com")])), None, None);
    assert_eq!(resp.success()["email"], "cordelia@zulip.com");
}

#[test]
fn server_settings_answers_with_credentials_attached() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.get("/server_settings", &[]).success();
    assert!(body["zulip_version"].is_string());
}

#[test]
fn server_settings_carries_version_and_realm_url() {
    let body = anonymous("GET", "/server_settings", &[]).success();
    assert_eq!(body["zulip_feature_level"], 496);
    assert_eq!(body["realm_url"], server_url());
    assert_eq!(body["realm_uri"], server_url());
    assert_eq!(body["require_email_format_usernames"], true);
    assert_eq!(body["authentication_methods"]["password"], true);
    assert_eq!(body["authentication_methods"]["dev"], true);
}

#[test]
fn health_needs_no_login_and_names_every_part_it_checked() {
    let resp = ureq::get(&format!("{}/health", server_url())).call().unwrap();
    let body: serde_json::Value = serde_json::from_str(&resp.into_string().unwrap()).unwrap();
    assert_eq!(body["result"], "success", "{body}");
    assert_eq!(body["checks"], serde_json::json!({ "database": "ok", "uploads": "ok", "realm_hub": "ok" }));
}

#[test]
fn a_wrong_api_key_is_invalid_api_key() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let resp = request("GET", "/users/me", &[], None, Some((&hamlet.email, "0123456789abcdefghijklmnopqrstuv")), None);
    resp.error(401, "INVALID_API_KEY", "Invalid API key");
}
