//! Which emoji a reaction (or a status) names: Zulip's `get_emoji_data` and
//! `check_emoji_request`, over the built-in tables and the organization's custom emoji.

use crate::db::realm_emoji::RealmEmojiRow;
use crate::emoji;
use crate::error::{ApiError, ApiResult};

/// An emoji as reactions store it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emoji {
    pub name: String,
    pub code: String,
    pub reaction_type: String,
}

/// Zulip's `get_emoji_data`: the code and type a name stands for today. An active custom
/// emoji comes first, then Zulip's extra emoji `zulip`, then the unicode names.
fn emoji_data(name: &str, custom: &[RealmEmojiRow]) -> ApiResult<(String, &'static str)> {
    if let Some(e) = custom.iter().find(|e| e.deactivated == 0 && e.name == name) {
        return Ok((e.id.to_string(), "realm_emoji"));
    }
    if name == "zulip" {
        return Ok(("zulip".into(), "zulip_extra_emoji"));
    }
    match emoji::code_for_name(name) {
        Some(code) => Ok((code.to_string(), "unicode_emoji")),
        None => Err(ApiError::bad_request(format!("Emoji '{name}' does not exist"))),
    }
}

/// The emoji a request names: a missing code or type comes from the name (Zulip's
/// `check_add_reaction`). `custom` holds the organization's custom emoji that the name or
/// the code may refer to.
pub fn emoji_from_request(name: String, code: Option<String>, reaction_type: Option<String>, custom: &[RealmEmojiRow]) -> ApiResult<Emoji> {
    let (code, reaction_type) = match (code, reaction_type) {
        (Some(code), Some(t)) => (code, t),
        (code, t) => {
            let (data_code, data_type) = emoji_data(&name, custom)?;
            (code.unwrap_or(data_code), t.unwrap_or_else(|| data_type.to_string()))
        }
    };
    Ok(Emoji { name, code, reaction_type })
}

/// Zulip's `check_emoji_request`: the code exists in its namespace, the name is one of its
/// names, and a custom emoji is still active.
pub fn check_emoji_request(emoji: &Emoji, custom: &[RealmEmojiRow]) -> ApiResult<()> {
    let Emoji { name, code, reaction_type } = emoji;
    match reaction_type.as_str() {
        "realm_emoji" => {
            let found = custom.iter().find(|e| e.id.to_string() == *code).ok_or_else(|| ApiError::bad_request("Invalid custom emoji."))?;
            if found.name != *name {
                return Err(ApiError::bad_request("Invalid custom emoji name."));
            }
            if found.deactivated != 0 {
                return Err(ApiError::bad_request("This custom emoji has been deactivated."));
            }
            Ok(())
        }
        "zulip_extra_emoji" if code != "zulip" => Err(ApiError::bad_request("Invalid emoji code.")),
        "zulip_extra_emoji" if name != code => Err(ApiError::bad_request("Invalid emoji name.")),
        "zulip_extra_emoji" => Ok(()),
        "unicode_emoji" if !emoji::is_known_code(code) => Err(ApiError::bad_request("Invalid emoji code.")),
        "unicode_emoji" if emoji::code_for_name(name) != Some(code.as_str()) => Err(ApiError::bad_request("Invalid emoji name.")),
        "unicode_emoji" => Ok(()),
        _ => Err(ApiError::bad_request("Invalid emoji type.")),
    }
}

/// Both steps, for a user status.
pub fn resolve_emoji(name: String, code: Option<String>, reaction_type: Option<String>, custom: &[RealmEmojiRow]) -> ApiResult<Emoji> {
    let emoji = emoji_from_request(name, code, reaction_type, custom)?;
    check_emoji_request(&emoji, custom)?;
    Ok(emoji)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parrot(id: i64, deactivated: i64) -> RealmEmojiRow {
        RealmEmojiRow {
            id,
            realm_id: 1,
            name: "zz_parrot".into(),
            author_id: Some(9),
            file_name: "ab.gif".into(),
            still_file_name: None,
            deactivated,
        }
    }

    fn err(r: ApiResult<Emoji>) -> String {
        r.unwrap_err().msg
    }

    #[test]
    fn a_name_alone_finds_the_custom_emoji_first() {
        let e = resolve_emoji("zz_parrot".into(), None, None, &[parrot(7, 0)]).unwrap();
        assert_eq!((e.code.as_str(), e.reaction_type.as_str()), ("7", "realm_emoji"));
        let smile = RealmEmojiRow { name: "smile".into(), ..parrot(8, 0) };
        assert_eq!(resolve_emoji("smile".into(), None, None, &[smile]).unwrap().reaction_type, "realm_emoji");
        assert_eq!(resolve_emoji("smile".into(), None, None, &[]).unwrap().reaction_type, "unicode_emoji");
    }

    #[test]
    fn custom_codes_are_checked() {
        let r = |name: &str, code: &str, rows: &[RealmEmojiRow]| {
            resolve_emoji(name.into(), Some(code.into()), Some("realm_emoji".into()), rows)
        };
        assert!(r("zz_parrot", "7", &[parrot(7, 0)]).is_ok());
        assert_eq!(err(r("zz_parrot", "8", &[parrot(7, 0)])), "Invalid custom emoji.");
        assert_eq!(err(r("cat", "7", &[parrot(7, 0)])), "Invalid custom emoji name.");
        assert_eq!(err(r("zz_parrot", "7", &[parrot(7, 1)])), "This custom emoji has been deactivated.");
    }

    #[test]
    fn a_deactivated_name_does_not_exist() {
        assert_eq!(err(resolve_emoji("zz_parrot".into(), None, None, &[parrot(7, 1)])), "Emoji 'zz_parrot' does not exist");
    }

    #[test]
    fn built_in_checks_stay() {
        assert_eq!(err(resolve_emoji("smile".into(), Some("ffffff".into()), None, &[])), "Invalid emoji code.");
        assert_eq!(err(resolve_emoji("octopus".into(), Some("1f642".into()), None, &[])), "Invalid emoji name.");
        assert_eq!(err(resolve_emoji("zulip".into(), Some("x".into()), Some("zulip_extra_emoji".into()), &[])), "Invalid emoji code.");
        assert!(resolve_emoji("zulip".into(), None, None, &[]).is_ok());
    }
}
