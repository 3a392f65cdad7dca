//! Walks pulldown-cmark's events and writes Zulip-shaped HTML.
//!
//! We write HTML ourselves (rather than with `pulldown_cmark::html`) because Zulip's output
//! differs in shape (nl2br, code blocks, tables, newlines around blocks) and because every
//! raw-HTML event must become escaped text. Source offsets let us see what the user typed:
//! the `@`/`#` before a `**` span (mentions, channel links), which delimiter made an
//! emphasis (Zulip ignores `_`), and the exact text of code spans.

use std::ops::Range;

use pulldown_cmark::{Alignment, CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

use super::fences::Preprocessed;
use super::{code, html, links, mentions, Rendered, Resolved};

pub fn write_html(pre: &Preprocessed, resolved: &Resolved) -> Rendered {
    let mut writer = Writer {
        src: &pre.text,
        pre,
        resolved,
        events: parse(&pre.text),
        out: String::with_capacity(pre.text.len() * 2),
        rendered: Rendered::default(),
        quote_depth: 0,
        link_depth: 0,
        closers: Vec::new(),
        table: TableState::default(),
        code: None,
        at_boundary: true,
    };
    writer.run();
    let mut rendered = writer.rendered;
    rendered.html = writer.out.trim_end_matches('\n').to_string();
    rendered
}

/// Parses with Zulip's extensions (tables, `~~strikethrough~~`) and merges adjacent text
/// events, so patterns that span pulldown's text splits (autolinks) are seen whole.
fn parse(src: &str) -> Vec<(Event<'_>, Range<usize>)> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut events: Vec<(Event<'_>, Range<usize>)> = Vec::new();
    for (event, range) in Parser::new_ext(src, options).into_offset_iter() {
        let event = keep_backslash(src, event, &range);
        match (events.last_mut(), event) {
            (Some((Event::Text(previous), previous_range)), Event::Text(text)) => {
                *previous = format!("{previous}{text}").into();
                previous_range.end = range.end;
            }
            (_, event) => events.push((event, range)),
        }
    }
    events
}

