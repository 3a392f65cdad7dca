//! Saved snippets: create, list, edit, delete; private to their owner; events and register
//! state.

mod common;
mod event_support;
use common::*;
use event_support::*;
use serde_json::Value;

fn create(client: &Client, title: &str, content: &str) -> i64 {
    let body = client.post("/saved_snippets", &[("title", title), ("content", content)]).success();
    body["saved_snippet_id"].as_i64().expect("saved_snippet_id")
}

fn own_snippet(client: &Client, id: i64) -> Option<Value> {
    let body = client.get("/saved_snippets", &[]).success();
    body["saved_snippets"].as_array().unwrap().iter().find(|s| s["id"] == id).cloned()
}

#[test]
fn creating_answers_an_id_and_the_snippet_is_listed() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let title = unique("Greeting ");
    let body = hamlet.post("/saved_snippets", &[("title", &title), ("content", "**Welcome** here.")]).success();
    assert_matches_openapi("POST", "/saved_snippets", &body);
    assert!(body.get("ignored_parameters_unsupported").is_none(), "{body}");
    let id = body["saved_snippet_id"].as_i64().unwrap();
    let list = hamlet.get("/saved_snippets", &[]).success();
    assert_matches_openapi("GET", "/saved_snippets", &list);
    let snippet = own_snippet(&hamlet, id).expect("listed");
    assert_eq!(snippet["title"], title.as_str());
    assert_eq!(snippet["content"], "**Welcome** here.");
    assert!(snippet["date_created"].is_i64());
}

#[test]
fn title_and_content_are_stripped() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = create(&hamlet, "  padded  ", "\n body \n");
    let snippet = own_snippet(&hamlet, id).unwrap();
    assert_eq!(snippet["title"], "padded");
    assert_eq!(snippet["content"], "body");
}

#[test]
fn title_and_content_are_required() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/saved_snippets", &[("content", "c")]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'title' argument");
    hamlet.post("/saved_snippets", &[("title", "t")]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
}

#[test]
fn blank_title_or_content_is_refused_and_nothing_is_created() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let content = unique("never stored ");
    hamlet.post("/saved_snippets", &[("title", "  "), ("content", &content)]).bad_request("BAD_REQUEST", "title cannot be blank");
    hamlet.post("/saved_snippets", &[("title", "t"), ("content", "")]).bad_request("BAD_REQUEST", "content cannot be blank");
    let list = hamlet.get("/saved_snippets", &[]).success();
    assert!(!list["saved_snippets"].as_array().unwrap().iter().any(|s| s["content"] == content.as_str()));
}

#[test]
fn title_longer_than_sixty_characters_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let long = "a".repeat(61);
    hamlet
        .post("/saved_snippets", &[("title", &long), ("content", "c")])
        .bad_request("BAD_REQUEST", "title is too long (limit: 60 characters)");
    create(&hamlet, &"b".repeat(60), "c");
}

#[test]
fn content_longer_than_the_message_limit_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let long = "a".repeat(10_001);
    hamlet
        .post("/saved_snippets", &[("title", "t"), ("content", &long)])
        .bad_request("BAD_REQUEST", "content is too long (limit: 10000 characters)");
}

#[test]
fn creating_emits_saved_snippets_add_to_the_owner() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, r#"["saved_snippets"]"#);
    let title = unique("evt ");
    let id = create(&hamlet, &title, "content");
    let event = queue
        .wait_for("saved_snippets", |e| e["type"] == "saved_snippets" && e["op"] == "add" && e["saved_snippet"]["title"] == title.as_str());
    assert_eq!(event["saved_snippet"]["id"], id);
    assert_eq!(event["saved_snippet"]["title"], title.as_str());
    assert_eq!(event["saved_snippet"]["content"], "content");
    assert!(event["saved_snippet"]["date_created"].is_i64());
}

