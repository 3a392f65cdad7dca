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

#[test]
fn path_outside_the_api_is_a_json_404() {
    let url = format!("{}/not-api", server_url());
    let err = ureq::get(&url).call().unwrap_err();
    let ureq::Error::Status(404, resp) = err else { panic!("expected 404") };
    let body: serde_json::Value = serde_json::from_str(&resp.into_string().unwrap()).unwrap();
    assert_eq!(body["result"], "error");
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