/// Zulip does not support backslash escapes: `\*` shows the backslash. pulldown-cmark
/// reports an escaped character as text whose source is the two characters.
fn keep_backslash<'a>(src: &'a str, event: Event<'a>, range: &Range<usize>) -> Event<'a> {
    match &event {
        Event::Text(text) if src[range.clone()].starts_with('\\') && src[range.clone()].len() == 1 + text.len() => {
            Event::Text(src[range.clone()].into())
        }
        _ => event,
    }
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
        match event {
            Event::Start(tag) => return self.start(i, tag, range),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text, was_boundary),
            Event::Code(code) => self.inline_code(&code, range),
            Event::Html(raw) | Event::InlineHtml(raw) => self.raw_html_as_text(&raw),
            Event::SoftBreak | Event::HardBreak => {
                self.out.push_str("<br>\n");
                self.at_boundary = true;
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
            Tag::Heading { level, .. } => self.open_block(&format!("<{level}>")),
            Tag::BlockQuote(_) => {
                self.quote_depth += 1;
                self.open_block("<blockquote>\n");
            }
            Tag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().map(str::to_lowercase)
                    }
                    CodeBlockKind::Indented => None,
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(Some(1)) => self.open_block("<ol>\n"),
            Tag::List(Some(start)) => self.open_block(&format!("<ol start=\"{start}\">\n")),
            Tag::List(None) => self.open_block("<ul>\n"),
            Tag::Item => self.open_block("<li>"),
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
            Tag::TableCell => self.table_cell_start(),
            Tag::Emphasis => return self.emphasis(i, range),
            Tag::Strong => return self.strong(i, range),
            Tag::Strikethrough => {
                let span = &self.src[range];
                let zulip_del = span.starts_with("~~") && span.ends_with("~~") && !span.contains('\n');
                self.open_inline(zulip_del, "<del>", "</del>", "~~".len().min(span.len()), span);
            }
            Tag::Link { link_type, dest_url, .. } => return self.link(i, link_type, &dest_url, false),
            Tag::Image { link_type, dest_url, .. } => return self.link(i, link_type, &dest_url, true),
            _ => {}
        }
        i + 1
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.out.push_str("</p>\n"),
            TagEnd::Heading(level) => self.out.push_str(&format!("</{level}>\n")),
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
            TagEnd::Item => self.out.push_str("</li>\n"),
            TagEnd::Table => self.out.push_str("</tbody>\n</table>\n"),
            TagEnd::TableHead => {
                self.table.in_head = false;
                self.out.push_str("</tr>\n</thead>\n<tbody>\n");
            }
            TagEnd::TableRow => self.out.push_str("</tr>\n"),
            TagEnd::TableCell => {
                self.out.push_str(if self.table.in_head { "</th>\n" } else { "</td>\n" });
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

    /// Opens an inline tag, or writes its delimiters literally when Zulip would not
    /// recognise this span (e.g. `_em_`, or `**` spans across lines).
    fn open_inline(&mut self, as_tag: bool, open: &str, close: &str, delimiter_len: usize, span: &str) {
        if as_tag {
            self.out.push_str(open);
            self.closers.push(close.to_string());
        } else {
            let delimiter_len = delimiter_len.min(span.len());
            html::escape_text(&mut self.out, &span[..delimiter_len]);
            self.closers.push(html::text(&span[span.len() - delimiter_len..]));
        }
    }

    fn emphasis(&mut self, i: usize, range: Range<usize>) -> usize {
        if let Some(next) = self.group_mention(i, &range) {
            return next;
        }
        let span = &self.src[range];
        let zulip_em = span.starts_with('*') && !span.contains('\n');
        self.open_inline(zulip_em, "<em>", "</em>", 1, span);
        i + 1
    }

    fn strong(&mut self, i: usize, range: Range<usize>) -> usize {
        if let Some(next) = self.user_mention_or_channel_link(i, &range) {
            return next;
        }
        let span = &self.src[range];
        let zulip_strong = span.starts_with("**") && !span.contains('\n');
        self.open_inline(zulip_strong, "<strong>", "</strong>", 2, span);
        i + 1
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
        let mut depth = 0usize;
        for (j, (event, _)) in self.events.iter().enumerate().skip(i) {
            match event {
                Event::Start(_) => depth += 1,
                Event::End(_) => {
                    depth -= 1;
                    if depth == 0 {
                        return j;
                    }
                }
                _ => {}
            }
        }
        self.events.len() - 1
    }

    /// Markdown links and `<url>` autolinks. Links Zulip would refuse (unsafe schemes) stay
    /// as the text the user typed; a link without text shows its URL.
    fn link(&mut self, i: usize, link_type: LinkType, dest: &str, image: bool) -> usize {
        let end = self.matching_end(i);
        let angle = matches!(link_type, LinkType::Autolink | LinkType::Email);
        let dest = if link_type == LinkType::Email { format!("mailto:{dest}") } else { dest.to_string() };
        let Some(href) = links::sanitize_url(&dest).filter(|_| self.link_depth == 0) else {
            let span = self.src[self.events[i].1.clone()].to_string();
            html::escape_text(&mut self.out, &span);
            return end + 1;
        };
        if image {
            self.out.push('!');
        }
        if angle {
            self.out.push_str("&lt;");
        }
        self.out.push_str(&format!("<a href=\"{}\">", html::attr(&href)));
        let closer = if angle { "</a>&gt;" } else { "</a>" };
        if self.inner_text(i, end).trim().is_empty() {
            html::escape_text(&mut self.out, &href);
            self.out.push_str(closer);
            return end + 1;
        }
        self.link_depth += 1;
        self.closers.push(closer.to_string());
        i + 1
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
            code.push_str(text);
            return;
        }
        if self.pre.has_marker(text) {
            self.pre.expand_inline(text, &mut self.out);
            return;
        }
        if self.link_depth > 0 {
            html::escape_text(&mut self.out, text);
            return;
        }
        let mut written = 0;
        for link in links::find_autolinks(text, at_boundary) {
            html::escape_text(&mut self.out, &text[written..link.start]);
            let shown = &text[link.start..link.end];
            match links::sanitize_url(&link.href) {
                Some(href) => {
                    self.out.push_str(&format!("<a href=\"{}\">", html::attr(&href)));
                    html::escape_text(&mut self.out, shown);
                    self.out.push_str("</a>");
                }
                None => html::escape_text(&mut self.out, shown),
            }
            written = link.end;
        }
        html::escape_text(&mut self.out, &text[written..]);
    }

    /// Inline code keeps its spaces exactly as typed (Zulip does not trim them).
    fn inline_code(&mut self, parsed: &str, range: Range<usize>) {
        let span = &self.src[range];
        let ticks = span.chars().take_while(|c| *c == '`').count();
        let inner = if ticks > 0 && span.len() >= 2 * ticks && span.ends_with(&"`".repeat(ticks)) {
            &span[ticks..span.len() - ticks]
        } else {
            parsed
        };
        self.out.push_str("<code>");
        html::escape_text(&mut self.out, inner);
        self.out.push_str("</code>");
    }

    /// Zulip never passes HTML through: it is shown as the text that was typed.
    fn raw_html_as_text(&mut self, raw: &str) {
        if self.code.is_some() {
            self.text(raw, false);
            return;
        }
        html::escape_text(&mut self.out, raw.trim_end_matches('\n'));
    }
}

/// The text between `delimiter`s of a span like `**name**`, if it has no `*` inside.
fn span_body<'s>(src: &'s str, range: &Range<usize>, delimiter: &str) -> Option<&'s str> {
    let span = &src[range.clone()];
    let body = span.strip_prefix(delimiter)?.strip_suffix(delimiter)?;
    (!body.is_empty() && !body.contains('*')).then_some(body)
}
