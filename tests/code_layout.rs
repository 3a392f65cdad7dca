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

/// Whether a line holds SQL: a statement keyword followed by what a statement has next.
fn looks_like_sql(line: &str) -> bool {
    ["SELECT ", "INSERT INTO ", "INSERT OR ", "DELETE FROM ", "CREATE TABLE", "CREATE INDEX"].iter().any(|k| line.contains(k))
        || (line.contains("UPDATE ") && line.contains(" SET "))
}

#[test]
fn sql_statements_live_in_src_db() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let db = root.join("src/db");
    let offending: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(&db))
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let name = f.strip_prefix(root).unwrap().display().to_string();
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
    assert!(looks_like_sql(r#"query!(db, "SELECT id FROM users WHERE id = ?1", id)"#));
    assert!(looks_like_sql(r#""UPDATE realms SET name = ?1""#));
    assert!(!looks_like_sql(r#""SELECT": {"id": 3, "name": "List of options"},"#));
}
