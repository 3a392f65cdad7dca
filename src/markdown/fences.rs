//! Zulip's fenced-block preprocessor, run on lines before the Markdown parser sees them.
//!
//! Zulip handles ```` ``` ```` and `~~~` fences itself (not with CommonMark's rules): a fence
//! must start its line, a block may hold nested fences (`quote` and `spoiler` contain
//! Markdown, including more fences), an unclosed fence runs to the end of the message.
//! Code becomes stashed HTML behind a placeholder paragraph; `quote` content becomes `> `
//! lines; `spoiler` becomes stashed wrapper HTML around its Markdown header and content.
//! The writer swaps placeholder paragraphs back for the stashed HTML.
//!
//! Afterwards, lines CommonMark would treat as raw HTML blocks, fences Zulip did not accept,
//! or reference-link definitions are neutralised (their first character written as an
//! entity) so they render as the plain text Zulip shows.

use super::code;
use super::math::{self, TexRenderer};

/// The preprocessed Markdown source plus the HTML hidden behind its placeholders.
pub struct Preprocessed {
    pub text: String,
    stash: Vec<Stashed>,
    /// A private-use character absent from the message, so users cannot forge placeholders.
    marker: char,
}

/// HTML behind a placeholder, and for inline placeholders the source they replaced (shown
/// instead when the placeholder lands in code, where Zulip would not have rendered it).
pub struct Stashed {
    pub html: String,
    source: Option<String>,
}

/// A piece of text: plain, or a placeholder's stashed HTML.
pub enum Segment<'a> {
    Text(&'a str),
    Html(&'a str),
}

impl Preprocessed {
    /// The stashed HTML if `text` (a whole paragraph's text) is exactly one placeholder.
    pub fn stashed(&self, text: &str) -> Option<&str> {
        let inner = text.trim().strip_prefix(self.marker)?.strip_suffix(self.marker)?;
        // Inline placeholders (those with a source) stay inside their paragraph.
        self.lookup(inner).filter(|s| s.source.is_none()).map(|s| s.html.as_str())
    }

    fn lookup(&self, index: &str) -> Option<&Stashed> {
        index.parse::<usize>().ok().and_then(|i| self.stash.get(i))
    }

    /// A nested ordered list's real start number carried at the start of its first text.
    pub fn list_start<'t>(&self, text: &'t str) -> Option<(u64, &'t str)> {
        super::blocks::start_number(text, self.marker)
    }

    /// Splits running text at placeholders (inline ones like `<time:...>`, or a block one
    /// CommonMark merged into other text).
    pub fn segments<'t>(&'t self, text: &'t str) -> Vec<Segment<'t>> {
        let mut segments = Vec::new();
        let mut parts = text.split(self.marker);
        segments.push(Segment::Text(parts.next().unwrap_or("")));
        while let Some(index) = parts.next() {
            match self.lookup(index) {
                Some(stashed) => segments.push(Segment::Html(&stashed.html)),
                None => segments.push(Segment::Text(index)),
            }
            if let Some(rest) = parts.next() {
                segments.push(Segment::Text(rest));
            }
        }
        segments
    }

    /// Text for code contexts: inline placeholders become the source they replaced.
    pub fn restore_source<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        if !text.contains(self.marker) {
            return text.into();
        }
        let mut out = String::new();
        let mut parts = text.split(self.marker);
        out.push_str(parts.next().unwrap_or(""));
        while let Some(index) = parts.next() {
            match self.lookup(index) {
                Some(stashed) => out.push_str(stashed.source.as_deref().unwrap_or("")),
                None => out.push_str(index),
            }
            if let Some(rest) = parts.next() {
                out.push_str(rest);
            }
        }
        out.into()
    }

    fn placeholder(&mut self, html: String) -> String {
        self.stash_placeholder(Stashed { html, source: None })
    }

    fn stash_placeholder(&mut self, stashed: Stashed) -> String {
        self.stash.push(stashed);
        format!("{m}{}{m}", self.stash.len() - 1, m = self.marker)
    }

    /// Inline syntax whose content is not Markdown becomes inline placeholders here, before
    /// the parser sees it: `$$…$$` math (outside code spans, which Zulip reads first), then
    /// `<time:...>` (Zulip reads it before any other inline syntax).
    fn stash_inline(&mut self, line: &str, tex: &TexRenderer) -> String {
        let mut with_math = String::new();
        for (piece, is_code) in code_spans(line) {
            if is_code {
                with_math.push_str(piece);
                continue;
            }
            let mut rest = piece;
            let mut previous = with_math.chars().next_back();
            while let Some(found) = math::find_inline(rest, previous) {
                with_math.push_str(found.before);
                let source = format!("$${}$$", found.body);
                let html = math::inline_html(found.body, tex);
                with_math.push_str(&self.stash_placeholder(Stashed { html, source: Some(source) }));
                previous = Some('$');
                rest = found.after;
            }
            with_math.push_str(rest);
        }
        self.stash_timestamps(&with_math)
    }

    fn stash_timestamps(&mut self, line: &str) -> String {
        let mut out = String::new();
        let mut rest = line;
        while let Some((before, input, after)) = super::timestamps::split(rest) {
            out.push_str(before);
            let source = format!("<time:{input}>");
            out.push_str(&self.stash_placeholder(Stashed { html: super::timestamps::html(input), source: Some(source) }));
            rest = after;
        }
        out.push_str(rest);
        out
    }
}

