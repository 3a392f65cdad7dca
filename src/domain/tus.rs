//! The tus 1.0 resumable upload protocol (core and the `creation` extension): its headers
//! and how a chunk's bytes are cut into R2 multipart parts.
//!
//! The headers are handled here rather than by a crate. `tus-protocol` 0.1 (a first 0.x
//! release) builds for wasm32 and targets Workers, but it owns the request cycle behind
//! its own storage, state, lock and hook traits: using it would take an R2 storage adapter
//! (with the same part buffering as below), a D1 state store, a lock Workers does not
//! have, and translation of its request, response and error types to the route table and
//! `ApiError` -- more code than the four headers and one metadata format that the core
//! protocol and `creation` need (`base64` decodes the metadata). `salvo-tus` is tied to
//! the salvo framework.
//!
//! R2 requires every part of a multipart upload but the last to be at least 5 MiB and all
//! of them the same size, while a tus client may send chunks of any size. Parts are
//! therefore exactly [`PART_SIZE`]: bytes that do not yet fill a part wait in a temporary R2
//! object, and are sent as a part together with the next chunk once a part is full (or as
//! the last, shorter part when the upload is complete).

use std::ops::Range;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use crate::domain::register_state::MAX_FILE_UPLOAD_SIZE_MIB;

/// The one protocol version spoken (`Tus-Resumable`, `Tus-Version`).
pub const TUS_VERSION: &str = "1.0.0";
/// `Tus-Extension`: uploads are created by POST; no deferred length, no termination.
pub const TUS_EXTENSIONS: &str = "creation";
/// The body type of a PATCH.
pub const CHUNK_CONTENT_TYPE: &str = "application/offset+octet-stream";
/// The size of every R2 part but the last (R2's minimum).
pub const PART_SIZE: usize = 5 << 20;

/// `Tus-Max-Size`: the same limit as `POST /user_uploads`.
pub fn max_size() -> i64 {
    MAX_FILE_UPLOAD_SIZE_MIB << 20
}

/// A non-negative decimal header value (`Upload-Length`, `Upload-Offset`).
pub fn parse_size(value: &str) -> Option<i64> {
    let value = value.trim();
    if value.is_empty() || value.len() > 15 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value.parse().ok()
}

/// What `Upload-Metadata` says about the file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    pub filename: String,
    pub filetype: String,
}

/// Parses `Upload-Metadata`: comma-separated `key base64(value)` pairs (a key alone has an
/// empty value). Unknown keys are ignored; `None` when the header is malformed.
pub fn parse_metadata(header: &str) -> Option<Metadata> {
    let mut metadata = Metadata::default();
    for pair in header.split(',') {
        let pair = pair.trim();
        if pair.is_empty() {
            continue;
        }
        let mut words = pair.split(' ').filter(|w| !w.is_empty());
        let key = words.next()?;
        let value = match words.next() {
            Some(encoded) => String::from_utf8(STANDARD.decode(encoded).ok()?).ok()?,
            None => String::new(),
        };
        if words.next().is_some() {
            return None;
        }
        match key {
            "filename" => metadata.filename = value,
            "filetype" => metadata.filetype = value,
            _ => {}
        }
    }
    Some(metadata)
}

/// How the bytes waiting past the last part plus a new chunk (`buffered` bytes, starting at
/// part `parts_done + 1`) are stored: `parts` go to R2 as parts (part number, range in the
/// buffer), `pending` waits for the next chunk.
#[derive(Debug, PartialEq, Eq)]
pub struct ChunkPlan {
    pub parts: Vec<(u16, Range<usize>)>,
    pub pending: Range<usize>,
}

/// Full parts only, unless the chunk completes the upload (`is_final`): then the rest is
/// the last part, which R2 lets be shorter (an upload with no part yet gets one even if
/// it is empty).
pub fn plan_chunk(parts_done: usize, buffered: usize, is_final: bool) -> ChunkPlan {
    let mut parts = Vec::new();
    let mut start = 0;
    while buffered - start >= PART_SIZE {
        parts.push(((parts_done + parts.len() + 1) as u16, start..start + PART_SIZE));
        start += PART_SIZE;
    }
    if is_final && (start < buffered || parts_done + parts.len() == 0) {
        parts.push(((parts_done + parts.len() + 1) as u16, start..buffered));
        start = buffered;
    }
    ChunkPlan { parts, pending: start..buffered }
}

/// The temporary R2 object holding the bytes past the last part while the upload stands
/// at `offset`. Naming it by offset means a PATCH that died before recording its progress
/// never overwrote the object the recorded offset points to.
pub fn pending_key(token: &str, offset: i64) -> String {
    format!("tus/{token}/{offset}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_plain_decimal() {
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size(" 1048576 "), Some(1 << 20));
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("1e6"), None);
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("99999999999999999999"), None);
    }

    #[test]
    fn metadata_values_are_base64() {
        let m = parse_metadata("filename cmVwb3J0LnBkZg==,filetype YXBwbGljYXRpb24vcGRm, other").unwrap();
        assert_eq!(m, Metadata { filename: "report.pdf".into(), filetype: "application/pdf".into() });
        assert_eq!(parse_metadata("").unwrap(), Metadata::default());
        assert_eq!(parse_metadata("filename not-base64!"), None);
        assert_eq!(parse_metadata("filename YQ== extra"), None);
    }

    #[test]
    fn chunks_become_equal_parts_and_a_short_last_one() {
        // 3 MiB waiting: no part yet.
        assert_eq!(plan_chunk(0, 3 << 20, false), ChunkPlan { parts: vec![], pending: 0..3 << 20 });
        // 12 MiB: two full parts, 2 MiB waits.
        let plan = plan_chunk(1, 12 << 20, false);
        assert_eq!(plan.parts, vec![(2, 0..PART_SIZE), (3, PART_SIZE..2 * PART_SIZE)]);
        assert_eq!(plan.pending, 2 * PART_SIZE..12 << 20);
        // The end of the upload: the rest is the last part.
        let plan = plan_chunk(2, 7 << 20, true);
        assert_eq!(plan.parts, vec![(3, 0..PART_SIZE), (4, PART_SIZE..7 << 20)]);
        assert!(plan.pending.is_empty());
        // Exactly full parts at the end: no empty extra part.
        assert_eq!(plan_chunk(1, PART_SIZE, true).parts, vec![(2, 0..PART_SIZE)]);
        // A small file is one short part.
        assert_eq!(plan_chunk(0, 10, true).parts, vec![(1, 0..10)]);
    }
}
