//! Resumable uploads over tus 1.0 (`/api/v1/tus`): chunked, resumed after a cut chunk with
//! the tus project's Python client (tuspy, in `.venv-test`, which `make test` installs),
//! and finished into an ordinary upload.

mod chat;
mod common;
mod event_support;
mod upload_support;
use chat::*;
use common::*;
use event_support::*;
use upload_support::*;

use base64::Engine;
use serde_json::Value;

const MIB: usize = 1 << 20;

/// A raw tus answer.
struct TusResp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl TusResp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Asserts a Zulip error envelope with this status, code and message.
    #[track_caller]
    fn error(&self, status: u16, code: &str, msg: &str) {
        assert_eq!(self.status, status, "{:?}", String::from_utf8_lossy(&self.body));
        let body: Value = serde_json::from_slice(&self.body).unwrap();
        assert_eq!((body["result"].as_str(), body["code"].as_str(), body["msg"].as_str()), (Some("error"), Some(code), Some(msg)));
        assert_eq!(self.header("Tus-Resumable"), Some("1.0.0"), "every answer names the protocol version");
    }
}

fn basic(client: &Client) -> String {
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", client.email, client.api_key)))
}

/// A tus request to `target` (a path under `/api/v1`, or a full URL from `Location`).
fn tus(method: &str, target: &str, client: Option<&Client>, headers: &[(&str, &str)], body: &[u8]) -> TusResp {
    let url = if target.starts_with("http") { target.to_string() } else { format!("{}/api/v1{target}", server_url()) };
    let mut req = ureq::request(method, &url);
    if let Some(client) = client {
        req = req.set("Authorization", &basic(client));
    }
    for (k, v) in headers {
        req = req.set(k, v);
    }
    let result = if method == "POST" || method == "PATCH" { req.send_bytes(body) } else { req.call() };
    let response = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {target}: transport error {e}"),
    };
    let status = response.status();
    let headers = response.headers_names().into_iter().map(|n| (n.clone(), response.header(&n).unwrap_or("").to_string())).collect();
    let mut body = Vec::new();
    std::io::Read::read_to_end(&mut response.into_reader(), &mut body).unwrap();
    TusResp { status, headers, body }
}

fn metadata(file_name: &str, file_type: &str) -> String {
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    format!("filename {},filetype {}", b64(file_name), b64(file_type))
}

/// Creates an upload of `length` bytes and answers its URL.
fn create(client: &Client, length: usize, file_name: &str) -> String {
    let resp = tus(
        "POST",
        "/tus",
        Some(client),
        &[("Tus-Resumable", "1.0.0"), ("Upload-Length", &length.to_string()), ("Upload-Metadata", &metadata(file_name, "text/plain"))],
        b"",
    );
    assert_eq!(resp.status, 201, "{:?}", String::from_utf8_lossy(&resp.body));
    assert_eq!(resp.header("Tus-Resumable"), Some("1.0.0"));
    resp.header("Location").expect("Location").to_string()
}

fn patch(client: &Client, url: &str, offset: usize, bytes: &[u8]) -> TusResp {
    tus(
        "PATCH",
        url,
        Some(client),
        &[("Tus-Resumable", "1.0.0"), ("Upload-Offset", &offset.to_string()), ("Content-Type", "application/offset+octet-stream")],
        bytes,
    )
}

fn head(client: &Client, url: &str) -> TusResp {
    tus("HEAD", url, Some(client), &[("Tus-Resumable", "1.0.0")], b"")
}

