//! Python-Markdown block rules Zulip users rely on that CommonMark reads differently,
//! applied to the lines after fence processing and before pulldown-cmark parses them.
//!
//! - Block quotes: a block whose quote lines are all empty (`>`) is a paragraph showing
//!   `>`; otherwise everything from the first quote line to the end of the block is quoted
//!   (unmarked lines too), with empty quote lines dropped.
//! - Lists: any bullet character continues the same list (written as `*` here); items
//!   indented 2+ spaces more than the previous item nest (CommonMark needs the full marker
//!   width, so ordered items are re-indented); a list may start right after a paragraph line.

/// Rewrites the lines of one nesting level (recursing into quotes). `marker` is the
/// placeholder character, used to carry a nested ordered list's start number (see
/// [`start_number`]).
pub fn normalize(lines: Vec<String>, marker: char) -> Vec<String> {
    normalize_level(lines, marker, 0)
}

/// Quotes nest by recursion; past this depth lines are left to pulldown-cmark as typed
/// (keeps hostile `>>>>…` input from exhausting the stack).
const MAX_QUOTE_DEPTH: usize = 32;

fn normalize_level(lines: Vec<String>, marker: char, depth: usize) -> Vec<String> {
    if depth > MAX_QUOTE_DEPTH {
        return lines;
    }
    let mut out = Vec::with_capacity(lines.len());
    let mut block: Vec<String> = Vec::new();
    for line in lines {
        if line.is_empty() {
            out.extend(normalize_quote_block(std::mem::take(&mut block), marker, depth));
            out.push(line);
        } else {
            block.push(line);
        }
    }
    out.extend(normalize_quote_block(block, marker, depth));
    normalize_lists(without_setext_headings(out), marker)
}

/// Zulip has no setext headings (`Title` over `===` or `---`): `===` stays text and `---`
/// is a horizontal rule after the paragraph.
fn without_setext_headings(lines: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for line in lines {
        let indent = line.bytes().take_while(|b| *b == b' ').count();
        let underline = line[indent..].trim_end();
        let previous_is_text = out.last().is_some_and(|l| !l.is_empty());
        if indent > 3 || underline.is_empty() || !previous_is_text {
            out.push(line);
        } else if underline.bytes().all(|b| b == b'=') {
            out.push(format!("{}&#61;{}", &line[..indent], &line[indent + 1..]));
        } else if underline.bytes().all(|b| b == b'-') {
            if underline.len() >= 3 {
                out.push(String::new());
                out.push(line);
            } else {
                out.push(format!("{}&#45;{}", &line[..indent], &line[indent + 1..]));
            }
        } else {
            out.push(line);
        }
    }
    out
}

/// `^ {0,3}>`: the offset just after the `>`.
fn quote_marker_end(line: &str) -> Option<usize> {
    let spaces = line.bytes().take_while(|b| *b == b' ').count();
    (spaces <= 3 && line[spaces..].starts_with('>')).then_some(spaces + 1)
}

fn is_empty_quote_line(line: &str) -> bool {
    quote_marker_end(line).is_some_and(|end| line[end..].trim().is_empty())
}

/// One block (lines between blank lines): Zulip's block-quote processor.
fn normalize_quote_block(block: Vec<String>, marker: char, depth: usize) -> Vec<String> {
    let Some(first_quote) = block.iter().position(|l| quote_marker_end(l).is_some()) else {
        return block;
    };
    let mut out: Vec<String> = block[..first_quote].to_vec();
    let rest = &block[first_quote..];
    if rest.iter().all(|l| is_empty_quote_line(l)) {
        // Not a quote: show the `>` as text.
        out.extend(rest.iter().map(|l| l.replacen('>', "&gt;", 1)));
        return out;
    }
    let inner: Vec<String> = rest.iter().map(|l| strip_quote_marker(l)).collect();
    for line in normalize_level(inner, marker, depth + 1) {
        out.push(if line.is_empty() { ">".to_string() } else { format!("> {line}") });
    }
    out
}

