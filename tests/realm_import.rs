//! Organization import (`make import-organization`, `scripts/import-organization.py`,
//! the `/server_admin/imports` routes): the round trip through an export, the archives
//! refused with nothing imported, and an unfinished import nobody can sign into.

// The Zulip-shaped archive's rows are long `json!` literals.
#![recursion_limit = "256"]

mod common;
mod event_support;
mod onboarding;
mod upload_support;
mod zulip_archive;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use common::*;
use event_support::*;
use serde_json::{json, Value};
use sha2::Digest;
use upload_support::{download, upload, upload_files_to};

const PASSWORD: &str = "import-test-password-5312";
/// The development value of the secret (`wrangler.toml` `[vars]`).
const SECRET: &str = "dev-server-admin-secret";
/// A valid 1x1 PNG.
const PNG_HEX: &str = "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082";

fn png() -> Vec<u8> {
    (0..PNG_HEX.len()).step_by(2).map(|i| u8::from_str_radix(&PNG_HEX[i..i + 2], 16).unwrap()).collect()
}

fn subdomain() -> String {
    unique("imported").to_lowercase()
}

/// Runs the import script against the test server.
fn import_script(args: &[&str]) -> Output {
    let progress = std::env::temp_dir().join(format!("{}.progress.json", unique("import")));
    Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/import-organization.py"))
        .args(args)
        .env("SERVER_URL", server_url())
        .env("SERVER_ADMIN_SECRET", SECRET)
        .env("IMPORT_PROGRESS_FILE", progress)
        .output()
        .unwrap()
}

fn import_archive(archive: &Path, string_id: &str) -> Output {
    import_script(&[archive.to_str().unwrap(), string_id])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// A server-admin request with the secret.
fn server_admin(method: &str, path: &str, fields: &[(&str, &str)]) -> Resp {
    let url = format!("{}/api/v1{path}", server_url());
    let req = ureq::request(method, &url).set("Authorization", &format!("Bearer {SECRET}"));
    let what = format!("{method} {path}");
    let (status, text) = status_and_text(req.send_form(fields), &what);
    json_resp(status, &text, &what)
}

/// Signs in with the development login (no password) to `string_id`.
fn dev_login(string_id: &str, email: &str) -> Resp {
    request("POST", "/dev_fetch_api_key", &[], Some(Body::Form(&[("username", email)])), None, Some(string_id))
}

/// The organization `string_id` does not exist: its subdomain is unknown.
fn assert_no_organization(string_id: &str) {
    dev_login(string_id, "ada@tiny.example.com").error(404, "NONEXISTENT_SUBDOMAIN", "Invalid subdomain");
}

// ---- a tiny archive written by hand, and its broken variants

fn tiny_realm() -> Value {
    json!({
        "zerver_realm": [{ "id": 1, "name": "Tiny", "string_id": "tiny", "date_created": 1_500_000_000.0 }],
        "zerver_userprofile": [{ "id": 5, "email": "ada@tiny.example.com", "delivery_email": "ada@tiny.example.com",
            "full_name": "Ada Tiny", "role": 100, "is_active": true, "is_bot": false, "date_joined": 1_600_000_000.0 }],
        "zerver_stream": [{ "id": 3, "name": "general", "invite_only": false, "date_created": 1_500_000_000.0 }],
        "zerver_recipient": [{ "id": 10, "type": 1, "type_id": 5 }, { "id": 11, "type": 2, "type_id": 3 }],
        "zerver_subscription": [{ "id": 1, "user_profile": 5, "recipient": 11, "active": true }],
        "zerver_client": [{ "id": 1, "name": "website" }],
    })
}

fn tiny_messages(sender: i64) -> Value {
    json!({
        "zerver_message": [{ "id": 100, "sender": sender, "recipient": 11, "subject": "hello", "content": "zebra sentinel",
            "rendered_content": "<p>zebra sentinel</p>", "date_sent": 1_600_000_100.0, "sending_client": 1 }],
        "zerver_usermessage": [],
    })
}

/// An unpacked archive with these files (path, contents).
fn folder_archive(files: &[(&str, Vec<u8>)]) -> PathBuf {
    let root = std::env::temp_dir().join(unique("import-archive"));
    for (path, bytes) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
    root
}

fn tiny_archive(realm: &Value, messages: &Value) -> PathBuf {
    folder_archive(&[
        ("realm.json", realm.to_string().into_bytes()),
        ("messages-000001.json", messages.to_string().into_bytes()),
        ("attachment.json", br#"{"zerver_attachment": []}"#.to_vec()),
    ])
}

/// A `.tar.gz` of a folder archive, as an export writes it.
fn tar_gz(folder: &Path) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default()));
    builder.append_dir_all("zulip-export-test", folder).unwrap();
    builder.into_inner().unwrap().finish().unwrap()
}

