//! Rendering features beyond Markdown: code highlighting, inline image previews, links
//! relative to the organization's URL, and `/thumbnail`, where previews of external images
//! point.

mod chat;
mod common;
mod upload_support;
use base64::Engine;
use chat::*;
use common::*;
use upload_support::*;

/// The organization's URL as the server reports it.
fn realm_url(client: &Client) -> String {
    client.get("/server_settings", &[]).success()["realm_url"].as_str().unwrap().trim_end_matches('/').to_string()
}

fn rendered(client: &Client, content: &str) -> String {
    client.post("/messages/render", &[("content", content)]).success()["rendered"].as_str().unwrap().to_string()
}

/// `GET <path>` without following redirects: status, `Location`, body.
fn get_raw(client: Option<&Client>, path: &str) -> (u16, Option<String>, String) {
    let agent = ureq::AgentBuilder::new().redirects(0).build();
    let mut req = agent.get(&format!("{}{path}", server_url()));
    if let Some(c) = client {
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", c.email, c.api_key));
        req = req.set("Authorization", &format!("Basic {token}"));
    }
    let response = match req.call() {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("transport error {e}"),
    };
    let status = response.status();
    let location = response.header("Location").map(str::to_string);
    (status, location, response.into_string().unwrap_or_default())
}

fn thumbnail_path(url: &str, size: &str) -> String {
    let query: String = form_urlencoded::Serializer::new(String::new()).append_pair("url", url).append_pair("size", size).finish();
    format!("/thumbnail?{query}")
}

#[test]
fn links_into_the_organization_become_relative() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let base = realm_url(&hamlet);
    let channel = unique("previews");
    create_channel(&hamlet, &channel, &[], &[]);
    let content = format!("[there]({base}/#narrow/channel/1-Denmark) and {base}/#narrow/dm/1-x");
    let id = send_to_channel(&hamlet, &channel, "relative", &content);
    let html = fetch(&hamlet, id)["content"].as_str().unwrap().to_string();
    assert_eq!(
        html,
        format!("<p><a href=\"#narrow/channel/1-Denmark\">there</a> and <a href=\"#narrow/dm/1-x\">{base}/#narrow/dm/1-x</a></p>")
    );
}

#[test]
fn links_to_other_sites_stay_absolute() {
    let hamlet = Client::dev("hamlet@zulip.com");
    assert_eq!(
        rendered(&hamlet, "https://example.com/#narrow/channel/1-x"),
        "<p><a href=\"https://example.com/#narrow/channel/1-x\">https://example.com/#narrow/channel/1-x</a></p>"
    );
}

#[test]
fn external_image_links_preview_through_thumbnail() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = unique("previews");
    create_channel(&hamlet, &channel, &[], &[]);
    let id = send_to_channel(&hamlet, &channel, "images", "look: https://example.com/cat.png");
    let message = fetch(&hamlet, id);
    assert_eq!(
        message["content"].as_str().unwrap(),
        "<p>look: <a href=\"https://example.com/cat.png\">https://example.com/cat.png</a></p>\n\
         <div class=\"message_inline_image\"><a href=\"https://example.com/cat.png\">\
         <img data-src-fullsize=\"/thumbnail?url=https%3A%2F%2Fexample.com%2Fcat.png&amp;size=full\" \
         src=\"/thumbnail?url=https%3A%2F%2Fexample.com%2Fcat.png&amp;size=thumbnail\"></a></div>"
    );
}

#[test]
fn uploaded_image_links_preview_from_the_file() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let url = upload(&hamlet, "cat.png", b"\x89PNG\r\n\x1a\nnot really");
    let html = rendered(&hamlet, &format!("[cat.png]({url})"));
    assert_eq!(
        html,
        format!(
            "<p><a href=\"{url}\">cat.png</a></p>\n<div class=\"message_inline_image\"><a href=\"{url}\" title=\"cat.png\"><img src=\"{url}\"></a></div>"
        )
    );
}

#[test]
fn the_same_image_previews_once() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let html = rendered(&hamlet, "https://example.com/a.gif and [again](https://example.com/a.gif)");
    assert_eq!(html.matches("class=\"message_inline_image\"").count(), 1, "{html}");
}

#[test]
fn thumbnail_redirects_to_an_external_image() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (status, location, _) = get_raw(Some(&hamlet), &thumbnail_path("https://example.com/cat.png", "thumbnail"));
    assert_eq!((status, location.as_deref()), (302, Some("https://example.com/cat.png")));
    let (status, location, _) = get_raw(Some(&hamlet), &format!("/api/v1{}", thumbnail_path("https://example.com/cat.png", "full")));
    assert_eq!((status, location.as_deref()), (302, Some("https://example.com/cat.png")));
}

#[test]
fn thumbnail_serves_an_upload_under_the_download_rules() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let bytes = b"\x89PNG\r\n\x1a\nthumbnail bytes";
    let url = upload(&hamlet, "thumb.png", bytes);
    let path = thumbnail_path(url.trim_start_matches('/'), "thumbnail");
    let got = download(Some(&hamlet), &path, &[]);
    assert_eq!((got.status, got.bytes.as_slice()), (200, bytes.as_slice()));
    assert_eq!(got.header("Content-Type"), Some("image/png"));
    // Nobody else may see it until a message they can read links it.
    let refused = download(Some(&othello), &path, &[]);
    assert_eq!(refused.status, 403);
    let body = refused.json();
    assert_eq!(
        (body["code"].as_str(), body["msg"].as_str()),
        (Some("PERMISSION_DENIED"), Some("You are not authorized to view this file."))
    );
}

#[test]
fn thumbnail_refuses_urls_that_are_neither_uploads_nor_web_images() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (status, location, body) = get_raw(Some(&hamlet), &thumbnail_path("javascript:alert(1)", "thumbnail"));
    assert_eq!((status, location), (403, None));
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["msg"], "You are not authorized to view this file.");
}

#[test]
fn thumbnail_needs_its_url_and_size() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.get("/thumbnail", &[("size", "full")]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'url' argument");
    hamlet.get("/thumbnail", &[("url", "https://example.com/a.png")]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'size' argument");
}

#[test]
fn thumbnail_needs_credentials() {
    let (status, location, _) = get_raw(None, &thumbnail_path("https://example.com/cat.png", "thumbnail"));
    assert_eq!((status, location), (401, None));
}

#[test]
fn code_blocks_are_highlighted_with_pygments_classes() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel = unique("previews");
    create_channel(&hamlet, &channel, &[], &[]);
    let id = send_to_channel(&hamlet, &channel, "code", "```py\ndef speak(self):\n    x = 1\n```");
    assert_eq!(
        fetch(&hamlet, id)["content"].as_str().unwrap(),
        "<div class=\"codehilite\" data-code-language=\"Python\"><pre><span></span><code>\
         <span class=\"k\">def</span> <span class=\"nf\">speak</span><span class=\"p\">(</span><span class=\"bp\">self</span>\
         <span class=\"p\">):</span>\n    <span class=\"n\">x</span> <span class=\"o\">=</span> <span class=\"mi\">1</span>\n\
         </code></pre></div>"
    );
}

#[test]
fn code_in_unknown_languages_stays_plain() {
    let hamlet = Client::dev("hamlet@zulip.com");
    assert_eq!(
        rendered(&hamlet, "```nosuchlang\nx = 1\n```"),
        "<div class=\"codehilite\" data-code-language=\"nosuchlang\"><pre><span></span><code>x = 1\n</code></pre></div>"
    );
}
