//! The operator's way to a working organization: `POST /server_admin/organizations`
//! (guarded by the Worker secret `SERVER_ADMIN_SECRET`) and `make create-organization`.

mod common;
use common::*;

/// The development value of the secret (`wrangler.toml` `[vars]`).
const SECRET: &str = "dev-server-admin-secret";

fn create(secret: Option<&str>, fields: &[(&str, &str)]) -> Resp {
    server_admin(secret, "/server_admin/organizations", fields)
}

fn server_admin(secret: Option<&str>, path: &str, fields: &[(&str, &str)]) -> Resp {
    server_admin_post(secret, path, fields)
}

fn subdomain() -> String {
    unique("org").to_lowercase()
}

fn fields<'a>(string_id: &'a str, email: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![("string_id", string_id), ("name", "Acme Corp"), ("owner_email", email), ("owner_full_name", "Ada Owner")]
}

/// Logs in with email and password on the organization's own host.
fn login(string_id: &str, email: &str, password: &str) -> Resp {
    request("POST", "/fetch_api_key", &[], Some(Body::Form(&[("username", email), ("password", password)])), None, Some(string_id))
}

#[test]
fn created_organization_has_an_owner_who_can_log_in_and_work() {
    let id = subdomain();
    let email = format!("owner@{id}.example.com");
    let body = create(Some(SECRET), &fields(&id, &email)).success();
    assert!(body["realm_url"].as_str().unwrap().starts_with(&format!("http://{id}.localhost:")), "{body}");
    let password = body["owner"]["password"].as_str().unwrap();
    assert!(password.len() >= 20, "a random first password: {password}");

    let key = login(&id, &email, password).success()["api_key"].as_str().unwrap().to_string();
    let owner = Client { email: email.clone(), api_key: key, user_id: body["owner"]["user_id"].as_i64().unwrap(), realm: Some(id.clone()) };
    let me = owner.get("/users/me", &[]).success();
    assert_eq!(me["role"], 100);
    assert_eq!(me["is_owner"], true);
    assert_eq!(me["full_name"], "Ada Owner");

    let groups = owner.get("/user_groups", &[]).success();
    let names: Vec<&str> = groups["user_groups"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    for system in ["role:owners", "role:administrators", "role:members", "role:everyone", "role:nobody"] {
        assert!(names.contains(&system), "system group {system} in {names:?}");
    }
    let subscriptions = owner.get("/users/me/subscriptions", &[]).success();
    assert_eq!(subscriptions["subscriptions"][0]["name"], "general");
    let sent =
        owner.post("/messages", &[("type", "stream"), ("to", "general"), ("topic", "hello"), ("content", "first message")]).success();
    assert!(sent["id"].as_i64().is_some());
    owner.post("/register", &[]).success();
}

#[test]
fn organizations_are_separate_from_existing_ones() {
    let id = subdomain();
    let email = format!("owner@{id}.example.com");
    let body = create(Some(SECRET), &fields(&id, &email)).success();
    let password = body["owner"]["password"].as_str().unwrap();
    let resp = login("lear", &email, password);
    assert_eq!(resp.status, 401, "the owner exists only in the new organization: {:?}", resp.body);
}

#[test]
fn a_wrong_secret_is_refused_and_creates_nothing() {
    let id = subdomain();
    let email = format!("owner@{id}.example.com");
    create(Some("not-the-secret"), &fields(&id, &email)).error(401, "UNAUTHORIZED", "Invalid server administrator secret");
    create(None, &fields(&id, &email)).error(401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
    let resp = request("GET", "/server_settings", &[], None, None, Some(&id));
    assert_eq!(resp.status, 404, "no organization was created: {:?}", resp.body);
}

#[test]
fn a_subdomain_in_use_is_refused() {
    let id = subdomain();
    create(Some(SECRET), &fields(&id, &format!("a@{id}.example.com"))).success();
    create(Some(SECRET), &fields(&id, &format!("b@{id}.example.com")))
        .bad_request("BAD_REQUEST", "Subdomain already in use. Please choose a different one.");
    create(Some(SECRET), &fields("lear", "x@example.com"))
        .bad_request("BAD_REQUEST", "Subdomain already in use. Please choose a different one.");
}

#[test]
fn subdomains_follow_zulips_rules() {
    create(Some(SECRET), &fields("Bad_Name", "x@example.com"))
        .bad_request("BAD_REQUEST", "Subdomain can only have lowercase letters, numbers, and '-'s.");
    create(Some(SECRET), &fields("ab", "x@example.com")).bad_request("BAD_REQUEST", "Subdomain needs to have length 3 or greater.");
}

#[test]
fn the_owner_email_must_be_valid() {
    let id = subdomain();
    create(Some(SECRET), &fields(&id, "not-an-email")).bad_request("BAD_REQUEST", "Invalid email 'not-an-email'");
}

#[test]
fn make_create_organization_prints_the_owner_login() {
    let id = subdomain();
    let email = format!("owner@{id}.example.com");
    let output = std::process::Command::new("make")
        .args(["--no-print-directory", "create-organization"])
        .arg(format!("SERVER_URL={}", server_url()))
        .arg(format!("STRING_ID={id}"))
        .arg("NAME=Made by make")
        .arg(format!("OWNER_EMAIL={email}"))
        .arg("OWNER_NAME=Make Owner")
        .env("SERVER_ADMIN_SECRET", SECRET)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("make runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains(&format!("Owner login: {email}")), "{stdout}");
    let password = stdout.lines().find_map(|l| l.strip_prefix("Password:")).expect("a password line").trim().to_string();
    login(&id, &email, &password).success();
}

#[test]
fn a_deactivated_organization_answers_realm_deactivated_until_reactivated() {
    let id = subdomain();
    let email = format!("owner@{id}.example.com");
    let body = create(Some(SECRET), &fields(&id, &email)).success();
    let password = body["owner"]["password"].as_str().unwrap().to_string();
    let key = login(&id, &email, &password).success()["api_key"].as_str().unwrap().to_string();
    let owner = Client { email: email.clone(), api_key: key, user_id: body["owner"]["user_id"].as_i64().unwrap(), realm: Some(id.clone()) };

    server_admin(Some(SECRET), &format!("/server_admin/organizations/{id}/deactivate"), &[]).success();
    let refused = owner.get("/users/me", &[]).error(401, "REALM_DEACTIVATED", "This organization has been deactivated");
    assert_eq!(refused["msg"], "This organization has been deactivated");
    login(&id, &email, &password).error(401, "REALM_DEACTIVATED", "This organization has been deactivated");

    server_admin(Some(SECRET), &format!("/server_admin/organizations/{id}/reactivate"), &[]).success();
    owner.get("/users/me", &[]).success();
}

#[test]
fn deactivating_needs_the_secret_and_a_known_organization() {
    let id = subdomain();
    create(Some(SECRET), &fields(&id, &format!("owner@{id}.example.com"))).success();
    server_admin(Some("wrong"), &format!("/server_admin/organizations/{id}/deactivate"), &[]).error(
        401,
        "UNAUTHORIZED",
        "Invalid server administrator secret",
    );
    server_admin(Some(SECRET), "/server_admin/organizations/no-such-org/deactivate", &[])
        .bad_request("BAD_REQUEST", "No such organization");
}
