//! Avatars: `POST`/`DELETE /users/me/avatar`, the uploaded image served under
//! `/user_avatars/`, `avatar_source`/`avatar_url`/`avatar_version` wherever a user is
//! shown, and the `realm_user` update event. Every test changes only users it creates.

mod accounts;
mod common;
mod event_support;
mod upload_support;
use accounts::*;
use common::*;
use event_support::*;
use serde_json::{json, Value};
use upload_support::*;

fn upload_avatar(client: &Client, file_name: &str, bytes: &[u8]) -> Resp {
    upload_files_to(client, "/users/me/avatar", &[("file", file_name, bytes)])
}

/// The caller's own User object.
fn me(client: &Client) -> Value {
    client.get("/users/me", &[]).success()
}

fn version(client: &Client) -> i64 {
    me(client)["avatar_version"].as_i64().unwrap()
}

fn is_gravatar(url: &str) -> bool {
    url.starts_with("https://secure.gravatar.com/avatar/")
}

/// The `realm_user` avatar update of `user_id`.
fn avatar_update(user_id: i64) -> impl Fn(&Value) -> bool {
    move |e: &Value| {
        e["type"] == "realm_user" && e["op"] == "update" && e["person"]["user_id"] == user_id && e["person"].get("avatar_url").is_some()
    }
}

fn assert_event_matches_openapi(event: &Value) {
    let body = json!({ "result": "success", "msg": "", "queue_id": "q", "events": [event] });
    assert_matches_openapi("GET", "/events", &body);
}

// ---- the happy path

#[test]
fn an_uploaded_avatar_is_served_as_uploaded_without_credentials() {
    let user = new_user("avatar-served");
    let bytes = png();
    let body = upload_avatar(&user, "me.png", &bytes).success();
    let url = body["avatar_url"].as_str().unwrap();
    assert!(url.starts_with("/user_avatars/") && url.contains("/avatars/"), "{url}");
    let served = download(None, url, &[]);
    assert_eq!(served.status, 200);
    assert_eq!(served.header("Content-Type"), Some("image/png"));
    assert_eq!(served.bytes, bytes);
}

