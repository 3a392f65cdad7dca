//! File uploads and access-checked downloads.

mod chat;
mod common;
mod upload_support;
use chat::*;
use common::*;
use upload_support::*;

#[test]
fn binary_file_round_trips_byte_identical() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let bytes = binary_bytes(70_000);
    let name = format!("{}.bin", unique("blob"));
    let body = upload_files(&hamlet, &[("file", &name, &bytes)]).success();
    assert_matches_openapi("post", "/user_uploads", &body);
    assert!(body.get("ignored_parameters_unsupported").is_none(), "{body}");
    let url = body["url"].as_str().unwrap();
    assert_eq!(body["uri"], url);
    assert_eq!(body["filename"], name.as_str());
    let got = download(Some(&hamlet), url, &[]);
    assert_eq!(got.status, 200);
    assert_eq!(got.bytes, bytes);
    assert_eq!(got.header("Content-Type"), Some("application/octet-stream"));
    assert!(got.header("Content-Disposition").unwrap().starts_with("attachment;"), "{:?}", got.headers);
    assert!(got.header("ETag").is_some());
}

#[test]
fn upload_url_has_the_path_id_layout() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = upload(&hamlet, "layout.txt", b"x");
    let parts: Vec<&str> = url.trim_start_matches("/user_uploads/").split('/').collect();
    assert_eq!(parts.len(), 4, "{url}");
    assert!(parts[0].parse::<i64>().is_ok(), "{url}");
    assert_eq!((parts[1].len(), parts[2].len(), parts[3]), (2, 4, "layout.txt"), "{url}");
}

#[test]
fn file_may_come_under_any_field_name() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = upload_files(&hamlet, &[("/home/me/notes.txt", "notes.txt", b"hello")]).success();
    assert_eq!(body["filename"], "notes.txt");
}

#[test]
fn two_uploads_with_the_same_name_get_distinct_urls() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let first = upload(&hamlet, "same.txt", b"one");
    let second = upload(&hamlet, "same.txt", b"two");
    assert_ne!(first, second);
    assert_eq!(download(Some(&hamlet), &first, &[]).bytes, b"one");
    assert_eq!(download(Some(&hamlet), &second, &[]).bytes, b"two");
}

#[test]
fn file_name_is_sanitized_and_escaped_in_the_url() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = upload_files(&hamlet, &[("file", "my report (final).txt", b"r")]).success();
    assert_eq!(body["filename"], "my-report-final.txt");
    assert!(body["url"].as_str().unwrap().ends_with("/my-report-final.txt"));
    let body = upload_files(&hamlet, &[("file", "été.txt", b"e")]).success();
    assert_eq!(body["filename"], "été.txt");
    let url = body["url"].as_str().unwrap();
    assert!(url.ends_with("/%C3%A9t%C3%A9.txt"), "{url}");
    assert_eq!(download(Some(&hamlet), url, &[]).bytes, b"e");
}

#[test]
fn upload_without_a_file_is_rejected() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post_multipart("/user_uploads", &[("x", "y")]).bad_request("BAD_REQUEST", "You must specify a file to upload");
}

#[test]
fn upload_of_two_files_is_rejected() {
    let hamlet = Client::dev("hamlet@zulip.com");
    upload_files(&hamlet, &[("a", "a.txt", b"a"), ("b", "b.txt", b"b")])
        .bad_request("BAD_REQUEST", "You may only upload one file at a time");
}

#[test]
fn oversize_upload_is_refused_and_nothing_is_stored() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let register = hamlet.post("/register", &[("fetch_event_types", "[\"realm\"]")]).success();
    let max_mib = register["max_file_upload_size_mib"].as_u64().unwrap() as usize;
    let used_before = hamlet.get("/attachments", &[]).success()["upload_space_used"].as_i64().unwrap();
    let bytes = vec![7u8; max_mib * 1024 * 1024 + 1];
    upload_files(&hamlet, &[("file", "big.bin", &bytes)])
        .bad_request("BAD_REQUEST", &format!("File is larger than this server's configured maximum upload size ({max_mib} MiB)."));
    let used_after = hamlet.get("/attachments", &[]).success()["upload_space_used"].as_i64().unwrap();
    assert!(used_after - used_before < bytes.len() as i64, "the oversize file was stored");
}

#[test]
fn other_users_are_refused_before_sharing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let url = upload(&hamlet, "private.txt", b"secret");
    let got = download(Some(&othello), &url, &[]);
    assert_eq!(got.status, 403);
    assert_eq!(got.json()["code"], "PERMISSION_DENIED");
    assert_eq!(got.json()["msg"], "You are not authorized to view this file.");
}

#[test]
fn recipient_may_download_once_a_message_links_it() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let url = upload(&hamlet, "shared.txt", b"shared bytes");
    send_direct(&hamlet, &[othello.user_id], &format!("[shared.txt]({url})"));
    let got = download(Some(&othello), &url, &[]);
    assert_eq!(got.status, 200);
    assert_eq!(got.bytes, b"shared bytes");
    assert_eq!(download(Some(&cordelia), &url, &[]).status, 403, "a third user still may not");
}