#[test]
fn register_lists_the_callers_snippets_only() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mine = create(&hamlet, &unique("mine "), "c");
    let theirs = create(&othello, &unique("theirs "), "c");
    let body = hamlet.post("/register", &[("fetch_event_types", r#"["saved_snippets"]"#)]).success();
    let snippets = body["saved_snippets"].as_array().unwrap();
    assert!(snippets.iter().any(|s| s["id"] == mine && s["content"] == "c"));
    assert!(!snippets.iter().any(|s| s["id"] == theirs));
}

#[test]
fn editing_changes_the_given_fields_and_emits_update() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = create(&hamlet, "old title", "old content");
    let mut queue = register_for(&hamlet, r#"["saved_snippets"]"#);
    let body = hamlet.patch(&format!("/saved_snippets/{id}"), &[("title", "new title")]).success();
    assert_matches_openapi("PATCH", "/saved_snippets/{saved_snippet_id}", &body);
    let event =
        queue.wait_for("saved_snippets update", |e| e["type"] == "saved_snippets" && e["op"] == "update" && e["saved_snippet"]["id"] == id);
    assert_eq!(event["saved_snippet"]["id"], id);
    assert_eq!(event["saved_snippet"]["title"], "new title");
    assert_eq!(event["saved_snippet"]["content"], "old content");
    hamlet.patch(&format!("/saved_snippets/{id}"), &[("content", "new content")]).success();
    let snippet = own_snippet(&hamlet, id).unwrap();
    assert_eq!(snippet["title"], "new title");
    assert_eq!(snippet["content"], "new content");
}

#[test]
fn editing_with_blank_values_is_refused_and_nothing_changes() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = create(&hamlet, "keep", "keep content");
    hamlet.patch(&format!("/saved_snippets/{id}"), &[("title", " ")]).bad_request("BAD_REQUEST", "title cannot be blank");
    hamlet
        .patch(&format!("/saved_snippets/{id}"), &[("title", "changed"), ("content", "")])
        .bad_request("BAD_REQUEST", "content cannot be blank");
    let snippet = own_snippet(&hamlet, id).unwrap();
    assert_eq!(snippet["title"], "keep");
    assert_eq!(snippet["content"], "keep content");
}

#[test]
fn editing_with_no_fields_succeeds_without_an_event() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = create(&hamlet, "quiet", "c");
    let mut queue = register_for(&hamlet, r#"["saved_snippets"]"#);
    hamlet.patch(&format!("/saved_snippets/{id}"), &[]).success();
    // A later change is the sentinel: the no-op edit must not have produced an event before it.
    hamlet.patch(&format!("/saved_snippets/{id}"), &[("title", "sentinel")]).success();
    // Other tests change hamlet's snippets concurrently: look only at this one's events.
    let event = queue.wait_for("saved_snippets", |e| e["type"] == "saved_snippets" && e["saved_snippet"]["id"] == id);
    assert_eq!(event["op"], "update");
    assert_eq!(event["saved_snippet"]["title"], "sentinel");
}

#[test]
fn deleting_removes_the_snippet_and_emits_remove() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let id = create(&hamlet, "doomed", "c");
    let mut queue = register_for(&hamlet, r#"["saved_snippets"]"#);
    let body = hamlet.delete(&format!("/saved_snippets/{id}"), &[]).success();
    assert_matches_openapi("DELETE", "/saved_snippets/{saved_snippet_id}", &body);
    let event =
        queue.wait_for("saved_snippets remove", |e| e["type"] == "saved_snippets" && e["op"] == "remove" && e["saved_snippet_id"] == id);
    assert_eq!(event["saved_snippet_id"], id);
    assert!(own_snippet(&hamlet, id).is_none());
}

#[test]
fn unknown_id_is_not_found() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.patch("/saved_snippets/999999999", &[("title", "x")]).error(404, "BAD_REQUEST", "Saved snippet does not exist.");
    hamlet.delete("/saved_snippets/999999999", &[]).error(404, "BAD_REQUEST", "Saved snippet does not exist.");
}

#[test]
fn another_users_snippet_behaves_as_missing_and_is_unchanged() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let id = create(&hamlet, "private", "mine");
    othello.patch(&format!("/saved_snippets/{id}"), &[("title", "stolen")]).error(404, "BAD_REQUEST", "Saved snippet does not exist.");
    othello.delete(&format!("/saved_snippets/{id}"), &[]).error(404, "BAD_REQUEST", "Saved snippet does not exist.");
    assert!(!othello.get("/saved_snippets", &[]).success()["saved_snippets"].as_array().unwrap().iter().any(|s| s["id"] == id));
    assert_eq!(own_snippet(&hamlet, id).unwrap()["title"], "private");
}

#[test]
fn unknown_parameters_are_reported_as_ignored() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet.post("/saved_snippets", &[("title", "t"), ("content", "c"), ("emoji", "x")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], serde_json::json!(["emoji"]));
    let id = body["saved_snippet_id"].as_i64().unwrap();
    let body = hamlet.patch(&format!("/saved_snippets/{id}"), &[("name", "x")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], serde_json::json!(["name"]));
}
