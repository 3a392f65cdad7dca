//! Custom emoji rules: names, accepted images, who may delete, and the API objects.

use serde_json::{json, Map, Value};

use worker::D1Database;

use crate::db::realm_emoji::{self, RealmEmojiRow};
use crate::db::users::UserRow;
use crate::error::{ApiError, ApiResult};

/// Zulip's server setting `MAX_EMOJI_FILE_SIZE_MIB` (default 5).
pub const MAX_EMOJI_FILE_SIZE_MIB: i64 = 5;

/// Custom emoji images are served from here, outside `/api/v1` and without credentials, as
/// Zulip's local storage serves `/user_avatars/`: `<realm_id>/emoji/images/<file name>`.
pub const IMAGES_PREFIX: &str = "/user_avatars/";

/// Zulip's upload view: surrounding spaces go, inner spaces become `_`; then
/// `check_valid_emoji_name`: lowercase letters, digits, `-` and `_`, ending with a letter
/// or digit.
pub fn check_emoji_name(raw: &str) -> ApiResult<String> {
    let name = raw.trim().replace(' ', "_");
    if name.is_empty() {
        return Err(ApiError::bad_request("Emoji name is missing"));
    }
    if !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_') {
        return Err(ApiError::bad_request(
            "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.",
        ));
    }
    if name.ends_with(['-', '_']) {
        return Err(ApiError::bad_request("Emoji names must end with either a letter or digit."));
    }
    Ok(name)
}

/// An image type Zulip accepts for emoji (thumbnailable and safe to show inline), with the
/// file extension it stores it under.
struct ImageType {
    content_type: &'static str,
    extension: &'static str,
}

const ACCEPTED: &[ImageType] = &[
    ImageType { content_type: "image/png", extension: "png" },
    ImageType { content_type: "image/gif", extension: "gif" },
    ImageType { content_type: "image/jpeg", extension: "jpeg" },
    ImageType { content_type: "image/webp", extension: "webp" },
    ImageType { content_type: "image/avif", extension: "avif" },
];

/// The image type the bytes actually hold (their signature), if it is one of the accepted.
fn sniff(bytes: &[u8]) -> Option<&'static ImageType> {
    let content_type = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        "image/png"
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        "image/gif"
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        "image/jpeg"
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        "image/webp"
    } else if bytes.len() >= 12 && &bytes[4..8] == b"ftyp" && (&bytes[8..12] == b"avif" || &bytes[8..12] == b"avis") {
        "image/avif"
    } else {
        return None;
    };
    ACCEPTED.iter().find(|t| t.content_type == content_type)
}

/// The content type and file extension of an accepted image type the bytes hold (by their
/// signature, whatever a file name says): how an imported image is stored.
pub fn image_type_of(bytes: &[u8]) -> Option<(&'static str, &'static str)> {
    sniff(bytes).map(|t| (t.content_type, t.extension))
}

/// Zulip's checks on the uploaded file: its declared (or guessed) type must be an accepted
/// image type ("Invalid image format"), and the bytes must decode as one ("Could not decode
/// image; ..."). Answers the content type to store and serve, and the file extension.
pub fn check_emoji_image(declared_type: &str, bytes: &[u8]) -> ApiResult<(&'static str, &'static str)> {
    let declared = declared_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if !ACCEPTED.iter().any(|t| t.content_type == declared) {
        return Err(ApiError::bad_image("Invalid image format"));
    }
    let found = sniff(bytes).ok_or_else(|| ApiError::bad_image("Could not decode image; did you upload an image file?"))?;
    Ok((found.content_type, found.extension))
}

/// The still version of an animated image (Zulip's `still_url`): its first frame, cut out
/// of the file without decoding it. GIF: everything up to the end of the first image, then
/// the trailer. APNG: the PNG without its animation chunks (what a plain PNG decoder shows).
/// `None` for a still image, an animation this cannot cut (WebP, AVIF) or a malformed file.
pub fn still_image(content_type: &str, bytes: &[u8]) -> Option<Vec<u8>> {
    match content_type {
        "image/gif" => gif_first_frame(bytes),
        "image/png" => apng_default_image(bytes),
        _ => None,
    }
}

