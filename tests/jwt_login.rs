//! `POST /jwt/fetch_api_key`: an API key for a signed JSON web token (HS256, `email` claim).

mod accounts;
mod common;

use accounts::new_user;
use chrono::{DateTime, Utc};
use common::*;
use jwt_compact::alg::{Hs256, Hs256Key};
use jwt_compact::{AlgorithmExt, Claims, Header};
use serde::Serialize;
use serde_json::Value;

/// The development secret of the default organization (wrangler.toml `JWT_SECRET_ZULIP`).
const DEV_SECRET: &[u8] = b"dev-jwt-secret-for-the-zulip-organization";

#[derive(Serialize)]
struct EmailClaim<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<&'a str>,
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

fn sign(secret: &[u8], email: Option<&str>, exp: Option<i64>) -> String {
    let mut claims = Claims::new(EmailClaim { email });
    claims.expiration = exp.map(|secs| DateTime::<Utc>::from_timestamp(secs, 0).unwrap());
    Hs256.token(&Header::empty(), &claims, &Hs256Key::new(secret)).unwrap()
}

fn jwt_login(realm: Option<&str>, form: &[(&str, &str)]) -> Resp {
    request("POST", "/jwt/fetch_api_key", &[], Some(Body::Form(form)), None, realm)
}

#[test]
fn signed_token_yields_a_working_api_key() {
    let token = sign(DEV_SECRET, Some("hamlet@zulip.com"), Some(now() + 300));
    let body = jwt_login(None, &[("token", &token)]).success();
    assert_eq!(body["email"], "hamlet@zulip.com");
    assert!(body.get("user").is_none(), "{body:?}");
    let key = body["api_key"].as_str().unwrap();
    assert_eq!(key.len(), 32);
    let me = request("GET", "/users/me", &[], None, Some(("hamlet@zulip.com", key)), None).success();
    assert_eq!(me["email"], "hamlet@zulip.com");
}

#[test]
fn token_without_expiry_is_accepted() {
    let token = sign(DEV_SECRET, Some("othello@zulip.com"), None);
    jwt_login(None, &[("token", &token)]).success();
}

#[test]
fn include_profile_adds_the_user_with_every_field() {
    let token = sign(DEV_SECRET, Some("iago@zulip.com"), Some(now() + 300));
    let body = jwt_login(None, &[("token", &token), ("include_profile", "true")]).success();
    let user = &body["user"];
    for field in [
        "user_id",
        "delivery_email",
        "email",
        "full_name",
        "date_joined",
        "is_active",
        "is_owner",
        "is_admin",
        "is_guest",
        "is_bot",
        "bot_type",
        "bot_owner_id",
        "role",
        "timezone",
        "avatar_url",
        "avatar_version",
        "is_imported_stub",
    ] {
        assert!(user.get(field).is_some(), "missing {field} in {user:?}");
    }
    assert_eq!(user["full_name"], "Iago");
    assert_eq!(user["role"], 200);
    assert_eq!(user["is_admin"], true);
    assert_eq!(user["delivery_email"], "iago@zulip.com");
    assert!(user["avatar_url"].is_string());
}

#[test]
fn expired_token_is_refused() {
    let token = sign(DEV_SECRET, Some("hamlet@zulip.com"), Some(now() - 60));
    jwt_login(None, &[("token", &token)]).bad_request("BAD_REQUEST", "Bad JSON web token");
}

#[test]
fn token_signed_with_another_secret_is_refused() {
    let token = sign(b"not-the-organization-secret", Some("hamlet@zulip.com"), Some(now() + 300));
    jwt_login(None, &[("token", &token)]).bad_request("BAD_REQUEST", "Bad JSON web token");
}

#[test]
fn malformed_token_is_refused() {
    for token in ["not-a-jwt", "a.b.c", "eyJhbGciOiJIUzI1NiJ9.eyJlbWFpbCI6ImhhbWxldEB6dWxpcC5jb20ifQ"] {
        jwt_login(None, &[("token", token)]).bad_request("BAD_REQUEST", "Bad JSON web token");
    }
}

#[test]
fn missing_token_is_refused() {
    jwt_login(None, &[]).bad_request("BAD_REQUEST", "No JSON web token passed in request");
}

#[test]
fn token_without_email_claim_is_refused() {
    let token = sign(DEV_SECRET, None, Some(now() + 300));
    jwt_login(None, &[("token", &token)]).bad_request("BAD_REQUEST", "No email specified in JSON web token claims");
}

#[test]
fn unknown_user_is_refused() {
    let token = sign(DEV_SECRET, Some("nobody-here@zulip.com"), Some(now() + 300));
    let body = jwt_login(None, &[("token", &token)]).error(401, "AUTHENTICATION_FAILED", "Your username or password is incorrect");
    assert!(body.get("api_key").is_none());
}

#[test]
fn deactivated_user_is_refused() {
    let user = new_user("jwtgone");
    user.delete("/users/me", &[]).success();
    let token = sign(DEV_SECRET, Some(&user.email), Some(now() + 300));
    jwt_login(None, &[("token", &token)]).error(401, "USER_DEACTIVATED", "Account is deactivated");
}

#[test]
fn organization_without_jwt_secret_refuses_jwt_login() {
    // `lear` has no JWT_SECRET_LEAR and no shared JWT_SECRET is set in development.
    let token = sign(DEV_SECRET, Some("king@lear.org"), Some(now() + 300));
    let body: Value =
        jwt_login(Some("lear"), &[("token", &token)]).bad_request("BAD_REQUEST", "JWT authentication is not enabled for this organization");
    assert!(body.get("api_key").is_none());
}

/// The organization and the user the token names are read together; the key's hash is the
/// one write.
#[test]
fn signing_in_with_a_token_costs_one_read_and_one_write() {
    let user = new_user("jwttrips");
    let token = sign(DEV_SECRET, Some(&user.email), Some(now() + 300));
    let resp = jwt_login(None, &[("token", &token)]);
    assert_eq!(resp.status, 200, "{:?}", resp.body);
    assert_eq!(resp.d1_round_trips, Some(2));
}
