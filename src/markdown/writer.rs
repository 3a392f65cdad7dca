//! Walks pulldown-cmark's events and writes Zulip-shaped HTML.
//!
//! We write HTML ourselves (rather than with `pulldown_cmark::html`) because Zulip's output
//! differs in shape (nl2br, code blocks, tables, newlines around blocks) and because every
//! raw-HTML event must become escaped text. Source offsets let us see what the user typed:
//! the `@`/`#` before a `**` span (mentions, channel links), which delimiter made an
//! emphasis (Zulip ignores `_`), and the exact text of code spans.

use std::ops::Range;

use pulldown_cmark::{Alignment, CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

use super::fences::{Preprocessed, Segment};
use super::previews::{self, Block};
use super::{code, emoji, emoticons, html, linkifiers, links, mentions, Rendered, Resolved};

pub fn write_html(pre: &Preprocessed, resolved: &Resolved) -> Rendered {
    let events = parse(&pre.text);
    let ends = matching_ends(&events);
    let mut writer = Writer {
        src: &pre.text,
        pre,
        resolved,
        events,
        ends,
        linkifiers: linkifiers::compile_all(&resolved.linkifiers),
        out: String::with_capacity(pre.text.len() * 2),
        rendered: Rendered::default(),
        quote_depth: 0,
        link_depth: 0,
        closers: Vec::new(),
        table: TableState::default(),
        code: None,
        at_boundary: true,
        after_break: false,
        list_depth: 0,
        previews: previews::Collector::default(),
        open_links: Vec::new(),
        in_strikethrough: false,
    };
    writer.run();
    let mut rendered = writer.rendered;
    rendered.html = writer.previews.apply(writer.out).trim_end_matches('\n').to_string();
    rendered
}

/// Parses with Zulip's extensions (tables, `~~strikethrough~~`), turns emphasis Zulip
/// would not recognise back into its delimiters, and merges adjacent text events, so
/// patterns that span pulldown's text splits (autolinks) are seen whole.
fn parse(src: &str) -> Vec<(Event<'_>, Range<usize>)> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut events: Vec<(Event<'_>, Range<usize>)> = Vec::new();
    let mut literal_closers: Vec<Option<String>> = Vec::new();
    // Adjacent text collects here (one growing buffer, so merging stays linear).
    let mut pending: Option<(String, Range<usize>)> = None;
    for (event, range) in Parser::new_ext(src, options).into_offset_iter() {
        let event = match keep_backslash(src, event, &range) {
            // Inline HTML is text in Zulip; merging it keeps autolink boundaries right.
            Event::InlineHtml(raw) => Event::Text(raw),
            Event::Start(tag @ (Tag::Emphasis | Tag::Strong | Tag::Strikethrough)) => match literal_delimiters(src, &tag, &range) {
                Some((open, close)) => {
                    literal_closers.push(Some(close));
                    Event::Text(open.into())
                }
                None => {
                    literal_closers.push(None);
                    Event::Start(tag)
                }
            },
            Event::End(tag @ (TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough)) => match literal_closers.pop().flatten() {
                Some(close) => Event::Text(close.into()),
                None => Event::End(tag),
            },
            event => event,
        };
        match (pending.as_mut(), event) {
            (Some((buffer, pending_range)), Event::Text(text)) => {
                buffer.push_str(&text);
                pending_range.end = range.end;
            }
            (None, Event::Text(text)) => pending = Some((text.into_string(), range)),
            (_, event) => {
                if let Some((text, text_range)) = pending.take() {
                    events.push((Event::Text(text.into()), text_range));
                }
                events.push((event, range));
            }
        }
    }
    if let Some((text, text_range)) = pending.take() {
        events.push((Event::Text(text.into()), text_range));
    }
    events
}

