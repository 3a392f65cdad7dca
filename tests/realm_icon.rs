//! The organization's icon and logos: `POST`/`DELETE`/`GET /realm/icon` and `/realm/logo`,
//! the uploaded images served under `/user_avatars/`, `/register`'s `realm_icon_*` and
//! `realm_*logo_*` fields and the `realm` `update_dict` events. Each test changes an
//! organization of its own, so no test sees another's icon.

mod common;
mod event_support;
mod upload_support;

use common::*;
use event_support::*;
use serde_json::{json, Value};
use upload_support::*;

/// A new organization and its owner (an administrator), logged in.
fn fresh_organization() -> Client {
    let string_id = unique("icon").to_lowercase();
    let email = format!("owner@{string_id}.example.com");
    let fields = [("string_id", string_id.as_str()), ("name", "Icon Org"), ("owner_email", email.as_str()), ("owner_full_name", "Owner")];
    let created = server_admin_post(Some(DEV_SERVER_ADMIN_SECRET), "/server_admin/organizations", &fields).success();
    let password = created["owner"]["password"].as_str().unwrap();
    login(&string_id, &email, password, created["owner"]["user_id"].as_i64().unwrap())
}

fn login(string_id: &str, email: &str, password: &str, user_id: i64) -> Client {
    let form = [("username", email), ("password", password)];
    let key = request("POST", "/fetch_api_key", &[], Some(Body::Form(&form)), None, Some(string_id)).success()["api_key"]
        .as_str()
        .unwrap()
        .to_string();
    Client { email: email.to_string(), api_key: key, user_id, realm: Some(string_id.to_string()) }
}

/// A member (not an administrator) of the owner's organization, logged in.
fn member_of(owner: &Client) -> Client {
    let realm = owner.realm.clone().unwrap();
    let email = format!("member@{realm}.example.com");
    let password = "a long enough password 1234";
    let body = owner.post("/users", &[("email", &email), ("password", password), ("full_name", "Member")]).success();
    login(&realm, &email, password, body["user_id"].as_i64().unwrap())
}

fn registered(client: &Client) -> Value {
    client.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success()
}

/// The register's image fields, to compare before and after.
fn images(client: &Client) -> Value {
    let state = registered(client);
    let fields =
        ["realm_icon_url", "realm_icon_source", "realm_logo_url", "realm_logo_source", "realm_night_logo_url", "realm_night_logo_source"];
    fields.iter().map(|f| (f.to_string(), state[*f].clone())).collect::<serde_json::Map<_, _>>().into()
}

fn image_update(property: &'static str) -> impl Fn(&Value) -> bool {
    move |e: &Value| e["type"] == "realm" && e["op"] == "update_dict" && e["property"] == property
}

fn upload_icon(client: &Client, name: &str, bytes: &[u8]) -> Resp {
    upload_files_to(client, "/realm/icon", &[("file", name, bytes)])
}

fn upload_logo(client: &Client, night: bool, name: &str, bytes: &[u8]) -> Resp {
    upload_files_to(client, &format!("/realm/logo?night={night}"), &[("file", name, bytes)])
}

/// The `?version=N` of an uploaded image's URL.
fn version_of(url: &str) -> i64 {
    url.rsplit_once("?version=").and_then(|(_, v)| v.parse().ok()).unwrap_or_else(|| panic!("no version in {url}"))
}

fn is_gravatar(url: &str) -> bool {
    url.starts_with("https://secure.gravatar.com/avatar/") && url.ends_with("?d=identicon")
}

const DEFAULT_LOGO: &str = "/static/images/logo/zulip-org-logo.svg?version=0";

fn assert_event_matches_openapi(event: &Value) {
    let body = json!({ "result": "success", "msg": "", "queue_id": "q", "events": [event] });
    assert_matches_openapi("GET", "/events", &body);
}

/// `GET /api/v1<path>` as `client`, redirects not followed: (status, Location).
fn get_unfollowed(client: &Client, path: &str) -> (u16, Option<String>) {
    let agent = ureq::AgentBuilder::new().redirects(0).build();
    let token = base64_basic(client);
    let mut req = agent.get(&format!("{}/api/v1{path}", server_url())).set("Authorization", &token);
    if let Some(host) = host_for(client.realm.as_deref()) {
        req = req.set("Host", &host);
    }
    let response = match req.call() {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("transport error {e}"),
    };
    (response.status(), response.header("Location").map(str::to_string))
}

fn base64_basic(client: &Client) -> String {
    use base64::Engine;
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", client.email, client.api_key)))
}

// ---- the icon

