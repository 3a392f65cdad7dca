//! Runs Zulip's own rendering test suite (`tests/fixtures/zulip-markdown-test-cases.json`,
//! Zulip's `markdown_test_cases.json`, Apache-2.0, unchanged) against [`render`] and counts
//! exact matches over every case, listing why each unmatched case differs.

use super::{render, Resolved};

const FIXTURE: &str = "tests/fixtures/zulip-markdown-test-cases.json";

/// The URL of the organization Zulip's test suite renders for.
const REALM_URL: &str = "http://zulip.testserver";

/// Raise this when fidelity improves; a drop means a regression. Counted over all 175
/// regular cases.
const MIN_EXACT_MATCHES: usize = 175;

/// Why a case still differs, for the printed report (features not built yet).
fn known_gap(case: &serde_json::Value) -> Option<&'static str> {
    let expected = case["expected_output"].as_str().unwrap_or("");
    if expected.contains("katex") || expected.contains("tex-error") {
        Some("KaTeX math differs")
    } else if expected.contains("message_inline_image") {
        Some("inline image previews differ")
    } else if has_pygments_tokens(expected) {
        Some("Pygments highlighting is not produced")
    } else {
        None
    }
}

/// Pygments wraps tokens in `<span class="k">`-style spans (short class names).
fn has_pygments_tokens(html: &str) -> bool {
    html.match_indices("<span class=\"").any(|(at, m)| {
        let rest = &html[at + m.len()..];
        rest.find('"').is_some_and(|end| end <= 3 && rest[..end].chars().all(|c| c.is_ascii_alphanumeric()))
    })
}

/// The fixture; a missing file fails the test rather than skipping it.
fn fixture() -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    let raw = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{} is required: {e}", path.display()));
    serde_json::from_str(&raw).expect("fixture is JSON")
}

#[test]
fn zulip_fixture_regular_tests() {
    let fixture = fixture();
    let cases = fixture["regular_tests"].as_array().expect("regular_tests");
    assert_eq!(cases.len(), 175, "the fixture's regular cases");
    let mut matched = 0;
    let mut gaps: Vec<String> = Vec::new();
    for case in cases {
        let input = case["input"].as_str().unwrap_or("");
        let expected = case["expected_output"].as_str().unwrap_or("");
        let resolved = Resolved {
            translate_emoticons: case["translate_emoticons"].as_bool().unwrap_or(false),
            tex: super::node_katex::renderer(),
            realm_url: REALM_URL.into(),
            ..Resolved::default()
        };
        let actual = render(input, &resolved).html;
        if actual == expected {
            matched += 1;
            continue;
        }
        let reason = known_gap(case).unwrap_or("differs (see MARKDOWN_FIXTURE_VERBOSE=1)");
        gaps.push(format!("{}: {reason}", case["name"].as_str().unwrap_or("?")));
        if std::env::var("MARKDOWN_FIXTURE_VERBOSE").is_ok() {
            println!("MISMATCH {}\n  input:    {input:?}\n  expected: {expected:?}\n  actual:   {actual:?}", case["name"]);
        }
    }
    println!("Zulip fixture: {matched} of {} regular tests match exactly", cases.len());
    for gap in &gaps {
        println!("  not matched: {gap}");
    }
    assert!(matched >= MIN_EXACT_MATCHES, "only {matched} fixture cases match; floor is {MIN_EXACT_MATCHES}");
}

/// Raise this when autolinking improves (counted over all 73 cases).
const MIN_LINKIFY_MATCHES: usize = 73;

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
    let fixture = fixture();
    let cases = fixture["linkify_tests"].as_array().expect("linkify_tests");
    assert_eq!(cases.len(), 73, "the fixture's linkify cases");
    let mut matched = 0;
    for case in cases {
        let [input, template, url] = [0, 1, 2].map(|i| case[i].as_str().unwrap_or(""));
        let expected = linkify_expected(template, url);
        let actual = render(input, &Resolved { realm_url: REALM_URL.into(), ..Resolved::default() }).html;
        if actual == expected {
            matched += 1;
        } else if std::env::var("MARKDOWN_FIXTURE_VERBOSE").is_ok() {
            println!("LINKIFY MISMATCH\n  input:    {input:?}\n  expected: {expected:?}\n  actual:   {actual:?}");
        }
    }
    println!("Zulip fixture: {matched} of {} linkify tests match exactly", cases.len());
    assert!(matched >= MIN_LINKIFY_MATCHES, "only {matched} linkify cases match; floor is {MIN_LINKIFY_MATCHES}");
}
