//! Emoji in message text: `:name:` shortcodes and literal unicode emoji become Zulip's
//! emoji spans; everything else is escaped text.
//!
//! Zulip's `Emoji` pattern (`:[\w\-+]+:`, leftmost first; an unknown name stays as typed
//! and its colons are used up) runs before its `UnicodeEmoji` pattern; the two cannot
//! overlap, so one left-to-right pass gives the same result. A shortcode shows the name as
//! typed (an alias stays an alias); a unicode emoji shows its canonical name. Callers never
//! pass code, links' URLs or mentions here, as in Zulip. An active custom emoji of the
//! organization wins over a built-in of the same name (administrators may override them).

use super::{html, CustomEmoji};
use crate::emoji::{code_for_name, find_emoji};

/// Zulip's own extra emoji, rendered as an image by every server.
const ZULIP_EMOJI_IMG: &str =
    r#"<img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip">"#;

/// Writes `text` escaped, with emoji spans for shortcodes and unicode emoji, and images
/// for the organization's custom emoji (`custom`).
pub fn write_text(out: &mut String, text: &str, custom: &[CustomEmoji]) {
    let mut written = 0;
    let mut unicode = find_emoji(text).into_iter().peekable();
    let mut at = 0;
    while let Some(offset) = text[at..].find(|c: char| c == ':' || !c.is_ascii()) {
        let start = at + offset;
        // Unicode emoji found by the sequence scanner that start before this point.
        if let Some(found) = unicode.next_if(|m| m.start <= start) {
            html::escape_text(out, &text[written..found.start]);
            emoji_span(out, &found.code, found.name);
            (written, at) = (found.end, found.end);
            continue;
        }
        if !text[start..].starts_with(':') {
            at = start + text[start..].chars().next().map_or(1, char::len_utf8);
            continue;
        }
        match shortcode_at(text, start) {
            Some(end) => {
                let name = &text[start + 1..end - 1];
                if let Some(emoji) = custom.iter().find(|e| e.name == name) {
                    html::escape_text(out, &text[written..start]);
                    custom_emoji_img(out, &emoji.source_url, name);
                    written = end;
                } else if name == "zulip" {
                    html::escape_text(out, &text[written..start]);
                    out.push_str(ZULIP_EMOJI_IMG);
                    written = end;
                } else if let Some(code) = code_for_name(name) {
                    html::escape_text(out, &text[written..start]);
                    emoji_span(out, code, name);
                    written = end;
                }
                // An unknown name stays text, colons included; unicode emoji cannot be inside.
                at = end;
                while unicode.next_if(|m| m.start < end).is_some() {}
            }
            None => at = start + 1,
        }
    }
    for found in unicode {
        html::escape_text(out, &text[written..found.start]);
        emoji_span(out, &found.code, found.name);
        written = found.end;
    }
    html::escape_text(out, &text[written..]);
}

