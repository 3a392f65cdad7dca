//! Every error code of the catalogue (`src/error.rs`) is answered by the server and
//! asserted by an end-to-end test, so the catalogue holds no dead code and no untested one.

use std::fs;
use std::path::Path;

/// Codes no request can provoke on purpose: a real fault of the platform.
const UNPROVOKABLE: &[&str] = &["INTERNAL_SERVER_ERROR"];

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((path.display().to_string(), fs::read_to_string(&path).unwrap()));
        }
    }
    out
}

/// The catalogue: (variant, wire code) pairs of `ErrorCode::as_str`.
fn catalogue() -> Vec<(String, String)> {
    let text = fs::read_to_string("src/error.rs").unwrap();
    text.lines()
        .filter_map(|line| {
            let (variant, code) = line.trim().strip_prefix("ErrorCode::")?.split_once(" => \"")?;
            Some((variant.to_string(), code.strip_suffix("\",")?.to_string()))
        })
        .collect()
}

#[test]
fn the_catalogue_is_read() {
    let codes = catalogue();
    assert!(codes.len() >= 20, "{codes:?}");
    assert!(codes.iter().any(|(v, c)| v == "BadRequest" && c == "BAD_REQUEST"));
}

#[test]
fn every_error_code_is_answered_by_some_error() {
    let error_rs = fs::read_to_string("src/error.rs").unwrap();
    let others: String = sources(Path::new("src")).into_iter().filter(|(p, _)| !p.ends_with("error.rs")).map(|(_, t)| t).collect();
    for (variant, code) in catalogue() {
        // Named once by `as_str`; any other mention is a constructor (in error.rs or elsewhere).
        let named = format!("ErrorCode::{variant}");
        let constructed = error_rs.matches(&named).count() > 1 || others.contains(&named);
        assert!(constructed, "{code} ({variant}) is never constructed");
    }
}

#[test]
fn every_error_code_is_asserted_by_an_end_to_end_test() {
    let tests: Vec<(String, String)> =
        sources(Path::new("tests")).into_iter().filter(|(p, _)| !p.ends_with("error_catalogue.rs")).collect();
    for (_, code) in catalogue() {
        if UNPROVOKABLE.contains(&code.as_str()) {
            continue;
        }
        let quoted = format!("\"{code}\"");
        let asserted = tests.iter().any(|(_, text)| text.contains(&quoted));
        assert!(asserted, "no test asserts {code}");
    }
}