/// Bytes that repeat no pattern a part boundary could hide behind.
fn noise(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

fn fresh_user() -> Client {
    let iago = Client::dev("iago@zulip.com");
    let email = format!("{}@zulip.com", unique("tus"));
    iago.post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", "Tus Uploader")]).success();
    Client::dev(&email)
}

#[test]
fn options_announce_version_extension_and_max_size() {
    let resp = tus("OPTIONS", "/tus", None, &[], b"");
    assert_eq!(resp.status, 204);
    assert_eq!(resp.header("Tus-Resumable"), Some("1.0.0"));
    assert_eq!(resp.header("Tus-Version"), Some("1.0.0"));
    assert_eq!(resp.header("Tus-Extension"), Some("creation"));
    // max_file_upload_size_mib (25), as POST /user_uploads.
    assert_eq!(resp.header("Tus-Max-Size"), Some("26214400"));
}

#[test]
fn tuspy_upload_in_chunks_resumes_after_a_cut_chunk_and_downloads_byte_identical() {
    let root = env!("CARGO_MANIFEST_DIR");
    let python = format!("{root}/.venv-test/bin/python");
    assert!(std::path::Path::new(&python).exists(), "{python} is missing: `make test` creates it");
    let hamlet = Client::dev("hamlet@zulip.com");
    // Three R2 parts of 5 MiB and a short last one, sent in 3 MiB chunks: chunks and parts
    // never line up.
    let bytes = noise(15 * MIB + 12_345);
    let name = format!("{}.bin", unique("resumable"));
    let dir = std::env::temp_dir().join(unique("tus"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(&name);
    std::fs::write(&path, &bytes).unwrap();

    let out = std::process::Command::new(python)
        .arg(format!("{root}/tests/python/tus_upload.py"))
        .args([&server_url(), &hamlet.email, &hamlet.api_key, path.to_str().unwrap(), &(3 * MIB).to_string(), "2"])
        .output()
        .expect("run tuspy");
    std::fs::remove_dir_all(&dir).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_str(stdout.trim()).unwrap();

    // The cut chunk was dropped whole: HEAD said to resume after the two whole chunks.
    assert_eq!(report["offset_after_cut"], 6 * MIB);
    assert_eq!(report["patches"], 2 + 4, "{report}");
    // The last PATCH answers what Zulip's tusd hook answers: the file's URL and name.
    let url = report["last_response"]["url"].as_str().unwrap();
    assert_eq!(report["last_response"]["filename"], name.as_str());
    let segments: Vec<&str> = url.trim_start_matches("/user_uploads/").split('/').collect();
    assert_eq!((segments.len(), segments[1].len(), segments[2].len(), segments[3]), (4, 2, 4, name.as_str()), "{url}");

    let got = download(Some(&hamlet), url, &[]);
    assert_eq!(got.status, 200);
    assert_eq!(got.bytes.len(), bytes.len());
    assert!(got.bytes == bytes, "the downloaded bytes differ");
    assert_eq!(got.header("Content-Type"), Some("application/octet-stream"));

    // The finished upload still answers HEAD: complete.
    let status = head(&hamlet, report["upload_url"].as_str().unwrap());
    assert_eq!(status.status, 200);
    assert_eq!(status.header("Upload-Offset"), Some(bytes.len().to_string().as_str()));
    assert_eq!(status.header("Upload-Length"), Some(bytes.len().to_string().as_str()));
    assert_eq!(status.header("Cache-Control"), Some("no-store"));
}

#[test]
fn finished_upload_is_an_attachment_like_any_other() {
    let user = fresh_user();
    let name = format!("{}.txt", unique("note"));
    let url = create(&user, 11, &name);
    let first = patch(&user, &url, 0, b"hello ");
    assert_eq!(first.status, 204);
    assert_eq!(first.header("Upload-Offset"), Some("6"));
    assert_eq!(head(&user, &url).header("Upload-Offset"), Some("6"));
    let last = patch(&user, &url, 6, b"world");
    assert_eq!(last.status, 200);
    assert_eq!(last.header("Upload-Offset"), Some("11"));
    let body: Value = serde_json::from_slice(&last.body).unwrap();
    let file_url = body["url"].as_str().unwrap();

    let listed = user.get("/attachments", &[]).success();
    assert_matches_openapi("get", "/attachments", &listed);
    let attachments = listed["attachments"].as_array().unwrap();
    assert_eq!(attachments.len(), 1, "{listed}");
    assert_eq!(attachments[0]["name"], name.as_str());
    assert_eq!(attachments[0]["size"], 11);
    assert_eq!(format!("/user_uploads/{}", attachments[0]["path_id"].as_str().unwrap()), file_url);
    assert_eq!(listed["upload_space_used"], 11);

    let got = download(Some(&user), file_url, &[]);
    assert_eq!(got.bytes, b"hello world");
    // filetype from the metadata; text is served as a download, as for POST /user_uploads.
    assert_eq!(got.header("Content-Type"), Some("text/plain"));
    assert!(got.header("Content-Disposition").unwrap().starts_with("attachment;"));
    // Nobody else may download it until a message links it.
    let othello = Client::dev("othello@zulip.com");
    assert_eq!(download(Some(&othello), file_url, &[]).status, 403);
}

#[test]
fn patch_at_another_offset_is_a_conflict() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = create(&hamlet, 10, "conflict.txt");
    patch(&hamlet, &url, 3, b"abc").error(409, "BAD_REQUEST", "Upload-Offset does not match the upload's offset");
    assert_eq!(patch(&hamlet, &url, 0, b"abc").status, 204);
    patch(&hamlet, &url, 0, b"abc").error(409, "BAD_REQUEST", "Upload-Offset does not match the upload's offset");
    assert_eq!(head(&hamlet, &url).header("Upload-Offset"), Some("3"));
}

#[test]
fn unsupported_version_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let msg = "Unsupported tus version: Tus-Resumable must be 1.0.0";
    let resp = tus("POST", "/tus", Some(&hamlet), &[("Tus-Resumable", "0.2.2"), ("Upload-Length", "5")], b"");
    resp.error(412, "BAD_REQUEST", msg);
    assert_eq!(resp.header("Tus-Version"), Some("1.0.0"));
    assert!(resp.header("Location").is_none());
    tus("POST", "/tus", Some(&hamlet), &[("Upload-Length", "5")], b"").error(412, "BAD_REQUEST", msg);
    let url = create(&hamlet, 5, "version.txt");
    // HEAD answers carry no body: the status and headers tell.
    let resp = tus("HEAD", &url, Some(&hamlet), &[("Tus-Resumable", "2.0.0")], b"");
    assert_eq!((resp.status, resp.header("Tus-Version"), resp.header("Tus-Resumable")), (412, Some("1.0.0"), Some("1.0.0")));
}

#[test]
fn requests_without_credentials_are_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = create(&hamlet, 5, "anon.txt");
    let resp = tus("POST", "/tus", None, &[("Tus-Resumable", "1.0.0"), ("Upload-Length", "5")], b"");
    resp.error(401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
    assert!(resp.header("Location").is_none());
    tus(
        "PATCH",
        &url,
        None,
        &[("Tus-Resumable", "1.0.0"), ("Upload-Offset", "0"), ("Content-Type", "application/offset+octet-stream")],
        b"hello",
    )
    .error(401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");
    assert_eq!(head(&hamlet, &url).header("Upload-Offset"), Some("0"));
}

#[test]
fn oversize_upload_is_refused_before_anything_is_stored() {
    let user = fresh_user();
    let too_big = (25 * MIB + 1).to_string();
    let resp = tus(
        "POST",
        "/tus",
        Some(&user),
        &[("Tus-Resumable", "1.0.0"), ("Upload-Length", &too_big), ("Upload-Metadata", &metadata("big.bin", ""))],
        b"",
    );
    resp.error(413, "BAD_REQUEST", "Uploaded file is larger than the allowed limit of 25 MiB");
    assert!(resp.header("Location").is_none());
    let listed = user.get("/attachments", &[]).success();
    assert_eq!(listed["attachments"], serde_json::json!([]));
    assert_eq!(listed["upload_space_used"], 0);
}

#[test]
fn chunk_past_the_upload_length_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = create(&hamlet, 4, "short.txt");
    patch(&hamlet, &url, 0, b"hello").error(413, "BAD_REQUEST", "The chunk goes past the upload's Upload-Length");
    assert_eq!(head(&hamlet, &url).header("Upload-Offset"), Some("0"));
}

#[test]
fn chunk_needs_the_offset_octet_stream_type() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = create(&hamlet, 4, "typed.txt");
    tus("PATCH", &url, Some(&hamlet), &[("Tus-Resumable", "1.0.0"), ("Upload-Offset", "0"), ("Content-Type", "text/plain")], b"abcd")
        .error(415, "BAD_REQUEST", "Content-Type must be application/offset+octet-stream");
    assert_eq!(head(&hamlet, &url).header("Upload-Offset"), Some("0"));
}

