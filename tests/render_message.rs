//! `POST /messages/render`: the HTML a message would get, nothing saved.

mod common;
use common::*;

#[test]
fn render_answers_the_html_of_the_content() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.post("/messages/render", &[("content", "**bold** @**Othello, the Moor of Venice**")]).success();
    assert_matches_openapi("post", "/messages/render", &body);
    let html = body["rendered"].as_str().unwrap();
    assert!(html.starts_with("<p><strong>bold</strong> "), "{html}");
    assert!(html.contains("class=\"user-mention\""), "{html}");
}

#[test]
fn render_needs_content() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/messages/render", &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
}
