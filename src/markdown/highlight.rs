//! Code highlighting in Pygments' HTML shape, which Zulip's clients style: tokens become
//! `<span class="k">`-style spans with Pygments' short class names.
//!
//! The lexing is syntect's (Sublime Text grammars, pure Rust with the `fancy-regex`
//! engine); each token's scope stack maps to the Pygments token class that names the same
//! thing (`storage.type.function` → `k`, `entity.name.function` → `nf`, …). Like Pygments'
//! HTML formatter, adjacent tokens of one class share a span, spans never cross a line
//! break, and text outside any class (whitespace, plain words) is written bare.
//!
//! Where the two lexers cut or classify differently, the output differs from Zulip's;
//! unknown languages are not highlighted at all.

use std::sync::OnceLock;

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

use super::html;

/// The grammars build.rs packed (those of [`grammar`] and what they embed), loaded on the
/// first highlighted block, then kept for the life of the isolate.
fn syntaxes() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(|| syntect::dumps::from_binary(include_bytes!(concat!(env!("OUT_DIR"), "/syntaxes.packdump"))))
}

/// Classification rules that differ by language, as Pygments' lexers differ.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    Python,
    Tex,
    JavaScript,
    Other,
}

/// Pygments lexer names, the syntect grammar that lexes each, and its classification rules.
const GRAMMARS: &[(&str, &str, Flavor)] = &[
    ("Python", "Python", Flavor::Python),
    ("Python 2.x", "Python", Flavor::Python),
    // Sublime's plain TeX grammar, like Pygments' TeX lexer; its LaTeX grammar embeds a
    // dozen others (a quarter of the packed grammars) and matched Pygments no better.
    ("TeX", "TeX", Flavor::Tex),
    ("JavaScript", "JavaScript", Flavor::JavaScript),
    ("Java", "Java", Flavor::Other),
    ("C", "C", Flavor::Other),
    ("C++", "C++", Flavor::Other),
    ("C#", "C#", Flavor::Other),
    ("Rust", "Rust", Flavor::Other),
    ("Go", "Go", Flavor::Other),
    ("Ruby", "Ruby", Flavor::Other),
    ("Bash", "Bourne Again Shell (bash)", Flavor::Other),
    ("JSON", "JSON", Flavor::Other),
    ("YAML", "YAML", Flavor::Other),
    ("HTML", "HTML", Flavor::Other),
    ("XML", "XML", Flavor::Other),
    ("CSS", "CSS", Flavor::Other),
    ("SQL", "SQL", Flavor::Other),
    ("Diff", "Diff", Flavor::Other),
    ("Makefile", "Makefile", Flavor::Other),
    ("Haskell", "Haskell", Flavor::Other),
    ("Perl", "Perl", Flavor::Other),
    ("Lua", "Lua", Flavor::Other),
    ("Scala", "Scala", Flavor::Other),
    ("Clojure", "Clojure", Flavor::Other),
    ("Erlang", "Erlang", Flavor::Other),
    ("OCaml", "OCaml", Flavor::Other),
    ("Objective-C", "Objective-C", Flavor::Other),
    ("Matlab", "MATLAB", Flavor::Other),
];

/// The grammar for a Pygments lexer name (as `code::language_name` gives it).
fn grammar(pygments_name: &str) -> Option<(&'static str, Flavor)> {
    GRAMMARS.iter().find(|(name, _, _)| *name == pygments_name).map(|(_, grammar, flavor)| (*grammar, *flavor))
}

/// Whether [`highlight`] can highlight code of this Pygments lexer.
pub fn supports(pygments_name: &str) -> bool {
    grammar(pygments_name).is_some()
}

/// The highlighted HTML of `code` (already normalised, without its final newline), or
/// `None` when the language has no grammar or the grammar fails on the input.
pub fn highlight(pygments_name: &str, code: &str) -> Option<String> {
    highlight_with(syntaxes(), pygments_name, code)
}