/// The opening and closing delimiters to show as text when Zulip would not render this
/// span: `_em_` and `__strong__` (disabled in Zulip), single `~`, and spans across lines
/// (Zulip's inline patterns never cross a newline).
fn literal_delimiters(src: &str, tag: &Tag<'_>, range: &Range<usize>) -> Option<(String, String)> {
    let span = &src[range.clone()];
    let (zulip_delimiter, length) = match tag {
        Tag::Emphasis => ("*", 1),
        Tag::Strong => ("**", 2),
        _ => ("~~", 2),
    };
    if span.starts_with(zulip_delimiter) && span.ends_with(zulip_delimiter) && !span.contains('\n') {
        return None;
    }
    let length = if matches!(tag, Tag::Strikethrough) && !span.starts_with("~~") { 1 } else { length };
    let length = length.min(span.len() / 2);
    Some((span[..length].to_string(), span[span.len() - length..].to_string()))
}

/// For each `Start` event, the index of its matching `End` (one pass, so lookups are O(1)).
fn matching_ends(events: &[(Event<'_>, Range<usize>)]) -> Vec<usize> {
    let mut ends = vec![events.len().saturating_sub(1); events.len()];
    let mut open = Vec::new();
    for (index, (event, _)) in events.iter().enumerate() {
        match event {
            Event::Start(_) => open.push(index),
            Event::End(_) => {
                if let Some(start) = open.pop() {
                    ends[start] = index;
                }
            }
            _ => {}
        }
    }
    ends
}

/// Zulip does not support backslash escapes: `\\*` shows the backslash. pulldown-cmark
/// reports an escaped character as text starting just after the (unreported) backslash.
fn keep_backslash<'a>(src: &'a str, event: Event<'a>, range: &Range<usize>) -> Event<'a> {
    match &event {
        Event::Text(text) if text.starts_with(|c: char| c.is_ascii_punctuation()) && escaped_at(src, range.start) => {
            Event::Text(format!("\\{text}").into())
        }
        _ => event,
    }
}

/// Whether the byte before `at` is a backslash that is not itself escaped.
fn escaped_at(src: &str, at: usize) -> bool {
    let backslashes = src[..at].bytes().rev().take_while(|b| *b == b'\\').count();
    backslashes % 2 == 1
}

#[derive(Default)]
struct TableState {
    alignments: Vec<Alignment>,
    cell: usize,
    in_head: bool,
}

struct Writer<'a> {
    src: &'a str,
    pre: &'a Preprocessed,
    resolved: &'a Resolved,
    events: Vec<(Event<'a>, Range<usize>)>,
    linkifiers: Vec<linkifiers::Compiled>,
    /// For each `Start` event, the index of its `End`.
    ends: Vec<usize>,
    out: String,
    rendered: Rendered,
    /// Mentions inside quotes are silent (Zulip rewrites them to `@_` forms).
    quote_depth: usize,
    /// No autolinking inside links.
    link_depth: usize,
    /// Closing markup for open inline tags (literal delimiters when not rendered as tags).
    closers: Vec<String>,
    table: TableState,
    /// A code block being collected: its language and text.
    code: Option<(Option<String>, String)>,
    /// Whether text here starts a run, as Zulip's link regex needs for its lookbehind.
    at_boundary: bool,
    /// Whether the previous event was a line break (Zulip keeps the next line's indentation).
    after_break: bool,
    /// Open list items, for Python-Markdown's 4-space detab of continuation lines.
    list_depth: usize,
    /// Links written so far and the blocks holding them, for inline image previews.
    previews: previews::Collector,
    /// Open Markdown links: where their HTML starts, their href, and whether they sit
    /// inside other inline markup.
    open_links: Vec<(usize, String, bool)>,
    /// Text being written inside Zulip's `~~ text ~~` strikethrough.
    in_strikethrough: bool,
}

impl<'a> Writer<'a> {
    fn run(&mut self) {
        let mut i = 0;
        while i < self.events.len() {
            i = self.step(i);
        }
    }

    /// Writes the event at `i` and returns the index of the next unwritten event.
    fn step(&mut self, i: usize) -> usize {
        let (event, range) = self.events[i].clone();
        let was_boundary = std::mem::replace(&mut self.at_boundary, false);
        let was_after_break = std::mem::replace(&mut self.after_break, false);
        match event {
            Event::Start(tag) => return self.start(i, tag, range),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => {
                if was_after_break && self.code.is_none() {
                    self.kept_indentation(&range);
                }
                self.text(&text, was_boundary);
                if self.code.is_none() && self.ends_line_in_zulip(i + 1) {
                    self.kept_trailing_spaces(&range);
                }
            }
            Event::Code(code) => self.inline_code(&code, range),
            Event::Html(raw) | Event::InlineHtml(raw) => self.raw_html_as_text(&raw),
            Event::SoftBreak | Event::HardBreak => {
                if self.src[range].starts_with('\\') {
                    self.out.push('\\'); // a backslash hard break is just a backslash in Zulip
                }
                self.out.push_str("<br>\n");
                self.at_boundary = true;
                self.after_break = true;
            }
            Event::Rule => self.open_block("<hr>\n"),
            _ => {}
        }
        i + 1
    }

    fn start(&mut self, i: usize, tag: Tag<'a>, range: Range<usize>) -> usize {
        self.at_boundary = true;
        match tag {
            Tag::Paragraph | Tag::HtmlBlock => return self.paragraph(i),
            Tag::Heading { level, .. } => {
                self.open_block(&format!("<{level}>"));
                self.previews.open(Block::Other, self.out.len(), self.out.len());
            }
            Tag::BlockQuote(_) => {
                self.quote_depth += 1;
                self.open_block("<blockquote>\n");
            }
            Tag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.split_whitespace().next().map(str::to_lowercase),
                    CodeBlockKind::Indented => None,
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(Some(1)) => match self.carried_list_start(i) {
                Some(start) => self.open_block(&format!("<ol start=\"{start}\">\n")),
                None => self.open_block("<ol>\n"),
            },
            Tag::List(Some(start)) => self.open_block(&format!("<ol start=\"{start}\">\n")),
            Tag::List(None) => self.open_block("<ul>\n"),
            Tag::Item => {
                self.list_depth += 1;
                self.open_block("<li>");
                self.previews.open(Block::Item, self.out.len() - "<li>".len(), self.out.len());
            }
            Tag::Table(alignments) => {
                self.table = TableState { alignments, cell: 0, in_head: false };
                self.open_block("<table>\n");
            }
            Tag::TableHead => {
                self.table.in_head = true;
                self.table.cell = 0;
                self.out.push_str("<thead>\n<tr>\n");
            }
            Tag::TableRow => {
                self.table.cell = 0;
                self.out.push_str("<tr>\n");
            }
            Tag::TableCell => {
                self.table_cell_start();
                self.previews.open(Block::Other, self.out.len(), self.out.len());
            }
            Tag::Emphasis => return self.emphasis(i, range),
            Tag::Strong => return self.strong(i, range),
            Tag::Strikethrough => self.open_inline("<del>", "</del>"),
            Tag::Link { link_type, dest_url, .. } => return self.link(i, link_type, &dest_url, false),
            Tag::Image { link_type, dest_url, .. } => return self.link(i, link_type, &dest_url, true),
            _ => {}
        }
        i + 1
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.close_block("</p>\n"),
            TagEnd::Heading(level) => self.close_block(&format!("</{level}>\n")),
            TagEnd::BlockQuote(_) => {
                self.quote_depth -= 1;
                self.out.push_str("</blockquote>\n");
            }
            TagEnd::CodeBlock => {
                if let Some((lang, text)) = self.code.take() {
                    let block = code::block_html(lang.as_deref(), &text);
                    self.open_block(&block);
                    self.out.push('\n');
                }
            }
            TagEnd::List(true) => self.out.push_str("</ol>\n"),
            TagEnd::List(false) => self.out.push_str("</ul>\n"),
            TagEnd::Item => {
                self.list_depth -= 1;
                self.close_block("</li>\n");
            }
            TagEnd::Table => self.out.push_str("</tbody>\n</table>\n"),
            TagEnd::TableHead => {
                self.table.in_head = false;
                self.out.push_str("</tr>\n</thead>\n<tbody>\n");
            }
            TagEnd::TableRow => self.out.push_str("</tr>\n"),
            TagEnd::TableCell => {
                self.close_block(if self.table.in_head { "</th>\n" } else { "</td>\n" });
                self.table.cell += 1;
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                let closer = self.closers.pop().unwrap_or_default();
                self.out.push_str(&closer);
            }
            TagEnd::Link | TagEnd::Image => {
                self.link_depth = self.link_depth.saturating_sub(1);
                let closer = self.closers.pop().unwrap_or_default();
                self.out.push_str(&closer);
                if let Some((start, href, nested)) = self.open_links.pop() {
                    // The `a` ends at its `</a>` (an angle autolink's `&gt;` follows it).
                    let end = self.out.len() - (closer.len() - "</a>".len());
                    let text = self.inner_html_text(start, end);
                    self.previews.link(&href, &text, start..end, self.quote_depth > 0, nested);
                }
            }
            _ => {}
        }
    }

    /// Block elements start on a fresh line inside list items that hold blocks
    /// (`<li>\n<p>...`), but follow a tight item's text directly (`<li>text<ul>`).
    fn open_block(&mut self, markup: &str) {
        if self.out.ends_with("<li>") {
            self.out.push('\n');
        }
        self.out.push_str(markup);
    }

    /// Writes a block's closing tag, ending it for the previews.
    fn close_block(&mut self, closing: &str) {
        let content_end = self.out.len();
        self.out.push_str(closing);
        self.previews.close(content_end, self.out.len());
    }

    /// A paragraph, or the stashed HTML when it is exactly a fenced-block placeholder.
    fn paragraph(&mut self, i: usize) -> usize {
        if let (Some((Event::Text(text), _)), Some((Event::End(_), _))) = (self.events.get(i + 1), self.events.get(i + 2)) {
            if let Some(stashed) = self.pre.stashed(text) {
                let stashed = stashed.to_string();
                self.open_block(&stashed);
                self.out.push('\n');
                return i + 3;
            }
        }
        self.open_block("<p>");
        self.previews.open(Block::Paragraph, self.out.len() - "<p>".len(), self.out.len());
        i + 1
    }

    fn table_cell_start(&mut self) {
        let cell = if self.table.in_head { "th" } else { "td" };
        let align = match self.table.alignments.get(self.table.cell) {
            Some(Alignment::Left) => " style=\"text-align: left;\"",
            Some(Alignment::Center) => " style=\"text-align: center;\"",
            Some(Alignment::Right) => " style=\"text-align: right;\"",
            _ => "",
        };
        self.out.push_str(&format!("<{cell}{align}>"));
    }

    fn open_inline(&mut self, open: &str, close: &str) {
        self.out.push_str(open);
        self.closers.push(close.to_string());
    }

    fn emphasis(&mut self, i: usize, range: Range<usize>) -> usize {
        if let Some(next) = self.group_mention(i, &range) {
            return next;
        }
        if let Some(next) = self.strong_em(i, &range) {
            return next;
        }
        self.open_inline("<em>", "</em>");
        i + 1
    }

    fn strong(&mut self, i: usize, range: Range<usize>) -> usize {
        if let Some(next) = self.user_mention_or_channel_link(i, &range) {
            return next;
        }
        self.open_inline("<strong>", "</strong>");
        i + 1
    }

    /// `***text***` is `<strong><em>` in Zulip; pulldown-cmark nests it the other way.
    fn strong_em(&mut self, i: usize, range: &Range<usize>) -> Option<usize> {
        let span = &self.src[range.clone()];
        let inner_is_strong = matches!(self.events.get(i + 1), Some((Event::Start(Tag::Strong), r)) if r.start == range.start + 1);
        if !span.starts_with("***") || span.contains('\n') || !inner_is_strong || self.matching_end(i + 1) + 1 != self.matching_end(i) {
            return None;
        }
        self.out.push_str("<strong><em>");
        // The inner (strong) end comes first and closes the <em>.
        self.closers.push("</strong>".to_string());
        self.closers.push("</em>".to_string());
        Some(i + 2)
    }

    /// `@**...**`, `@_**...**` or `#**...**` around the `**` span at `i`: writes the
    /// mention or link in place of the span and its prefix, if it resolves.
    fn user_mention_or_channel_link(&mut self, i: usize, range: &Range<usize>) -> Option<usize> {
        let body = span_body(self.src, range, "**")?;
        let before = &self.src[..range.start];
        let (prefix, html) = if let Some(rest) = before.strip_suffix("@_") {
            if !mentions::allowed_before_mention(rest.chars().last()) {
                return None;
            }
            ("@_", mentions::user_mention_html(body, true, self.resolved, &mut self.rendered))
        } else if let Some(rest) = before.strip_suffix('@') {
            if !mentions::allowed_before_mention(rest.chars().last()) || !self.out.ends_with('@') {
                return None;
            }
            let silent = self.quote_depth > 0;
            ("@", mentions::user_mention_html(body, silent, self.resolved, &mut self.rendered))
        } else if let Some(rest) = before.strip_suffix('#') {
            if !mentions::allowed_before_channel_link(rest.chars().last()) {
                return None;
            }
            ("#", mentions::channel_link_html(body, self.resolved))
        } else {
            return None;
        };
        self.replace_span(i, prefix, html?)
    }

    /// `@*group*` or `@_*group*` around the `*` span at `i`.
    fn group_mention(&mut self, i: usize, range: &Range<usize>) -> Option<usize> {
        let body = span_body(self.src, range, "*").filter(|b| !b.starts_with('*'))?;
        let before = &self.src[..range.start];
        let (prefix, silent) = match before.strip_suffix("@_") {
            Some(rest) => (rest, true),
            None => (before.strip_suffix('@')?, self.quote_depth > 0),
        };
        if !mentions::allowed_before_mention(prefix.chars().last()) {
            return None;
        }
        let typed_prefix = if before.ends_with("@_") { "@_" } else { "@" };
        let html = mentions::group_mention_html(body, silent, self.resolved, &mut self.rendered)?;
        self.replace_span(i, typed_prefix, html)
    }

    /// Replaces the already-written `prefix` and the span starting at `i` with `html`.
    fn replace_span(&mut self, i: usize, prefix: &str, html: String) -> Option<usize> {
        if !self.out.ends_with(prefix) {
            return None;
        }
        self.out.truncate(self.out.len() - prefix.len());
        self.out.push_str(&html);
        self.at_boundary = false;
        Some(self.matching_end(i) + 1)
    }

    /// Index of the `End` event closing the `Start` at `i`.
    fn matching_end(&self, i: usize) -> usize {
        self.ends[i]
    }

    /// Markdown links and `<url>` autolinks. Links Zulip would refuse (unsafe schemes) stay
    /// as the text the user typed; a link without text shows its URL.
    fn link(&mut self, i: usize, link_type: LinkType, dest: &str, image: bool) -> usize {
        let end = self.matching_end(i);
        let angle = matches!(link_type, LinkType::Autolink | LinkType::Email);
        let dest = if link_type == LinkType::Email { format!("mailto:{dest}") } else { dest.to_string() };
        let Some(href) =
            links::sanitize_url(&dest).filter(|_| self.link_depth == 0).map(|h| links::relative_to_realm(h, &self.resolved.realm_url))
        else {
            // Zulip leaves a refused link as the typed text (still autolinking inside it).
            let span = self.src[self.events[i].1.clone()].to_string();
            self.text(&span, self.at_boundary);
            return end + 1;
        };
        if image {
            self.out.push('!');
        }
        if angle {
            self.out.push_str("&lt;");
        }
        let start = self.out.len();
        let nested = !self.closers.is_empty() || self.in_strikethrough;
        self.out.push_str(&format!("<a href=\"{}\">", html::attr(&href)));
        let closer = if angle { "</a>&gt;" } else { "</a>" };
        if self.inner_text(i, end).trim().is_empty() {
            html::escape_text(&mut self.out, &href);
            self.out.push_str("</a>");
            self.previews.link(&href, &href, start..self.out.len(), self.quote_depth > 0, nested);
            if angle {
                self.out.push_str("&gt;");
            }
            return end + 1;
        }
        self.open_links.push((start, href, nested));
        self.link_depth += 1;
        self.closers.push(closer.to_string());
        i + 1
    }

    /// The text of the link written at `html` (its HTML without tags, entities decoded),
    /// which Zulip compares with the URL to tell bare links from named ones.
    fn inner_html_text(&self, start: usize, end: usize) -> String {
        let written = &self.out[start..end];
        let inner = written.find('>').map_or("", |open| &written[open + 1..written.len() - "</a>".len()]);
        let mut text = String::new();
        let mut in_tag = false;
        for c in inner.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                _ if !in_tag => text.push(c),
                _ => {}
            }
        }
        text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&")
    }

    fn inner_text(&self, start: usize, end: usize) -> String {
        self.events[start + 1..end]
            .iter()
            .filter_map(|(event, _)| match event {
                Event::Text(t) | Event::Code(t) => Some(t.to_string()),
                _ => None,
            })
            .collect()
    }

    fn text(&mut self, text: &str, at_boundary: bool) {
        if let Some((_, code)) = self.code.as_mut() {
            code.push_str(&self.pre.restore_source(text));
            return;
        }
        let mut boundary = at_boundary;
        for segment in self.pre.segments(text) {
            match segment {
                Segment::Html(stashed) => {
                    self.out.push_str(stashed);
                    boundary = false;
                }
                Segment::Text(part) if self.link_depth > 0 => emoji::write_text(&mut self.out, part, &self.resolved.custom_emoji),
                Segment::Text(part) => {
                    self.struck_and_autolinked(part, boundary);
                    boundary = false;
                }
            }
        }
    }

    fn struck_and_autolinked(&mut self, text: &str, at_boundary: bool) {
        // `~~ text ~~` with inner spaces is strikethrough in Zulip but not in CommonMark.
        let (mut rest, mut boundary) = (text, at_boundary);
        while let Some((before, inner, after)) = split_strikethrough(rest) {
            self.autolinked(before, boundary);
            self.out.push_str("<del>");
            self.in_strikethrough = true;
            self.autolinked(inner, true);
            self.in_strikethrough = false;
            self.out.push_str("</del>");
            (rest, boundary) = (after, false);
        }
        self.autolinked(rest, boundary);
    }

    /// Escaped text with Zulip's bare-URL, domain and email autolinks, and emoji outside them.
    fn autolinked(&mut self, text: &str, at_boundary: bool) {
        let mut written = 0;
        for link in links::find_autolinks(text, at_boundary) {
            self.linkified(&text[written..link.start]);
            let shown = &text[link.start..link.end];
            match links::sanitize_url(&link.href).map(|h| links::relative_to_realm(h, &self.resolved.realm_url)) {
                Some(href) => {
                    let start = self.out.len();
                    self.out.push_str(&format!("<a href=\"{}\">", html::attr(&href)));
                    html::escape_text(&mut self.out, shown);
                    self.out.push_str("</a>");
                    let nested = !self.closers.is_empty() || self.in_strikethrough;
                    self.previews.link(&href, shown, start..self.out.len(), self.quote_depth > 0, nested);
                }
                None => html::escape_text(&mut self.out, shown),
            }
            written = link.end;
        }
        self.linkified(&text[written..]);
    }

    /// Escaped text with the organization's linkifiers applied, and emoji outside them.
    fn linkified(&mut self, text: &str) {
        let mut written = 0;
        for found in linkifiers::find(&self.linkifiers, text) {
            self.emoji_text(&text[written..found.start]);
            linkifiers::write_link(&mut self.out, &found.href, &text[found.start..found.end]);
            written = found.end;
        }
        self.emoji_text(&text[written..]);
    }

    /// Escaped text with emoji (and, if the sender wants it, translated emoticons).
    fn emoji_text(&mut self, text: &str) {
        if self.resolved.translate_emoticons {
            emoji::write_text(&mut self.out, &emoticons::translate(text), &self.resolved.custom_emoji);
        } else {
            emoji::write_text(&mut self.out, text, &self.resolved.custom_emoji);
        }
    }

    /// Inline code keeps its spaces exactly as typed (Zulip does not trim them). Zulip's
    /// code spans never cross a line break: such a span stays text, backticks included.
    fn inline_code(&mut self, parsed: &str, range: Range<usize>) {
        let span = &self.src[range];
        if span.contains('\n') {
            let lines: Vec<&str> = span.split('\n').map(|l| l.trim_start_matches(' ')).collect();
            for (n, line) in lines.iter().enumerate() {
                if n > 0 {
                    self.out.push_str("<br>\n");
                }
                html::escape_text(&mut self.out, &self.pre.restore_source(line));
            }
            return;
        }
        let ticks = span.chars().take_while(|c| *c == '`').count();
        let inner = if ticks > 0 && span.len() >= 2 * ticks && span.ends_with(&"`".repeat(ticks)) {
            &span[ticks..span.len() - ticks]
        } else {
            parsed
        };
        self.out.push_str("<code>");
        html::escape_text(&mut self.out, &self.pre.restore_source(inner));
        self.out.push_str("</code>");
    }

    /// A nested ordered list's real start number, carried in its first text by the block
    /// normaliser (CommonMark only lets lists starting at 1 interrupt a paragraph).
    fn carried_list_start(&mut self, i: usize) -> Option<u64> {
        let j = (i + 1..self.events.len().min(i + 4)).find(|j| matches!(self.events[*j].0, Event::Text(_)))?;
        let Event::Text(text) = &self.events[j].0 else { return None };
        let (start, rest) = self.pre.list_start(text)?;
        let rest = rest.to_string();
        self.events[j].0 = Event::Text(rest.into());
        Some(start)
    }

    /// Python-Markdown keeps a continuation line's indentation (after quote markers), except
    /// the 4 spaces per list level it strips from indented list content.
    fn kept_indentation(&mut self, range: &Range<usize>) {
        let line_start = self.src[..range.start].rfind('\n').map_or(0, |n| n + 1);
        let mut prefix = &self.src[line_start..range.start];
        while let Some(rest) = prefix.trim_start_matches(' ').strip_prefix('>') {
            prefix = rest.strip_prefix(' ').unwrap_or(rest);
        }
        if prefix.is_empty() || prefix.bytes().any(|b| b != b' ') {
            return;
        }
        let spaces = if self.list_depth > 0 && prefix.len() >= 4 { prefix.len().saturating_sub(4 * self.list_depth) } else { prefix.len() };
        self.out.push_str(&" ".repeat(spaces));
    }

    /// Whether the event at `next` ends the current line of text in Zulip's output.
    fn ends_line_in_zulip(&self, next: usize) -> bool {
        matches!(
            self.events.get(next).map(|(e, _)| e),
            None | Some(Event::SoftBreak | Event::HardBreak | Event::End(TagEnd::Paragraph | TagEnd::Item) | Event::Start(Tag::List(_)))
        )
    }

    /// Zulip keeps trailing spaces of a line (CommonMark drops them).
    fn kept_trailing_spaces(&mut self, range: &Range<usize>) {
        let rest = &self.src[range.end..];
        let spaces = rest.bytes().take_while(|b| *b == b' ').count();
        if spaces > 0 && matches!(rest.as_bytes().get(spaces), None | Some(b'\n')) {
            self.out.push_str(&rest[..spaces]);
        }
    }

    /// Zulip never passes HTML through: it is shown as the text that was typed.
    fn raw_html_as_text(&mut self, raw: &str) {
        if self.code.is_some() {
            self.text(raw, false);
            return;
        }
        emoji::write_text(&mut self.out, raw.trim_end_matches('\n'), &self.resolved.custom_emoji);
    }
}

/// Zulip's `(?<!~)~~([^~\n]+?)~~(?!~)`: the text before, inside and after the first match.
fn split_strikethrough(text: &str) -> Option<(&str, &str, &str)> {
    let mut from = 0;
    while let Some(found) = text[from..].find("~~") {
        let open = from + found;
        let inner_start = open + 2;
        let inner_len = text[inner_start..].find(['~', '\n']).unwrap_or(text.len() - inner_start);
        let close = inner_start + inner_len;
        let preceded_by_tilde = text[..open].ends_with('~');
        let closes = text[close..].starts_with("~~") && !text[close + 2..].starts_with('~');
        if !preceded_by_tilde && inner_len > 0 && closes {
            return Some((&text[..open], &text[inner_start..close], &text[close + 2..]));
        }
        from = open + 1;
    }
    None
}

/// The text between `delimiter`s of a span like `**name**`, if it has no `*` inside.
fn span_body<'s>(src: &'s str, range: &Range<usize>, delimiter: &str) -> Option<&'s str> {
    let span = &src[range.clone()];
    let body = span.strip_prefix(delimiter)?.strip_suffix(delimiter)?;
    (!body.is_empty() && !body.contains('*')).then_some(body)
}
