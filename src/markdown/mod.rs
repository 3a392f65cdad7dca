//! Message rendering: raw Markdown content -> the HTML Zulip clients expect.
//!
//! Zulip's dialect is CommonMark-like Markdown plus its own syntax (mentions, channel and
//! topic links, `quote`/`spoiler` fences, nl2br line breaks, bare-URL autolinks) and minus
//! some features (raw HTML, `_` emphasis, reference links, backslash escapes).
//!
//! Pipeline (pure Rust, no I/O):
//! 1. `fences.rs`: Zulip's line-level fenced-block preprocessor. Code blocks become stashed
//!    HTML behind placeholders, `quote` fences become `> ` lines, `spoiler` fences become
//!    stashed wrapper HTML around Markdown content. `blocks.rs` then applies Python-Markdown's
//!    block rules that CommonMark reads differently (empty quotes, 2-space list nesting,
//!    mixed bullets, no setext headings); `<time:...>` becomes an inline placeholder
//!    (`timestamps.rs`); lines CommonMark would read as HTML blocks, fences Zulip rejected or
//!    reference definitions are neutralised so they stay text, as in Zulip.
//! 2. `pulldown-cmark` parses the result into events (with source offsets).
//! 3. `writer.rs`: walks the events and writes Zulip-shaped HTML itself; it never passes raw
//!    HTML through, recognises mentions and channel links around `**`/`*` spans using the
//!    source offsets (`mentions.rs`, `links.rs`), autolinks bare URLs, renders `:name:` and
//!    unicode emoji outside code, links' URLs and mentions (`emoji.rs`, with the tables in
//!    `crate::emoji`), applies the organization's linkifiers (`linkifiers.rs`) and records
//!    what was mentioned.
//!
//! Emoticon translation happens when the caller says the sender wants it
//! (`Resolved::translate_emoticons`). Custom emoji render as images when the caller resolved them
//! (`Resolved::custom_emoji`). Math (`$$…$$`, ```` ```math ````) is typeset by KaTeX through
//! `Resolved::tex` (`math.rs`; in the worker, the bundled `katex` package). Code blocks are
//! highlighted in Pygments' shape (`highlight.rs`); links to images get inline previews
//! (`previews.rs`); links into the organization's own URL (`Resolved::realm_url`) become
//! relative. Not rendered: link previews other than images, and the empty-topic display
//! name in `#**channel>**`.
//!
//! Callers (send and edit actions) first call [`references`] to learn which names and ids
//! to resolve with one D1 query, then [`render`] with what they found.

mod blocks;
mod code;
mod emoji;
mod emoticons;
mod fences;
#[cfg(test)] // build.rs reads the list; the worker needs only what it packed.
mod grammars;
mod highlight;
mod html;
mod linkifiers;
pub(crate) mod links;
mod math;
mod mentions;
mod previews;
mod timestamps;
mod tlds;
mod writer;

#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod node_katex;
#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

/// Text made safe anywhere in HTML (`&`, `<`, `>` and both quotes, `'` as `&#39;`): the
/// escaper for user text written into HTML outside Markdown (emails, channel descriptions).
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    html::escape_code(&mut out, text);
    out
}

/// Names and ids the content refers to, so the caller can resolve them with one D1 query.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct References {
    /// From `@**Full Name**` and `@_**Full Name**` (not wildcards).
    pub user_names: Vec<String>,
    /// From `@**Full Name|123**` / `@_**Name|123**` / `@**|123**`.
    pub user_ids: Vec<i64>,
    /// From `@*group name*` and `@_*group name*`.
    pub group_names: Vec<String>,
    /// From `#**channel**` and `#**channel>topic**`.
    pub channel_names: Vec<String>,
    /// From `:name:` shortcodes that could name a custom emoji.
    pub emoji_names: Vec<String>,
    /// Whether `@**all**` (or another channel wildcard) appears, silent or not: only then
    /// does sending check who may mention many users.
    pub stream_wildcard: bool,
    /// Whether `@**topic**` (or its silent form) appears: only then does sending need the
    /// topic's participants.
    pub topic_wildcard: bool,
}

/// Scans the raw content for mention and link syntax. Like Zulip it over-approximates (it
/// also sees syntax inside code); [`render`] only uses what actually renders.
pub fn references(content: &str) -> References {
    let mut refs = mentions::scan_references(content);
    refs.emoji_names = emoji::custom_emoji_candidates(content);
    refs
}

/// A user of the organization that content may mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MentionableUser {
    pub id: i64,
    pub full_name: String,
}

/// A user group that content may mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MentionableGroup {
    pub id: i64,
    pub name: String,
}

/// A channel that content may link to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkableChannel {
    pub id: i64,
    pub name: String,
}