#[test]
fn an_archive_imports_with_timestamps_kept_no_password_and_its_messages_searchable() {
    let id = subdomain();
    let archive_dir = tiny_archive(&tiny_realm(), &tiny_messages(5));
    let archive = std::env::temp_dir().join(format!("{}.tar.gz", unique("tiny")));
    std::fs::write(&archive, tar_gz(&archive_dir)).unwrap();
    let out = import_archive(&archive, &id);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Organization imported"));

    let ada = Client::dev_in(Some(&id), "ada@tiny.example.com");
    let me = ada.get("/users/me", &[]).success();
    assert_eq!(me["date_joined"], "2020-09-13T12:26:40+00:00");
    assert_eq!(me["role"], 100);
    let narrow = r#"[{"operator":"search","operand":"zebras"}]"#;
    let found = ada.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", narrow)]).success();
    let messages = found["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "{found}");
    assert_eq!(messages[0]["timestamp"], 1_600_000_100);
    assert_eq!(messages[0]["subject"], "hello");
    assert_eq!(messages[0]["client"], "website");
    // No password came with the archive: a password sign-in fails.
    let form: &[(&str, &str)] = &[("username", "ada@tiny.example.com"), ("password", PASSWORD)];
    request("POST", "/fetch_api_key", &[], Some(Body::Form(form)), None, Some(&id)).error(
        401,
        "AUTHENTICATION_FAILED",
        "Your username or password is incorrect",
    );
}

#[test]
fn an_archive_without_rendered_content_is_rendered_on_import() {
    let id = subdomain();
    let mut messages = tiny_messages(5);
    messages["zerver_message"][0]["content"] = json!("**bold** move");
    messages["zerver_message"][0].as_object_mut().unwrap().remove("rendered_content");
    let out = import_archive(&tiny_archive(&tiny_realm(), &messages), &id);
    assert!(out.status.success(), "{}", stderr(&out));
    let ada = Client::dev_in(Some(&id), "ada@tiny.example.com");
    let got = ada.get("/messages", &[("anchor", "newest"), ("num_before", "5"), ("num_after", "0")]).success();
    assert_eq!(got["messages"][0]["content"], "<p><strong>bold</strong> move</p>");
}

/// The tiny archive with a second user, Bo (archive id 6), for references between users.
fn tiny_realm_with_bo() -> Value {
    let mut realm = tiny_realm();
    let mut bo = realm["zerver_userprofile"][0].clone();
    bo["id"] = json!(6);
    bo["email"] = json!("bo@tiny.example.com");
    bo["delivery_email"] = json!("bo@tiny.example.com");
    bo["full_name"] = json!("Bo Tiny");
    realm["zerver_userprofile"].as_array_mut().unwrap().push(bo);
    realm["zerver_recipient"].as_array_mut().unwrap().push(json!({ "id": 12, "type": 1, "type_id": 6 }));
    realm
}

fn user_id_by_email(client: &Client, email: &str) -> i64 {
    let users = client.get("/users", &[]).success();
    users["members"].as_array().unwrap().iter().find(|u| u["email"] == email).unwrap()["user_id"].as_i64().unwrap()
}

#[test]
fn a_users_profile_value_names_the_imported_user_ids() {
    let id = subdomain();
    let mut realm = tiny_realm_with_bo();
    realm["zerver_customprofilefield"] = json!([{ "id": 2, "name": "Mentor", "hint": "", "field_type": 6, "field_data": "", "order": 1 }]);
    realm["zerver_customprofilefieldvalue"] = json!([{ "id": 1, "field": 2, "user_profile": 5, "value": "[6]", "rendered_value": null }]);
    let out = import_archive(&tiny_archive(&realm, &tiny_messages(5)), &id);
    assert!(out.status.success(), "{}", stderr(&out));

    let ada = Client::dev_in(Some(&id), "ada@tiny.example.com");
    let bo = user_id_by_email(&ada, "bo@tiny.example.com");
    assert_ne!(bo, 6, "the import gave Bo a new id");
    let me = ada.get(&format!("/users/{}", ada.user_id), &[("include_custom_profile_fields", "true")]).success();
    let values: Vec<Value> = me["user"]["profile_data"].as_object().unwrap().values().map(|v| v["value"].clone()).collect();
    let ids: Vec<Vec<i64>> = values.iter().map(|v| serde_json::from_str(v.as_str().unwrap()).unwrap()).collect();
    assert_eq!(ids, vec![vec![bo]], "{me}");
}

#[test]
fn a_moved_messages_edit_history_names_the_imported_editor_and_channels() {
    let id = subdomain();
    let mut realm = tiny_realm();
    realm["zerver_stream"].as_array_mut().unwrap().push(json!({ "id": 4, "name": "random", "invite_only": false, "date_created": 1.5e9 }));
    realm["zerver_recipient"].as_array_mut().unwrap().push(json!({ "id": 13, "type": 2, "type_id": 4 }));
    realm["zerver_subscription"].as_array_mut().unwrap().push(json!({ "id": 2, "user_profile": 5, "recipient": 13, "active": true }));
    let mut messages = tiny_messages(5);
    let history = json!([{ "user_id": 5, "timestamp": 1_600_000_200, "prev_stream": 3, "stream": 4 }]);
    messages["zerver_message"][0]["recipient"] = json!(13);
    messages["zerver_message"][0]["edit_history"] = json!(history.to_string());
    messages["zerver_message"][0]["last_moved_time"] = json!(1_600_000_200.0);
    let out = import_archive(&tiny_archive(&realm, &messages), &id);
    assert!(out.status.success(), "{}", stderr(&out));

    let ada = Client::dev_in(Some(&id), "ada@tiny.example.com");
    let channel = |name: &str| ada.get("/get_stream_id", &[("stream", name)]).success()["stream_id"].as_i64().unwrap();
    let got = ada.get("/messages", &[("anchor", "newest"), ("num_before", "5"), ("num_after", "0")]).success();
    let message_id = got["messages"][0]["id"].as_i64().unwrap();
    let versions = ada.get(&format!("/messages/{message_id}/history"), &[]).success()["message_history"].clone();
    let moved = versions.as_array().unwrap().iter().find(|v| v.get("prev_stream").is_some()).cloned().expect("the move");
    assert_eq!(
        (&moved["user_id"], &moved["prev_stream"], &moved["stream"]),
        (&json!(ada.user_id), &json!(channel("general")), &json!(channel("random")))
    );
}

/// The tiny archive with avatar files as Zulip's export writes them: `records` list
/// (user id, path, bytes).
fn tiny_archive_with_avatars(records: &[(i64, &str, Vec<u8>)]) -> PathBuf {
    let mut realm = tiny_realm();
    realm["zerver_userprofile"][0]["avatar_source"] = json!("U");
    let json_records: Vec<Value> = records
        .iter()
        .map(|(user, path, _)| json!({ "realm_id": 1, "user_profile_id": user, "path": path, "s3_path": path, "content_type": null }))
        .collect();
    let mut files = vec![
        ("realm.json".to_string(), realm.to_string().into_bytes()),
        ("messages-000001.json".to_string(), tiny_messages(5).to_string().into_bytes()),
        ("avatars/records.json".to_string(), Value::from(json_records).to_string().into_bytes()),
    ];
    files.extend(records.iter().map(|(_, path, bytes)| (format!("avatars/{path}"), bytes.clone())));
    let borrowed: Vec<(&str, Vec<u8>)> = files.iter().map(|(p, b)| (p.as_str(), b.clone())).collect();
    folder_archive(&borrowed)
}

fn avatar_bytes(string_id: &str, email: &str) -> Vec<u8> {
    let client = Client::dev_in(Some(string_id), email);
    let url = client.get("/users/me", &[]).success()["avatar_url"].as_str().unwrap().to_string();
    assert!(url.starts_with("/user_avatars/"), "{url}");
    download(None, &url, &[]).bytes
}

#[test]
fn an_avatar_original_this_server_cannot_show_gives_way_to_the_served_png() {
    let id = subdomain();
    let tiff = b"II*\0 a TIFF original".to_vec();
    let archive = tiny_archive_with_avatars(&[(5, "1/abc.original", tiff), (5, "1/abc.png", png())]);
    let out = import_archive(&archive, &id);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(avatar_bytes(&id, "ada@tiny.example.com"), png());
    // Stored under a name made from its bytes (what a removed import's check looks for).
    let hash: String = sha2::Sha256::digest(png()).iter().map(|b| format!("{b:02x}")).collect();
    let url = Client::dev_in(Some(&id), "ada@tiny.example.com").get("/users/me", &[]).success()["avatar_url"].clone();
    assert!(url.as_str().unwrap().contains(&format!("/avatars/imported-{}.png?", &hash[..32])), "{url}");
}

#[test]
fn avatars_of_users_outside_the_archive_such_as_system_bots_are_left_out() {
    let id = subdomain();
    // 99: a system bot of the exporting server (Zulip lists those in zerver_userprofile_crossrealm).
    let archive = tiny_archive_with_avatars(&[(99, "1/bot.png", png()), (5, "1/ada.original", png())]);
    let out = import_archive(&archive, &id);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(avatar_bytes(&id, "ada@tiny.example.com"), png());
}

// ---- refused archives: nothing imported

#[test]
fn an_organization_icon_that_is_no_image_is_refused_and_the_stored_avatars_removed() {
    let id = subdomain();
    let mut realm = tiny_realm();
    realm["zerver_realm"][0]["icon_source"] = json!("U");
    let mut avatar = png();
    avatar.extend(unique(" unique trailer").into_bytes());
    let archive = tiny_archive_with_avatars(&[(5, "1/ada.original", avatar.clone())]);
    std::fs::write(archive.join("realm.json"), realm.to_string()).unwrap();
    std::fs::create_dir_all(archive.join("realm_icons/1")).unwrap();
    std::fs::write(archive.join("realm_icons/1/icon.png"), b"not an image").unwrap();
    let records = json!([{ "realm_id": 1, "path": "1/icon.png", "s3_path": "1/icon.png" }]);
    std::fs::write(archive.join("realm_icons/records.json"), records.to_string()).unwrap();
    // Started by hand to learn the organization's id; the script's start finds it under way.
    let realm_id = start(&id).success()["realm_id"].as_i64().unwrap();
    let out = import_archive(&archive, &id);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("Invalid archive: the organization image '1/icon.png' is not an image this server can show"),
        "{}",
        stderr(&out)
    );
    assert_no_organization(&id);
    // The avatar stored before the refusal left R2 with the rest (its name: the bytes' hash).
    let hash: String = sha2::Sha256::digest(&avatar).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(stored_bytes(&format!("{realm_id}/avatars/imported-{}.png", &hash[..32])), None);
}

/// The bytes the bucket holds under `key` (read by wrangler from the server's local state).
fn stored_bytes(key: &str) -> Option<Vec<u8>> {
    let state = std::env::var("TEST_SERVER_STATE").expect("TEST_SERVER_STATE is not set: run with scripts/with-test-server.sh");
    let out = Command::new("node_modules/.bin/wrangler")
        .args(["r2", "object", "get", &format!("team-chat-uploads/{key}"), "--local", "--persist-to", &state, "--pipe"])
        .output()
        .expect("wrangler runs");
    out.status.success().then_some(out.stdout)
}

#[test]
fn a_truncated_archive_is_refused_and_nothing_is_imported() {
    let id = subdomain();
    let whole = tar_gz(&tiny_archive(&tiny_realm(), &tiny_messages(5)));
    let archive = std::env::temp_dir().join(format!("{}.tar.gz", unique("truncated")));
    std::fs::write(&archive, &whole[..whole.len() / 2]).unwrap();
    let out = import_archive(&archive, &id);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("Invalid archive:") && stderr(&out).contains("truncated"), "{}", stderr(&out));
    assert_no_organization(&id);
}

#[test]
fn wrong_json_is_refused_and_nothing_is_imported() {
    let id = subdomain();
    let archive = folder_archive(&[("realm.json", br#"{"zerver_realm": [{"id": 1"#.to_vec())]);
    let out = import_archive(&archive, &id);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("Invalid archive: realm.json is not valid JSON"), "{}", stderr(&out));
    assert_no_organization(&id);
}

#[test]
fn an_upload_path_escaping_the_upload_folder_is_refused_and_nothing_is_imported() {
    let id = subdomain();
    let attachments = json!({ "zerver_attachment": [{ "id": 1, "owner": 5, "path_id": "1/../../../etc/passwd",
        "file_name": "passwd", "size": 4, "create_time": 1.0, "messages": [] }] });
    let archive =
        folder_archive(&[("realm.json", tiny_realm().to_string().into_bytes()), ("attachment.json", attachments.to_string().into_bytes())]);
    let out = import_archive(&archive, &id);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("the upload path '1/../../../etc/passwd' leaves the uploads folder"), "{}", stderr(&out));
    assert_no_organization(&id);
}

#[test]
fn a_reference_to_an_id_outside_the_archive_is_refused_and_nothing_is_imported() {
    let id = subdomain();
    let mut realm = tiny_realm();
    realm["zerver_subscription"][0]["user_profile"] = json!(99);
    let out = import_archive(&tiny_archive(&realm, &tiny_messages(5)), &id);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("zerver_subscription refers to user_profile 99, which is not in the archive"), "{}", stderr(&out));
    assert_no_organization(&id);
}

#[test]
fn two_users_with_one_email_are_refused_and_nothing_is_imported() {
    let id = subdomain();
    let mut realm = tiny_realm();
    let mut twin = realm["zerver_userprofile"][0].clone();
    twin["id"] = json!(6);
    realm["zerver_userprofile"].as_array_mut().unwrap().push(twin);
    let out = import_archive(&tiny_archive(&realm, &tiny_messages(5)), &id);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("zerver_userprofile holds delivery_email 'ada@tiny.example.com' twice"), "{}", stderr(&out));
    assert_no_organization(&id);
}

#[test]
fn a_message_from_a_sender_outside_the_archive_is_refused_and_the_partial_import_removed() {
    let id = subdomain();
    let out = import_archive(&tiny_archive(&tiny_realm(), &tiny_messages(42)), &id);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("zerver_message refers to sender 42, which is not in the archive"), "{}", stderr(&out));
    assert_no_organization(&id);
}

// ---- an unfinished import

fn start(id: &str) -> Resp {
    let realm = tiny_realm().to_string();
    server_admin("POST", "/server_admin/imports", &[("string_id", id), ("realm", &realm)])
}

