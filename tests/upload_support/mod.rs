//! Raw byte uploads and downloads for the upload tests (the common helpers speak JSON).
#![allow(dead_code)]

use std::io::Read;

use base64::Engine;
use serde_json::Value;

use crate::common::{host_for, server_url, Client, Resp};

/// A multipart body of file parts `(field, file name, bytes)`.
fn multipart(files: &[(&str, &str, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "----teamchatuploadboundaryQx81";
    let mut data = Vec::new();
    for (field, name, bytes) in files {
        data.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\n\
                 Content-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        data.extend_from_slice(bytes);
        data.extend_from_slice(b"\r\n");
    }
    data.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), data)
}

fn basic(client: &Client) -> String {
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", client.email, client.api_key));
    format!("Basic {token}")
}

/// `POST /api/v1/user_uploads` with these file parts.
pub fn upload_files(client: &Client, files: &[(&str, &str, &[u8])]) -> Resp {
    upload_files_to(client, "/user_uploads", files)
}

/// `POST /api/v1<path>` with these file parts (uploads, custom emoji).
pub fn upload_files_to(client: &Client, path: &str, files: &[(&str, &str, &[u8])]) -> Resp {
    let (content_type, data) = multipart(files);
    let url = format!("{}/api/v1{path}", server_url());
    let mut req = ureq::post(&url).set("Authorization", &basic(client)).set("Content-Type", &content_type);
    // The client's organization, as its other requests address it.
    if let Some(host) = host_for(client.realm.as_deref()) {
        req = req.set("Host", &host);
    }
    let result = req.send_bytes(&data);
    let response = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("upload: transport error {e}"),
    };
    let status = response.status();
    let content_type = response.header("Content-Type").map(str::to_string);
    let body: Value = serde_json::from_str(&response.into_string().unwrap()).unwrap();
    Resp { status, www_authenticate: None, content_type, d1_round_trips: None, body }
}

/// Uploads one file and answers its `url`.
pub fn upload(client: &Client, name: &str, bytes: &[u8]) -> String {
    let body = upload_files(client, &[("file", name, bytes)]).success();
    body["url"].as_str().unwrap().to_string()
}

/// A download: status, the headers we look at, and the raw bytes.
pub struct Download {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub bytes: Vec<u8>,
}

impl Download {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes)
            .unwrap_or_else(|_| panic!("not JSON ({}): {:?}", self.status, String::from_utf8_lossy(&self.bytes)))
    }
}

/// `GET <url>` (a `/user_uploads/...` path) as `client` (`None`: anonymous), with extra headers.
pub fn download(client: Option<&Client>, url: &str, headers: &[(&str, &str)]) -> Download {
    let mut req = ureq::get(&format!("{}{}", server_url(), url));
    if let Some(c) = client {
        req = req.set("Authorization", &basic(c));
        if let Some(host) = host_for(c.realm.as_deref()) {
            req = req.set("Host", &host);
        }
    }
    for (k, v) in headers {
        req = req.set(k, v);
    }
    let response = match req.call() {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("download: transport error {e}"),
    };
    let status = response.status();
    let headers = ["Content-Type", "Content-Disposition", "ETag", "Content-Range", "Accept-Ranges", "Content-Security-Policy"]
        .iter()
        .filter_map(|h| response.header(h).map(|v| (h.to_string(), v.to_string())))
        .collect();
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut response.into_reader(), &mut bytes).unwrap();
    Download { status, headers, bytes }
}

/// Bytes 0..=255 repeated: every byte value, including ones invalid in UTF-8.
pub fn binary_bytes(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 256) as u8).collect()
}

/// A valid 1x1 PNG.
const PNG_HEX: &str = "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f00050001ff89993d1d0000000049454e44ae426082";

pub fn png() -> Vec<u8> {
    (0..PNG_HEX.len()).step_by(2).map(|i| u8::from_str_radix(&PNG_HEX[i..i + 2], 16).unwrap()).collect()
}

/// A JPEG signature and some bytes (enough for the type check; served back as stored).
pub fn jpeg() -> Vec<u8> {
    let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0];
    bytes.extend((0..200).map(|i| (i % 251) as u8));
    bytes
}

/// Bytes that do not compress: an archive holding them is as large as they are.
pub fn incompressible(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

/// The archive behind an export's URL, unpacked: path (without the top folder) -> bytes.
pub fn unpack(admin: &Client, export: &Value) -> std::collections::BTreeMap<String, Vec<u8>> {
    let url = export["export_url"].as_str().expect("export_url");
    let path = &url[url.find("/user_avatars/").unwrap()..];
    let got = download(Some(admin), path, &[]);
    assert_eq!(got.status, 200, "{}", String::from_utf8_lossy(&got.bytes));
    assert_eq!(got.header("Content-Type"), Some("application/gzip"));
    files_of(&got.bytes)
}

/// The files of an export archive (`.tar.gz` bytes), by their path inside its folder.
pub fn files_of(archive: &[u8]) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut archive = tar::Archive::new(flate2::read::MultiGzDecoder::new(archive));
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().to_string_lossy().to_string();
        let (folder, rest) = name.split_once('/').unwrap();
        assert!(folder.starts_with("zulip-export-"), "{name}");
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        files.insert(rest.to_string(), bytes);
    }
    files
}
