//! Links: channel/topic narrow links, URL sanitising for Markdown links, and Zulip's
//! autolinking of bare URLs, domains and email addresses in text.

use super::html;
use super::tlds;

/// `<a class="stream" ...>#name</a>` for `#**name**`.
pub fn channel_link(channel_id: i64, name: &str) -> String {
    format!(
        "<a class=\"stream\" data-stream-id=\"{channel_id}\" href=\"/#narrow/channel/{}\">#{}</a>",
        html::attr(&encode_channel(channel_id, name)),
        html::text(name)
    )
}

/// `<a class="stream-topic" ...>#name &gt; topic</a>` for `#**name>topic**`.
pub fn topic_link(channel_id: i64, name: &str, topic: &str) -> String {
    format!(
        "<a class=\"stream-topic\" data-stream-id=\"{channel_id}\" href=\"/#narrow/channel/{}/topic/{}\">#{} &gt; {}</a>",
        html::attr(&encode_channel(channel_id, name)),
        html::attr(&encode_hash_component(topic)),
        html::text(name),
        html::text(topic)
    )
}

/// `<a class="message-link" ...>` for `#**name>topic@id**`.
pub fn message_link(channel_id: i64, name: &str, topic: &str, message_id: &str) -> String {
    format!(
        "<a class=\"message-link\" href=\"/#narrow/channel/{}/topic/{}/near/{message_id}\">#{} &gt; {} @ 💬</a>",
        html::attr(&encode_channel(channel_id, name)),
        html::attr(&encode_hash_component(topic)),
        html::text(name),
        html::text(topic)
    )
}

/// Zulip's narrow-URL slug for a channel: `9-Verona`, spaces as dashes.
fn encode_channel(channel_id: i64, name: &str) -> String {
    format!("{channel_id}-{}", encode_hash_component(&name.replace(' ', "-")))
}

/// Zulip's `encode_hash_component`: percent-encode (keeping `*` and RFC 3986 unreserved
/// characters), then write `%` as `.` and `.` as `.2E` so the result survives in a fragment.
pub fn encode_hash_component(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'~' | b'*' => out.push(byte as char),
            b'.' => out.push_str(".2E"),
            _ => out.push_str(&format!(".{byte:02X}")),
        }
    }
    out
}

/// Schemes Zulip allows in links (HTTP, FTP, file and the HTML "safelisted" schemes).
const ALLOWED_SCHEMES: &[&str] = &[
    "http",
    "https",
    "ftp",
    "file",
    "bitcoin",
    "geo",
    "im",
    "irc",
    "ircs",
    "magnet",
    "mailto",
    "matrix",
    "mms",
    "news",
    "nntp",
    "openpgp4fpr",
    "sip",
    "sms",
    "smsto",
    "ssh",
    "tel",
    "urn",
    "webcal",
    "wtai",
    "xmpp",
];

/// Zulip's `sanitize_url`: the href to use, or `None` when the link must not be made
/// (unknown or dangerous schemes such as `javascript:`). Scheme-less URLs become `http://`
/// ones, except domain-relative paths, fragments and bare email addresses.
pub fn sanitize_url(url: &str) -> Option<String> {
    let url = url.trim().replace(' ', "%20");
    let (scheme, rest) = split_scheme(&url);
    let has_netloc = rest.starts_with("//");
    match scheme {
        Some(scheme) => ALLOWED_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()).then(|| url.clone()),
        None if !has_netloc && url_path(rest).contains('@') => Some(format!("mailto:{url}")),
        None if !has_netloc && rest.starts_with('/') => Some(url.clone()),
        None if rest.starts_with('#') && rest.len() > 1 => Some(url.clone()),
        None => {
            let with_scheme = format!("http://{url}");
            split_scheme(&with_scheme).0.map(|_| with_scheme.clone())
        }
    }
}

/// Zulip's `rewrite_local_links_to_relative`: links to the organization's own narrows
/// (`<realm URL>/#...`) and files (`<realm URL>/user_uploads/...`) become relative, so
/// they open in the current window. `realm_url` has no trailing slash; empty: unknown.
pub fn relative_to_realm(href: String, realm_url: &str) -> String {
    if realm_url.is_empty() {
        return href;
    }
    match href.strip_prefix(realm_url).and_then(|rest| rest.strip_prefix('/')) {
        Some(rest) if rest.starts_with('#') || rest.starts_with("user_uploads/") => rest.to_string(),
        _ => href,
    }
}

/// Python's `urlsplit` scheme rule: letters first, then letters, digits, `+`, `-`, `.`.
fn split_scheme(url: &str) -> (Option<&str>, &str) {
    if let Some(colon) = url.find(':') {
        let scheme = &url[..colon];
        let valid = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if valid {
            return (Some(scheme), &url[colon + 1..]);
        }
    }
    (None, url)
}

fn url_path(rest: &str) -> &str {
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    &rest[..end]
}

/// One autolink found in text: byte range of the linked text and its href.
#[derive(Debug, PartialEq, Eq)]
pub struct AutoLink {
    pub start: usize,
    pub end: usize,
    pub href: String,
}