#[test]
fn an_unfinished_import_cannot_be_signed_into_or_reactivated() {
    let id = subdomain();
    start(&id).success();
    dev_login(&id, "ada@tiny.example.com").error(401, "REALM_DEACTIVATED", "This organization has been deactivated");
    server_admin("POST", &format!("/server_admin/organizations/{id}/reactivate"), &[]).bad_request("BAD_REQUEST", "No such organization");
    dev_login(&id, "ada@tiny.example.com").error(401, "REALM_DEACTIVATED", "This organization has been deactivated");
    // Sent again, the first step changes nothing; the last one opens the organization.
    start(&id).success();
    server_admin("POST", &format!("/server_admin/imports/{id}/finish"), &[]).success();
    dev_login(&id, "ada@tiny.example.com").success();
}

#[test]
fn an_unfinished_import_can_be_removed_and_imported_again() {
    let id = subdomain();
    start(&id).success();
    let out = import_script(&["--remove", &id]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_no_organization(&id);
    let out = import_archive(&tiny_archive(&tiny_realm(), &tiny_messages(5)), &id);
    assert!(out.status.success(), "{}", stderr(&out));
    dev_login(&id, "ada@tiny.example.com").success();
}

#[test]
fn a_resent_message_chunk_is_harmless() {
    let id = subdomain();
    start(&id).success();
    let chunk = tiny_messages(5).to_string();
    for _ in 0..2 {
        server_admin("POST", &format!("/server_admin/imports/{id}/messages"), &[("chunk", &chunk)]).success();
    }
    server_admin("POST", &format!("/server_admin/imports/{id}/finish"), &[]).success();
    let ada = Client::dev_in(Some(&id), "ada@tiny.example.com");
    let got = ada.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0")]).success();
    assert_eq!(got["messages"].as_array().unwrap().len(), 1, "{got}");
}

/// The tiny organization started without its channel subscription (the script holds such
/// rows back for the tables step).
fn start_without_channel_subscriptions(id: &str) {
    let mut realm = tiny_realm();
    realm["zerver_subscription"] = json!([]);
    server_admin("POST", "/server_admin/imports", &[("string_id", id), ("realm", &realm.to_string())]).success();
}

fn tables(id: &str, chunk: &Value) -> Resp {
    server_admin("POST", &format!("/server_admin/imports/{id}/tables"), &[("chunk", &chunk.to_string())])
}

#[test]
fn channel_subscriptions_and_attachments_sent_after_the_start_are_imported_and_harmless_twice() {
    let id = subdomain();
    start_without_channel_subscriptions(&id);
    let chunk = json!({
        "zerver_subscription": tiny_realm()["zerver_subscription"],
        "zerver_attachment": [{ "id": 1, "owner": 5, "path_id": "1/ab/notes.txt", "file_name": "notes.txt", "size": 5,
            "create_time": 1_600_000_000.0 }],
    });
    for _ in 0..2 {
        assert_eq!(tables(&id, &chunk).success()["rows"], 2);
    }
    server_admin("POST", &format!("/server_admin/imports/{id}/messages"), &[("chunk", &tiny_messages(5).to_string())]).success();
    let finished = server_admin("POST", &format!("/server_admin/imports/{id}/finish"), &[]).success();
    assert_eq!(finished["uploads_without_file"], 1, "no file was sent for the attachment: {finished}");
    assert!(finished["first_upload_without_file"].as_str().unwrap().ends_with("/ab/notes.txt"), "{finished}");
    let ada = Client::dev_in(Some(&id), "ada@tiny.example.com");
    let subs = ada.get("/users/me/subscriptions", &[]).success();
    let names: Vec<&str> = subs["subscriptions"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["general"]);
    let attachments = ada.get("/attachments", &[]).success();
    assert_eq!(attachments["attachments"].as_array().unwrap().len(), 1, "{attachments}");
    assert_eq!(attachments["attachments"][0]["name"], "notes.txt");
}

#[test]
fn the_script_warns_of_uploads_whose_file_the_archive_lacks() {
    let id = subdomain();
    let attachments = json!({ "zerver_attachment": [{ "id": 1, "owner": 5, "path_id": "1/cd/lost.pdf", "file_name": "lost.pdf",
        "size": 9, "create_time": 1_600_000_000.0 }] });
    let archive = folder_archive(&[
        ("realm.json", tiny_realm().to_string().into_bytes()),
        ("messages-000001.json", tiny_messages(5).to_string().into_bytes()),
        ("attachment.json", attachments.to_string().into_bytes()),
    ]);
    let out = import_archive(&archive, &id);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Warning: 1 upload(s) listed in attachment.json had no file in uploads/"), "{stdout}");
    dev_login(&id, "ada@tiny.example.com").success();
}

#[test]
fn a_tables_chunk_naming_someone_outside_the_archive_is_refused_and_writes_nothing() {
    let id = subdomain();
    start_without_channel_subscriptions(&id);
    let mut subscription = tiny_realm()["zerver_subscription"][0].clone();
    let good = subscription.clone();
    subscription["id"] = json!(2);
    subscription["user_profile"] = json!(99);
    tables(&id, &json!({ "zerver_subscription": [good, subscription] }))
        .bad_request("BAD_REQUEST", "Invalid archive: zerver_subscription refers to user_profile 99, which is not in the archive");
    server_admin("POST", &format!("/server_admin/imports/{id}/finish"), &[]).success();
    let ada = Client::dev_in(Some(&id), "ada@tiny.example.com");
    let subs = ada.get("/users/me/subscriptions", &[]).success();
    assert_eq!(subs["subscriptions"], json!([]), "the refused chunk wrote none of its rows");
}

#[test]
fn a_direct_message_subscription_belongs_with_realm_json() {
    let id = subdomain();
    start_without_channel_subscriptions(&id);
    let personal = json!({ "id": 7, "user_profile": 5, "recipient": 10, "active": true });
    tables(&id, &json!({ "zerver_subscription": [personal] })).bad_request(
        "BAD_REQUEST",
        "Invalid archive: zerver_subscription rows of direct messages go with realm.json, not in a later chunk",
    );
}

#[test]
fn importing_needs_the_server_admin_secret() {
    let url = format!("{}/api/v1/server_admin/imports", server_url());
    let response = match ureq::post(&url).set("Authorization", "Bearer wrong").send_form(&[("string_id", "x")]) {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(response.status(), 401);
}

// ---- the round trip

/// Requests a full export (with private data, which needs the owner's consent, as Zulip's
/// does) and answers the archive's bytes.
fn export_archive(owner: &Client) -> Vec<u8> {
    owner.patch("/settings", &[("allow_private_data_export", "true")]).success();
    let mut queue = register_for(owner, r#"["realm_export"]"#);
    let id = owner.post("/export/realm", &[("export_type", "2")]).success()["id"].as_i64().unwrap();
    let event = queue.wait_for("finished realm_export", |e| {
        e["type"] == "realm_export" && e["exports"].as_array().unwrap().iter().any(|x| x["id"] == id && x["pending"] == false)
    });
    let export = event["exports"].as_array().unwrap().iter().find(|x| x["id"] == id).cloned().unwrap();
    let url = export["export_url"].as_str().expect("export_url");
    let got = download(Some(owner), &url[url.find("/user_avatars/").unwrap()..], &[]);
    assert_eq!(got.status, 200);
    got.bytes
}

/// The seeded organization: owner, member, a bot, channels public and private, messages
/// with a mention, an upload, a reaction, a star, a custom emoji, a group, a profile field.
fn seeded_organization() -> (Client, Client, Vec<u8>) {
    let (owner, member) = organization_with_member("importsrc", "Import Source", PASSWORD);
    for c in [&owner, &member] {
        c.patch("/settings", &[("allow_private_data_export", "true")]).success();
    }
    let members = format!("[{}]", member.user_id);
    let both = format!("[{}, {}]", owner.user_id, member.user_id);
    owner
        .post("/users/me/subscriptions", &[("subscriptions", r#"[{"name":"town","description":"Public square"}]"#), ("principals", &both)])
        .success();
    owner
        .post("/users/me/subscriptions", &[("subscriptions", r#"[{"name":"vault"}]"#), ("invite_only", "true"), ("principals", &both)])
        .success();
    owner.post("/bots", &[("full_name", "Helper Bot"), ("short_name", "helper")]).success();
    let bytes = b"imported upload bytes".to_vec();
    let url = upload(&owner, "notes.txt", &bytes);
    let send = |c: &Client, to: &str, content: &str| {
        c.post("/messages", &[("type", "stream"), ("to", to), ("topic", "roundtrip"), ("content", content)]).success()["id"]
            .as_i64()
            .unwrap()
    };
    let first = send(&owner, "town", &format!("Hello @**Mo Member**, see [notes]({url})"));
    send(&member, "vault", "a private walrus");
    member.post(&format!("/messages/{first}/reactions"), &[("emoji_name", "smile")]).success();
    owner.post("/messages/flags", &[("messages", &format!("[{first}]")), ("op", "add"), ("flag", "starred")]).success();
    upload_files_to(&owner, "/realm/emoji/party_parrot", &[("f1", "emoji.png", &png())]).success();
    owner.post(&format!("/messages/{first}/reactions"), &[("emoji_name", "party_parrot")]).success();
    let to_owner = format!("[{}]", owner.user_id);
    member.post("/messages", &[("type", "direct"), ("to", &to_owner), ("content", "a direct hello")]).success();
    let town = owner.get("/get_stream_id", &[("stream", "town")]).success()["stream_id"].as_i64().unwrap().to_string();
    owner.post("/user_topics", &[("stream_id", &town), ("topic", "roundtrip"), ("visibility_policy", "3")]).success();
    owner.patch(&format!("/streams/{town}"), &[("message_retention_days", "3650"), ("topics_policy", "disable_empty_topic")]).success();
    owner.patch("/realm", &[("message_retention_days", "7300")]).success();
    let vault = owner.get("/get_stream_id", &[("stream", "vault")]).success()["stream_id"].as_i64().unwrap().to_string();
    owner.patch("/realm", &[("moderation_request_channel_id", &vault), ("enable_read_receipts", "false")]).success();
    owner.post("/user_groups/create", &[("name", "builders"), ("description", "They build"), ("members", &members)]).success();
    let field = owner.post("/realm/profile_fields", &[("name", "Team"), ("field_type", "1")]).success()["id"].as_i64().unwrap();
    member.patch("/users/me/profile_data", &[("data", &format!(r#"[{{"id":{field},"value":"Platform"}}]"#))]).success();
    (owner, member, bytes)
}

fn emails_by_id(client: &Client) -> BTreeMap<i64, String> {
    let users = client.get("/users", &[]).success();
    users["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["user_id"].as_i64().unwrap(), u["email"].as_str().unwrap().to_string()))
        .collect()
}

/// What the read endpoints answer, with ids replaced by what they name.
fn observed(client: &Client) -> Value {
    let emails = emails_by_id(client);
    let email = |id: &Value| emails.get(&id.as_i64().unwrap_or(0)).cloned().unwrap_or_default();
    let uploads = regex::Regex::new(r"/user_uploads/\d+/").unwrap();
    let user_ids = regex::Regex::new(r#"data-user-id="(\d+)""#).unwrap();
    let got = client.get("/messages", &[("anchor", "newest"), ("num_before", "50"), ("num_after", "0")]).success();
    let messages: Vec<Value> = got["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let content = uploads.replace_all(m["content"].as_str().unwrap(), "/user_uploads/R/").into_owned();
            let content = user_ids
                .replace_all(&content, |c: &regex::Captures| format!("data-user-email=\"{}\"", email(&json!(c[1].parse::<i64>().unwrap()))))
                .into_owned();
            let reactions: Vec<Value> = m["reactions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| json!([r["emoji_name"], r["reaction_type"], email(&r["user_id"])]))
                .collect();
            let to = match m["display_recipient"].as_array() {
                Some(people) => json!(people.iter().map(|p| p["email"].clone()).collect::<Vec<_>>()),
                None => m["display_recipient"].clone(),
            };
            json!({ "sender": m["sender_email"], "to": to, "topic": m["subject"], "content": content,
                "timestamp": m["timestamp"], "reactions": reactions, "flags": m["flags"] })
        })
        .collect();
    let mut users: Vec<Value> = client.get("/users", &[]).success()["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| json!([u["email"], u["full_name"], u["role"], u["is_bot"], u["date_joined"], u["is_active"]]))
        .collect();
    users.sort_by_key(|u| u.to_string());
    let mut channels: Vec<Value> = client.get("/streams", &[]).success()["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| json!([s["name"], s["description"], s["invite_only"], s["message_retention_days"], s["topics_policy"]]))
        .collect();
    channels.sort_by_key(|c| c.to_string());
    let mut groups: Vec<Value> = client.get("/user_groups", &[]).success()["user_groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["is_system_group"] == false)
        .map(|g| json!([g["name"], g["description"], g["members"].as_array().unwrap().iter().map(&email).collect::<Vec<_>>()]))
        .collect();
    groups.sort_by_key(|g| g.to_string());
    let emoji: Vec<Value> = client.get("/realm/emoji", &[]).success()["emoji"]
        .as_object()
        .unwrap()
        .values()
        .map(|e| json!([e["name"], e["deactivated"], email(&e["author_id"])]))
        .collect();
    let fields: Vec<Value> = client.get("/realm/profile_fields", &[]).success()["custom_fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| json!([f["name"], f["type"], f["hint"], f["order"]]))
        .collect();
    let registered = client.post("/register", &[("fetch_event_types", r#"["user_topic"]"#)]).success();
    let user_topics: Vec<Value> = registered["user_topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| json!([t["topic_name"], t["visibility_policy"], t["last_updated"]]))
        .collect();
    json!({ "user_topics": user_topics, "messages": messages, "users": users, "channels": channels, "groups": groups, "emoji": emoji, "fields": fields })
}

/// Exports `owner`'s organization and imports it as a new one; answers its subdomain.
fn export_and_import(owner: &Client) -> String {
    let archive = std::env::temp_dir().join(format!("{}.tar.gz", unique("images")));
    std::fs::write(&archive, export_archive(owner)).unwrap();
    let id = subdomain();
    let out = import_archive(&archive, &id);
    assert!(out.status.success(), "{}", stderr(&out));
    id
}

#[test]
fn an_uploaded_avatar_survives_an_export_and_import() {
    let (owner, member) = organization_with_member("avatarsrc", "Avatar Source", PASSWORD);
    let bytes = upload_support::jpeg();
    let old_url = upload_files_to(&member, "/users/me/avatar", &[("file", "me.jpg", &bytes)]).success()["avatar_url"].clone();
    let id = export_and_import(&owner);

    // The member did not consent, so is a deactivated mirror dummy now: their avatar is public.
    let new_owner = Client::dev_in(Some(&id), &owner.email);
    let user = new_owner.get(&format!("/users/{}", member.email), &[]).success()["user"].clone();
    assert_eq!(user["is_active"], false, "{user}");
    let url = user["avatar_url"].as_str().unwrap();
    assert!(url.starts_with("/user_avatars/") && json!(url) != old_url, "{url}");
    let got = download(None, url, &[]);
    assert_eq!((got.status, got.header("Content-Type")), (200, Some("image/jpeg")));
    assert_eq!(got.bytes, bytes);
}

#[test]
fn the_organizations_icon_survives_an_export_and_import() {
    let (owner, _member) = organization_with_member("iconsrc", "Icon Source", PASSWORD);
    upload_files_to(&owner, "/realm/icon", &[("file", "icon.png", &png())]).success();
    let id = export_and_import(&owner);

    let new_owner = Client::dev_in(Some(&id), &owner.email);
    let state = new_owner.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_icon_source"], "U", "{state}");
    let url = state["realm_icon_url"].as_str().unwrap();
    assert_eq!(download(None, url, &[]).bytes, png(), "{url}");
}

#[test]
fn an_exported_organization_imported_as_another_answers_the_same() {
    let (owner, member, bytes) = seeded_organization();
    let archive = std::env::temp_dir().join(format!("{}.tar.gz", unique("roundtrip")));
    std::fs::write(&archive, export_archive(&owner)).unwrap();
    let id = subdomain();
    let out = import_archive(&archive, &id);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("Warning"), "every upload's file arrived: {stdout}");

    let new_owner = Client::dev_in(Some(&id), &owner.email);
    let new_member = Client::dev_in(Some(&id), &member.email);
    let (before, after) = (observed(&owner), observed(&new_owner));
    // What is compared holds the seeded data.
    let text = before.to_string();
    for seeded in [
        "walrus",
        "direct hello",
        "realm_emoji",
        "smile",
        "starred",
        "builders",
        "party_parrot",
        "Team",
        "Helper Bot",
        "vault",
        "/user_uploads/R/",
    ] {
        assert!(text.contains(seeded), "{seeded} in {before}");
    }
    assert!(text.contains(&format!(r#"data-user-email=\"{}\""#, member.email)), "{before}");
    for part in ["users", "channels", "messages", "groups", "emoji", "fields", "user_topics"] {
        assert_eq!(after[part], before[part], "{part}");
    }
    assert!(before["channels"].to_string().contains("3650"), "the channel's retention period is compared");
    assert!(before["channels"].to_string().contains("disable_empty_topic"), "the channel's topics policy is compared");
    let retention =
        |c: &Client| c.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success()["realm_message_retention_days"].clone();
    assert_eq!((retention(&owner), retention(&new_owner)), (json!(7300), json!(7300)));
    let announced_in = |c: &Client| {
        let state = c.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
        let id = state["realm_signup_announcements_stream_id"].as_i64().unwrap();
        c.get(&format!("/streams/{id}"), &[]).success()["stream"]["name"].clone()
    };
    assert_eq!((announced_in(&owner), announced_in(&new_owner)), (json!("general"), json!("general")), "the announcement channel");
    let moderated_in = |c: &Client| {
        let state = c.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
        let id = state["realm_moderation_request_channel_id"].as_i64().unwrap();
        (c.get(&format!("/streams/{id}"), &[]).success()["stream"]["name"].clone(), state["realm_enable_read_receipts"].clone())
    };
    assert_eq!(moderated_in(&new_owner), (json!("vault"), json!(false)), "the moderation channel and read receipts");
    assert_eq!(observed(&new_member)["messages"], observed(&member)["messages"]);

    // The upload's bytes through its new URL.
    let got = new_owner.get("/messages", &[("anchor", "newest"), ("num_before", "50"), ("num_after", "0")]).success();
    let html = got["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_string()).collect::<String>();
    let link = regex::Regex::new(r#"/user_uploads/[^"]+"#).unwrap().find(&html).expect("an upload link").as_str().to_string();
    assert_eq!(download(Some(&new_owner), &link, &[]).bytes, bytes);
    // The custom emoji's image.
    let emoji = new_owner.get("/realm/emoji", &[]).success()["emoji"].as_object().unwrap().values().next().cloned().unwrap();
    assert_eq!(download(Some(&new_owner), emoji["source_url"].as_str().unwrap(), &[]).bytes, png());
    // The profile field's value.
    let me = new_member.get(&format!("/users/{}", new_member.user_id), &[("include_custom_profile_fields", "true")]).success();
    let values: Vec<&Value> = me["user"]["profile_data"].as_object().unwrap().values().collect();
    assert_eq!(values.iter().map(|v| v["value"].clone()).collect::<Vec<_>>(), vec![json!("Platform")]);
    // Searchable, private channels included.
    let narrow = r#"[{"operator":"search","operand":"walrus"}]"#;
    let found =
        new_member.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", narrow)]).success();
    assert_eq!(found["messages"].as_array().unwrap().len(), 1, "{found}");
}

// ---- permission settings through the round trip

/// An organization whose channel, group and organization settings name a named group, a
/// system group and sets of users and groups (anonymous groups), exported and imported as
/// another (once; the tests below only read both): the source's owner and the new subdomain.
fn permissions_round_trip() -> &'static (Client, String) {
    static DONE: OnceLock<(Client, String)> = OnceLock::new();
    DONE.get_or_init(|| {
        let (owner, member) = organization_with_member("permsrc", "Permission Source", PASSWORD);
        // The member's memberships are compared: they consent, so stay an active member.
        member.patch("/settings", &[("allow_private_data_export", "true")]).success();
        let admins = group_id(&owner, "role:administrators");
        let set = |members: &[i64], subgroups: &[i64]| json!({ "new": { "direct_members": members, "direct_subgroups": subgroups } });
        let members = format!("[{}]", member.user_id);
        let crew = owner.post("/user_groups/create", &[("name", "crew"), ("description", "On deck"), ("members", &members)]).success()
            ["group_id"]
            .as_i64()
            .unwrap();
        let group_changes = [
            ("can_mention_group", json!({ "new": admins })),
            ("can_join_group", json!({ "new": group_id(&owner, "role:moderators") })),
            ("can_remove_members_group", set(&[member.user_id], &[admins])),
        ];
        for (setting, value) in group_changes {
            owner.patch(&format!("/user_groups/{crew}"), &[(setting, &value.to_string())]).success();
        }
        owner.post("/users/me/subscriptions", &[("subscriptions", r#"[{"name":"deck"}]"#), ("principals", &members)]).success();
        let deck = owner.get("/get_stream_id", &[("stream", "deck")]).success()["stream_id"].as_i64().unwrap();
        let channel_changes = [
            ("can_send_message_group", json!({ "new": crew })),
            ("can_remove_subscribers_group", set(&[member.user_id], &[admins])),
            ("can_resolve_topics_group", json!({ "new": group_id(&owner, "role:moderators") })),
        ];
        for (setting, value) in channel_changes {
            owner.patch(&format!("/streams/{deck}"), &[(setting, &value.to_string())]).success();
        }
        let realm_changes =
            [("can_add_custom_emoji_group", set(&[member.user_id], &[admins])), ("can_create_groups", json!({ "new": crew }))];
        for (setting, value) in realm_changes {
            owner.patch("/realm", &[(setting, &value.to_string())]).success();
        }
        let id = export_and_import(&owner);
        (owner, id)
    })
}

/// A group-setting value as what it names: a group by name, a set by its members' emails
/// and its subgroups' names.
fn described(client: &Client, value: &Value) -> Value {
    let groups = client.get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
    let name = |id: &Value| groups.iter().find(|g| g["id"] == *id).map_or(json!(null), |g| g["name"].clone());
    let emails = emails_by_id(client);
    match value.as_object() {
        None => name(value),
        Some(set) => {
            let mut members: Vec<String> =
                set["direct_members"].as_array().unwrap().iter().map(|u| emails[&u.as_i64().unwrap()].clone()).collect();
            members.sort();
            let mut subgroups: Vec<Value> = set["direct_subgroups"].as_array().unwrap().iter().map(name).collect();
            subgroups.sort_by_key(Value::to_string);
            json!({ "members": members, "subgroups": subgroups })
        }
    }
}

/// The settings `settings` of `object` (as `client` reads it), described.
fn described_settings(client: &Client, object: &Value, settings: &[&str]) -> Value {
    settings.iter().map(|s| (s.to_string(), described(client, &object[*s]))).collect::<serde_json::Map<_, _>>().into()
}

fn channel_named(client: &Client, name: &str) -> Value {
    let streams = client.get("/streams", &[]).success();
    streams["streams"].as_array().unwrap().iter().find(|s| s["name"] == name).cloned().unwrap_or_else(|| panic!("{name}: {streams}"))
}

fn group_named(client: &Client, name: &str) -> Value {
    let groups = client.get("/user_groups", &[]).success();
    groups["user_groups"].as_array().unwrap().iter().find(|g| g["name"] == name).cloned().unwrap_or_else(|| panic!("{name}: {groups}"))
}

/// Both organizations' owners of [`permissions_round_trip`].
fn round_trip_owners() -> (&'static Client, Client) {
    let (owner, id) = permissions_round_trip();
    (owner, Client::dev_in(Some(id), &owner.email))
}

#[test]
fn an_exported_channels_permission_groups_survive_the_round_trip() {
    let (owner, new_owner) = round_trip_owners();
    let settings = CHANNEL_GROUP_SETTINGS;
    let before = described_settings(owner, &channel_named(owner, "deck"), &settings);
    assert_eq!(before["can_send_message_group"], "crew");
    assert_eq!(before["can_remove_subscribers_group"]["subgroups"], json!(["role:administrators"]), "{before}");
    assert_eq!(described_settings(&new_owner, &channel_named(&new_owner, "deck"), &settings), before);
}

#[test]
fn an_exported_groups_permission_settings_survive_the_round_trip() {
    let (owner, new_owner) = round_trip_owners();
    let settings = NAMED_GROUP_SETTINGS;
    let before = described_settings(owner, &group_named(owner, "crew"), &settings);
    assert_eq!(before["can_join_group"], "role:moderators");
    // Left at "the group's creator".
    assert_eq!(before["can_manage_group"], json!({ "members": [owner.email], "subgroups": [] }), "{before}");
    assert_eq!(described_settings(&new_owner, &group_named(&new_owner, "crew"), &settings), before);
}

#[test]
fn the_organizations_permission_settings_survive_the_round_trip() {
    let (owner, new_owner) = round_trip_owners();
    let settings = REALM_GROUP_SETTINGS;
    let state = |c: &Client| {
        let state = c.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
        let realm: serde_json::Map<String, Value> = settings.iter().map(|s| (s.to_string(), state[format!("realm_{s}")].clone())).collect();
        described_settings(c, &Value::Object(realm), &settings)
    };
    let before = state(owner);
    assert_eq!(before["can_create_groups"], "crew");
    assert_eq!(before["can_add_custom_emoji_group"]["subgroups"], json!(["role:administrators"]), "{before}");
    assert_eq!(state(&new_owner), before);
}

// ---- an archive shaped as a Zulip server writes it (tests/zulip_archive)

/// The subdomain the Zulip-shaped archive was imported as (once, through the script and a
/// `.tar.gz`, as an operator does); the tests below only read it.
fn zulip_import() -> &'static str {
    static IMPORTED: OnceLock<String> = OnceLock::new();
    IMPORTED.get_or_init(|| {
        let archive = std::env::temp_dir().join(format!("{}.tar.gz", unique("zulip-server")));
        std::fs::write(&archive, tar_gz(&zulip_archive::write(&png()))).unwrap();
        let id = subdomain();
        let out = import_archive(&archive, &id);
        assert!(out.status.success(), "{}", stderr(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("Organization imported") && !stdout.contains("Warning"), "{stdout}");
        id
    })
}

fn zulip_user(email: &str) -> Client {
    Client::dev_in(Some(zulip_import()), email)
}

/// The message `client` sees whose raw text (`apply_markdown=false`) starts with `content`,
/// rendered.
fn message_seen(client: &Client, content: &str) -> Value {
    let all = client.get("/messages", &[("anchor", "newest"), ("num_before", "100"), ("num_after", "0")]).success();
    let raw =
        client.get("/messages", &[("anchor", "newest"), ("num_before", "100"), ("num_after", "0"), ("apply_markdown", "false")]).success();
    let id = raw["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["content"].as_str().unwrap().starts_with(content))
        .unwrap_or_else(|| panic!("{content}: {raw}"))["id"]
        .clone();
    all["messages"].as_array().unwrap().iter().find(|m| m["id"] == id).cloned().unwrap()
}

fn user_named(client: &Client, email: &str) -> Value {
    let users = client.get("/users", &[]).success();
    users["members"].as_array().unwrap().iter().find(|u| u["email"] == email).cloned().unwrap_or_else(|| panic!("{email}: {users}"))
}

#[test]
fn a_zulip_servers_archive_keeps_its_rendered_messages_with_mentions_naming_the_imported_users() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    let mo = user_named(&olivia, zulip_archive::MO)["user_id"].clone();
    let hello = message_seen(&olivia, "Hello @**Mo Member|9**");
    assert_eq!(hello["content"], format!(r#"<p>Hello <span class="user-mention" data-user-id="{mo}">@Mo Member</span></p>"#));
    assert_eq!(
        (&hello["sender_email"], &hello["display_recipient"], &hello["subject"]),
        (&json!(zulip_archive::OLIVIA), &json!("general"), &json!("greetings"))
    );
    assert_eq!(hello["timestamp"], 1_700_000_000);
}

#[test]
fn messages_of_zulips_system_bots_come_from_those_bots() {
    let mo = zulip_user(zulip_archive::MO);
    let welcome = message_seen(&mo, "Hello, and welcome to Zulip!");
    assert_eq!((&welcome["sender_email"], &welcome["sender_full_name"]), (&json!("welcome-bot@zulip.com"), &json!("Welcome Bot")));
    let resolved = message_seen(&mo, "@_**Mo Member|9** has marked this topic as resolved.");
    assert_eq!(resolved["sender_email"], "notification-bot@zulip.com");
}

#[test]
fn a_direct_message_to_a_system_bot_is_imported() {
    let mo = zulip_user(zulip_archive::MO);
    let answer = message_seen(&mo, "thanks, welcome bot");
    let to: Vec<&Value> = answer["display_recipient"].as_array().unwrap().iter().map(|p| &p["email"]).collect();
    assert!(to.contains(&&json!("welcome-bot@zulip.com")), "{answer}");
}

#[test]
fn a_group_direct_message_keeps_its_members() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    let message = message_seen(&olivia, "group hello");
    let mut to: Vec<String> =
        message["display_recipient"].as_array().unwrap().iter().map(|p| p["email"].as_str().unwrap().into()).collect();
    to.sort();
    assert_eq!(to, [zulip_archive::DEE, zulip_archive::MO, zulip_archive::OLIVIA]);
    assert_eq!(message_seen(&zulip_user(zulip_archive::MO), "group hello")["id"], message["id"]);
}

#[test]
fn a_resolved_topic_keeps_its_name_and_its_notice() {
    let mo = zulip_user(zulip_archive::MO);
    let narrow = r#"[{"operator":"channel","operand":"general"},{"operator":"topic","operand":"✔ launch"}]"#;
    let got = mo.get("/messages", &[("anchor", "newest"), ("num_before", "10"), ("num_after", "0"), ("narrow", narrow)]).success();
    let senders: Vec<&Value> = got["messages"].as_array().unwrap().iter().map(|m| &m["sender_email"]).collect();
    assert_eq!(senders, [&json!("notification-bot@zulip.com"), &json!(zulip_archive::MO)], "{got}");
}

#[test]
fn a_custom_emoji_reaction_names_the_imported_emoji_and_its_image_is_served() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    let emoji = olivia.get("/realm/emoji", &[]).success()["emoji"].as_object().unwrap().values().next().cloned().unwrap();
    assert_eq!(emoji["name"], "partyparrot");
    assert_eq!(download(Some(&olivia), emoji["source_url"].as_str().unwrap(), &[]).bytes, png());
    let hello = message_seen(&olivia, "Hello @**Mo Member|9**");
    let mut reactions: Vec<Value> =
        hello["reactions"].as_array().unwrap().iter().map(|r| json!([r["emoji_name"], r["emoji_code"], r["reaction_type"]])).collect();
    reactions.sort_by_key(|r| r.to_string());
    assert_eq!(reactions, [json!(["+1", "1f44d", "unicode_emoji"]), json!(["partyparrot", emoji["id"], "realm_emoji"])]);
}

#[test]
fn a_deactivated_user_stays_deactivated_with_their_messages() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    assert_eq!(user_named(&olivia, zulip_archive::DEE)["is_active"], false);
    assert_eq!(message_seen(&olivia, "secret plans")["sender_email"], zulip_archive::DEE);
}

#[test]
fn a_mirror_dummy_user_is_imported_inactive_with_their_messages() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    let ghost = user_named(&olivia, zulip_archive::GHOST);
    assert_eq!((&ghost["full_name"], &ghost["is_active"]), (&json!("Ghost Writer"), &json!(false)));
    assert_eq!(message_seen(&olivia, "from the old days")["sender_email"], zulip_archive::GHOST);
}

#[test]
fn a_bot_keeps_its_owner() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    let bot = user_named(&olivia, zulip_archive::HELPER_BOT);
    assert_eq!((&bot["is_bot"], &bot["bot_owner_id"]), (&json!(true), &json!(olivia.user_id)));
    assert_eq!(message_seen(&olivia, "beep")["sender_email"], zulip_archive::HELPER_BOT);
}

#[test]
fn an_upload_linked_from_a_message_is_downloadable_at_its_new_address() {
    let mo = zulip_user(zulip_archive::MO);
    let message = message_seen(&mo, "[notes.txt](/user_uploads/");
    let html = message["content"].as_str().unwrap();
    let link = regex::Regex::new(r#"/user_uploads/[^"]+"#).unwrap().find(html).expect("an upload link").as_str().to_string();
    assert!(!link.starts_with(&format!("/user_uploads/{}/", zulip_archive::REALM_ID)), "{link}");
    assert_eq!(download(Some(&mo), &link, &[]).bytes, zulip_archive::UPLOAD_BYTES);
}

#[test]
fn an_uploaded_avatar_is_served() {
    assert_eq!(avatar_bytes(zulip_import(), zulip_archive::OLIVIA), png());
}

#[test]
fn a_named_user_group_keeps_its_members_and_the_system_groups_are_the_servers_own() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    let mo = user_named(&olivia, zulip_archive::MO)["user_id"].as_i64().unwrap();
    let groups = olivia.get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
    let support = groups.iter().find(|g| g["name"] == "support").expect("support");
    let mut members: Vec<i64> = support["members"].as_array().unwrap().iter().map(|m| m.as_i64().unwrap()).collect();
    members.sort();
    assert_eq!(members, [olivia.user_id.min(mo), olivia.user_id.max(mo)]);
    assert_eq!(groups.iter().filter(|g| g["name"] == "role:members").count(), 1);
    let owners = groups.iter().find(|g| g["name"] == "role:owners").unwrap();
    assert_eq!(owners["members"], json!([olivia.user_id]));
}

#[test]
fn a_private_channel_stays_private_to_its_subscribers() {
    let names = |c: &Client| -> Vec<Value> {
        c.get("/users/me/subscriptions", &[]).success()["subscriptions"].as_array().unwrap().iter().map(|s| s["name"].clone()).collect()
    };
    let olivia = zulip_user(zulip_archive::OLIVIA);
    assert!(names(&olivia).contains(&json!("design")));
    assert!(!names(&zulip_user(zulip_archive::MO)).contains(&json!("design")));
    let design =
        olivia.get("/streams", &[]).success()["streams"].as_array().unwrap().iter().find(|s| s["name"] == "design").cloned().unwrap();
    assert_eq!(design["invite_only"], true);
}

#[test]
fn message_flags_come_from_zulips_flag_masks() {
    let mo = zulip_user(zulip_archive::MO);
    let flags = |content: &str| message_seen(&mo, content)["flags"].clone();
    assert_eq!(flags("[notes.txt](/user_uploads/"), json!(["read", "starred"]));
    assert_eq!(flags("Hello @**Mo Member|9**"), json!(["mentioned"]));
}

#[test]
fn a_muted_topic_stays_muted() {
    let mo = zulip_user(zulip_archive::MO);
    let state = mo.post("/register", &[("fetch_event_types", r#"["user_topic"]"#)]).success();
    let topics: Vec<Value> =
        state["user_topics"].as_array().unwrap().iter().map(|t| json!([t["topic_name"], t["visibility_policy"]])).collect();
    assert_eq!(topics, [json!(["greetings", 1])]);
}

fn group_id(client: &Client, name: &str) -> i64 {
    let groups = client.get("/user_groups", &[]).success();
    groups["user_groups"].as_array().unwrap().iter().find(|g| g["name"] == name).unwrap_or_else(|| panic!("{name}: {groups}"))["id"]
        .as_i64()
        .unwrap()
}

#[test]
fn a_channels_group_setting_names_the_imported_group() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    let streams = olivia.get("/streams", &[]).success();
    let design = streams["streams"].as_array().unwrap().iter().find(|s| s["name"] == "design").cloned().unwrap();
    assert_eq!(design["can_send_message_group"], group_id(&olivia, "role:administrators"), "{design}");
}

#[test]
fn a_realm_setting_naming_an_anonymous_group_keeps_its_members_and_subgroups() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    let mo = user_named(&olivia, zulip_archive::MO)["user_id"].clone();
    let state = olivia.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(
        state["realm_can_add_custom_emoji_group"],
        json!({ "direct_members": [mo], "direct_subgroups": [group_id(&olivia, "role:administrators")] })
    );
}

#[test]
fn a_moved_messages_time_of_move_comes_from_its_edit_history() {
    let message = message_seen(&zulip_user(zulip_archive::MO), "shipped it");
    assert_eq!(message["last_moved_timestamp"], zulip_archive::MOVED_AT, "{message}");
}

#[test]
fn a_me_message_is_known_by_its_content() {
    assert_eq!(message_seen(&zulip_user(zulip_archive::MO), "/me waves")["is_me_message"], true);
}

#[test]
fn a_named_groups_setting_names_the_imported_group() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    let groups = olivia.get("/user_groups", &[]).success();
    let support = groups["user_groups"].as_array().unwrap().iter().find(|g| g["name"] == "support").cloned().unwrap();
    assert_eq!(support["can_mention_group"], group_id(&olivia, "role:administrators"), "{support}");
}

/// The register response of `email` for these event types.
fn registered(email: &str, types: &str) -> Value {
    zulip_user(email).post("/register", &[("fetch_event_types", types)]).success()
}

#[test]
fn a_users_personal_settings_are_kept() {
    let settings = registered(zulip_archive::MO, r#"["user_settings"]"#)["user_settings"].clone();
    assert_eq!((&settings["twenty_four_hour_time"], &settings["emojiset"]), (&json!(true), &json!("twitter")));
}

#[test]
fn the_organizations_defaults_for_new_users_are_kept() {
    let defaults = registered(zulip_archive::OLIVIA, r#"["realm_user_settings_defaults"]"#)["realm_user_settings_defaults"].clone();
    assert_eq!((&defaults["emojiset"], &defaults["web_home_view"]), (&json!("google"), &json!("inbox")), "{defaults}");
}

#[test]
fn a_users_saved_snippets_views_and_presence_are_kept() {
    let mo = zulip_user(zulip_archive::MO);
    let snippets = mo.get("/saved_snippets", &[]).success()["saved_snippets"].clone();
    let snippet = &snippets[0];
    assert_eq!(
        (&snippet["title"], &snippet["content"], &snippet["date_created"]),
        (&json!("Standup"), &json!("Yesterday, today, blockers"), &json!(1_700_000_800)),
        "{snippets}"
    );
    let views = mo.get("/navigation_views", &[]).success()["navigation_views"].clone();
    let general = views.as_array().unwrap().iter().find(|v| v["fragment"] == "narrow/channel/30-general").cloned();
    assert_eq!(general.map(|v| (v["is_pinned"].clone(), v["name"].clone())), Some((json!(true), json!("General chat"))), "{views}");
    let presence = mo.get(&format!("/users/{}/presence", zulip_archive::MO), &[]).success()["presence"]["aggregated"].clone();
    assert_eq!(presence["timestamp"], json!(1_700_000_900), "{presence}");
}

#[test]
fn a_users_pending_scheduled_messages_are_kept() {
    let mo = zulip_user(zulip_archive::MO);
    let olivia = user_named(&mo, zulip_archive::OLIVIA)["user_id"].clone();
    let general = onboarding::channel_id(&mo, "general");
    let scheduled = mo.get("/scheduled_messages", &[]).success()["scheduled_messages"].clone();
    let got: Vec<Value> = scheduled
        .as_array()
        .unwrap()
        .iter()
        .map(|m| json!([m["type"], m["to"], m["topic"], m["content"], m["scheduled_delivery_timestamp"]]))
        .collect();
    assert_eq!(
        got,
        [
            json!(["stream", general, "plans", "The plan for **next year**", 4_000_000_000_i64]),
            json!(["private", [olivia], null, "Happy anniversary, Olivia!", 4_000_000_100_i64]),
        ],
        "{scheduled}"
    );
}

#[test]
fn a_bots_storage_is_kept() {
    let bot = zulip_user(zulip_archive::HELPER_BOT);
    assert_eq!(bot.get("/bot_storage", &[]).success()["storage"], json!({ "greeting": "hello" }));
}

#[test]
fn a_users_alert_words_are_kept() {
    assert_eq!(registered(zulip_archive::MO, r#"["alert_words"]"#)["alert_words"], json!(["deploy"]));
}

#[test]
fn a_muted_user_stays_muted() {
    let mo = zulip_user(zulip_archive::MO);
    let ghost = user_named(&mo, zulip_archive::GHOST)["user_id"].clone();
    let muted = registered(zulip_archive::MO, r#"["muted_users"]"#)["muted_users"].clone();
    assert_eq!(muted, json!([{ "id": ghost, "timestamp": 1_700_000_600 }]));
}

#[test]
fn a_users_status_names_the_imported_emoji() {
    let olivia = zulip_user(zulip_archive::OLIVIA);
    let emoji = olivia.get("/realm/emoji", &[]).success()["emoji"].as_object().unwrap().values().next().cloned().unwrap();
    let statuses = registered(zulip_archive::OLIVIA, r#"["user_status"]"#)["user_status"].clone();
    let mine = &statuses[olivia.user_id.to_string()];
    assert_eq!(
        (&mine["status_text"], &mine["emoji_code"], &mine["reaction_type"]),
        (&json!("Partying"), &emoji["id"], &json!("realm_emoji")),
        "{statuses}"
    );
}

#[test]
fn the_organizations_linkifiers_are_kept() {
    let linkifiers = registered(zulip_archive::MO, r#"["realm_linkifiers"]"#)["realm_linkifiers"].clone();
    assert_eq!(linkifiers[0]["pattern"], "#(?P<id>[0-9]+)", "{linkifiers}");
    assert_eq!(linkifiers[0]["url_template"], "https://tracker.acme.example.com/{id}");
}

#[test]
fn the_organizations_allowed_domains_are_kept() {
    let domains = registered(zulip_archive::OLIVIA, r#"["realm_domains"]"#)["realm_domains"].clone();
    assert_eq!(domains, json!([{ "domain": "acme.example.com", "allow_subdomains": true }]));
}

#[test]
fn the_organizations_code_playgrounds_are_kept() {
    let playgrounds = registered(zulip_archive::MO, r#"["realm_playgrounds"]"#)["realm_playgrounds"].clone();
    assert_eq!(playgrounds[0]["name"], "Rust playground", "{playgrounds}");
    assert_eq!(playgrounds[0]["url_template"], "https://play.rust-lang.org/?code={code}");
}

#[test]
fn the_organizations_settings_are_kept() {
    let realm = registered(zulip_archive::OLIVIA, r#"["realm"]"#);
    let got = json!([
        realm["realm_invite_required"],
        realm["realm_default_language"],
        realm["realm_waiting_period_threshold"],
        realm["realm_message_content_edit_limit_seconds"],
        realm["realm_move_messages_within_stream_limit_seconds"],
    ]);
    assert_eq!(got, json!([false, "fr", 3, null, 86400]));
}

/// The organization's bots with their services, as `client`'s `/register` shows them.
fn realm_bots(client: &Client) -> Value {
    client.post("/register", &[("fetch_event_types", r#"["realm_bot"]"#)]).success()["realm_bots"].clone()
}

/// What the organization's folders, playgrounds and bots' services, and a member's own
/// settings, read as.
fn folders_playgrounds_and_settings(owner: &Client, member: &Client) -> Value {
    let folders = owner.get("/channel_folders", &[]).success()["channel_folders"].clone();
    let folders: Vec<Value> = folders
        .as_array()
        .unwrap()
        .iter()
        .map(|f| json!([f["name"], f["description"], f["rendered_description"], f["is_archived"], f["order"]]))
        .collect();
    let folder_names: BTreeMap<i64, Value> = owner.get("/channel_folders", &[]).success()["channel_folders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_i64().unwrap(), f["name"].clone()))
        .collect();
    let in_folders: Vec<Value> = owner.get("/streams", &[]).success()["streams"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| Some(json!([s["name"], folder_names.get(&s["folder_id"].as_i64()?)?])))
        .collect();
    let state = member.post("/register", &[("fetch_event_types", r#"["realm_playgrounds", "muted_users"]"#)]).success();
    let playgrounds: Vec<Value> = state["realm_playgrounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!([p["name"], p["pygments_language"], p["url_template"]]))
        .collect();
    let emails = emails_by_id(owner);
    let muted: Vec<Value> = state["muted_users"].as_array().unwrap().iter().map(|m| json!(emails[&m["id"].as_i64().unwrap()])).collect();
    let status = member.get(&format!("/users/{}/status", member.user_id), &[]).success()["status"].clone();
    let services: Vec<Value> = realm_bots(owner)
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            json!([
                b["full_name"],
                b["services"].as_array().unwrap().iter().map(|s| json!([s["base_url"], s["interface"]])).collect::<Vec<_>>()
            ])
        })
        .collect();
    json!({ "folders": folders, "in_folders": in_folders, "playgrounds": playgrounds, "muted": muted, "status": status, "services": services,
        "alert_words": member.get("/users/me/alert_words", &[]).success()["alert_words"] })
}

#[test]
fn folders_playgrounds_bots_services_and_members_own_settings_survive_an_export_and_import() {
    let (owner, member) = organization_with_member("ownsrc", "Own Settings Source", PASSWORD);
    member.patch("/settings", &[("allow_private_data_export", "true")]).success();
    let folder = owner.post("/channel_folders/create", &[("name", "Projects"), ("description", "Ongoing **work**")]).success()
        ["channel_folder_id"]
        .as_i64()
        .unwrap();
    let subscriptions = r#"[{"name":"launch"}]"#;
    owner.post("/users/me/subscriptions", &[("subscriptions", subscriptions), ("folder_id", &folder.to_string())]).success();
    owner
        .post(
            "/realm/playgrounds",
            &[("name", "Rust playground"), ("pygments_language", "Rust"), ("url_template", "https://play.example/?c={code}")],
        )
        .success();
    member.post("/users/me/alert_words", &[("alert_words", r#"["walrus","Launch day"]"#)]).success();
    member.post(&format!("/users/me/muted_users/{}", owner.user_id), &[]).success();
    member.post("/users/me/status", &[("status_text", "On the moon"), ("emoji_name", "rocket")]).success();
    let payload_url = json!("https://hooks.example/launch").to_string();
    let bot =
        [("full_name", "Launch Hook"), ("short_name", "launch"), ("bot_type", "3"), ("payload_url", &payload_url), ("interface_type", "2")];
    // The member's bot: a consent export holds the services of consenting members' bots.
    member.post("/bots", &bot).success();
    let token = |c: &Client| {
        let bots = realm_bots(c);
        let bot = bots.as_array().unwrap().iter().find(|b| b["full_name"] == "Launch Hook").cloned().expect("the bot");
        bot["services"][0]["token"].as_str().expect("its service's token").to_string()
    };
    let before = folders_playgrounds_and_settings(&owner, &member);
    // What is compared holds the data.
    for seeded in ["Projects", "launch", "Rust playground", "walrus", "On the moon", &owner.email, "hooks.example/launch"] {
        assert!(before.to_string().contains(seeded), "{seeded} in {before}");
    }
    let id = export_and_import(&owner);
    let (new_owner, new_member) = (Client::dev_in(Some(&id), &owner.email), Client::dev_in(Some(&id), &member.email));
    assert_eq!(folders_playgrounds_and_settings(&new_owner, &new_member), before);
    // The service's token is new, as Zulip's importer makes it: whoever read the archive
    // cannot pose as the server.
    assert_ne!(token(&new_owner), token(&owner));
}

/// A member's saved snippets, views, presence, scheduled direct messages and their bot's
/// storage, as they read them.
fn snippets_views_presence_and_storage(member: &Client, bot: &Client) -> Value {
    let snippets: Vec<Value> = member.get("/saved_snippets", &[]).success()["saved_snippets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| json!([s["title"], s["content"], s["date_created"]]))
        .collect();
    let views: Vec<Value> = member.get("/navigation_views", &[]).success()["navigation_views"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| json!([v["fragment"], v["is_pinned"], v["name"]]))
        .collect();
    let presence = member.get(&format!("/users/{}/presence", member.email), &[]).success()["presence"]["aggregated"].clone();
    let emails = emails_by_id(member);
    let scheduled: Vec<Value> = member.get("/scheduled_messages", &[]).success()["scheduled_messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let to: Vec<&String> = m["to"].as_array().unwrap().iter().map(|id| &emails[&id.as_i64().unwrap()]).collect();
            json!([m["type"], to, m["content"], m["scheduled_delivery_timestamp"]])
        })
        .collect();
    let storage = bot.get("/bot_storage", &[]).success()["storage"].clone();
    json!({ "snippets": snippets, "views": views, "presence": presence, "storage": storage, "scheduled": scheduled })
}

#[test]
fn saved_snippets_views_presence_scheduled_messages_and_bot_storage_survive_an_export_and_import() {
    let (owner, member) = organization_with_member("snipsrc", "Snippets Source", PASSWORD);
    member.patch("/settings", &[("allow_private_data_export", "true")]).success();
    member.post("/saved_snippets", &[("title", "Greeting"), ("content", "Hello **there**")]).success();
    member.post("/navigation_views", &[("fragment", "narrow/channel/1-launch"), ("is_pinned", "true"), ("name", "Launch")]).success();
    member.post("/navigation_views", &[("fragment", "inbox"), ("is_pinned", "false")]).success();
    member.post("/users/me/presence", &[("status", "active"), ("new_user_input", "true")]).success();
    let form = [("full_name", "Keeper"), ("short_name", "keeper"), ("bot_type", "1")];
    let created = member.post("/bots", &form).success();
    let bot_email = member.get(&format!("/users/{}", created["user_id"]), &[]).success()["user"]["email"].as_str().unwrap().to_string();
    let bot = Client::dev_in(owner.realm.as_deref(), &bot_email);
    let storage = json!({ "counter": "41", "motto": "keep going" }).to_string();
    let put = [("storage", storage.as_str())];
    request("PUT", "/bot_storage", &[], Some(Body::Form(&put)), bot.auth(), bot.realm.as_deref()).success();
    let launch_day = "4000000000";
    let to_owner = format!("[{}]", owner.user_id);
    let direct =
        [("type", "direct"), ("to", to_owner.as_str()), ("content", "Ping the owner"), ("scheduled_delivery_timestamp", launch_day)];
    member.post("/scheduled_messages", &direct).success();
    let before = snippets_views_presence_and_storage(&member, &bot);
    // What is compared holds the data.
    for seeded in ["Greeting", "narrow/channel/1-launch", "inbox", "keep going", "\"timestamp\"", "Ping the owner", &owner.email] {
        assert!(before.to_string().contains(seeded), "{seeded} in {before}");
    }
    let id = export_and_import(&owner);
    let (new_member, new_bot) = (Client::dev_in(Some(&id), &member.email), Client::dev_in(Some(&id), &bot_email));
    assert_eq!(snippets_views_presence_and_storage(&new_member, &new_bot), before);
}

#[test]
fn a_message_scheduled_to_a_group_that_never_talked_survives_an_export_and_import() {
    let (owner, member) = organization_with_member("grpschedsrc", "Group Schedule Source", PASSWORD);
    member.patch("/settings", &[("allow_private_data_export", "true")]).success();
    let third_email = format!("third@{}.example.com", owner.realm.as_deref().unwrap());
    owner.post("/users", &[("email", third_email.as_str()), ("password", PASSWORD), ("full_name", "Tia Third")]).success();
    let third = owner.get(&format!("/users/{third_email}"), &[]).success()["user"]["user_id"].as_i64().unwrap();
    let to = json!([owner.user_id, third]).to_string();
    let form =
        [("type", "direct"), ("to", to.as_str()), ("content", "For the three of us"), ("scheduled_delivery_timestamp", "4000000000")];
    member.post("/scheduled_messages", &form).success();
    let scheduled = |c: &Client| -> Vec<Value> {
        let emails = emails_by_id(c);
        c.get("/scheduled_messages", &[]).success()["scheduled_messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let mut to: Vec<&String> = m["to"].as_array().unwrap().iter().map(|id| &emails[&id.as_i64().unwrap()]).collect();
                to.sort();
                json!([m["type"], to, m["content"], m["scheduled_delivery_timestamp"]])
            })
            .collect()
    };
    let before = scheduled(&member);
    assert!(json!(before).to_string().contains(&third_email), "{before:?}");

    let id = export_and_import(&owner);
    assert_eq!(scheduled(&Client::dev_in(Some(&id), &member.email)), before);
}

#[test]
fn an_import_keeps_when_a_scheduled_message_was_made() {
    let (owner, member) = organization_with_member("madesrc", "Made Source", PASSWORD);
    member.patch("/settings", &[("allow_private_data_export", "true")]).success();
    let to = format!("[{}]", owner.user_id);
    let form = [("type", "direct"), ("to", to.as_str()), ("content", "made earlier"), ("scheduled_delivery_timestamp", "4000000000")];
    member.post("/scheduled_messages", &form).success();
    let made = |archive: &[u8]| {
        let realm: Value = serde_json::from_slice(&upload_support::files_of(archive)["realm.json"]).unwrap();
        realm["zerver_scheduledmessage"][0]["request_timestamp"].clone()
    };
    let archive = export_archive(&owner);
    assert!(made(&archive).is_number(), "{}", made(&archive));

    let path = std::env::temp_dir().join(format!("{}.tar.gz", unique("made")));
    std::fs::write(&path, &archive).unwrap();
    let id = subdomain();
    let out = import_archive(&path, &id);
    assert!(out.status.success(), "{}", stderr(&out));
    Client::dev_in(Some(&id), &member.email).patch("/settings", &[("allow_private_data_export", "true")]).success();
    assert_eq!(made(&export_archive(&Client::dev_in(Some(&id), &owner.email))), made(&archive), "exported again after the import");
}

#[test]
fn a_reminder_survives_an_export_and_import_about_the_imported_message() {
    let (owner, member) = organization_with_member("remindsrc", "Reminders Source", PASSWORD);
    member.patch("/settings", &[("allow_private_data_export", "true")]).success();
    let form = [("type", "stream"), ("to", "general"), ("topic", "plans"), ("content", "Ship the release on Friday")];
    let about = member.post("/messages", &form).success()["id"].as_i64().unwrap();
    let remind =
        [("message_id", about.to_string()), ("scheduled_delivery_timestamp", "4000000000".to_string()), ("note", "check it".to_string())];
    let remind: Vec<(&str, &str)> = remind.iter().map(|(k, v)| (*k, v.as_str())).collect();
    member.post("/reminders", &remind).success();
    let reminders = |c: &Client| c.get("/reminders", &[]).success()["reminders"].as_array().unwrap().clone();
    let before = reminders(&member);
    assert_eq!(before.len(), 1, "{before:?}");

    let id = export_and_import(&owner);
    let new_member = Client::dev_in(Some(&id), &member.email);
    let after = reminders(&new_member);
    assert_eq!(after.len(), 1, "one reminder, as before: {after:?}");
    for field in ["type", "content", "rendered_content", "scheduled_delivery_timestamp", "failed"] {
        assert_eq!(after[0][field], before[0][field], "{field}: {after:?}");
    }
    assert_eq!(after[0]["to"], json!([new_member.user_id]), "to its owner alone: {after:?}");
    let narrow = json!([{ "operator": "search", "operand": "release Friday" }]).to_string();
    let found =
        new_member.get("/messages", &[("anchor", "newest"), ("num_before", "5"), ("num_after", "0"), ("narrow", &narrow)]).success();
    let imported = found["messages"][0]["id"].clone();
    assert!(imported.is_i64(), "the message it is about was imported: {found}");
    assert_eq!(after[0]["reminder_target_message_id"], imported, "about the imported message, by its new id");
    // A reminder is not a scheduled message.
    assert_eq!(new_member.get("/scheduled_messages", &[]).success()["scheduled_messages"], json!([]));
}

#[test]
fn who_did_not_consent_signs_up_again_to_their_imported_account() {
    let (owner, member) = organization_with_member("stubsrc", "Stub Source", PASSWORD);
    let form = [("type", "stream"), ("to", "general"), ("topic", "before"), ("content", "written before the move")];
    let sent = member.post("/messages", &form).success()["id"].as_i64().unwrap();
    let id = export_and_import(&owner);
    let new_owner = Client::dev_in(Some(&id), &owner.email);
    let placeholder = new_owner.get(&format!("/users/{}", member.email), &[]).success()["user"].clone();
    assert_eq!(placeholder["is_active"], false, "{placeholder}");
    let user_id = placeholder["user_id"].as_i64().unwrap();
    new_owner
        .post(&format!("/users/{user_id}/reactivate"), &[])
        .bad_request("BAD_REQUEST", "Cannot activate a placeholder account; ask the user to sign up, instead.");

    let general = onboarding::channel_id(&new_owner, "general").to_string();
    new_owner.post("/invites", &[("invitee_emails", member.email.as_str()), ("stream_ids", &format!("[{general}]"))]).success();
    let key = onboarding::join_key(&onboarding::last_email_to(Some(&id), &member.email));
    let new_password = "signed-up-again-5120";
    let register = [("key", key.as_str()), ("full_name", "Mo Returned"), ("password", new_password)];
    onboarding::accounts(Some(&id), "POST", "/accounts/register/", &register, None).success();

    let back = onboarding::password_login_in(Some(&id), &member.email, new_password);
    assert_eq!(back.user_id, user_id, "the imported account, not a new one");
    let me = back.get("/users/me", &[]).success();
    assert_eq!((&me["full_name"], &me["is_active"]), (&json!("Mo Returned"), &json!(true)), "{me}");
    let narrow = json!([{ "operator": "channel", "operand": "general" }]).to_string();
    let seen = back.get("/messages", &[("anchor", "newest"), ("num_before", "50"), ("num_after", "0"), ("narrow", &narrow)]).success();
    let mine: Vec<&Value> = seen["messages"].as_array().unwrap().iter().filter(|m| m["sender_id"] == user_id).collect();
    assert!(mine.iter().any(|m| m["content"].as_str().unwrap().contains("written before the move")), "message {sent}: {seen}");
}
