//! The register's `server_emoji_data_url` serves Zulip's emoji data (the mobile app fetches
//! it for emoji names and retries forever on an error).

mod common;
use common::*;

#[test]
fn server_emoji_data_url_lists_each_code_with_its_names() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let state = hamlet.post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    let url = state["server_emoji_data_url"].as_str().unwrap().to_string();
    let path = url.split_once("://").map(|(_, rest)| &rest[rest.find('/').unwrap()..]).unwrap();
    let response = ureq::get(&format!("{}{path}", server_url())).call().expect("emoji data answers 200");
    assert!(response.header("Content-Type").unwrap_or("").starts_with("application/json"));
    let body: serde_json::Value = serde_json::from_str(&response.into_string().unwrap()).unwrap();
    let names = body["code_to_names"]["1f44d"].as_array().unwrap();
    assert_eq!(names[0], "+1");
    assert!(names.contains(&serde_json::json!("thumbs_up")), "{names:?}");
    assert_eq!(body["code_to_names"]["1f642"][0], "smile");
}