fn highlight_with(set: &SyntaxSet, pygments_name: &str, code: &str) -> Option<String> {
    let (grammar_name, flavor) = grammar(pygments_name)?;
    let syntax: &SyntaxReference = set.find_syntax_by_name(grammar_name)?;
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let mut out = Spans::default();
    for (index, line) in code.split('\n').enumerate() {
        let fed = format!("{line}\n");
        let ops = state.parse_line(&fed, set).ok()?;
        let mut at = 0;
        for (next, op) in ops {
            let next = next.min(line.len());
            if next > at {
                out.push(class_for(stack.as_slice(), &line[at..next], index == 0 && line.starts_with("#!"), flavor), &line[at..next]);
                at = next;
            }
            stack.apply(&op).ok()?;
        }
        if at < line.len() {
            out.push(class_for(stack.as_slice(), &line[at..], index == 0 && line.starts_with("#!"), flavor), &line[at..]);
        }
        out.end_line();
    }
    Some(out.finish())
}

/// Pygments' HTML formatter: one span per run of equally classed text within a line.
#[derive(Default)]
struct Spans {
    html: String,
    class: &'static str,
    text: String,
}

impl Spans {
    fn push(&mut self, class: &'static str, text: &str) {
        if class != self.class {
            self.flush();
            self.class = class;
        }
        self.text.push_str(text);
    }

    fn flush(&mut self) {
        if self.text.is_empty() {
            return;
        }
        if self.class.is_empty() {
            html::escape_code(&mut self.html, &self.text);
        } else {
            self.html.push_str("<span class=\"");
            self.html.push_str(self.class);
            self.html.push_str("\">");
            html::escape_code(&mut self.html, &self.text);
            self.html.push_str("</span>");
        }
        self.text.clear();
    }

    fn end_line(&mut self) {
        self.flush();
        self.html.push('\n');
    }

    fn finish(mut self) -> String {
        self.flush();
        self.html.truncate(self.html.trim_end_matches('\n').len());
        self.html
    }
}

/// The Pygments class of a token with this scope stack; `""` for plain text. Categories
/// are tried in order over the whole stack, so a string's quote is string, not punctuation.
fn class_for(stack: &[Scope], text: &str, shebang_line: bool, flavor: Flavor) -> &'static str {
    let names: Vec<String> = stack.iter().map(|s| s.build_string()).collect();
    let has = |prefix: &str| names.iter().rev().find(|n| n.starts_with(prefix)).map(String::as_str);
    if flavor == Flavor::JavaScript {
        if let Some(class) = javascript_class(&has, text) {
            return class;
        }
    }
    literal_class(&has, shebang_line, flavor)
        .or_else(|| keyword_class(&has, text, flavor))
        .or_else(|| name_class(&has, text, flavor))
        .unwrap_or("")
}

/// Comments, strings, numbers, constants and annotations, in Pygments' classes.
fn literal_class<'n>(has: &impl Fn(&str) -> Option<&'n str>, shebang_line: bool, flavor: Flavor) -> Option<&'static str> {
    if has("comment").is_some() {
        return Some(match has("comment") {
            _ if shebang_line => "ch",
            Some(n) if n.starts_with("comment.block.documentation") && flavor == Flavor::Python => "sd",
            _ if flavor == Flavor::Tex => "c",
            _ if flavor == Flavor::Python => "c1",
            Some(n) if n.starts_with("comment.block") => "cm",
            Some(n) if n.starts_with("comment.line") => "c1",
            _ => "c",
        });
    }
    if has("string").is_some() || has("meta.string").is_some() {
        return Some(if has("constant.character.escape").is_some() {
            "se"
        } else if has("string.regexp").is_some() {
            "sr"
        } else if has("string.quoted.double").is_some() {
            "s2"
        } else if has("string.quoted.single").is_some() {
            "s1"
        } else {
            "s"
        });
    }
    if let Some(number) = has("constant.numeric") {
        return Some(if number.contains("float") || number.contains("imaginary") {
            "mf"
        } else if number.contains("hex") {
            "mh"
        } else if number.contains("octal") {
            "mo"
        } else if number.contains("binary") {
            "mb"
        } else if number.contains("integer") {
            "mi"
        } else {
            "m"
        });
    }
    if has("constant.language").is_some() {
        return Some("kc");
    }
    if has("storage.type.string").is_some() {
        return Some("sa");
    }
    if has("constant.character.escape").is_some() {
        return Some("se");
    }
    if has("meta.annotation").is_some() || has("entity.name.function.decorator").is_some() {
        return Some("nd");
    }
    None
}

