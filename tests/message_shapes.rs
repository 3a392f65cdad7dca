//! Success bodies of the channel and message endpoints match Zulip's OpenAPI description.

mod chat;
mod common;
use chat::*;
use common::*;
use serde_json::json;

#[test]
fn send_and_fetch_match_openapi() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("shape-send");
    create_channel(&hamlet, &name, &[], &[othello.user_id]);
    let body = hamlet.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", "hi")]).success();
    assert_matches_openapi("POST", "/messages", &body);
    let id = body["id"].as_i64().unwrap();
    let react = othello.post(&format!("/messages/{id}/reactions"), &[("emoji_name", "smile")]).success();
    assert_matches_openapi("POST", "/messages/{message_id}/reactions", &react);
    let mut body = hamlet.get(&format!("/messages/{id}"), &[]).success();
    // The legacy reaction `user` object, kept for older clients, left Zulip's schema at
    // feature level 328.
    assert!(body["message"]["reactions"][0]["user"].is_object());
    body["message"]["reactions"][0].as_object_mut().unwrap().remove("user");
    assert_matches_openapi("GET", "/messages/{message_id}", &body);
    let dm = send_direct(&hamlet, &[othello.user_id], "dm");
    let body = othello.get(&format!("/messages/{dm}"), &[]).success();
    assert_matches_openapi("GET", "/messages/{message_id}", &body);
    let narrow = json!([["stream", name]]).to_string();
    let mut body = hamlet.get("/messages", &[("anchor", "newest"), ("num_before", "5"), ("num_after", "0"), ("narrow", &narrow)]).success();
    for message in body["messages"].as_array_mut().unwrap() {
        for reaction in message["reactions"].as_array_mut().unwrap() {
            reaction.as_object_mut().unwrap().remove("user");
        }
    }
    assert_matches_openapi("GET", "/messages", &body);
    let body = othello.post("/messages/flags", &[("messages", &format!("[{id}]")), ("op", "add"), ("flag", "read")]).success();
    assert_matches_openapi("POST", "/messages/flags", &body);
    let body = othello.delete(&format!("/messages/{id}/reactions"), &[("emoji_name", "smile")]).success();
    assert_matches_openapi("DELETE", "/messages/{message_id}/reactions", &body);
}

#[test]
fn channel_endpoints_match_openapi() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("shape-channel");
    let body = hamlet.post("/users/me/subscriptions", &[("subscriptions", &json!([{ "name": name }]).to_string())]).success();
    assert_matches_openapi("POST", "/users/me/subscriptions", &body);
    let body = hamlet.get("/get_stream_id", &[("stream", &name)]).success();
    assert_matches_openapi("GET", "/get_stream_id", &body);
    let id = body["stream_id"].as_i64().unwrap();
    send_to_channel(&hamlet, &name, "t", "x");
    let body = hamlet.get("/users/me/subscriptions", &[]).success();
    assert_matches_openapi("GET", "/users/me/subscriptions", &body);
    let body = hamlet.get("/streams", &[]).success();
    assert_matches_openapi("GET", "/streams", &body);
    let body = hamlet.get(&format!("/streams/{id}"), &[]).success();
    assert_matches_openapi("GET", "/streams/{stream_id}", &body);
    let body = hamlet.get(&format!("/streams/{id}/members"), &[]).success();
    assert_matches_openapi("GET", "/streams/{stream_id}/members", &body);
    let body = hamlet.get(&format!("/users/me/{id}/topics"), &[]).success();
    assert_matches_openapi("GET", "/users/me/{stream_id}/topics", &body);
    let body = hamlet.post("/user_topics", &[("stream_id", &id.to_string()), ("topic", "t"), ("visibility_policy", "1")]).success();
    assert_matches_openapi("POST", "/user_topics", &body);
    let body = hamlet.delete("/users/me/subscriptions", &[("subscriptions", &json!([name]).to_string())]).success();
    assert_matches_openapi("DELETE", "/users/me/subscriptions", &body);
}