#[test]
fn an_upload_bumps_avatar_version_and_makes_the_source_uploaded() {
    let user = new_user("avatar-version");
    let before = version(&user);
    let url = upload_avatar(&user, "me.jpg", &jpeg()).success()["avatar_url"].as_str().unwrap().to_string();
    let own = me(&user);
    assert_eq!(own["avatar_version"], before + 1);
    assert_eq!(own["avatar_url"], url.as_str());
    assert!(url.ends_with(&format!("?version={}", before + 1)), "{url}");
    let state = user.post("/register", &[("fetch_event_types", r#"["realm_user"]"#)]).success();
    assert_eq!(state["avatar_source"], "U");
    assert_eq!(state["avatar_url"], url.as_str());
    assert_eq!(state["avatar_url_medium"], url.as_str(), "stored unresized: the medium avatar is the same image");
}

#[test]
fn everyone_hears_of_a_new_avatar_with_its_urls_and_version() {
    let user = new_user("avatar-event");
    let mut queue = register_for(&Client::dev("othello@zulip.com"), r#"["realm_user"]"#);
    let url = upload_avatar(&user, "me.png", &png()).success()["avatar_url"].as_str().unwrap().to_string();
    let event = queue.wait_for("the avatar update", avatar_update(user.user_id));
    assert_event_matches_openapi(&event);
    assert_eq!(
        event["person"],
        json!({
            "user_id": user.user_id,
            "avatar_source": "U",
            "avatar_url": url,
            "avatar_url_medium": url,
            "avatar_version": version(&user),
        })
    );
}

#[test]
fn an_uploaded_avatar_is_never_left_to_client_gravatar() {
    let user = new_user("avatar-client-gravatar");
    let path = format!("/users/{}", user.user_id);
    let shown = |client_gravatar: &str| user.get(&path, &[("client_gravatar", client_gravatar)]).success()["user"]["avatar_url"].clone();
    assert_eq!(shown("true"), Value::Null, "a Gravatar avatar the client computes itself");
    let url = upload_avatar(&user, "me.png", &png()).success()["avatar_url"].clone();
    assert_eq!(shown("true"), url);
    let sent = user.post("/messages", &[("type", "direct"), ("to", &format!("[{}]", user.user_id)), ("content", "new face")]).success();
    let id = sent["id"].as_i64().unwrap();
    let message = user.get(&format!("/messages/{id}"), &[("client_gravatar", "true")]).success();
    assert_eq!(message["message"]["avatar_url"], url, "messages carry the uploaded avatar too");
}

#[test]
fn deleting_the_avatar_goes_back_to_gravatar_and_removes_the_image() {
    let user = new_user("avatar-delete");
    let mut queue = register_for(&Client::dev("othello@zulip.com"), r#"["realm_user"]"#);
    let uploaded = upload_avatar(&user, "me.png", &png()).success()["avatar_url"].as_str().unwrap().to_string();
    queue.wait_for("the upload's update", avatar_update(user.user_id));
    let before = version(&user);
    let body = user.delete("/users/me/avatar", &[]).success();
    let url = body["avatar_url"].as_str().unwrap();
    assert!(is_gravatar(url) && url.ends_with(&format!("version={}", before + 1)), "{url}");
    assert_eq!(me(&user)["avatar_url"], url);
    assert_eq!(download(None, &uploaded, &[]).status, 404, "the removed image is gone");
    let event = queue.wait_for("the removal's update", avatar_update(user.user_id));
    assert_eq!(event["person"]["avatar_source"], "G");
    assert_eq!(event["person"]["avatar_url"], url);
    assert_eq!(event["person"]["avatar_version"], before + 1);
    assert!(is_gravatar(event["person"]["avatar_url_medium"].as_str().unwrap()));
}

#[test]
fn a_new_avatar_replaces_the_old_image() {
    let user = new_user("avatar-replace");
    let first = upload_avatar(&user, "one.png", &png()).success()["avatar_url"].as_str().unwrap().to_string();
    let second = upload_avatar(&user, "two.jpg", &jpeg()).success()["avatar_url"].as_str().unwrap().to_string();
    assert_ne!(first, second);
    assert_eq!(download(None, &first, &[]).status, 404);
    let served = download(None, &second, &[]);
    assert_eq!((served.status, served.header("Content-Type")), (200, Some("image/jpeg")));
}

#[test]
fn a_bots_avatar_change_also_updates_its_bot_entry() {
    let owner = new_user("avatar-bot-owner");
    let bot = new_bot(&owner, "1", &[]);
    let mut queue = register_for(&owner, r#"["realm_bot"]"#);
    let url = upload_avatar(&bot, "bot.png", &png()).success()["avatar_url"].clone();
    let event =
        queue.wait_for("the bot's update", |e| e["type"] == "realm_bot" && e["op"] == "update" && e["bot"]["user_id"] == bot.user_id);
    assert_eq!(event["bot"], json!({ "user_id": bot.user_id, "avatar_url": url }));
}

// ---- refusals

#[test]
fn exactly_one_file_is_an_avatar() {
    let user = new_user("avatar-count");
    let before = version(&user);
    user.post("/users/me/avatar", &[]).bad_request("BAD_REQUEST", "You must upload exactly one avatar.");
    upload_files_to(&user, "/users/me/avatar", &[("a", "a.png", &png()), ("b", "b.png", &png())])
        .bad_request("BAD_REQUEST", "You must upload exactly one avatar.");
    assert_eq!(version(&user), before);
}

#[test]
fn only_images_browsers_show_are_avatars() {
    let user = new_user("avatar-type");
    let before = version(&user);
    upload_avatar(&user, "notes.txt", b"hello").bad_request("BAD_IMAGE", "Invalid image format");
    upload_avatar(&user, "scan.tiff", b"II*\x00").bad_request("BAD_IMAGE", "Invalid image format");
    upload_avatar(&user, "fake.png", b"not an image at all")
        .bad_request("BAD_IMAGE", "Could not decode image; did you upload an image file?");
    assert_eq!(version(&user), before);
    assert!(is_gravatar(me(&user)["avatar_url"].as_str().unwrap()));
}

#[test]
fn avatars_over_five_mib_are_refused() {
    let user = new_user("avatar-size");
    let before = version(&user);
    let mut big = png();
    big.resize(5 * 1024 * 1024 + 1, 0);
    upload_avatar(&user, "big.png", &big).bad_request("BAD_REQUEST", "Uploaded file is larger than the allowed limit of 5 MiB");
    assert_eq!(version(&user), before);
}

#[test]
fn a_refused_upload_tells_no_one() {
    let user = new_user("avatar-quiet");
    let mut queue = register_for(&user, r#"["realm_user", "message"]"#);
    upload_avatar(&user, "notes.txt", b"hello").bad_request("BAD_IMAGE", "Invalid image format");
    let events = queue.events_before_sentinel();
    assert!(!events.iter().any(avatar_update(user.user_id)), "{events:?}");
}

#[test]
fn avatar_changes_need_credentials() {
    anonymous("POST", "/users/me/avatar", &[]).error(401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
    anonymous("DELETE", "/users/me/avatar", &[]).error(401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
}
