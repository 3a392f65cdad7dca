//! Inline image previews: a link to an image gets a `message_inline_image` block after the
//! paragraph (or inside the list item) holding it, as Zulip's link-preview pass does.
//!
//! The writer reports every link it writes with where its HTML landed and which block
//! holds it; [`Collector::apply`] then inserts the previews, once the whole message is
//! known (Zulip previews nothing when a message links too many URLs).
//!
//! Rules (Zulip's):
//! - A link previews when its URL's path ends with an image extension; never inside a
//!   quote; each URL once (its first link); none at all above 24 distinct URLs.
//! - The preview follows the link's paragraph (after earlier previews of it), or ends the
//!   link's list item; links inside other markup preview at the end of the message.
//! - A paragraph (or list item) that is nothing but the bare link is replaced by it.
//! - A named link (`[text](url)`) keeps its text as the preview's `title`.
//! - External images load through `/thumbnail?url=…&size=…` (`data-src-fullsize` for the
//!   full size); the organization's own files (relative URLs) load directly.

use std::collections::HashSet;
use std::ops::Range;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use super::html;

/// Zulip's `IMAGE_EXTENSIONS`.
const IMAGE_EXTENSIONS: [&str; 7] = [".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp"];

/// Zulip's `INLINE_PREVIEW_LIMIT_PER_MESSAGE`: more distinct URLs than this, no previews.
const PREVIEW_LIMIT: usize = 24;

/// Python's `quote(url, safe="")`: everything but letters, digits and `_.-~` is escaped.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'_').remove(b'.').remove(b'-').remove(b'~');

/// The blocks a preview may attach to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Block {
    Paragraph,
    Item,
    /// Headings, table cells: a link there previews at the end of the message.
    Other,
}

struct Container {
    block: Block,
    /// From the opening tag to after the closing tag (and its newline).
    outer: Range<usize>,
    /// Between the tags.
    content: Range<usize>,
}

struct Link {
    href: String,
    title: Option<String>,
    html: Range<usize>,
    /// The paragraph or list item directly holding it; `None`: the end of the message.
    container: Option<usize>,
    quoted: bool,
    /// The link text is its URL (a bare link), so it may be replaced by its preview.
    bare: bool,
}

#[derive(Default)]
pub struct Collector {
    containers: Vec<Container>,
    open: Vec<usize>,
    links: Vec<Link>,
}

impl Collector {
    /// A block opens: `start` is where its opening tag begins, `content_start` where it ends.
    pub fn open(&mut self, block: Block, start: usize, content_start: usize) {
        self.containers.push(Container { block, outer: start..start, content: content_start..content_start });
        self.open.push(self.containers.len() - 1);
    }

    /// The innermost open block closes: `content_end` is where its closing tag begins,
    /// `end` where it (and its newline) ends.
    pub fn close(&mut self, content_end: usize, end: usize) {
        if let Some(index) = self.open.pop() {
            let container = &mut self.containers[index];
            container.content.end = content_end;
            container.outer.end = end;
        }
    }

    /// A link was written at `html` (`<a …>…</a>`). `text`: its text; `nested`: it sits
    /// inside other inline markup (emphasis, strikethrough), not directly in its block.
    pub fn link(&mut self, href: &str, text: &str, html: Range<usize>, quoted: bool, nested: bool) {
        let innermost = self.open.last().copied().filter(|i| self.containers[*i].block != Block::Other);
        let bare = text.is_empty() || text == href;
        self.links.push(Link {
            href: href.to_string(),
            title: (!bare).then(|| text.to_string()),
            html,
            container: if nested { None } else { innermost },
            quoted,
            bare,
        });
    }

    /// `out` with the previews inserted.
    pub fn apply(self, out: String) -> String {
        let previewable: HashSet<&str> = self.links.iter().filter(|l| !l.quoted).map(|l| l.href.as_str()).collect();
        if previewable.len() > PREVIEW_LIMIT {
            return out;
        }
        // (range to replace, replacement, order of creation) in output order.
        let mut edits: Vec<(Range<usize>, String, usize)> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for link in &self.links {
            if link.quoted || !seen.insert(link.href.as_str()) || !is_image(&link.href) {
                continue;
            }
            let preview = preview_html(&link.href, link.title.as_deref());
            let order = edits.len();
            match link.container.map(|i| &self.containers[i]) {
                Some(c) if c.block == Block::Paragraph => {
                    if link.bare && out[c.content.clone()] == out[link.html.clone()] {
                        edits.push((c.outer.clone(), preview, order));
                    } else {
                        edits.push((c.outer.end..c.outer.end, preview, order));
                    }
                }
                Some(c) => {
                    if link.bare && out[c.content.clone()] == out[link.html.clone()] {
                        edits.push((c.content.clone(), String::new(), order));
                    }
                    edits.push((c.content.end..c.content.end, preview, order + 1));
                }
                None => edits.push((out.len()..out.len(), preview, order)),
            }
        }
        if edits.is_empty() {
            return out;
        }
        edits.sort_by_key(|(range, _, order)| (range.start, *order));
        let mut result = String::with_capacity(out.len() + edits.iter().map(|e| e.1.len()).sum::<usize>());
        let mut written = 0;
        for (range, replacement, _) in edits {
            if range.start < written {
                continue; // inside a block an earlier edit replaced
            }
            result.push_str(&out[written..range.start]);
            result.push_str(&replacement);
            written = range.end;
        }
        result.push_str(&out[written..]);
        result
    }
}

