//! Uploaded files: stored names, storage paths, how they are served, and the links to them
//! in message content.

use crate::db::attachments::{AttachmentRow, LinkRow};
use crate::secrets::random_alphanumeric;

/// Zulip's `sanitize_name`: word characters, whitespace, `.` and `-` survive; runs of
/// whitespace and dashes become one dash; nothing usable left gives `uploaded-file`.
pub fn sanitize_name(name: &str) -> String {
    // Browsers may send a full client path.
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let kept: String = base.chars().filter(|c| c.is_alphanumeric() || *c == '_' || c.is_whitespace() || *c == '.' || *c == '-').collect();
    let mut out = String::new();
    let mut in_run = false;
    for c in kept.trim().chars() {
        if c == '-' || c.is_whitespace() {
            if !in_run {
                out.push('-');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    if out.is_empty() || out == "." || out == ".." {
        "uploaded-file".to_string()
    } else {
        out
    }
}

/// A fresh storage path: `<realm_id>/<2 chars>/<4 chars>/<file name>`, random parts from a CSPRNG.
pub fn new_path_id(realm_id: i64, file_name: &str) -> String {
    let random = random_alphanumeric(6);
    format!("{realm_id}/{}/{}/{file_name}", &random[..2], &random[2..])
}

/// The URL path of an upload, its file name percent-encoded.
pub fn url_for(path_id: &str) -> String {
    let (dir, name) = path_id.rsplit_once('/').unwrap_or(("", path_id));
    format!("/user_uploads/{dir}/{}", percent_encode(name))
}

/// A temporary download URL: `/user_uploads/temporary/<token>/<file name>`.
pub fn temporary_url_for(token: &str, file_name: &str) -> String {
    format!("/user_uploads/temporary/{token}/{}", percent_encode(file_name))
}

fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The content type to store: the client's, or one guessed from the extension when the
/// client sent none.
pub fn content_type_for(declared: &str, file_name: &str) -> String {
    let declared = declared.trim();
    if !declared.is_empty() && declared != "application/octet-stream" {
        return declared.to_string();
    }
    let ext = file_name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let guessed = match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "apng" => "image/apng",
        "svg" => "image/svg+xml",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "flac" => "audio/flac",
        "aac" => "audio/aac",
        "txt" => "text/plain",
        "pdf" => "application/pdf",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        _ => "application/octet-stream",
    };
    guessed.to_string()
}

/// Zulip's `INLINE_MIME_TYPES`: what a browser may render in place without risk. Anything
/// else (HTML, SVG, PDF...) is served as a download.
const INLINE_TYPES: &[&str] = &[
    "audio/aac",
    "audio/flac",
    "audio/mp4",
    "audio/mpeg",
    "audio/wav",
    "audio/webm",
    "image/apng",
    "image/avif",
    "image/gif",
    "image/jpeg",
    "image/png",
    "image/webp",
    "video/mp4",
    "video/webm",
];

/// The `Content-Disposition` header of a download.
pub fn content_disposition(content_type: &str, file_name: &str) -> String {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let kind = if INLINE_TYPES.contains(&essence.as_str()) { "inline" } else { "attachment" };
    let ascii: String = file_name.chars().map(|c| if c.is_ascii_graphic() && c != '"' && c != '\\' { c } else { '_' }).collect();
    format!("{kind}; filename=\"{ascii}\"; filename*=UTF-8''{}", percent_encode(file_name))
}

/// A satisfiable single byte range `(start, end)` (inclusive) of a `size`-byte file.
#[derive(Debug, PartialEq, Eq)]
pub enum ByteRange {
    /// No usable Range header: the whole file.
    Whole,
    Part(u64, u64),
    Unsatisfiable,
}

/// Parses `Range: bytes=a-b`, `bytes=a-` and `bytes=-n`; multiple ranges and other units
/// are ignored (the whole file is served), as HTTP allows.
pub fn parse_range(header: Option<&str>, size: u64) -> ByteRange {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else { return ByteRange::Whole };
    if spec.contains(',') {
        return ByteRange::Whole;
    }
    let Some((first, last)) = spec.trim().split_once('-') else { return ByteRange::Whole };
    let (first, last) = (first.trim(), last.trim());
    let range = match (first.parse::<u64>().ok(), last.parse::<u64>().ok()) {
        (Some(a), Some(b)) if a <= b => Some((a, b.min(size.saturating_sub(1)))),
        (Some(a), None) if last.is_empty() => Some((a, size.saturating_sub(1))),
        (None, Some(n)) if first.is_empty() && n > 0 => Some((size.saturating_sub(n), size.saturating_sub(1))),
        _ => return ByteRange::Whole,
    };
    match range {
        Some((a, b)) if size > 0 && a < size && a <= b => ByteRange::Part(a, b),
        _ => ByteRange::Unsatisfiable,
    }
}

/// The upload path_ids a message links (`/user_uploads/<path_id>`, absolute or relative),
/// deduplicated, in order.
pub fn linked_path_ids(content: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (at, _) in content.match_indices("/user_uploads/") {
        let rest = &content[at + "/user_uploads/".len()..];
        let end = rest.find(|c: char| c.is_whitespace() || ")]>\"'?#".contains(c)).unwrap_or(rest.len());
        let segments: Vec<String> = rest[..end].split('/').map(crate::params::percent_decode_path).collect();
        let valid = segments.len() == 4 && crate::params::parse_int(&segments[0]).is_some() && segments.iter().all(|s| !s.is_empty());
        if valid {
            let path_id = segments.join("/");
            if !out.contains(&path_id) {
                out.push(path_id);
            }
        }
    }
    out
}

/// Zulip's Attachment of `GET /attachments`: `create_time` in milliseconds and the linking
/// messages as `{id, date_sent}`.
pub fn attachment_object(row: &AttachmentRow, links: &[LinkRow]) -> serde_json::Value {
    let messages: Vec<serde_json::Value> = links
        .iter()
        .filter(|l| l.attachment_id == row.id)
        .map(|l| serde_json::json!({ "id": l.message_id, "date_sent": l.date_sent }))
        .collect();
    serde_json::json!({
        "id": row.id,
        "name": row.file_name,
        "path_id": row.path_id,
        "size": row.size,
        "create_time": row.create_time * 1000,
        "messages": messages,
    })
}

/// An element of `detached_uploads`, as this API documents it: `create_time` in seconds
/// and the linking messages as `message_ids` (none, by definition).
pub fn detached_upload_object(row: &AttachmentRow) -> serde_json::Value {
    serde_json::json!({
        "id": row.id,
        "name": row.file_name,
        "path_id": row.path_id,
        "size": row.size,
        "create_time": row.create_time,
        "message_ids": [],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_keeps_word_characters_and_collapses_spaces() {
        assert_eq!(sanitize_name("my file (1).txt"), "my-file-1.txt");
        assert_eq!(sanitize_name("/home/me/été.png"), "été.png");
        assert_eq!(sanitize_name("../.."), "uploaded-file");
        assert_eq!(sanitize_name("a -- b"), "a-b");
    }

    #[test]
    fn path_ids_have_the_documented_layout() {
        let path = new_path_id(7, "x.txt");
        let parts: Vec<&str> = path.split('/').collect();
        assert_eq!(parts.len(), 4);
        assert_eq!((parts[0], parts[1].len(), parts[2].len(), parts[3]), ("7", 2, 4, "x.txt"));
    }

    #[test]
    fn urls_escape_the_file_name() {
        assert_eq!(url_for("1/ab/cdef/été.png"), "/user_uploads/1/ab/cdef/%C3%A9t%C3%A9.png");
    }

    #[test]
    fn only_safe_media_is_inline() {
        assert!(content_disposition("image/png", "a.png").starts_with("inline;"));
        assert!(content_disposition("text/html", "a.html").starts_with("attachment;"));
        assert!(content_disposition("image/svg+xml", "a.svg").starts_with("attachment;"));
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_range(None, 10), ByteRange::Whole);
        assert_eq!(parse_range(Some("bytes=2-5"), 10), ByteRange::Part(2, 5));
        assert_eq!(parse_range(Some("bytes=8-"), 10), ByteRange::Part(8, 9));
        assert_eq!(parse_range(Some("bytes=-3"), 10), ByteRange::Part(7, 9));
        assert_eq!(parse_range(Some("bytes=5-100"), 10), ByteRange::Part(5, 9));
        assert_eq!(parse_range(Some("bytes=10-"), 10), ByteRange::Unsatisfiable);
        assert_eq!(parse_range(Some("items=1-2"), 10), ByteRange::Whole);
    }

    #[test]
    fn links_in_content() {
        let content = "see [a.txt](/user_uploads/2/ab/cdef/a.txt) and http://x/user_uploads/2/zz/yyyy/b%20c.png?x \
                       and /user_uploads/2/ab/cdef/a.txt again, not /user_uploads/bad";
        assert_eq!(linked_path_ids(content), vec!["2/ab/cdef/a.txt".to_string(), "2/zz/yyyy/b c.png".to_string()]);
    }
}