fn strip_quote_marker(line: &str) -> String {
    match quote_marker_end(line) {
        Some(end) => {
            let rest = &line[end..];
            rest.strip_prefix(' ').unwrap_or(rest).to_string()
        }
        None => line.to_string(),
    }
}

/// An open list item: its indentation as typed and as rewritten, and its marker width.
struct Item {
    typed_indent: usize,
    indent: usize,
    width: usize,
}

fn normalize_lists(lines: Vec<String>, placeholder: char) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut open: Vec<Item> = Vec::new();
    let mut previous_blank = true;
    let mut previous_item = false;
    for line in lines {
        if line.is_empty() {
            out.push(line);
            previous_blank = true;
            continue;
        }
        let typed_indent = line.bytes().take_while(|b| *b == b' ').count();
        let marker = list_marker(&line[typed_indent..]);
        match marker {
            Some((marker, content)) if !(open.is_empty() && typed_indent >= 4) => {
                if open.is_empty() && !previous_blank && !previous_item {
                    // Zulip's hanging lists: a list may follow a paragraph line directly.
                    out.push(String::new());
                }
                let depth_before = open.len();
                let indent = item_indent(&mut open, typed_indent);
                let width = marker.len() + 1;
                let starts_nested_list = open.len() == depth_before && depth_before > 0;
                let line = match marker.strip_suffix('.') {
                    // CommonMark lets only a list starting at 1 interrupt the parent item's
                    // text, so write 1 and carry the real start for the writer.
                    Some(number) if starts_nested_list && number.trim_start_matches('0') != "1" => {
                        format!("{}1. {placeholder}#{number}{placeholder}{content}", " ".repeat(indent))
                    }
                    _ => format!("{}{marker} {content}", " ".repeat(indent)),
                };
                out.push(line);
                open.push(Item { typed_indent, indent, width });
                previous_item = true;
            }
            _ => {
                if previous_blank && typed_indent == 0 {
                    open.clear();
                }
                out.push(line);
                previous_item = false;
            }
        }
        previous_blank = false;
    }
    out
}

/// Where an item typed at `typed_indent` goes: beside the item it lines up with, or nested
/// in the previous item when indented 2+ more.
fn item_indent(open: &mut Vec<Item>, typed_indent: usize) -> usize {
    while open.last().is_some_and(|item| item.typed_indent > typed_indent) {
        open.pop();
    }
    match open.last() {
        Some(parent) if typed_indent >= parent.typed_indent + 2 => parent.indent + parent.width,
        Some(_) => open.pop().map_or(typed_indent, |sibling| sibling.indent),
        None => typed_indent.min(3),
    }
}

/// A list item line (after its indentation): the marker (`*` for any bullet, `N.` for
/// ordered) and the content. Thematic breaks (`* * *`) are not items.
fn list_marker(text: &str) -> Option<(String, &str)> {
    if is_thematic_break(text) {
        return None;
    }
    let (marker, rest) = match text.as_bytes().first()? {
        b'*' | b'-' | b'+' => ("*".to_string(), &text[1..]),
        _ => {
            let digits = text.bytes().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 || digits > 9 || !text[digits..].starts_with('.') {
                return None;
            }
            (text[..=digits].to_string(), &text[digits + 1..])
        }
    };
    let content = rest.strip_prefix(' ')?.trim_start_matches(' ');
    (!content.is_empty()).then_some((marker, content))
}

fn is_thematic_break(text: &str) -> bool {
    let compact: String = text.chars().filter(|c| *c != ' ').collect();
    let Some(first) = compact.chars().next() else { return false };
    matches!(first, '*' | '-' | '_') && compact.len() >= 3 && compact.chars().all(|c| c == first)
}

/// The start number carried at the beginning of a nested ordered list's first text (see
/// `normalize_lists`), and the text without it.
pub fn start_number(text: &str, marker: char) -> Option<(u64, &str)> {
    let rest = text.strip_prefix(marker)?.strip_prefix('#')?;
    let (number, rest) = rest.split_once(marker)?;
    Some((number.parse().ok()?, rest))
}