/// Zulip's `is_image`: the URL's path ends with an image extension (pasteboard.co's
/// pages excepted).
pub fn is_image(url: &str) -> bool {
    let (host, path) = host_and_path(url);
    if host == "pasteboard.co" {
        return false;
    }
    let path = path.to_ascii_lowercase();
    IMAGE_EXTENSIONS.iter().any(|ext| path.ends_with(ext))
}

/// The host and the path of a URL (`urlsplit`'s netloc and path).
fn host_and_path(url: &str) -> (&str, &str) {
    let url = &url[..url.find(['?', '#']).unwrap_or(url.len())];
    let after_scheme = match url.find("://") {
        Some(at) if url[..at].chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) => &url[at + 3..],
        _ => return ("", url),
    };
    let path_start = after_scheme.find('/').unwrap_or(after_scheme.len());
    (&after_scheme[..path_start], &after_scheme[path_start..])
}

/// Zulip's `get_actual_image_url`: a GitHub `blob` page shows the raw file.
fn actual_image_url(url: &str) -> String {
    let (host, path) = host_and_path(url);
    if host == "github.com" || host.ends_with(".github.com") {
        let parts: Vec<&str> = path.split('/').collect();
        if parts.len() > 3 && parts[3] == "blob" {
            let mut kept = parts[..3].to_vec();
            kept.extend_from_slice(&parts[4..]);
            return format!("https://raw.githubusercontent.com{}", kept.join("/"));
        }
    }
    url.to_string()
}

/// The `/thumbnail` URL Zulip points external images at.
pub fn thumbnail_url(url: &str, size: &str) -> String {
    format!("/thumbnail?url={}&size={size}", utf8_percent_encode(url.trim_start_matches('/'), QUERY_VALUE))
}

fn preview_html(href: &str, title: Option<&str>) -> String {
    let mut out = String::from("<div class=\"message_inline_image\"><a href=\"");
    html::escape_attr(&mut out, href);
    out.push('"');
    if let Some(title) = title {
        out.push_str(" title=\"");
        html::escape_attr(&mut out, title);
        out.push('"');
    }
    out.push_str("><img ");
    let image = actual_image_url(href);
    if host_and_path(&image).0.is_empty() {
        // The organization's own file: loaded directly, with the viewer's credentials.
        out.push_str("src=\"");
        html::escape_attr(&mut out, &image);
    } else {
        out.push_str("data-src-fullsize=\"");
        html::escape_attr(&mut out, &thumbnail_url(&image, "full"));
        out.push_str("\" src=\"");
        html::escape_attr(&mut out, &thumbnail_url(&image, "thumbnail"));
    }
    out.push_str("\"></a></div>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_urls_are_recognised_by_their_path() {
        assert!(is_image("https://example.com/a/b.PNG"));
        assert!(is_image("https://example.com/a.jpg?size=2#x"));
        assert!(is_image("/user_uploads/2/ab/cd/photo.webp"));
        assert!(!is_image("https://example.com/a.png/page"));
        assert!(!is_image("https://example.com/?img=a.png"));
        assert!(!is_image("https://pasteboard.co/a.png"));
    }

    #[test]
    fn thumbnail_url_quotes_everything_but_unreserved_characters() {
        assert_eq!(thumbnail_url("https://a.b/c d~_.-x.png", "full"), "/thumbnail?url=https%3A%2F%2Fa.b%2Fc%20d~_.-x.png&size=full");
        assert_eq!(thumbnail_url("/user_uploads/1/x.png", "thumbnail"), "/thumbnail?url=user_uploads%2F1%2Fx.png&size=thumbnail");
    }

    #[test]
    fn github_blob_pages_preview_the_raw_file() {
        assert_eq!(
            actual_image_url("https://github.com/zulip/zulip/blob/main/static/logo.png"),
            "https://raw.githubusercontent.com/zulip/zulip/main/static/logo.png"
        );
    }

    #[test]
    fn own_files_load_directly() {
        assert_eq!(
            preview_html("/user_uploads/2/ab/x.png", None),
            "<div class=\"message_inline_image\"><a href=\"/user_uploads/2/ab/x.png\"><img src=\"/user_uploads/2/ab/x.png\"></a></div>"
        );
    }
}
