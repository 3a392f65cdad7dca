//! The layout rules a reader relies on, checked over the source: every SQL statement of
//! the worker lives in `src/db/` (the migrations hold the schema).

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every Rust file of `src/`, as (path from the crate's root, text).
fn source_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.iter().map(|f| (f.strip_prefix(root).unwrap().display().to_string(), std::fs::read_to_string(f).unwrap())).collect()
}

/// Whether a line holds SQL: a statement keyword followed by what a statement has next.
fn looks_like_sql(line: &str) -> bool {
    ["SELECT ", "INSERT INTO ", "INSERT OR ", "DELETE FROM ", "CREATE TABLE", "CREATE INDEX"].iter().any(|k| line.contains(k))
        || (line.contains("UPDATE ") && line.contains(" SET "))
}

#[test]
fn sql_statements_live_in_src_db() {
    let offending: Vec<String> = source_files()
        .into_iter()
        .filter(|(name, _)| !name.starts_with("src/db/"))
        .flat_map(|(name, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, line)| looks_like_sql(line))
                .map(|(n, line)| format!("{name}:{}: {}", n + 1, line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(offending.is_empty(), "SQL outside src/db:\n{}", offending.join("\n"));
}

#[test]
fn the_check_sees_statements() {
    assert!(looks_like_sql(r#"statement!("SELECT id FROM users WHERE id = ?1", id)"#));
    assert!(looks_like_sql(r#""UPDATE realms SET name = ?1""#));
    assert!(!looks_like_sql(r#""SELECT": {"id": 3, "name": "List of options"},"#));
}

/// The longest a function may be, in lines from its signature to its closing brace.
const MAX_FUNCTION_LINES: usize = 80;
/// The functions allowed past it: the route table, one line per route.
const LONG_FUNCTIONS_ALLOWED: &[(&str, &str)] = &[("src/routes.rs", "route")];

/// The functions of `text` (rustfmt's layout: the closing brace at the indentation of the
/// `fn` line) as (name, first line, lines).
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let mut rest = trimmed;
        for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe "] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        let Some(after_fn) = rest.strip_prefix("fn ") else { continue };
        let name: String = after_fn.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        // A declaration without a body (a trait's) ends with `;` before any `{`.
        let Some(open) = lines[i..].iter().position(|l| l.trim_end().ends_with('{') || l.trim_end().ends_with(';')) else { continue };
        if lines[i + open].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + open..].iter().position(|l| *l == close) {
            found.push((name, i + 1, open + end + 1));
        }
    }
    found
}

#[test]
fn functions_stay_short() {
    let mut long = Vec::new();
    for (name, text) in source_files() {
        for (function, line, length) in functions(&text) {
            let allowed = LONG_FUNCTIONS_ALLOWED.contains(&(name.as_str(), function.as_str()));
            if length > MAX_FUNCTION_LINES && !allowed {
                long.push(format!("{name}:{line}: {function} ({length} lines)"));
            }
        }
    }
    assert!(long.is_empty(), "functions over {MAX_FUNCTION_LINES} lines:\n{}", long.join("\n"));
}

#[test]
fn the_length_check_sees_functions() {
    let text = "pub async fn a(\n    x: i64,\n) -> i64 {\n    x\n}\n\ntrait T {\n    fn b(&self);\n    fn c(&self) {\n    }\n}\n";
    assert_eq!(functions(text), vec![("a".to_string(), 1, 5), ("c".to_string(), 9, 2)]);
}

/// How many parameters of each function signature in `text` take a bare integer id
/// (`…id: i64` or `…id: Option<i64>`), as (name, count).
fn bare_id_parameters(text: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("fn ") {
        rest = &rest[at + 3..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let Some(open) = rest.find('(').filter(|open| *open == name.len() || rest[name.len()..*open].starts_with('<')) else {
            continue;
        };
        let Some(close) = rest[open..].find(')') else { break };
        let bare =
            rest[open + 1..open + close].split(',').map(str::trim).filter(|p| p.ends_with("id: i64") || p.ends_with("id: Option<i64>"));
        found.push((name, bare.count()));
    }
    found
}

/// Two ids side by side as bare integers can be swapped silently; with the newtypes
/// (`UserId`, `RealmId`, `ChannelId`, `MessageId`, `GroupId`) the compiler tells.
#[test]
fn ids_side_by_side_are_typed() {
    let mut mixed = Vec::new();
    for (name, text) in source_files() {
        for (function, bare) in bare_id_parameters(&text) {
            if bare >= 2 {
                mixed.push(format!("{name}: {function}"));
            }
        }
    }
    assert!(mixed.is_empty(), "functions taking two bare integer ids:\n{}", mixed.join("\n"));
}

#[test]
fn the_id_check_sees_parameters() {
    let text = "fn a(realm_id: i64, user_id: Option<i64>) {}\nfn b<'a>(realm_id: RealmId, id: i64) {}\nfn c(x: &str) {}";
    assert_eq!(bare_id_parameters(text), vec![("a".to_string(), 2), ("b".to_string(), 1), ("c".to_string(), 0)]);
}