/// Every `:name:` in `content` that could name a custom emoji (over-approximated: also
/// inside code, and overlapping candidates), for the caller to resolve in one query.
pub fn custom_emoji_candidates(content: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (start, _) in content.match_indices(':') {
        if let Some(end) = shortcode_at(content, start) {
            let name = &content[start + 1..end - 1];
            let possible = name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
            if possible && !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// Zulip's `make_realm_emoji`: an image whose alt text is the shortcode as typed and whose
/// title is the name with spaces for underscores.
fn custom_emoji_img(out: &mut String, source_url: &str, name: &str) {
    out.push_str(&format!(
        r#"<img alt=":{}:" class="emoji" src="{}" title="{}">"#,
        html::attr(name),
        html::attr(source_url),
        html::attr(&name.replace('_', " "))
    ));
}

/// The end (exclusive) of a `:name:` shortcode starting at the `:` at `start`.
fn shortcode_at(text: &str, start: usize) -> Option<usize> {
    let body = &text[start + 1..];
    let len = body.find(|c: char| !is_name_char(c)).unwrap_or(body.len());
    (len > 0 && body[len..].starts_with(':')).then_some(start + 1 + len + 1)
}

/// Python's Unicode `\w`, `-` and `+`.
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-' || c == '+'
}

/// Zulip's `make_emoji`: the title and label are the name with spaces for underscores.
fn emoji_span(out: &mut String, code: &str, name: &str) {
    let title = html::attr(&name.replace('_', " "));
    out.push_str(&format!(r#"<span aria-label="{title}" class="emoji emoji-{code}" role="img" title="{title}">:"#));
    html::escape_text(out, name);
    out.push_str(":</span>");
}

#[cfg(test)]
mod tests {
    use super::{custom_emoji_candidates, write_text};
    use crate::markdown::CustomEmoji;

    fn render(text: &str) -> String {
        let mut out = String::new();
        write_text(&mut out, text, &[]);
        out
    }

    fn render_with(text: &str, custom: &[CustomEmoji]) -> String {
        let mut out = String::new();
        write_text(&mut out, text, custom);
        out
    }

    fn custom(name: &str, url: &str) -> CustomEmoji {
        CustomEmoji { name: name.into(), source_url: url.into() }
    }

    #[test]
    fn custom_emoji_is_an_image() {
        let parrot = custom("party_parrot", "/user_avatars/2/emoji/images/ab12.gif");
        assert_eq!(
            render_with("hi :party_parrot:!", &[parrot]),
            r#"hi <img alt=":party_parrot:" class="emoji" src="/user_avatars/2/emoji/images/ab12.gif" title="party parrot">!"#
        );
    }

    #[test]
    fn custom_emoji_overrides_a_built_in_name() {
        let smile = custom("smile", "/user_avatars/2/emoji/images/cd34.png");
        assert_eq!(
            render_with(":smile:", &[smile]),
            r#"<img alt=":smile:" class="emoji" src="/user_avatars/2/emoji/images/cd34.png" title="smile">"#
        );
    }

    #[test]
    fn unknown_custom_names_stay_text() {
        assert_eq!(render_with(":zz_nope:", &[custom("zz_yes", "/x.png")]), ":zz_nope:");
    }

    #[test]
    fn candidates_are_every_possible_custom_name_once() {
        assert_eq!(custom_emoji_candidates(":a:b: :a: :Upper: `:c-1:`"), vec!["a", "b", "c-1"]);
        assert!(custom_emoji_candidates("no emoji: here").is_empty());
    }

    fn span(code: &str, name: &str) -> String {
        let title = name.replace('_', " ");
        format!(r#"<span aria-label="{title}" class="emoji emoji-{code}" role="img" title="{title}">:{name}:</span>"#)
    }

    #[test]
    fn shortcode_becomes_span() {
        assert_eq!(render(":smile:"), span("1f642", "smile"));
    }

    #[test]
    fn alias_shortcode_keeps_the_typed_name() {
        assert_eq!(render(":thumbs_up:"), span("1f44d", "thumbs_up"));
        assert_eq!(render(":+1:"), span("1f44d", "+1"));
    }

    #[test]
    fn title_has_spaces_for_underscores() {
        assert!(render(":holiday_tree:").contains(r#"title="holiday tree""#));
    }

    #[test]
    fn unknown_shortcode_stays_text_and_uses_its_colons() {
        assert_eq!(render(":not_an_emoji:"), ":not_an_emoji:");
        assert_eq!(render(":invalid:smile:"), ":invalid:smile:");
        assert_eq!(render("x::y::z :wasted waste:"), "x::y::z :wasted waste:");
    }

    #[test]
    fn adjacent_shortcodes() {
        assert_eq!(render(":cat:hello:dog:"), format!("{}hello{}", span("1f408", "cat"), span("1f415", "dog")));
        assert_eq!(render("smiley:smiley:"), format!("smiley{}", span("1f603", "smiley")));
    }

    #[test]
    fn unicode_emoji_shows_canonical_name() {
        assert_eq!(render("a 💩 b"), format!("a {} b", span("1f4a9", "poop")));
        assert_eq!(render("🎄"), span("1f384", "holiday_tree"));
    }

    #[test]
    fn unicode_and_shortcodes_mix() {
        assert_eq!(render("💩:poop:💩"), span("1f4a9", "poop").repeat(3));
        assert_eq!(render(":smile:é🤖"), format!("{}é{}", span("1f642", "smile"), span("1f916", "robot")));
    }

    #[test]
    fn zulip_emoji_is_an_image() {
        assert_eq!(
            render(":zulip:"),
            r#"<img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip">"#
        );
    }

    #[test]
    fn text_around_emoji_is_escaped() {
        assert_eq!(render("<b>:tada:&"), format!("&lt;b&gt;{}&amp;", span("1f389", "tada")));
    }

    #[test]
    fn non_ascii_names_follow_python_word_characters() {
        assert_eq!(render(":flag_türkiye:"), span("1f1f9-1f1f7", "flag_türkiye"));
    }
}