/// A line cut into code spans (a backtick run up to the next run of the same length, as
/// Zulip's backtick pattern reads them) and the text between them.
fn code_spans(line: &str) -> Vec<(&str, bool)> {
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut at = 0;
    let bytes = line.as_bytes();
    while let Some(offset) = line[at..].find('`') {
        let open = at + offset;
        let run = bytes[open..].iter().take_while(|b| **b == b'`').count();
        let escaped = open > 0 && bytes[open - 1] == b'\\';
        let close = (!escaped).then(|| closing_run(line, open + run, run)).flatten();
        match close {
            Some(end) => {
                pieces.push((&line[text_start..open], false));
                pieces.push((&line[open..end], true));
                text_start = end;
                at = end;
            }
            None => at = open + run,
        }
    }
    pieces.push((&line[text_start..], false));
    pieces
}

/// The end of the first run of exactly `run` backticks at or after `from`.
fn closing_run(line: &str, from: usize, run: usize) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut at = from;
    while let Some(offset) = line[at..].find('`') {
        let start = at + offset;
        let length = bytes[start..].iter().take_while(|b| **b == b'`').count();
        if length == run && start > from {
            return Some(start + length);
        }
        at = start + length;
    }
    None
}

pub fn preprocess(content: &str, tex: &TexRenderer) -> Preprocessed {
    let normalized = normalize_whitespace(content);
    let mut pre = Preprocessed { text: String::new(), stash: Vec::new(), marker: unused_private_char(&normalized) };
    let lines = super::blocks::normalize(run_fences(&mut pre, &normalized, tex), pre.marker);
    let neutralized: Vec<String> = lines.iter().map(|l| neutralize_line(&pre.stash_inline(l, tex))).collect();
    pre.text = neutralized.join("\n");
    pre
}

/// Python-Markdown's whitespace normalisation: newlines, tabs to 4 columns, and lines of
/// only spaces become empty.
fn normalize_whitespace(content: &str) -> String {
    let unified = content.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<String> = unified.split('\n').map(expand_tabs).collect();
    let lines: Vec<&str> = lines.iter().map(|l| if l.trim_matches(' ').is_empty() { "" } else { l.as_str() }).collect();
    lines.join("\n")
}

fn expand_tabs(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_string();
    }
    let mut out = String::new();
    let mut column = 0;
    for c in line.chars() {
        if c == '\t' {
            let spaces = 4 - column % 4;
            out.extend(std::iter::repeat_n(' ', spaces));
            column += spaces;
        } else {
            out.push(c);
            column += 1;
        }
    }
    out
}