/// Zulip's web-link regex, by hand: a link starts after whitespace or one of `'"(,:<` (or
/// at the start of the text when `at_boundary`), and ends before optional trailing
/// punctuation followed by whitespace or the end of the text.
pub fn find_autolinks(text: &str, at_boundary: bool) -> Vec<AutoLink> {
    let mut found = Vec::new();
    let mut previous: Option<char> = None;
    let mut skip_until = 0;
    let mut word_end = 0;
    for (at, c) in text.char_indices() {
        let allowed = match previous {
            None => at_boundary,
            Some(p) => p.is_whitespace() || matches!(p, '\'' | '"' | '(' | ',' | ':' | '<'),
        };
        previous = Some(c);
        if at < skip_until || !allowed || c.is_whitespace() {
            continue;
        }
        if at >= word_end {
            // Computed once per word, so scanning stays linear in the text.
            word_end = text[at..].find(char::is_whitespace).map_or(text.len(), |i| at + i);
        }
        if let Some(link) = autolink_at(text, at, word_end) {
            skip_until = link.end;
            found.push(link);
        }
    }
    found
}

const TRAILING_PUNCTUATION: &[char] = &['!', ':', ';', '?', ')', ',', '.', '\'', '"', '>'];

/// Longer runs are not considered as links; bounds the work on hostile input.
const MAX_LINK_CANDIDATE: usize = 2048;

fn autolink_at(text: &str, start: usize, word_end: usize) -> Option<AutoLink> {
    // Every link form starts with a word character (`http`, a domain, an email's local part).
    if !text[start..].starts_with(is_word_char) {
        return None;
    }
    let word = &text[start..floor_char_boundary(text, word_end.min(start + MAX_LINK_CANDIDATE))];
    // The link is the shortest prefix whose remainder is only trailing punctuation.
    let min_len = word.trim_end_matches(TRAILING_PUNCTUATION).len();
    word[min_len..]
        .char_indices()
        .map(|(i, _)| min_len + i)
        .chain(std::iter::once(word.len()))
        .filter(|len| *len > 0)
        .find_map(|len| link_href(&word[..len]).map(|href| AutoLink { start, end: start + len, href }))
}

/// The href for a candidate link text, if the whole text is a URL, domain or email.
fn link_href(candidate: &str) -> Option<String> {
    if let Some(rest) = candidate.strip_prefix("http://").or_else(|| candidate.strip_prefix("https://")) {
        return (is_host_and_path(rest, is_scheme_host_char) && !rest.starts_with('/')).then(|| candidate.to_string());
    }
    if is_email(candidate) {
        return Some(format!("mailto:{candidate}"));
    }
    let host_end = candidate.find(|c: char| !(is_word_char(c) || c == '-' || c == '.')).unwrap_or(candidate.len());
    if is_domain(&candidate[..host_end]) && is_path(&candidate[host_end..]) {
        return Some(format!("http://{candidate}"));
    }
    None
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_scheme_host_char(c: char) -> bool {
    is_word_char(c) || matches!(c, '.' | ':' | '@' | '-')
}

fn is_host_and_path(rest: &str, host_char: fn(char) -> bool) -> bool {
    let host_end = rest.find('/').unwrap_or(rest.len());
    host_end > 0 && rest[..host_end].chars().all(host_char) && is_path(&rest[host_end..])
}

/// An optional path: `/` then no whitespace or `"`, parentheses balanced and at most
/// seven deep (Zulip's regex spells out that many levels).
fn is_path(path: &str) -> bool {
    if path.is_empty() {
        return true;
    }
    if !path.starts_with('/') {
        return false;
    }
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '(' => {
                depth += 1;
                if depth > 7 {
                    return false;
                }
            }
            ')' => {
                if depth == 0 {
                    return false;
                }
                depth -= 1;
            }
            '"' => return false,
            c if c.is_whitespace() => return false,
            _ => {}
        }
    }
    depth == 0
}

/// `(?:[\w-]+\.)+tld` with a real top-level domain (minus a few file extensions).
fn is_domain(host: &str) -> bool {
    if !host.chars().all(|c| is_word_char(c) || c == '-' || c == '.') {
        return false;
    }
    let labels: Vec<&str> = host.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| !l.is_empty() && l.chars().all(|c| is_word_char(c) || c == '-'))
        && tlds::is_tld(labels[labels.len() - 1])
}

/// `[\w.-]+@[\w.-]+\.[\w]+`
fn is_email(candidate: &str) -> bool {
    let local_end = candidate.find(|c: char| !(is_word_char(c) || c == '.' || c == '-'));
    if local_end.is_none_or(|end| !candidate[end..].starts_with('@')) {
        return false;
    }
    let Some((local, domain)) = candidate.split_once('@') else { return false };
    let Some((host, tld)) = domain.rsplit_once('.') else { return false };
    let word_dot_dash = |s: &str| !s.is_empty() && s.chars().all(|c| is_word_char(c) || c == '.' || c == '-');
    word_dot_dash(local) && word_dot_dash(host) && !tld.is_empty() && tld.chars().all(is_word_char)
}