/// Keywords, operators and storage types.
fn keyword_class<'n>(has: &impl Fn(&str) -> Option<&'n str>, text: &str, flavor: Flavor) -> Option<&'static str> {
    if flavor == Flavor::Tex && (has("support.function").is_some() || has("keyword").is_some() || has("storage").is_some()) {
        return Some("k");
    }
    if has("keyword.operator.logical").is_some() || has("keyword.operator.word").is_some() {
        return Some("ow");
    }
    if flavor == Flavor::Python && has("keyword").is_some() {
        // Pygments' Python lexer: word operators are `ow`, `as` is a plain keyword.
        match text {
            "in" | "is" | "not" | "and" | "or" => return Some("ow"),
            "as" => return Some("k"),
            _ => {}
        }
    }
    if has("keyword.operator").is_some() {
        return Some("o");
    }
    if has("keyword.control.import").is_some() {
        return Some("kn");
    }
    if has("keyword").is_some() || has("storage.modifier").is_some() {
        return Some("k");
    }
    if let Some(storage) = has("storage.type") {
        return Some(
            if flavor == Flavor::Python || storage.starts_with("storage.type.function") || storage.starts_with("storage.type.class") {
                "k"
            } else {
                "kt"
            },
        );
    }
    None
}

/// Names (functions, classes, tags, attributes, namespaces, variables) and punctuation.
fn name_class<'n>(has: &impl Fn(&str) -> Option<&'n str>, text: &str, flavor: Flavor) -> Option<&'static str> {
    if has("entity.name.function").is_some() {
        return Some("nf");
    }
    if has("entity.name.class").is_some() || has("entity.name.type").is_some() {
        return Some("nc");
    }
    if has("entity.name.tag").is_some() {
        return Some("nt");
    }
    if has("entity.other.attribute-name").is_some() {
        return Some("na");
    }
    if has("entity.name.namespace").is_some() {
        return Some("nn");
    }
    if has("entity.other.inherited-class").is_some() {
        return Some("n");
    }
    if has("variable.language").is_some() || (flavor == Flavor::Python && matches!(text, "self" | "cls")) {
        return Some("bp");
    }
    if has("support.function").is_some() || has("support.type").is_some() || has("support.class").is_some() {
        return Some("nb");
    }
    if has("punctuation").is_some() {
        return Some(match flavor {
            Flavor::Tex if has("punctuation.definition.group.brace").is_some() => "nb",
            Flavor::Tex => "",
            _ => "p",
        });
    }
    if text.trim().is_empty() {
        return Some("");
    }
    if has("variable").is_some()
        || has("entity.name").is_some()
        || has("meta.generic-name").is_some()
        || has("meta.qualified-name").is_some()
    {
        return Some("n");
    }
    None
}

