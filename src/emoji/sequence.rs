//! Finding unicode emoji in text the way Zulip's renderer does: it matches the UTS #51
//! "possible emoji" shape (regional-indicator pairs; an `Emoji` character with an optional
//! skin-tone modifier, U+FE0F (+ keycap U+20E3) or tag sequence; joined by U+200D), skips
//! a lone character that is not `Emoji_Presentation` (digits, `©`, `↔`, `⬆` without
//! U+FE0F), and renders a match only when its whole code is one of Zulip's emoji.

use super::{is_emoji_char, is_emoji_presentation, name_for_code};

const VARIATION_SELECTOR_16: char = '\u{FE0F}';
const KEYCAP: char = '\u{20E3}';
const ZWJ: char = '\u{200D}';
const TAG_END: char = '\u{E007F}';

/// A Zulip unicode emoji found in text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmojiMatch {
    /// Byte range of the emoji in the text.
    pub start: usize,
    pub end: usize,
    /// Its emoji code, e.g. `1f4a9`.
    pub code: String,
    /// Its canonical name, e.g. `poop`.
    pub name: &'static str,
}

/// Zulip's unicode emoji in `text`, left to right. A sequence Zulip does not know (newer
/// emoji, skin tones) stays out whole: its parts are not matched separately.
pub fn find_emoji(text: &str) -> Vec<EmojiMatch> {
    if text.is_ascii() {
        return Vec::new(); // ASCII emoji characters (digits, #, *) are text by default
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let byte_at = |i: usize| chars.get(i).map_or(text.len(), |(at, _)| *at);
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let Some(end) = possible_emoji(&chars, i) else {
            i += 1;
            continue;
        };
        let (start_byte, end_byte) = (byte_at(i), byte_at(end));
        let candidate = &text[start_byte..end_byte];
        if !shown_as_text(candidate) {
            let code = code_of(candidate);
            if let Some(name) = name_for_code(&code) {
                found.push(EmojiMatch { start: start_byte, end: end_byte, code, name });
            }
        }
        i = end;
    }
    found
}

/// The emoji code of an emoji sequence: its code points without U+FE0F, as lowercase hex
/// of at least 4 digits joined by `-` (Zulip's `emoji_to_hex_codepoint(unqualify_emoji(..))`).
pub fn code_of(emoji: &str) -> String {
    emoji.chars().filter(|c| *c != VARIATION_SELECTOR_16).map(|c| format!("{:04x}", u32::from(c))).collect::<Vec<_>>().join("-")
}

/// Zulip's `TEXT_PRESENTATION_RE`: a lone character without `Emoji_Presentation`
/// (optionally followed by a keycap) is not turned into an emoji.
fn shown_as_text(candidate: &str) -> bool {
    let mut chars = candidate.chars();
    let Some(first) = chars.next() else { return true };
    let rest: Vec<char> = chars.collect();
    !is_emoji_presentation(first) && (rest.is_empty() || rest == [KEYCAP])
}

/// The end (char index) of the longest possible emoji sequence starting at `i`.
fn possible_emoji(chars: &[(usize, char)], i: usize) -> Option<usize> {
    let mut end = element(chars, i)?;
    while char_at(chars, end) == Some(ZWJ) {
        match element(chars, end + 1) {
            Some(next) => end = next,
            None => break,
        }
    }
    Some(end)
}

/// One element: a regional-indicator pair, or an `Emoji` character with an optional
/// modifier, U+FE0F (+ U+20E3), or tag sequence ending in U+E007F.
fn element(chars: &[(usize, char)], i: usize) -> Option<usize> {
    let c = char_at(chars, i)?;
    if is_regional_indicator(c) && char_at(chars, i + 1).is_some_and(is_regional_indicator) {
        return Some(i + 2);
    }
    if !is_emoji_char(c) {
        return None;
    }
    let next = i + 1;
    match char_at(chars, next) {
        Some(m) if is_skin_tone_modifier(m) => Some(next + 1),
        Some(VARIATION_SELECTOR_16) => Some(if char_at(chars, next + 1) == Some(KEYCAP) { next + 2 } else { next + 1 }),
        Some(t) if is_tag(t) => {
            let tags_end = (next..chars.len()).find(|j| !is_tag(chars[*j].1)).unwrap_or(chars.len());
            Some(if char_at(chars, tags_end) == Some(TAG_END) { tags_end + 1 } else { next })
        }
        _ => Some(next),
    }
}

fn char_at(chars: &[(usize, char)], i: usize) -> Option<char> {
    chars.get(i).map(|(_, c)| *c)
}

fn is_regional_indicator(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

fn is_skin_tone_modifier(c: char) -> bool {
    ('\u{1F3FB}'..='\u{1F3FF}').contains(&c)
}

fn is_tag(c: char) -> bool {
    ('\u{E0020}'..='\u{E007E}').contains(&c)
}