#[test]
fn anonymous_requests_never_get_the_bytes() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = upload(&hamlet, "anon.txt", b"not for you");
    let name = unique("uploads-public");
    create_channel(&hamlet, &name, &[], &[]);
    send_to_channel(&hamlet, &name, "t", &format!("[anon.txt]({url})"));
    let got = download(None, &url, &[]);
    assert_eq!(got.status, 401);
    assert_eq!(got.json()["code"], "UNAUTHORIZED");
    assert_eq!(got.json()["msg"], "Not logged in: API authentication or user session required");
    assert_ne!(got.bytes, b"not for you");
}

#[test]
fn channel_subscribers_may_download_a_linked_file() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("uploads-chan");
    let subs = format!("[{{\"name\": \"{name}\"}}]");
    let principals = format!("[{}, {}]", hamlet.user_id, othello.user_id);
    hamlet.post("/users/me/subscriptions", &[("subscriptions", &subs), ("principals", &principals), ("invite_only", "true")]).success();
    let url = upload(&hamlet, "chan.txt", b"for the channel");
    send_to_channel(&hamlet, &name, "t", &format!("see {url}"));
    assert_eq!(download(Some(&othello), &url, &[]).bytes, b"for the channel");
    assert_eq!(download(Some(&Client::dev("cordelia@zulip.com")), &url, &[]).status, 403, "not subscribed to the private channel");
}

#[test]
fn unknown_file_is_not_found() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let got = download(Some(&hamlet), "/user_uploads/1/zz/zzzz/nothing-here.txt", &[]);
    assert_eq!(got.status, 404);
    assert_eq!(got.json()["msg"], "File not found");
}

#[test]
fn range_request_answers_the_requested_bytes() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let bytes = binary_bytes(1000);
    let url = upload(&hamlet, "range.bin", &bytes);
    let got = download(Some(&hamlet), &url, &[("Range", "bytes=100-299")]);
    assert_eq!(got.status, 206);
    assert_eq!(got.bytes, &bytes[100..300]);
    assert_eq!(got.header("Content-Range"), Some("bytes 100-299/1000"));
    let tail = download(Some(&hamlet), &url, &[("Range", "bytes=-10")]);
    assert_eq!(tail.bytes, &bytes[990..]);
    let past = download(Some(&hamlet), &url, &[("Range", "bytes=5000-")]);
    assert_eq!(past.status, 416);
}

#[test]
fn images_are_served_inline() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    let url = upload(&hamlet, "pic.png", png);
    let got = download(Some(&hamlet), &url, &[]);
    assert_eq!(got.header("Content-Type"), Some("image/png"));
    assert!(got.header("Content-Disposition").unwrap().starts_with("inline;"));
}

#[test]
fn html_is_served_as_an_attachment() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = upload(&hamlet, "page.html", b"<script>alert(1)</script>");
    let got = download(Some(&hamlet), &url, &[]);
    assert!(got.header("Content-Disposition").unwrap().starts_with("attachment;"), "{:?}", got.headers);
}

#[test]
fn api_form_answers_a_url_to_the_file() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let url = upload(&hamlet, "api.txt", b"api");
    let path = url.trim_start_matches("/user_uploads");
    let body = hamlet.get(&format!("/user_uploads{path}"), &[]).success();
    assert_matches_openapi("get", "/user_uploads/{realm_id_str}/{filename}", &body);
    let temporary = body["url"].as_str().unwrap();
    assert!(temporary.starts_with("/user_uploads/temporary/") && temporary.ends_with("/api.txt"), "{temporary}");
    assert_eq!(download(None, temporary, &[]).bytes, b"api", "a temporary URL needs no credentials");
    othello.get(&format!("/user_uploads{path}"), &[]).error(403, "PERMISSION_DENIED", "You are not authorized to view this file.");
}

#[test]
fn python_client_upload_file_round_trips() {
    let root = env!("CARGO_MANIFEST_DIR");
    let python = format!("{root}/.venv-test/bin/python");
    assert!(std::path::Path::new(&python).exists(), "{python} is missing: `make test` creates the virtual environment");
    let out = std::process::Command::new(python)
        .arg(format!("{root}/tests/python/upload_file.py"))
        .env("TEST_SERVER_URL", server_url())
        .output()
        .expect("run the Python client");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    assert!(text.contains("round trip ok:"), "{text}");
}

#[test]
fn unknown_temporary_url_is_not_found() {
    let got = download(None, "/user_uploads/temporary/notatoken/x.txt", &[]);
    assert_eq!(got.status, 404);
    assert_eq!(got.json()["msg"], "File not found");
}

#[test]
fn a_downloaded_file_runs_no_script_on_the_web_clients_origin() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = upload(&hamlet, &format!("{}.html", unique("page")), b"<script>alert(1)</script>");
    let file = download(Some(&hamlet), &url, &[]);
    assert_eq!(file.status, 200);
    let policy = file.header("Content-Security-Policy").expect("a CSP on downloads");
    assert!(policy.contains("default-src 'none'") && policy.contains("sandbox"), "{policy}");
    assert!(file.header("Content-Disposition").unwrap().starts_with("attachment"), "HTML is never shown inline");
}