/// An organization linkifier: a regular expression with named groups and the RFC 6570 URL
/// template its matches link to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linkifier {
    pub pattern: String,
    pub url_template: String,
}

/// An active custom emoji of the organization that content may show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomEmoji {
    pub name: String,
    /// Where its image is served (Zulip's `source_url`).
    pub source_url: String,
}

/// What the caller resolved (users of the organization matching the names/ids, etc.).
#[derive(Debug, Default, Clone)]
pub struct Resolved {
    pub users: Vec<MentionableUser>,
    pub groups: Vec<MentionableGroup>,
    pub channels: Vec<LinkableChannel>,
    /// The organization's linkifiers, in the order they apply.
    pub linkifiers: Vec<Linkifier>,
    /// The active custom emoji among the content's `emoji_names`.
    pub custom_emoji: Vec<CustomEmoji>,
    /// The sender's `translate_emoticons` setting (`:)` becomes 🙂).
    pub translate_emoticons: bool,
    /// Typesets math; by default the platform's KaTeX (none natively: math shows as `tex-error`).
    pub tex: TexRenderer,
    /// The organization's URL (`https://chat.example.com`, no trailing slash): links into
    /// it become relative. Empty: links stay as written.
    pub realm_url: String,
}

pub use linkifiers::compile as compile_linkifier_pattern;
pub use math::TexRenderer;

/// One entry of a message's `topic_links`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicLink {
    pub text: String,
    pub url: String,
}

/// The organization's linkifiers compiled once, for the `topic_links` of many messages.
#[derive(Debug, Clone, Default)]
pub struct TopicLinker {
    compiled: Vec<linkifiers::Compiled>,
}

impl TopicLinker {
    pub fn new(linkifiers: &[Linkifier]) -> TopicLinker {
        TopicLinker { compiled: linkifiers::compile_all(linkifiers) }
    }

    /// Zulip's `topic_links`: linkifier matches and bare URLs in the topic, in the order they
    /// appear; where they overlap, linkifiers win.
    pub fn links(&self, topic: &str) -> Vec<TopicLink> {
        let mut found: Vec<(usize, TopicLink)> = Vec::new();
        let matches = linkifiers::find(&self.compiled, topic);
        for m in &matches {
            found.push((m.start, TopicLink { text: topic[m.start..m.end].to_string(), url: m.href.clone() }));
        }
        for link in links::find_autolinks(topic, true) {
            if matches.iter().any(|m| m.start < link.end && link.start < m.end) {
                continue;
            }
            if let Some(url) = links::sanitize_url(&link.href) {
                found.push((link.start, TopicLink { text: topic[link.start..link.end].to_string(), url }));
            }
        }
        found.sort_by_key(|(start, _)| *start);
        found.into_iter().map(|(_, link)| link).collect()
    }
}

/// The rendered HTML and what it mentions.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub html: String,
    /// Non-silent user mentions only (mentions inside quotes are silent, as in Zulip).
    pub mentioned_user_ids: BTreeSet<i64>,
    /// Non-silent group mentions.
    pub mentioned_group_ids: BTreeSet<i64>,
    /// Non-silent `@**all**`, `@**everyone**`, `@**channel**`, `@**stream**`.
    pub stream_wildcard: bool,
    /// Non-silent `@**topic**`.
    pub topic_wildcard: bool,
    /// Content starts with `/me ` (Zulip's `Message.is_status_message`).
    pub is_me_message: bool,
}

/// Renders message content to HTML the way Zulip's server does (within this module's scope).
///
/// ```
/// use team_chat::markdown::{references, render, MentionableUser, Resolved};
///
/// let content = "hi @**King Hamlet**";
/// let refs = references(content); // user_names: ["King Hamlet"] -> one D1 query
/// assert_eq!(refs.user_names, vec!["King Hamlet"]);
/// let resolved = Resolved {
///     users: vec![MentionableUser { id: 10, full_name: "King Hamlet".into() }],
///     ..Resolved::default()
/// };
/// let rendered = render(content, &resolved);
/// assert_eq!(rendered.html, r#"<p>hi <span class="user-mention" data-user-id="10">@King Hamlet</span></p>"#);
/// assert!(rendered.mentioned_user_ids.contains(&10));
/// ```
pub fn render(content: &str, resolved: &Resolved) -> Rendered {
    let source = fences::preprocess(content, &resolved.tex);
    let mut rendered = writer::write_html(&source, resolved);
    rendered.is_me_message = is_me_message(content);
    rendered
}

/// Zulip marks a message as a `/me` status message purely by its raw prefix; clients then
/// replace the leading `/me` with the sender's name.
fn is_me_message(content: &str) -> bool {
    content.starts_with("/me ")
}