/// Pygments' JavaScript lexer names every identifier `nx` and every declaration `kd`,
/// reads decimal numbers as floats and template strings as backtick strings.
fn javascript_class<'n>(has: &impl Fn(&str) -> Option<&'n str>, text: &str) -> Option<&'static str> {
    if has("comment").is_some() || has("string.quoted").is_some() {
        return None;
    }
    if has("punctuation.definition.template-expression").is_some() {
        return Some("si");
    }
    if has("string.template").is_some() {
        return Some("sb");
    }
    if has("constant.numeric").is_some() {
        let lower = text.to_ascii_lowercase();
        return Some(match lower.get(..2) {
            Some("0x") => "mh",
            Some("0o") => "mo",
            Some("0b") => "mb",
            _ => "mf",
        });
    }
    if has("storage.type").is_some() {
        return Some("kd");
    }
    if has("variable.language").is_some() || has("storage.modifier").is_some() {
        return Some("k");
    }
    if has("keyword.operator.word").is_some() {
        return Some("ow");
    }
    let named = [
        "entity.name",
        "entity.other.inherited-class",
        "variable",
        "support.type.object",
        "support.function",
        "support.class",
        "meta.property",
    ];
    if has("keyword").is_none() && has("punctuation").is_none() && !text.trim().is_empty() && named.iter().any(|n| has(n).is_some()) {
        return Some("nx");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packed_grammars_are_exactly_those_the_table_names() {
        let mut named: Vec<&str> = GRAMMARS.iter().map(|(_, grammar, _)| *grammar).collect();
        named.sort_unstable();
        named.dedup();
        let mut packed = super::super::grammars::SYNTECT_GRAMMARS.to_vec();
        packed.sort_unstable();
        assert_eq!(named, packed);
    }

    #[test]
    fn the_packed_grammars_highlight_as_syntects_whole_set_does() {
        let whole = SyntaxSet::load_defaults_newlines();
        let sample = "#!/bin/sh\n<div class=\"a\">\n<script>let x = f(1);</script>\n<style>p { color: red; }</style>\n\
                      select x from t; -- q\n+added\n-removed\n@@ -1 +1 @@\nif (x) { return \"a\"; } // note\n\
                      def f(s): return s % 2  # c\n\\begin{x} $y$ \\end{x}\n#include <stdio.h>\n@interface A : B\n";
        for (pygments_name, _, _) in GRAMMARS {
            let packed = highlight(pygments_name, sample);
            assert!(packed.is_some(), "{pygments_name} is highlighted");
            assert_eq!(packed, highlight_with(&whole, pygments_name, sample), "{pygments_name}");
        }
    }

    #[test]
    fn python_tokens_get_pygments_classes() {
        assert_eq!(
            highlight("Python", "def speak(self):\n    return \"hi\" # bye").unwrap(),
            "<span class=\"k\">def</span> <span class=\"nf\">speak</span><span class=\"p\">(</span><span class=\"bp\">self</span><span class=\"p\">):</span>\n    <span class=\"k\">return</span> <span class=\"s2\">&quot;hi&quot;</span> <span class=\"c1\"># bye</span>"
        );
    }

    #[test]
    fn javascript_names_and_declarations_follow_pygments() {
        assert_eq!(
            highlight("JavaScript", "const x = 4; console.log(`t ${x}`);").unwrap(),
            "<span class=\"kd\">const</span> <span class=\"nx\">x</span> <span class=\"o\">=</span> <span class=\"mf\">4</span><span class=\"p\">;</span> <span class=\"nx\">console</span><span class=\"p\">.</span><span class=\"nx\">log</span><span class=\"p\">(</span><span class=\"sb\">`t </span><span class=\"si\">${</span><span class=\"nx\">x</span><span class=\"si\">}</span><span class=\"sb\">`</span><span class=\"p\">);</span>"
        );
    }

    #[test]
    fn spans_do_not_cross_lines() {
        let html = highlight("Python", "x = \"\"\"a\nb\"\"\"").unwrap();
        assert!(html.contains("</span>\n<span"), "{html}");
    }

    #[test]
    fn languages_without_a_grammar_are_not_highlighted() {
        assert!(highlight("Text only", "x").is_none());
        assert!(!supports("Brainfuck"));
    }
}
