//! Success bodies match Zulip's OpenAPI description (the spec wins where they differ).

mod common;
use common::*;

#[test]
fn server_settings_matches_openapi() {
    let body = anonymous("GET", "/server_settings", &[]).success();
    assert_matches_openapi("GET", "/server_settings", &body);
}

#[test]
fn own_user_matches_openapi() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.get("/users/me", &[]).success();
    assert_matches_openapi("GET", "/users/me", &body);
}

#[test]
fn users_list_matches_openapi() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.get("/users", &[]).success();
    assert_matches_openapi("GET", "/users", &body);
}

#[test]
fn single_user_matches_openapi() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.get(&format!("/users/{}", hamlet.user_id), &[]).success();
    assert_matches_openapi("GET", "/users/{user_id}", &body);
}

#[test]
fn fetch_api_key_matches_openapi() {
    let body = anonymous("POST", "/fetch_api_key", &[("username", "hamlet@zulip.com"), ("password", "dev-password")]).success();
    assert_matches_openapi("POST", "/fetch_api_key", &body);
}

#[test]
fn dev_fetch_api_key_matches_openapi() {
    let body = anonymous("POST", "/dev_fetch_api_key", &[("username", "hamlet@zulip.com")]).success();
    assert_matches_openapi("POST", "/dev_fetch_api_key", &body);
}