#[test]
fn another_users_upload_is_unknown() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let url = create(&hamlet, 4, "mine.txt");
    assert_eq!(head(&othello, &url).status, 404);
    patch(&othello, &url, 0, b"abcd").error(404, "BAD_REQUEST", "Upload not found");
    assert_eq!(head(&hamlet, &url).header("Upload-Offset"), Some("0"));
}

#[test]
fn empty_file_is_complete_at_creation() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = format!("{}.txt", unique("empty"));
    let resp = tus(
        "POST",
        "/tus",
        Some(&hamlet),
        &[("Tus-Resumable", "1.0.0"), ("Upload-Length", "0"), ("Upload-Metadata", &metadata(&name, "text/plain"))],
        b"",
    );
    assert_eq!(resp.status, 201);
    let body: Value = serde_json::from_slice(&resp.body).unwrap();
    assert_eq!(body["filename"], name.as_str());
    let file_url = body["url"].as_str().unwrap();
    let status = head(&hamlet, resp.header("Location").unwrap());
    assert_eq!((status.header("Upload-Offset"), status.header("Upload-Length")), (Some("0"), Some("0")));
    let got = download(Some(&hamlet), file_url, &[]);
    assert_eq!((got.status, got.bytes.len()), (200, 0));
    let listed = hamlet.get("/attachments", &[]).success();
    let path_id = file_url.trim_start_matches("/user_uploads/");
    assert!(listed["attachments"].as_array().unwrap().iter().any(|a| a["path_id"] == path_id && a["size"] == 0), "{listed}");
}