#[test]
fn an_uploaded_icon_is_served_and_register_and_the_event_agree() {
    let owner = fresh_organization();
    let before = registered(&owner);
    assert_eq!(before["realm_icon_source"], "G");
    assert_eq!(before["max_icon_file_size_mib"], 5);
    let mut queue = register_for(&owner, r#"["realm"]"#);
    let bytes = png();
    let body = upload_icon(&owner, "icon.png", &bytes).success();
    let url = body["icon_url"].as_str().unwrap().to_string();
    assert!(url.starts_with("/user_avatars/") && url.contains("/realm/"), "{url}");
    let served = download(None, &url, &[]);
    assert_eq!((served.status, served.header("Content-Type")), (200, Some("image/png")));
    assert_eq!(served.bytes, bytes);
    let event = queue.wait_for("the icon update", image_update("icon"));
    assert_event_matches_openapi(&event);
    assert_eq!(event["data"], json!({ "icon_url": url, "icon_source": "U" }));
    let after = registered(&owner);
    assert_eq!(after["realm_icon_url"], url.as_str());
    assert_eq!(after["realm_icon_source"], "U");
}

#[test]
fn every_icon_change_bumps_the_version() {
    let owner = fresh_organization();
    let first = upload_icon(&owner, "a.png", &png()).success()["icon_url"].as_str().unwrap().to_string();
    let second = upload_icon(&owner, "b.jpg", &jpeg()).success()["icon_url"].as_str().unwrap().to_string();
    assert_eq!(version_of(&second), version_of(&first) + 1);
    assert_eq!(download(None, &first, &[]).status, 404, "the replaced image leaves storage");
    assert_eq!(download(None, &second, &[]).header("Content-Type"), Some("image/jpeg"));
}

#[test]
fn deleting_the_icon_goes_back_to_gravatar_and_removes_the_image() {
    let owner = fresh_organization();
    let uploaded = upload_icon(&owner, "icon.png", &png()).success()["icon_url"].as_str().unwrap().to_string();
    let mut queue = register_for(&owner, r#"["realm"]"#);
    let url = owner.delete("/realm/icon", &[]).success()["icon_url"].as_str().unwrap().to_string();
    assert!(is_gravatar(&url), "{url}");
    assert_eq!(download(None, &uploaded, &[]).status, 404);
    let event = queue.wait_for("the icon removal", image_update("icon"));
    assert_eq!(event["data"], json!({ "icon_url": url, "icon_source": "G" }));
    let state = registered(&owner);
    assert_eq!((state["realm_icon_url"].as_str(), state["realm_icon_source"].as_str()), (Some(url.as_str()), Some("G")));
}

#[test]
fn members_cannot_change_the_icon_or_logos_and_nothing_changes() {
    let owner = fresh_organization();
    let member = member_of(&owner);
    let before = images(&owner);
    let mut queue = register_for(&owner, r#"["realm", "message"]"#);
    let refused = |r: Resp| r.bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    refused(upload_icon(&member, "icon.png", &png()));
    refused(member.delete("/realm/icon", &[]));
    refused(upload_logo(&member, false, "logo.png", &png()));
    refused(member.delete("/realm/logo", &[("night", "true")]));
    assert_eq!(images(&owner), before);
    let events = queue.events_before_sentinel();
    assert!(!events.iter().any(|e| e["type"] == "realm"), "{events:?}");
}

#[test]
fn exactly_one_file_is_an_icon_or_a_logo() {
    let owner = fresh_organization();
    let before = images(&owner);
    owner.post_multipart("/realm/icon", &[]).bad_request("BAD_REQUEST", "You must upload exactly one icon.");
    upload_files_to(&owner, "/realm/icon", &[("a", "a.png", &png()), ("b", "b.png", &png())])
        .bad_request("BAD_REQUEST", "You must upload exactly one icon.");
    owner.post_multipart("/realm/logo", &[("night", "false")]).bad_request("BAD_REQUEST", "You must upload exactly one logo.");
    upload_files_to(&owner, "/realm/logo?night=true", &[("a", "a.png", &png()), ("b", "b.png", &png())])
        .bad_request("BAD_REQUEST", "You must upload exactly one logo.");
    assert_eq!(images(&owner), before);
}

#[test]
fn icons_and_logos_over_five_mib_are_refused() {
    let owner = fresh_organization();
    let before = images(&owner);
    let mut big = png();
    big.resize(5 * 1024 * 1024 + 1, 0);
    let msg = "Uploaded file is larger than the allowed limit of 5 MiB";
    upload_icon(&owner, "big.png", &big).bad_request("BAD_REQUEST", msg);
    upload_logo(&owner, false, "big.png", &big).bad_request("BAD_REQUEST", msg);
    assert_eq!(images(&owner), before);
}

#[test]
fn only_images_browsers_show_are_icons_or_logos() {
    let owner = fresh_organization();
    let before = images(&owner);
    upload_icon(&owner, "notes.txt", b"hello").bad_request("BAD_IMAGE", "Invalid image format");
    upload_icon(&owner, "fake.png", b"not an image at all")
        .bad_request("BAD_IMAGE", "Could not decode image; did you upload an image file?");
    upload_logo(&owner, true, "notes.txt", b"hello").bad_request("BAD_IMAGE", "Invalid image format");
    assert_eq!(images(&owner), before);
}

#[test]
fn get_realm_icon_redirects_to_the_icon_keeping_the_query_string() {
    let owner = fresh_organization();
    let (status, location) = get_unfollowed(&owner, "/realm/icon?size=big");
    let gravatar = registered(&owner)["realm_icon_url"].as_str().unwrap().to_string();
    assert_eq!((status, location), (302, Some(format!("{gravatar}&size=big"))));
    let url = upload_icon(&owner, "icon.png", &png()).success()["icon_url"].as_str().unwrap().to_string();
    assert_eq!(get_unfollowed(&owner, "/realm/icon"), (302, Some(url)));
}

// ---- the logos

#[test]
fn the_day_logo_changes_only_its_own_fields() {
    let owner = fresh_organization();
    let before = images(&owner);
    assert_eq!(before["realm_logo_url"], DEFAULT_LOGO);
    assert_eq!(before["realm_logo_source"], "D");
    let mut queue = register_for(&owner, r#"["realm"]"#);
    let body = upload_logo(&owner, false, "logo.png", &png()).success();
    assert_eq!(body.as_object().unwrap().keys().filter(|k| *k != "result" && *k != "msg").count(), 0, "plain success: {body}");
    let event = queue.wait_for("the logo update", image_update("logo"));
    assert_event_matches_openapi(&event);
    let url = event["data"]["logo_url"].as_str().unwrap().to_string();
    assert_eq!(event["data"], json!({ "logo_url": url, "logo_source": "U" }));
    assert_eq!(download(None, &url, &[]).bytes, png());
    let after = images(&owner);
    assert_eq!((after["realm_logo_url"].as_str(), after["realm_logo_source"].as_str()), (Some(url.as_str()), Some("U")));
    for field in ["realm_icon_url", "realm_icon_source", "realm_night_logo_url", "realm_night_logo_source"] {
        assert_eq!(after[field], before[field], "{field}");
    }
}

#[test]
fn the_night_logo_changes_only_its_own_fields() {
    let owner = fresh_organization();
    let before = images(&owner);
    let mut queue = register_for(&owner, r#"["realm"]"#);
    upload_logo(&owner, true, "night.png", &png()).success();
    let event = queue.wait_for("the night logo update", image_update("night_logo"));
    assert_event_matches_openapi(&event);
    let url = event["data"]["night_logo_url"].as_str().unwrap().to_string();
    assert_eq!(event["data"], json!({ "night_logo_url": url, "night_logo_source": "U" }));
    let after = images(&owner);
    assert_eq!((after["realm_night_logo_url"].as_str(), after["realm_night_logo_source"].as_str()), (Some(url.as_str()), Some("U")));
    for field in ["realm_icon_url", "realm_icon_source", "realm_logo_url", "realm_logo_source"] {
        assert_eq!(after[field], before[field], "{field}");
    }
}

#[test]
fn deleting_a_logo_goes_back_to_the_default_and_removes_only_that_image() {
    let owner = fresh_organization();
    upload_logo(&owner, false, "day.png", &png()).success();
    upload_logo(&owner, true, "night.png", &png()).success();
    let uploaded = images(&owner);
    let mut queue = register_for(&owner, r#"["realm"]"#);
    owner.delete("/realm/logo", &[("night", "true")]).success();
    let event = queue.wait_for("the night logo removal", image_update("night_logo"));
    assert_eq!(event["data"], json!({ "night_logo_url": DEFAULT_LOGO, "night_logo_source": "D" }));
    let after = images(&owner);
    assert_eq!((after["realm_night_logo_url"].as_str(), after["realm_night_logo_source"].as_str()), (Some(DEFAULT_LOGO), Some("D")));
    assert_eq!(after["realm_logo_url"], uploaded["realm_logo_url"], "the day logo stays");
    assert_eq!(download(None, uploaded["realm_night_logo_url"].as_str().unwrap(), &[]).status, 404);
    assert_eq!(download(None, uploaded["realm_logo_url"].as_str().unwrap(), &[]).status, 200);
}

#[test]
fn the_logo_needs_its_night_parameter() {
    let owner = fresh_organization();
    upload_files_to(&owner, "/realm/logo", &[("file", "logo.png", &png())])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'night' argument");
    owner.delete("/realm/logo", &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'night' argument");
}

#[test]
fn get_realm_logo_redirects_to_the_chosen_logo() {
    let owner = fresh_organization();
    upload_logo(&owner, true, "night.png", &png()).success();
    let state = images(&owner);
    let night = state["realm_night_logo_url"].as_str().unwrap();
    assert_eq!(get_unfollowed(&owner, "/realm/logo?night=true"), (302, Some(format!("{night}&night=true"))));
    assert_eq!(get_unfollowed(&owner, "/realm/logo?night=false"), (302, Some(format!("{DEFAULT_LOGO}&night=false"))));
}

#[test]
fn the_default_logo_loads() {
    let served = download(None, "/static/images/logo/zulip-org-logo.svg", &[("Sec-Fetch-Mode", "no-cors")]);
    assert_eq!(served.status, 200);
    assert_eq!(served.header("Content-Type").map(|t| t.starts_with("image/svg+xml")), Some(true), "{:?}", served.header("Content-Type"));
}
