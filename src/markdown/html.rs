//! HTML escaping. Everything the user wrote goes through one of these before it reaches
//! the output; only HTML this module builds itself is written raw.

/// Escapes text content: `&`, `<` and `>` (quotes are harmless outside attributes, and
/// Zulip leaves them as typed).
pub fn escape_text(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
}

/// Escapes an attribute value (always written inside double quotes).
pub fn escape_attr(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
}

/// Escapes code the way Pygments' HTML formatter does (Zulip highlights every code block
/// through it), which also escapes both quote characters.
pub fn escape_code(out: &mut String, code: &str) {
    for c in code.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
}

pub fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_text(&mut out, text);
    out
}

pub fn attr(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    escape_attr(&mut out, value);
    out
}
