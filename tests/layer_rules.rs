//! The layers a reader relies on, checked over the source (beside `code_layout.rs`):
//! `model` (shared codes) < `db` (queries) < `domain` (rules, loaders) < `actions` (state
//! changes and their events) < `api` (handlers). A lower layer never names a higher one,
//! and a handler never imports another handler (what several read alike is `api::params`).

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

/// The lines of code (comments left out) under `src/<dir>` that name one of `paths`.
fn naming(dir: &str, paths: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src").join(dir), &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(root).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if paths.iter().any(|p| names(code, p)) {
                found.push(format!("{name}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    found
}

/// Whether `code` holds the path `path` whole (`crate::api::realm` is not in
/// `crate::api::realm_emoji`).
fn names(code: &str, path: &str) -> bool {
    code.match_indices(path).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + path.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn model_names_no_other_layer() {
    let found = naming("model", &["crate::db", "crate::domain", "crate::actions", "crate::api", "crate::context"]);
    assert!(found.is_empty(), "model is a leaf:\n{}", found.join("\n"));
}

#[test]
fn db_names_no_layer_above_it() {
    let found = naming("db", &["crate::domain", "crate::actions", "crate::api"]);
    assert!(found.is_empty(), "db names a layer above it:\n{}", found.join("\n"));
}

#[test]
fn domain_never_calls_actions_or_handlers() {
    let found = naming("domain", &["crate::actions", "crate::api"]);
    assert!(found.is_empty(), "domain names a layer above it:\n{}", found.join("\n"));
}

#[test]
fn actions_never_call_handlers() {
    let found = naming("actions", &["crate::api"]);
    assert!(found.is_empty(), "actions name a handler:\n{}", found.join("\n"));
}

#[test]
fn no_handler_imports_another() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut handlers: Vec<String> = std::fs::read_dir(root.join("src/api"))
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "mod" && name != "params")
        .collect();
    handlers.sort();
    let paths: Vec<String> = handlers.iter().flat_map(|h| [format!("crate::api::{h}"), format!("super::{h}")]).collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let found: Vec<String> = naming("api", &paths).into_iter().filter(|line| !line.starts_with("src/api/mod.rs")).collect();
    assert!(found.is_empty(), "a handler imports another:\n{}", found.join("\n"));
}

#[test]
fn the_checks_see_code_and_skip_comments() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The rules above would pass vacuously if the walk found nothing.
    assert!(!naming("api", &["crate::actions"]).is_empty());
    assert!(!naming("domain", &["crate::db"]).is_empty());
    assert!(root.join("src/model/mod.rs").exists());
    assert!(names("use crate::api::realm::{x};", "crate::api::realm"));
    assert!(!names("use crate::api::realm_emoji;", "crate::api::realm"));
    assert!(!names("use team_crate::api::realm;", "crate::api::realm"));
}