/// The end of a GIF's data sub-blocks starting at `at` (after the zero-length terminator).
fn gif_sub_blocks_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let len = *bytes.get(at)? as usize;
        at += 1 + len;
        if len == 0 {
            return Some(at);
        }
    }
}

fn gif_first_frame(bytes: &[u8]) -> Option<Vec<u8>> {
    let color_table = |packed: u8| if packed & 0x80 != 0 { 3usize << ((packed & 7) + 1) } else { 0 };
    let mut at = 13 + color_table(*bytes.get(10)?);
    let mut first_end = None;
    loop {
        match *bytes.get(at)? {
            0x21 => at = gif_sub_blocks_end(bytes, at + 2)?,
            0x2C => {
                let descriptor_end = at + 10 + color_table(*bytes.get(at + 9)?);
                at = gif_sub_blocks_end(bytes, descriptor_end + 1)?;
                match first_end {
                    None => first_end = Some(at),
                    Some(end) => {
                        let mut still = bytes[..end].to_vec();
                        still.push(0x3B);
                        return Some(still);
                    }
                }
            }
            // The trailer after one frame: not animated.
            _ => return None,
        }
    }
}

fn apng_default_image(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut still = bytes.get(..8)?.to_vec();
    let mut at = 8;
    let mut animated = false;
    while at < bytes.len() {
        let len = u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        let end = at.checked_add(12 + len)?;
        let chunk = bytes.get(at..end)?;
        match &chunk[4..8] {
            b"acTL" | b"fcTL" | b"fdAT" => animated = true,
            _ => still.extend_from_slice(chunk),
        }
        at = end;
    }
    animated.then_some(still)
}

/// Zulip's `check_remove_custom_emoji`: administrators remove any emoji, others only their own.
pub fn check_may_remove(user: &UserRow, emoji: &RealmEmojiRow) -> ApiResult<()> {
    if user.is_realm_admin() || emoji.author_id == Some(user.id) {
        Ok(())
    } else {
        Err(ApiError::bad_request("Must be an organization administrator or emoji author"))
    }
}

/// The R2 key of an emoji image.
pub fn storage_key(realm_id: i64, file_name: &str) -> String {
    format!("{realm_id}/emoji/images/{file_name}")
}

/// The R2 key of an animated emoji's still image.
pub fn still_storage_key(realm_id: i64, still_file_name: &str) -> String {
    format!("{realm_id}/emoji/images/still/{still_file_name}")
}

/// The path (relative to the organization's URL) where the image is served.
pub fn source_url(emoji: &RealmEmojiRow) -> String {
    format!("{IMAGES_PREFIX}{}", storage_key(emoji.realm_id, &emoji.file_name))
}

/// Where an animated emoji's still image is served (`None` for a still image).
pub fn still_url(emoji: &RealmEmojiRow) -> Option<String> {
    emoji.still_file_name.as_ref().map(|still| format!("{IMAGES_PREFIX}{}", still_storage_key(emoji.realm_id, still)))
}

/// Zulip's emoji dict.
pub fn emoji_dict(emoji: &RealmEmojiRow) -> Value {
    json!({
        "id": emoji.id.to_string(),
        "name": emoji.name,
        "source_url": source_url(emoji),
        "still_url": still_url(emoji),
        "deactivated": emoji.deactivated != 0,
        "author_id": emoji.author_id,
    })
}

/// The organization's emoji keyed by id, as `GET /realm/emoji`, register and the
/// `realm_emoji` event carry them.
pub fn realm_emoji_dict(rows: &[RealmEmojiRow]) -> Value {
    let map: Map<String, Value> = rows.iter().map(|e| (e.id.to_string(), emoji_dict(e))).collect();
    Value::Object(map)
}

/// A name valid for an image file: random hex (unguessable, never user-chosen) and the type's
/// extension.
pub fn new_file_name(extension: &str) -> String {
    let random: String = crate::secrets::hex(&crate::secrets::random_bytes::<8>());
    format!("{random}.{extension}")
}

