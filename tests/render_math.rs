//! Math on the real runtime: the worker typesets `$$…$$` and ```` ```math ```` with the
//! bundled KaTeX, giving exactly the HTML of Zulip's own test cases
//! (`tests/fixtures/zulip-markdown-test-cases.json`).

mod chat;
mod common;
use chat::*;
use common::*;
use serde_json::Value;

/// One of Zulip's regular rendering cases, by name; a missing fixture or case fails.
fn case(name: &str) -> (String, String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/zulip-markdown-test-cases.json");
    let raw = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{} is required: {e}", path.display()));
    let fixture: Value = serde_json::from_str(&raw).expect("fixture is JSON");
    let case = fixture["regular_tests"]
        .as_array()
        .expect("regular_tests")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no fixture case {name}"));
    (case["input"].as_str().unwrap().to_string(), case["expected_output"].as_str().unwrap().to_string())
}

fn assert_renders_as_zulip(names: &[&str]) {
    let hamlet = Client::dev("hamlet@zulip.com");
    for name in names {
        let (input, expected) = case(name);
        let body = hamlet.post("/messages/render", &[("content", &input)]).success();
        assert_matches_openapi("post", "/messages/render", &body);
        assert_eq!(body["rendered"].as_str().unwrap(), expected, "fixture case {name}");
    }
}

#[test]
fn inline_math_is_typeset_by_katex() {
    assert_renders_as_zulip(&[
        "tex_inline",
        "tex_complex",
        "tex_money",
        "tex_inline_permissive_spacing",
        "tex_inline_no_markdown_inside",
        "tex_safe_script_tag",
    ]);
}

#[test]
fn math_fences_are_typeset_in_display_mode() {
    assert_renders_as_zulip(&["tex_fenced_math", "fenced_quotes_inside_mathblock", "tex_display_no_markdown_inside"]);
}

#[test]
fn tex_that_katex_rejects_shows_its_source_as_tex_error() {
    assert_renders_as_zulip(&["tex_error_safe_script_tag", "tex_inline_error_no_markdown_inside", "tex_display_error_no_markdown_inside"]);
}

#[test]
fn dollar_signs_that_are_not_math_stay_text() {
    assert_renders_as_zulip(&[
        "tex_escaped",
        "tex_inline_prohibited_newline",
        "tex_dollar_smiley",
        "tex_multiple_dollars",
        "tex_non_matching_dollar_count",
    ]);
}

#[test]
fn a_sent_message_stores_typeset_math() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (input, expected) = case("tex_fenced_math");
    let id = send_to_channel(&hamlet, "Verona", &unique("math"), &input);
    let message = fetch(&hamlet, id);
    assert_eq!(message["content"].as_str().unwrap(), expected);
}

#[test]
fn the_render_benchmark_route_times_rendering_with_and_without_katex() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.post("/dev_bench/render", &[("content", "$$x^2$$ and **bold**"), ("iterations", "3")]).success();
    assert_eq!(body["iterations"], 3);
    assert_eq!(body["content_length"], 20);
    assert!(body["render_ms"].as_f64().unwrap() >= 0.0 && body["render_without_katex_ms"].as_f64().unwrap() >= 0.0, "{body}");
    assert_eq!(body["cpu_budget_free_ms"], 10.0);
}

#[test]
fn the_render_benchmark_route_bounds_iterations() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/dev_bench/render", &[("content", "x"), ("iterations", "0")]).bad_request("BAD_REQUEST", "Invalid iterations");
}

#[test]
fn math_too_deep_for_katex_shows_as_tex_error() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let deep = format!("$${}x{}$$", "\\sqrt{".repeat(3000), "}".repeat(3000));
    let body = hamlet.post("/messages/render", &[("content", &deep)]).success();
    let html = body["rendered"].as_str().unwrap();
    assert!(html.starts_with("<p><span class=\"tex-error\">$$\\sqrt{"), "{}", &html[..80]);
}

#[test]
fn math_cannot_make_javascript_links() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.post("/messages/render", &[("content", "$$\\href{javascript:alert(1)}{x}$$")]).success();
    let html = body["rendered"].as_str().unwrap();
    assert!(html.contains("class=\"katex\"") && !html.contains("href="), "{html}");
}