/// Uploads `bytes` in one chunk and answers the file's URL.
fn upload_whole(client: &Client, name: &str, bytes: &[u8]) -> String {
    let url = create(client, bytes.len(), name);
    let last = patch(client, &url, 0, bytes);
    assert_eq!(last.status, 200, "{:?}", String::from_utf8_lossy(&last.body));
    let body: Value = serde_json::from_slice(&last.body).unwrap();
    body["url"].as_str().unwrap().to_string()
}

#[test]
fn finished_upload_sends_the_attachment_add_event() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, "[\"attachment\"]");
    let name = format!("{}.txt", unique("evented"));
    let file_url = upload_whole(&hamlet, &name, b"event");
    let path_id = file_url.trim_start_matches("/user_uploads/").to_string();
    let added =
        queue.wait_for("attachment add", |e| e["type"] == "attachment" && e["op"] == "add" && e["attachment"]["path_id"] == path_id);
    assert_eq!(added["attachment"]["name"], name.as_str());
    assert_eq!(added["attachment"]["size"], 5);
}

#[test]
fn recipient_may_download_once_a_message_links_the_file() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let file_url = upload_whole(&hamlet, "shared.txt", b"shared bytes");
    assert_eq!(download(Some(&othello), &file_url, &[]).status, 403);
    send_direct(&hamlet, &[othello.user_id], &format!("[shared.txt]({file_url})"));
    let got = download(Some(&othello), &file_url, &[]);
    assert_eq!((got.status, got.bytes.as_slice()), (200, b"shared bytes".as_slice()));
    assert_eq!(download(Some(&cordelia), &file_url, &[]).status, 403);
    assert_eq!(download(None, &file_url, &[]).status, 401);
}