/// Every custom emoji of the organization, deactivated ones included, keyed by id. One
/// round trip.
pub async fn realm_emoji_of(db: &D1Database, realm_id: i64) -> ApiResult<Value> {
    let rows: Vec<RealmEmojiRow> = crate::db::all(db, realm_emoji::in_realm_stmt(realm_id)?).await?;
    Ok(realm_emoji_dict(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: ApiResult<String>) -> String {
        r.unwrap_err().msg
    }

    #[test]
    fn names_are_trimmed_and_spaces_become_underscores() {
        assert_eq!(check_emoji_name("  my emoji ").unwrap(), "my_emoji");
        assert_eq!(check_emoji_name("party-parrot2").unwrap(), "party-parrot2");
    }

    #[test]
    fn a_blank_name_is_missing() {
        assert_eq!(msg(check_emoji_name(" ")), "Emoji name is missing");
    }

    #[test]
    fn names_refuse_other_characters() {
        for bad in ["my_EMoji", "my_em*oji", "my/emoji", "émoji", "a.b"] {
            assert!(msg(check_emoji_name(bad)).starts_with("Emoji names must contain only"), "{bad}");
        }
    }

    #[test]
    fn names_end_with_a_letter_or_digit() {
        assert_eq!(msg(check_emoji_name("my_emoji_")), "Emoji names must end with either a letter or digit.");
        assert_eq!(msg(check_emoji_name("x-")), "Emoji names must end with either a letter or digit.");
    }

    #[test]
    fn images_need_an_accepted_declared_type_and_matching_bytes() {
        let png = b"\x89PNG\r\n\x1a\n0000";
        assert_eq!(check_emoji_image("image/png", png).unwrap(), ("image/png", "png"));
        assert_eq!(check_emoji_image("image/tiff", png).unwrap_err().msg, "Invalid image format");
        assert_eq!(check_emoji_image("image/svg+xml", png).unwrap_err().msg, "Invalid image format");
        assert_eq!(
            check_emoji_image("image/png", b"not an image").unwrap_err().msg,
            "Could not decode image; did you upload an image file?"
        );
        assert_eq!(check_emoji_image("image/gif", b"GIF89a....").unwrap(), ("image/gif", "gif"));
    }

    /// A 1x1 GIF with `frames` frames (each a graphic control extension and an image).
    fn gif(frames: usize) -> Vec<u8> {
        let mut g = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff".to_vec();
        g.extend_from_slice(b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00");
        for _ in 0..frames {
            g.extend_from_slice(b"\x21\xf9\x04\x00\x0a\x00\x00\x00");
            g.extend_from_slice(b"\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00");
        }
        g.push(0x3B);
        g
    }

    #[test]
    fn an_animated_gif_has_its_first_frame_as_still() {
        assert_eq!(still_image("image/gif", &gif(3)), Some(gif(1)));
        assert_eq!(still_image("image/gif", &gif(1)), None);
        assert_eq!(still_image("image/gif", b"GIF89a\x01"), None, "malformed");
    }

    fn chunk(kind: &[u8], data: &[u8]) -> Vec<u8> {
        let mut c = (data.len() as u32).to_be_bytes().to_vec();
        c.extend_from_slice(kind);
        c.extend_from_slice(data);
        c.extend_from_slice(&[0, 0, 0, 0]);
        c
    }

    #[test]
    fn an_apng_loses_its_animation_chunks_for_the_still() {
        let sig = b"\x89PNG\r\n\x1a\n".to_vec();
        let plain = [sig.clone(), chunk(b"IHDR", &[0; 13]), chunk(b"IDAT", b"xx"), chunk(b"IEND", b"")].concat();
        let animated = [
            sig,
            chunk(b"IHDR", &[0; 13]),
            chunk(b"acTL", &[0; 8]),
            chunk(b"fcTL", &[0; 26]),
            chunk(b"IDAT", b"xx"),
            chunk(b"fcTL", &[0; 26]),
            chunk(b"fdAT", b"yyyy"),
            chunk(b"IEND", b""),
        ]
        .concat();
        assert_eq!(still_image("image/png", &animated), Some(plain.clone()));
        assert_eq!(still_image("image/png", &plain), None);
    }

    #[test]
    fn file_names_are_random_hex_with_the_extension() {
        let a = new_file_name("png");
        assert_eq!(a.len(), 20);
        assert!(a.ends_with(".png"));
        assert_ne!(a, new_file_name("png"));
    }
}
