//! What a search matched, as Zulip shows it: `match_content` (the rendered message) and
//! `match_subject` (the topic, HTML-escaped) with each matched word inside
//! `<span class="highlight">`. The search index decides what matched (its stemming, its
//! phrases); the index reads the Markdown, so the words it marked there are marked again in
//! the rendered HTML's text, never inside a tag or an entity.

use std::collections::HashSet;

use crate::db::message_window::{MATCH_END, MATCH_START};
use crate::domain::email::escape_html;

const OPEN: &str = "<span class=\"highlight\">";
const CLOSE: &str = "</span>";

/// The topic as shown (`display`), escaped, its matches highlighted. `marked` is the stored
/// topic with the index's marks; it applies only when it is the displayed topic (the empty
/// topic shows the realm's name for it, which nothing matched).
pub fn match_subject(display: &str, marked: Option<&str>) -> String {
    let Some(marked) = marked.filter(|m| unmarked(m) == display) else {
        return escape_html(display);
    };
    let mut out = String::with_capacity(marked.len() + 32);
    for (i, part) in marked.split([MATCH_START, MATCH_END]).enumerate() {
        if i % 2 == 1 && !part.is_empty() {
            out.push_str(OPEN);
            out.push_str(&escape_html(part));
            out.push_str(CLOSE);
        } else {
            out.push_str(&escape_html(part));
        }
    }
    out
}

/// The rendered message with every word the index matched in its Markdown (`marked`)
/// highlighted, compared without case.
pub fn match_content(rendered: &str, marked: Option<&str>) -> String {
    let words = marked.map(matched_words).unwrap_or_default();
    if words.is_empty() {
        return rendered.to_string();
    }
    let mut out = String::with_capacity(rendered.len() + 64);
    let mut rest = rendered;
    while let Some(c) = rest.chars().next() {
        let skip = match c {
            '<' => rest.find('>').map_or(rest.len(), |i| i + 1),
            '&' => rest.find(';').filter(|&i| i <= 10).map_or(1, |i| i + 1),
            c if c.is_alphanumeric() => {
                let len = rest.find(|c: char| !c.is_alphanumeric()).unwrap_or(rest.len());
                let word = &rest[..len];
                if words.contains(&word.to_lowercase()) {
                    out.push_str(OPEN);
                    out.push_str(word);
                    out.push_str(CLOSE);
                    rest = &rest[len..];
                    continue;
                }
                len
            }
            c => c.len_utf8(),
        };
        out.push_str(&rest[..skip]);
        rest = &rest[skip..];
    }
    out
}

/// The words (runs of letters and digits, lowercased) between the index's marks.
fn matched_words(marked: &str) -> HashSet<String> {
    marked
        .split([MATCH_START, MATCH_END])
        .skip(1)
        .step_by(2)
        .flat_map(|part| part.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn unmarked(marked: &str) -> String {
    marked.chars().filter(|&c| c != MATCH_START && c != MATCH_END).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(text: &str) -> String {
        text.replace('{', &MATCH_START.to_string()).replace('}', &MATCH_END.to_string())
    }

    #[test]
    fn content_highlights_the_matched_words_in_the_rendered_text() {
        let html = "<p>I was <strong>Running</strong> to <a href=\"https://running.example\">run</a> &amp; running</p>";
        let got = match_content(html, Some(&mark("I was **{Running}** to [{run}](https://running.example) & running")));
        assert_eq!(
            got,
            "<p>I was <strong><span class=\"highlight\">Running</span></strong> to \
             <a href=\"https://running.example\"><span class=\"highlight\">run</span></a> &amp; \
             <span class=\"highlight\">running</span></p>"
        );
    }

    #[test]
    fn content_never_highlights_inside_a_tag_or_an_entity() {
        let html = "<p class=\"amp\">a &amp; b</p>";
        assert_eq!(match_content(html, Some(&mark("a & {p} {amp} {class}"))), html);
    }

    #[test]
    fn content_without_a_match_is_the_rendered_message() {
        assert_eq!(match_content("<p>x</p>", None), "<p>x</p>");
        assert_eq!(match_content("<p>x</p>", Some("x")), "<p>x</p>");
    }

    #[test]
    fn a_phrase_highlights_each_of_its_words() {
        let got = match_content("<p>lunch plans today</p>", Some(&mark("{lunch plans} today")));
        assert_eq!(got, "<p><span class=\"highlight\">lunch</span> <span class=\"highlight\">plans</span> today</p>");
    }

    #[test]
    fn subject_is_escaped_and_highlighted() {
        assert_eq!(match_subject("a <b> [lunch]", Some(&mark("a <b> [{lunch}]"))), "a &lt;b&gt; [<span class=\"highlight\">lunch</span>]");
        assert_eq!(match_subject("Tom & Jerry", None), "Tom &amp; Jerry");
    }

    #[test]
    fn the_empty_topic_shows_its_display_name_unmarked() {
        assert_eq!(match_subject("general chat", Some("")), "general chat");
    }
}
