//! Code blocks in Zulip's shape:
//! `<div class="codehilite" data-code-language="Python"><pre><span></span><code>...</code></pre></div>`.
//!
//! Zulip highlights with Pygments; `highlight.rs` produces Pygments' token spans for the
//! languages it has a grammar for, and other code stays unhighlighted in the same wrapper.
//! The language is named the way Pygments does so `data-code-language` (used by clients
//! for "view in playground") matches.

use std::sync::OnceLock;

use regex::Regex;

use super::{highlight, html};

/// The HTML for one code block. `lang` is the fence's language as typed (Zulip lowercases it).
/// Without one, a first line like `#!/usr/bin/python` or `:::python` picks the lexer
/// (and stays in the code), as Zulip's CodeHilite header rule does.
pub fn block_html(lang: Option<&str>, code: &str) -> String {
    let code = normalize(code);
    let lang = lang.filter(|l| !l.is_empty());
    let mut out = String::from("<div class=\"codehilite\"");
    if let Some(lang) = lang {
        out.push_str(" data-code-language=\"");
        html::escape_attr(&mut out, language_name(lang).unwrap_or(lang));
        out.push('"');
    }
    out.push_str("><pre><span></span><code>");
    let lexer = match lang {
        Some(lang) => language_name(lang),
        None => header_language(&code).as_deref().and_then(language_name),
    };
    match lexer.filter(|name| highlight::supports(name)).and_then(|name| highlight::highlight(name, &code)) {
        Some(highlighted) => out.push_str(&highlighted),
        None => html::escape_code(&mut out, &code),
    }
    out.push_str("\n</code></pre></div>");
    out
}

/// Python-Markdown's CodeHilite header: a first line of 2+ colons or `#!`, an optional
/// path, then the language.
fn header_language(code: &str) -> Option<String> {
    static HEADER: OnceLock<Regex> = OnceLock::new();
    let header = HEADER.get_or_init(|| Regex::new(r"^(?:::+|#!)(?:(?:/\w+)*[/ ])?([\w#.+-]*)").expect("valid header pattern"));
    let first_line = code.split('\n').next().unwrap_or("");
    header.captures(first_line).map(|c| c[1].to_lowercase()).filter(|l| !l.is_empty())
}

/// Zulip strips trailing whitespace from every line (it causes horizontal scrolling) and
/// Pygments drops leading and trailing blank lines.
fn normalize(code: &str) -> String {
    let lines: Vec<&str> = code.split('\n').map(str::trim_end).collect();
    lines.join("\n").trim_matches('\n').to_string()
}

/// Pygments' display name for a language alias, for the languages people commonly use.
/// Unknown languages keep the name as typed, exactly as Zulip does.
fn language_name(lang: &str) -> Option<&'static str> {
    const NAMES: &[(&[&str], &str)] = &[
        (&["python", "py", "sage", "python3", "py3", "bazel", "starlark"], "Python"),
        (&["python2", "py2"], "Python 2.x"),
        (&["pycon", "python-console"], "Python console session"),
        (&["javascript", "js", "mjs", "cjs"], "JavaScript"),
        (&["typescript", "ts"], "TypeScript"),
        (&["jsx", "react"], "JSX"),
        (&["java"], "Java"),
        (&["c"], "C"),
        (&["cpp", "c++"], "C++"),
        (&["csharp", "c#", "cs"], "C#"),
        (&["rust", "rs"], "Rust"),
        (&["go", "golang"], "Go"),
        (&["ruby", "rb", "duby"], "Ruby"),
        (&["php", "php3", "php4", "php5"], "PHP"),
        (&["bash", "sh", "ksh", "zsh", "shell", "openrc"], "Bash"),
        (&["console", "shell-session"], "Bash Session"),
        (&["powershell", "pwsh", "posh", "ps1", "psm1"], "PowerShell"),
        (&["json", "json-object"], "JSON"),
        (&["yaml"], "YAML"),
        (&["toml"], "TOML"),
        (&["ini", "cfg", "dosini"], "INI"),
        (&["html"], "HTML"),
        (&["xml"], "XML"),
        (&["css"], "CSS"),
        (&["scss"], "SCSS"),
        (&["sql"], "SQL"),
        (&["postgresql", "postgres"], "PostgreSQL SQL dialect"),
        (&["mysql"], "MySQL"),
        (&["tex", "latex"], "TeX"),
        (&["markdown", "md"], "Markdown"),
        (&["diff", "udiff"], "Diff"),
        (&["text"], "Text only"),
        (&["docker", "dockerfile"], "Docker"),
        (&["make", "makefile", "mf", "bsdmake"], "Makefile"),
        (&["kotlin"], "Kotlin"),
        (&["swift"], "Swift"),
        (&["scala"], "Scala"),
        (&["haskell", "hs"], "Haskell"),
        (&["perl", "pl"], "Perl"),
        (&["lua"], "Lua"),
        (&["elixir", "ex", "exs"], "Elixir"),
        (&["erlang"], "Erlang"),
        (&["clojure", "clj"], "Clojure"),
        (&["ocaml"], "OCaml"),
        (&["objective-c", "objectivec", "obj-c", "objc"], "Objective-C"),
        (&["dart"], "Dart"),
        (&["graphql"], "GraphQL"),
        (&["julia", "jl"], "Julia"),
        (&["matlab"], "Matlab"),
        (&["nginx"], "Nginx configuration file"),
        (&["vim"], "VimL"),
    ];
    NAMES.iter().find(|(aliases, _)| aliases.contains(&lang)).map(|(_, name)| *name)
}
