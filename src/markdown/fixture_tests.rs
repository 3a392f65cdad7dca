//! Runs Zulip's own rendering test suite (`tests/fixtures/zulip-markdown-test-cases.json`,
//! Zulip's `markdown_test_cases.json`, Apache-2.0, unchanged) against [`render`] and counts
//! exact matches, skipping cases that need features outside this module's scope.

use super::{render, Resolved};

const FIXTURE: &str = "tests/fixtures/zulip-markdown-test-cases.json";

/// Raise this when fidelity improves; a drop means a regression.
const MIN_EXACT_MATCHES: usize = 139;

/// Features Zulip renders that this module deliberately does not: KaTeX, inline image
/// previews, Pygments highlighting, emoticon translation (a user setting), and links
/// relative to the realm's own URL. (Emoji are rendered, so their cases count.)
fn out_of_scope(case: &serde_json::Value) -> bool {
    let expected = case["expected_output"].as_str().unwrap_or("");
    let markers = ["katex", "tex-error", "message_inline_image", "zulip.testserver"];
    markers.iter().any(|m| expected.contains(m) || case["input"].as_str().unwrap_or("").contains(m))
        || has_pygments_tokens(expected)
        || case.get("translate_emoticons").is_some()
}

/// Pygments wraps tokens in `<span class="k">`-style spans (short class names).
fn has_pygments_tokens(html: &str) -> bool {
    html.match_indices("<span class=\"").any(|(at, m)| {
        let rest = &html[at + m.len()..];
        rest.find('"').is_some_and(|end| end <= 3 && rest[..end].chars().all(|c| c.is_ascii_alphanumeric()))
    })
}

#[test]
fn zulip_fixture_regular_tests() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    let Ok(raw) = std::fs::read_to_string(&path) else {
        println!("note: {} not found; skipping the Zulip fixture comparison", path.display());
        return;
    };
    let fixture: serde_json::Value = serde_json::from_str(&raw).expect("fixture is JSON");
    let cases = fixture["regular_tests"].as_array().expect("regular_tests");
    let (mut in_scope, mut matched) = (0, 0);
    for case in cases.iter().filter(|c| !out_of_scope(c)) {
        in_scope += 1;
        let input = case["input"].as_str().unwrap_or("");
        let expected = case["expected_output"].as_str().unwrap_or("");
        let actual = render(input, &Resolved::default()).html;
        if actual == expected {
            matched += 1;
        } else if std::env::var("MARKDOWN_FIXTURE_VERBOSE").is_ok() {
            println!("MISMATCH {}\n  input:    {input:?}\n  expected: {expected:?}\n  actual:   {actual:?}", case["name"]);
        }
    }
    println!("Zulip fixture: {matched} of {in_scope} in-scope regular tests match exactly ({} total)", cases.len());
    assert!(matched >= MIN_EXACT_MATCHES, "only {matched} fixture cases match; floor is {MIN_EXACT_MATCHES}");
}

/// Raise this when autolinking improves.
const MIN_LINKIFY_MATCHES: usize = 72;

/// Zulip's expected link for a linkify case: `%s` in the template stands for the link.
fn linkify_expected(template: &str, url: &str) -> String {
    if url.is_empty() {
        return template.to_string();
    }
    let href = if url.starts_with("http") {
        url.to_string()
    } else if url.contains('@') {
        format!("mailto:{url}")
    } else {
        format!("http://{url}")
    };
    template.replace("%s", &format!("<a href=\"{href}\">{url}</a>"))
}

#[test]
fn zulip_fixture_linkify_tests() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    let Ok(raw) = std::fs::read_to_string(&path) else {
        println!("note: {} not found; skipping the Zulip linkify comparison", path.display());
        return;
    };
    let fixture: serde_json::Value = serde_json::from_str(&raw).expect("fixture is JSON");
    let cases = fixture["linkify_tests"].as_array().expect("linkify_tests");
    let (mut in_scope, mut matched) = (0, 0);
    for case in cases {
        let [input, template, url] = [0, 1, 2].map(|i| case[i].as_str().unwrap_or(""));
        if template.contains("zulip.testserver") {
            continue; // links relative to the realm's own URL: the realm is not known here
        }
        in_scope += 1;
        let expected = linkify_expected(template, url);
        let actual = render(input, &Resolved::default()).html;
        if actual == expected {
            matched += 1;
        } else if std::env::var("MARKDOWN_FIXTURE_VERBOSE").is_ok() {
            println!("LINKIFY MISMATCH\n  input:    {input:?}\n  expected: {expected:?}\n  actual:   {actual:?}");
        }
    }
    println!("Zulip fixture: {matched} of {in_scope} in-scope linkify tests match exactly ({} total)", cases.len());
    assert!(matched >= MIN_LINKIFY_MATCHES, "only {matched} linkify cases match; floor is {MIN_LINKIFY_MATCHES}");
}