/// A private-use character the content does not contain. The candidates (BMP and plane 15
/// private use areas, 71 000 characters) outnumber any message's characters, so one exists.
fn unused_private_char(content: &str) -> char {
    let is_private = |c: &char| matches!(c, '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{FFFFD}');
    let used: std::collections::HashSet<char> = content.chars().filter(is_private).collect();
    ('\u{E000}'..='\u{F8FF}')
        .chain('\u{F0000}'..='\u{FFFFD}')
        .find(|c| !used.contains(c))
        .expect("more private-use characters than a message can hold")
}

/// What kind of fenced block a handler collects.
enum Kind {
    Outer,
    Code { lang: Option<String> },
    Math,
    Quote,
    Spoiler { header: Option<String> },
}

/// One open fenced block: its kind, closing fence and the lines collected so far.
struct Frame {
    kind: Kind,
    fence: String,
    lines: Vec<String>,
}

/// Zulip's handler stack: each line goes to the innermost open block.
fn run_fences(pre: &mut Preprocessed, text: &str, tex: &TexRenderer) -> Vec<String> {
    let mut stack = vec![Frame { kind: Kind::Outer, fence: String::new(), lines: Vec::new() }];
    for line in text.split('\n') {
        let top = stack.last_mut().expect("outer frame");
        match top.kind {
            Kind::Outer => open_or_append(&mut stack, line),
            Kind::Code { .. } | Kind::Math => {
                if line.trim_end() == top.fence {
                    close_block(pre, &mut stack, tex);
                } else {
                    top.lines.push(line.trim_end().to_string());
                }
            }
            Kind::Quote | Kind::Spoiler { .. } => {
                if line.trim_end() == top.fence {
                    close_block(pre, &mut stack, tex);
                } else {
                    open_or_append(&mut stack, line);
                }
            }
        }
    }
    // Unclosed fences run to the end of the message.
    while stack.len() > 1 {
        close_block(pre, &mut stack, tex);
    }
    stack.pop().map(|f| f.lines).unwrap_or_default()
}

/// Fenced blocks nest at most this deep; deeper fence lines are content. Each level
/// re-prefixes its content when quoted, so unbounded nesting costs quadratic time.
const MAX_FENCE_DEPTH: usize = 16;

/// Zulip's `check_for_new_fence`: a fence line opens a block, anything else is content.
fn open_or_append(stack: &mut Vec<Frame>, line: &str) {
    let fence = if stack.len() <= MAX_FENCE_DEPTH { parse_fence(line) } else { None };
    match fence {
        Some(fence) => {
            let lang = fence.lang.map(|l| l.to_lowercase());
            let kind = match lang.as_deref() {
                Some("quote") | Some("quoted") => Kind::Quote,
                Some("math") => Kind::Math,
                Some("spoiler") => Kind::Spoiler { header: fence.header },
                _ => Kind::Code { lang },
            };
            stack.push(Frame { kind, fence: fence.fence, lines: Vec::new() });
        }
        None => stack.last_mut().expect("frame").lines.push(line.to_string()),
    }
}

/// Closes the innermost block and hands its output, between blank lines, to its parent.
fn close_block(pre: &mut Preprocessed, stack: &mut Vec<Frame>, tex: &TexRenderer) {
    let frame = stack.pop().expect("open block");
    if frame.lines.is_empty() {
        return;
    }
    let text = frame.lines.join("\n");
    let formatted = match frame.kind {
        Kind::Code { lang } => pre.placeholder(code::block_html(lang.as_deref(), &text)),
        Kind::Math => pre.placeholder(math::display_html(&text, tex)),
        Kind::Quote => text.split('\n').map(|l| format!("> {l}")).collect::<Vec<_>>().join("\n"),
        Kind::Spoiler { header } => spoiler(pre, header, &text),
        Kind::Outer => text,
    };
    let parent = &mut stack.last_mut().expect("parent frame").lines;
    parent.push(String::new());
    parent.extend(formatted.split('\n').map(str::to_string));
    parent.push(String::new());
}

