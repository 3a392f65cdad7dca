//! TeX math, typeset by KaTeX as Zulip does: `$$…$$` inline and ```` ```math ```` blocks
//! (display mode, one formula per paragraph). A formula KaTeX rejects shows its source in a
//! `tex-error` span. The typesetter is injected ([`TexRenderer`]): the worker calls the
//! bundled `katex` package (`katex.mjs`), tests call the same package through `node`.

use super::html;

/// Typesets TeX: the formula and whether it is display math in, KaTeX's HTML out, or `None`
/// when KaTeX rejects the formula (or no typesetter is available).
#[derive(Clone, Copy)]
pub struct TexRenderer(Option<fn(&str, bool) -> Option<String>>);

impl TexRenderer {
    pub const fn new(render: fn(&str, bool) -> Option<String>) -> TexRenderer {
        TexRenderer(Some(render))
    }

    /// No typesetter: every formula shows as a `tex-error`, as in Zulip without KaTeX.
    pub const fn none() -> TexRenderer {
        TexRenderer(None)
    }

    fn render(&self, tex: &str, display: bool) -> Option<String> {
        self.0.and_then(|render| render(tex, display))
    }
}

/// The platform's typesetter: the bundled KaTeX in the worker, none natively.
impl Default for TexRenderer {
    fn default() -> TexRenderer {
        #[cfg(target_arch = "wasm32")]
        {
            TexRenderer::new(katex::render)
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            TexRenderer::none()
        }
    }
}

impl std::fmt::Debug for TexRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "TexRenderer(KaTeX)" } else { "TexRenderer(none)" })
    }
}

#[cfg(target_arch = "wasm32")]
mod katex {
    use wasm_bindgen::prelude::wasm_bindgen;

    #[wasm_bindgen(module = "/src/markdown/katex.mjs")]
    extern "C" {
        #[wasm_bindgen(js_name = renderTex)]
        fn render_tex(tex: &str, display: bool) -> Option<String>;
    }

    pub fn render(tex: &str, display: bool) -> Option<String> {
        render_tex(tex, display)
    }
}

/// An inline formula found in a line: the text before it, its TeX body, the text after.
pub struct InlineMath<'a> {
    pub before: &'a str,
    pub body: &'a str,
    pub after: &'a str,
}

/// The first `$$…$$` formula of `text`, by Zulip's rule
/// `\B(?<!\$)\$\$(?P<body>[^\n_$](\\\$|[^$\n])*)\$\$(?!\$)\B`: not touching a word character
/// or another `$` on either side, a body on one line that does not start with `_`, and `$`
/// inside the body only as `\$`. `previous` is the character before `text` (if any).
pub fn find_inline(text: &str, previous: Option<char>) -> Option<InlineMath<'_>> {
    let mut search = 0;
    while let Some(offset) = text[search..].find("$$") {
        let start = search + offset;
        let before = text[..start].chars().next_back().or(if start == 0 { previous } else { None });
        if !before.is_some_and(|c| c == '$' || is_word(c)) {
            if let Some(end) = body_end(text, start + 2) {
                return Some(InlineMath { before: &text[..start], body: &text[start + 2..end], after: &text[end + 2..] });
            }
        }
        search = start + 1;
    }
    None
}

/// Where the body starting at `from` ends (the offset of its closing `$$`), trying the ends
/// in the order a backtracking regex engine would: the longest run first, then shorter ones,
/// each `\$` also read as a lone `\` followed by the closing `$$`.
fn body_end(text: &str, from: usize) -> Option<usize> {
    let first = text[from..].chars().next()?;
    if matches!(first, '\n' | '_' | '$') {
        return None;
    }
    let bytes = text.as_bytes();
    // Positions the body's loop reaches, and whether `\$` was taken as one step there.
    let mut path: Vec<(usize, bool)> = Vec::new();
    let mut at = from + first.len_utf8();
    loop {
        if text[at..].starts_with("\\$") {
            path.push((at, true));
            at += 2;
        } else if let Some(c) = text[at..].chars().next().filter(|c| !matches!(c, '$' | '\n')) {
            path.push((at, false));
            at += c.len_utf8();
        } else {
            break;
        }
    }
    let closes = |end: usize| {
        text[end..].starts_with("$$") && bytes.get(end + 2) != Some(&b'$') && !text[end + 2..].chars().next().is_some_and(is_word)
    };
    if closes(at) {
        return Some(at);
    }
    for &(position, escaped_dollar) in path.iter().rev() {
        if escaped_dollar && closes(position + 1) {
            return Some(position + 1);
        }
        if closes(position) {
            return Some(position);
        }
    }
    None
}

/// Python's `\w`: Unicode letters, digits and the underscore.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// An inline formula's HTML: KaTeX's, or the source in a `tex-error` span.
pub fn inline_html(body: &str, tex: &TexRenderer) -> String {
    match tex.render(body, false) {
        Some(rendered) => rendered,
        None => format!("<span class=\"tex-error\">{}</span>", html::text(&format!("$${body}$$"))),
    }
}

/// A ```` ```math ```` block's HTML: each paragraph typeset in display mode (or its escaped
/// source in a `tex-error` span), all in one paragraph as Zulip shows it.
pub fn display_html(text: &str, tex: &TexRenderer) -> String {
    let formulas: Vec<String> = text
        .split("\n\n")
        .map(|formula| match tex.render(formula, true) {
            Some(rendered) => rendered,
            None => format!("<span class=\"tex-error\">{}</span>", escape_all(formula)),
        })
        .collect();
    format!("<p>{}</p>", formulas.join("\n\n"))
}

/// Django's `escape` (Zulip escapes display-math errors with it): quotes too.
fn escape_all(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> Option<&str> {
        find_inline(text, None).map(|m| m.body)
    }

    #[test]
    fn inline_math_needs_non_word_neighbours_and_single_line_bodies() {
        assert_eq!(body("$$x$$"), Some("x"));
        assert_eq!(body("($$x$$)"), Some("x"));
        assert_eq!(body("a$$x$$"), None);
        assert_eq!(body("$$x$$a"), None);
        assert_eq!(body("$$x=3\ny=4$$"), None);
        assert_eq!(body("$$_$$ is a smiley"), None);
        assert_eq!(body("some $$$ or $$$$!"), None);
        assert_eq!(body("$foo is$$"), None);
    }

    #[test]
    fn an_escaped_dollar_belongs_to_the_body_when_the_formula_still_closes() {
        assert_eq!(body(r"($$x \approx 500\$$$)"), Some(r"x \approx 500\$"));
        assert_eq!(body(r"$$a\$$"), Some(r"a\"));
    }

    #[test]
    fn the_character_before_the_text_counts_as_a_neighbour() {
        assert!(find_inline("$$x$$", Some('a')).is_none());
        assert!(find_inline("$$x$$", Some('`')).is_some());
    }

    #[test]
    fn errors_show_the_source_escaped() {
        assert_eq!(inline_html("<b>", &TexRenderer::none()), "<span class=\"tex-error\">$$&lt;b&gt;$$</span>");
        assert_eq!(
            display_html("a'\n\nb", &TexRenderer::none()),
            "<p><span class=\"tex-error\">a&#x27;</span>\n\n<span class=\"tex-error\">b</span></p>"
        );
    }
}
