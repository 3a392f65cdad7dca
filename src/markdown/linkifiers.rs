//! The organization's linkifiers: a regular expression with named groups and an RFC 6570
//! URL template using them. Zulip wraps each pattern so a match starts after whitespace,
//! one of `'"(,:<` or the start of the text, and ends before a non-word character; the
//! `regex` crate has no lookaround, so those two checks are made around each match.
//! `regex` matches in linear time, so an administrator's pattern cannot stall a render.

use iri_string::spec::UriSpec;
use iri_string::template::simple_context::SimpleContext;
use iri_string::template::UriTemplateStr;
use regex::{Regex, RegexBuilder};

use super::{html, links, Linkifier};

/// Compiled programs larger than this are refused (validation and rendering alike).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Compiles a linkifier pattern as rendering uses it.
pub fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern).size_limit(REGEX_SIZE_LIMIT).build()
}

/// A linkifier ready to apply (patterns or templates that no longer parse are skipped).
#[derive(Debug, Clone)]
pub struct Compiled {
    regex: Regex,
    template: String,
}

pub fn compile_all(linkifiers: &[Linkifier]) -> Vec<Compiled> {
    linkifiers
        .iter()
        .filter(|l| UriTemplateStr::new(&l.url_template).is_ok())
        .filter_map(|l| Some(Compiled { regex: compile(&l.pattern).ok()?, template: l.url_template.clone() }))
        .collect()
}

/// One linkified span of a text.
#[derive(Debug, PartialEq, Eq)]
pub struct Match {
    pub start: usize,
    pub end: usize,
    pub href: String,
}

/// The linkifier matches in `text`, earliest first; where several linkifiers match at
/// overlapping places, the earlier linkifier in the organization's order wins.
pub fn find(compiled: &[Compiled], text: &str) -> Vec<Match> {
    let mut found: Vec<Match> = Vec::new();
    for linkifier in compiled {
        let mut at = 0;
        while at <= text.len() {
            let Some(caps) = linkifier.regex.captures_at(text, at) else { break };
            let whole = caps.get(0).expect("group 0");
            let next = next_char_boundary(text, whole.start());
            if whole.is_empty() || !starts_word(text, whole.start()) || !ends_word(text, whole.end()) {
                at = next;
                continue;
            }
            if !found.iter().any(|m| m.start < whole.end() && whole.start() < m.end) {
                if let Some(href) = expand(linkifier, &caps) {
                    found.push(Match { start: whole.start(), end: whole.end(), href });
                }
            }
            at = whole.end();
        }
    }
    found.sort_by_key(|m| m.start);
    found
}

fn expand(linkifier: &Compiled, caps: &regex::Captures<'_>) -> Option<String> {
    let mut context = SimpleContext::new();
    for name in linkifier.regex.capture_names().flatten() {
        if let Some(value) = caps.name(name) {
            context.insert(name, value.as_str());
        }
    }
    let url = UriTemplateStr::new(&linkifier.template).ok()?.expand::<UriSpec, _>(&context).ok()?.to_string();
    links::sanitize_url(&url)
}

/// Writes `<a href>` for a match (the matched text, escaped, is the link text).
pub fn write_link(out: &mut String, href: &str, shown: &str) {
    out.push_str(&format!("<a href=\"{}\">", html::attr(href)));
    html::escape_text(out, shown);
    out.push_str("</a>");
}

fn starts_word(text: &str, start: usize) -> bool {
    text[..start].chars().next_back().is_none_or(|c| c.is_whitespace() || "'\"(,:<".contains(c))
}

fn ends_word(text: &str, end: usize) -> bool {
    text[end..].chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
}

fn next_char_boundary(text: &str, at: usize) -> usize {
    at + text[at..].chars().next().map_or(1, char::len_utf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linkifier(pattern: &str, url_template: &str) -> Linkifier {
        Linkifier { pattern: pattern.into(), url_template: url_template.into() }
    }

    #[test]
    fn a_match_expands_the_template_with_its_groups() {
        let all = [linkifier("#(?P<id>[0-9]+)", "https://trac.example.com/ticket/{id}")];
        let compiled = compile_all(&all);
        let found = find(&compiled, "see #123 and #45.");
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].href, "https://trac.example.com/ticket/123");
        assert_eq!((found[1].start, found[1].end), (13, 16));
    }

    #[test]
    fn a_match_inside_a_word_is_not_linked() {
        let all = [linkifier("#(?P<id>[0-9]+)", "https://x.test/{id}")];
        let compiled = compile_all(&all);
        assert!(find(&compiled, "a#123 #123b").is_empty());
        assert_eq!(find(&compiled, "(#1)").len(), 1);
    }

    #[test]
    fn values_are_percent_encoded_and_the_earlier_linkifier_wins() {
        let all = [linkifier("(?P<a>[a-z]+) x", "https://one.test/{a}"), linkifier("(?P<b>[a-z]+ x)", "https://two.test/{b}")];
        let compiled = compile_all(&all);
        let found = find(&compiled, "abc x");
        assert_eq!(found, vec![Match { start: 0, end: 5, href: "https://one.test/abc".into() }]);
        let spaced = [linkifier("(?P<b>[a-z]+ x)", "https://two.test/{b}")];
        assert_eq!(find(&compile_all(&spaced), "abc x")[0].href, "https://two.test/abc%20x");
    }
}
