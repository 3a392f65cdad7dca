//! Zulip's unicode emoji: names, codes and how to find emoji in text (pure, no I/O).
//!
//! An emoji code is what Zulip stores as `emoji_code` for `reaction_type: "unicode_emoji"`
//! and writes in `class="emoji emoji-<code>"`: the emoji's code points without U+FE0F, as
//! lowercase hex (at least 4 digits) joined by `-`, e.g. `1f642`, `1f937-200d-2640`.
//! Each emoji has one canonical name (what Zulip shows for it) and may have aliases; every
//! name maps to exactly one code. Names and codes are Zulip's own (`smile` is U+1F642 🙂,
//! `big_smile` U+1F604 😄, `+1`/`thumbs_up`/`like` U+1F44D); see `table.rs` for the sources.
//!
//! Not here: `:zulip:` (Zulip's extra emoji, `reaction_type: "zulip_extra_emoji"`, code
//! `zulip`) and realm custom emoji, which need data this module does not have.

mod sequence;
mod table;

#[cfg(test)]
mod tests;

pub use sequence::{code_of, find_emoji, EmojiMatch};

/// The code of the emoji named `name` (a canonical name or an alias), if Zulip knows it.
pub fn code_for_name(name: &str) -> Option<&'static str> {
    let at = table::NAMES.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
    Some(table::EMOJI[usize::from(table::NAMES[at].1)].0)
}

/// The canonical name of the emoji with this code, if Zulip knows it.
pub fn name_for_code(code: &str) -> Option<&'static str> {
    let at = table::EMOJI.binary_search_by(|(c, _)| (*c).cmp(code)).ok()?;
    Some(table::EMOJI[at].1)
}

/// Whether `code` is the code of one of Zulip's unicode emoji (Zulip's
/// `emoji_code in codepoint_to_name`).
pub fn is_known_code(code: &str) -> bool {
    name_for_code(code).is_some()
}

/// All names of the emoji with this code: the canonical name first, then its aliases
/// (in name order). Empty for an unknown code.
pub fn names_for_code(code: &str) -> Vec<&'static str> {
    let Some(canonical) = name_for_code(code) else { return Vec::new() };
    let mut names = vec![canonical];
    names.extend(
        table::NAMES.iter().filter(|(name, i)| table::EMOJI[usize::from(*i)].0 == code && *name != canonical).map(|(name, _)| *name),
    );
    names
}

/// Every emoji code with all its names (canonical first, then aliases in name order), as
/// Zulip's `emoji_api.json` lists them.
pub fn code_to_names() -> std::collections::BTreeMap<&'static str, Vec<&'static str>> {
    let mut map: std::collections::BTreeMap<&'static str, Vec<&'static str>> =
        table::EMOJI.iter().map(|(code, canonical)| (*code, vec![*canonical])).collect();
    for (name, i) in table::NAMES {
        let (code, canonical) = table::EMOJI[usize::from(*i)];
        if *name != canonical {
            map.entry(code).or_default().push(name);
        }
    }
    map
}

/// Whether `c` has the Unicode property `Emoji` (this includes digits, `#` and `*`).
pub(crate) fn is_emoji_char(c: char) -> bool {
    in_ranges(table::EMOJI_CHARS, c)
}

/// Whether `c` has the Unicode property `Emoji_Presentation` (shown as emoji by default).
pub(crate) fn is_emoji_presentation(c: char) -> bool {
    in_ranges(table::EMOJI_PRESENTATION, c)
}

fn in_ranges(ranges: &[(u32, u32)], c: char) -> bool {
    let c = u32::from(c);
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}