/// Zulip's spoiler block: wrapper HTML around a Markdown header and Markdown content.
fn spoiler(pre: &mut Preprocessed, header: Option<String>, content: &str) -> String {
    let mut parts = vec![pre.placeholder("<div class=\"spoiler-block\"><div class=\"spoiler-header\">".to_string())];
    if let Some(header) = header {
        parts.push(header);
    }
    parts.push(pre.placeholder("</div><div class=\"spoiler-content\" aria-hidden=\"true\">".to_string()));
    parts.push(content.to_string());
    parts.push(pre.placeholder("</div></div>".to_string()));
    parts.join("\n\n")
}

struct Fence {
    fence: String,
    lang: Option<String>,
    header: Option<String>,
}

/// Zulip's `FENCE_RE`: a run of 3+ backticks or tildes at the very start of the line, then
/// optionally `{`/`.`, a language (`[a-zA-Z0-9_+,-./#]+`) and a header (no `~` or backtick).
fn parse_fence(line: &str) -> Option<Fence> {
    let first = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let fence_len = line.chars().take_while(|c| *c == first).count();
    if fence_len < 3 {
        return None;
    }
    let fence = line[..fence_len].to_string();
    let rest = line[fence_len..].trim_start_matches(' ');
    if rest.is_empty() {
        return Some(Fence { fence, lang: None, header: None });
    }
    let rest = rest.strip_prefix('{').unwrap_or(rest);
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    let lang_len = rest.chars().take_while(|c| is_lang_char(*c)).count();
    if lang_len == 0 {
        return None;
    }
    let lang = rest[..lang_len].to_string();
    let header = rest[lang_len..].trim_start_matches(' ');
    if header.contains(['~', '`']) {
        return None;
    }
    let header = (!header.is_empty()).then(|| header.to_string());
    Some(Fence { fence, lang: Some(lang), header })
}

fn is_lang_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | ',' | '-' | '.' | '/' | '#')
}

/// Writes the first character of a line as an entity when CommonMark would otherwise read
/// the line as something Zulip does not support here: a raw HTML block (Zulip shows HTML
/// as text), a code fence Zulip rejected, or a reference-link definition (disabled in Zulip).
fn neutralize_line(line: &str) -> String {
    let start = block_content_start(line);
    let rest = &line[start..];
    let entity = if rest.starts_with('<') {
        "&lt;"
    } else if rest.starts_with("```") && !rest.trim_start_matches('`').contains('`') {
        // A backtick run followed by more backticks is a code span, not a fence.
        "&#96;"
    } else if rest.starts_with("~~~") {
        "&#126;"
    } else if is_reference_definition(rest) {
        "&#91;"
    } else {
        return line.to_string();
    };
    format!("{}{}{}", &line[..start], entity, &rest[1..])
}

/// Byte offset where a line's block content starts after block-quote and list markers,
/// or the line's length when the content is indented code (4+ spaces), which stays as is.
fn block_content_start(line: &str) -> usize {
    let bytes = line.as_bytes();
    let mut i = 0;
    loop {
        let spaces = bytes[i..].iter().take_while(|b| **b == b' ').count();
        if spaces >= 4 {
            return line.len();
        }
        let at = i + spaces;
        if bytes.get(at) == Some(&b'>') {
            i = at + 1;
            if bytes.get(i) == Some(&b' ') {
                i += 1;
            }
            continue;
        }
        if let Some(after_marker) = list_marker_end(bytes, at) {
            i = after_marker;
            continue;
        }
        return at;
    }
}

/// End of a list marker (`-`, `*`, `+`, `1.`, `1)`) and its following space, if one is at `at`.
fn list_marker_end(bytes: &[u8], at: usize) -> Option<usize> {
    let digits = bytes[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    let marker_end = match bytes.get(at) {
        Some(b'-' | b'*' | b'+') => at + 1,
        Some(_) if (1..=9).contains(&digits) && matches!(bytes.get(at + digits), Some(b'.' | b')')) => at + digits + 1,
        _ => return None,
    };
    (bytes.get(marker_end) == Some(&b' ')).then_some(marker_end + 1)
}

fn is_reference_definition(rest: &str) -> bool {
    let Some(label_and_more) = rest.strip_prefix('[') else { return false };
    match label_and_more.find(']') {
        Some(end) => end > 0 && label_and_more[end + 1..].starts_with(':'),
        None => false,
    }
}
