//! Linkifiers: `GET /realm/linkifiers`, the legacy `GET /realm/filters`, `POST /realm/filters`,
//! `PATCH`/`DELETE /realm/filters/{filter_id}`, `PATCH /realm/linkifiers` (order), the
//! `realm_linkifiers` register key and event, and linkifiers in message rendering.
//!
//! Every test uses patterns with a unique literal prefix, so linkifiers made by concurrent
//! tests never match each other's (or other test files') messages; each removes its own.

mod chat;
mod common;
mod event_support;

use common::*;
use event_support::register_for;
use serde_json::Value;

fn iago() -> Client {
    Client::dev("iago@zulip.com")
}

/// A pattern unique to this test, with one named group `id`, and its template.
fn unique_linkifier() -> (String, String) {
    let prefix = unique("LK");
    (format!("{prefix}-(?P<id>[0-9]+)"), format!("https://tracker.example.com/{prefix}/{{id}}"))
}

fn add(client: &Client, pattern: &str, url_template: &str) -> i64 {
    let body = client.post("/realm/filters", &[("pattern", pattern), ("url_template", url_template)]).success();
    assert_matches_openapi("POST", "/realm/filters", &body);
    body["id"].as_i64().expect("id")
}

fn listed(client: &Client) -> Vec<Value> {
    let body = client.get("/realm/linkifiers", &[]).success();
    assert_matches_openapi("GET", "/realm/linkifiers", &body);
    body["linkifiers"].as_array().cloned().unwrap_or_default()
}

fn find(list: &[Value], id: i64) -> Option<Value> {
    list.iter().find(|l| l["id"] == id).cloned()
}

/// Events are checked as Zulip's `GET /events` schema describes them.
fn assert_event_matches_openapi(event: &Value) {
    let body = serde_json::json!({ "result": "success", "msg": "", "queue_id": "q", "events": [event] });
    assert_matches_openapi("GET", "/events", &body);
}

fn remove(id: i64) {
    iago().delete(&format!("/realm/filters/{id}"), &[]).success();
}

#[test]
fn administrator_adds_a_linkifier_that_everyone_lists() {
    let (pattern, template) = unique_linkifier();
    let id = add(&iago(), &format!("  {pattern} "), &template);
    let hamlet = Client::dev("hamlet@zulip.com");
    let entry = find(&listed(&hamlet), id).expect("listed");
    assert_eq!(entry["pattern"], pattern.as_str(), "the pattern is trimmed");
    assert_eq!(entry["url_template"], template.as_str());
    let legacy = hamlet.get("/realm/filters", &[]).success();
    let tuple = legacy["filters"].as_array().unwrap().iter().find(|t| t[2] == id).cloned().expect("legacy tuple");
    assert_eq!(tuple, serde_json::json!([pattern, template, id]));
    remove(id);
}

#[test]
fn a_member_cannot_add_change_remove_or_reorder_linkifiers() {
    let (pattern, template) = unique_linkifier();
    let id = add(&iago(), &pattern, &template);
    let hamlet = Client::dev("hamlet@zulip.com");
    let (other_pattern, other_template) = unique_linkifier();
    let refused = "Must be an organization administrator";
    hamlet
        .post("/realm/filters", &[("pattern", &other_pattern), ("url_template", &other_template)])
        .bad_request("UNAUTHORIZED_PRINCIPAL", refused);
    hamlet
        .patch(&format!("/realm/filters/{id}"), &[("pattern", &other_pattern), ("url_template", &other_template)])
        .bad_request("UNAUTHORIZED_PRINCIPAL", refused);
    hamlet.delete(&format!("/realm/filters/{id}"), &[]).bad_request("UNAUTHORIZED_PRINCIPAL", refused);
    let order = format!("[{id}]");
    hamlet.patch("/realm/linkifiers", &[("ordered_linkifier_ids", &order)]).bad_request("UNAUTHORIZED_PRINCIPAL", refused);
    let list = listed(&hamlet);
    let entry = find(&list, id).expect("still there");
    assert_eq!(entry["pattern"], pattern.as_str(), "unchanged");
    assert!(!list.iter().any(|l| l["pattern"] == other_pattern.as_str()), "nothing added");
    remove(id);
}

#[test]
fn patterns_and_templates_are_validated() {
    let iago = iago();
    let prefix = unique("LK");
    let post = |pattern: &str, template: &str| iago.post("/realm/filters", &[("pattern", pattern), ("url_template", template)]);
    let body = post(&format!("{prefix}(?P<id>[0-9]+"), "https://x.example.com/{id}")
        .bad_request("BAD_REQUEST", "Bad regular expression: unclosed group");
    assert!(body["msg"].as_str().unwrap().starts_with("Bad regular expression: "), "{body:?}");
    post(&format!("{prefix}(?P<id>[0-9]+)"), "https://x.example.com/{id").bad_request("BAD_REQUEST", "Invalid URL template.");
    post(&format!("{prefix}(?P<id>[0-9]+)"), "https://x.example.com/{id}/{other}")
        .bad_request("BAD_REQUEST", "Group 'other' in URL template is not present in linkifier pattern.");
    post(&format!("{prefix}(?P<id>[0-9]+)(?P<b>x)"), "https://x.example.com/{id}")
        .bad_request("BAD_REQUEST", "Group 'b' in linkifier pattern is not present in URL template.");
    iago.post("/realm/filters", &[("url_template", "https://x.example.com/")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'pattern' argument");
    assert!(!listed(&iago).iter().any(|l| l["pattern"].as_str().unwrap().starts_with(&prefix)), "nothing added");
}

#[test]
fn a_pattern_can_exist_only_once() {
    let (pattern, template) = unique_linkifier();
    let id = add(&iago(), &pattern, &template);
    iago()
        .post("/realm/filters", &[("pattern", &pattern), ("url_template", &template)])
        .bad_request("BAD_REQUEST", "Realm filter with this Realm and Pattern already exists.");
    remove(id);
}

#[test]
fn administrator_updates_a_linkifier() {
    let (pattern, template) = unique_linkifier();
    let id = add(&iago(), &pattern, &template);
    let (new_pattern, new_template) = unique_linkifier();
    iago().patch(&format!("/realm/filters/{id}"), &[("pattern", &new_pattern), ("url_template", &new_template)]).success();
    let entry = find(&listed(&iago()), id).expect("listed");
    assert_eq!(entry["pattern"], new_pattern.as_str());
    assert_eq!(entry["url_template"], new_template.as_str());
    iago()
        .patch(&format!("/realm/filters/{id}"), &[("pattern", &new_pattern), ("url_template", "https://x.example.com/{nope}")])
        .bad_request("BAD_REQUEST", "Group 'nope' in URL template is not present in linkifier pattern.");
    assert_eq!(find(&listed(&iago()), id).unwrap()["url_template"], new_template.as_str(), "a refused update changes nothing");
    remove(id);
}

#[test]
fn an_unknown_linkifier_is_not_found() {
    let (pattern, template) = unique_linkifier();
    let id = add(&iago(), &pattern, &template);
    remove(id);
    iago().delete(&format!("/realm/filters/{id}"), &[]).bad_request("BAD_REQUEST", "Linkifier not found.");
    iago()
        .patch(&format!("/realm/filters/{id}"), &[("pattern", &pattern), ("url_template", &template)])
        .bad_request("BAD_REQUEST", "Linkifier not found.");
}

#[test]
fn reordering_must_list_every_linkifier_exactly_once() {
    let (pattern, template) = unique_linkifier();
    let id = add(&iago(), &pattern, &template);
    iago()
        .patch("/realm/linkifiers", &[("ordered_linkifier_ids", &format!("[{id}, {id}]"))])
        .bad_request("BAD_REQUEST", "The ordered list must not contain duplicated linkifiers");
    iago()
        .patch("/realm/linkifiers", &[("ordered_linkifier_ids", "[]")])
        .bad_request("BAD_REQUEST", "The ordered list must enumerate all existing linkifiers exactly once");
    remove(id);
}

#[test]
fn reordering_changes_the_listed_order_and_notifies_everyone() {
    let iago = iago();
    let (first, first_template) = unique_linkifier();
    let (second, second_template) = unique_linkifier();
    let a = add(&iago, &first, &first_template);
    let b = add(&iago, &second, &second_template);
    let mut queue = register_for(&Client::dev("othello@zulip.com"), r#"["realm_linkifiers"]"#);
    // Other tests add linkifiers concurrently: retry with a fresh list if one slipped in.
    let mut wanted = Vec::new();
    for _ in 0..5 {
        let mut ids: Vec<i64> = listed(&iago).iter().map(|l| l["id"].as_i64().unwrap()).collect();
        ids.retain(|id| *id != b);
        ids.insert(0, b);
        let resp = iago.patch("/realm/linkifiers", &[("ordered_linkifier_ids", &serde_json::to_string(&ids).unwrap())]);
        if resp.status == 200 {
            wanted = ids;
            break;
        }
    }
    assert!(!wanted.is_empty(), "reorder succeeded");
    let event = queue.wait_for("realm_linkifiers", |e| e["type"] == "realm_linkifiers" && e["realm_linkifiers"][0]["id"] == b);
    assert_event_matches_openapi(&event);
    let order: Vec<i64> = listed(&iago).iter().map(|l| l["id"].as_i64().unwrap()).collect();
    assert_eq!(order[0], b);
    let (pos_a, pos_b) = (order.iter().position(|x| *x == a).unwrap(), order.iter().position(|x| *x == b).unwrap());
    assert!(pos_b < pos_a);
    remove(a);
    remove(b);
}

#[test]
fn register_includes_the_linkifiers_and_changes_send_realm_linkifiers() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (pattern, template) = unique_linkifier();
    let id = add(&iago(), &pattern, &template);
    let mut queue = register_for(&hamlet, r#"["realm_linkifiers"]"#);
    let state = queue.register["realm_linkifiers"].as_array().cloned().expect("realm_linkifiers");
    assert!(find(&state, id).is_some(), "register lists it");
    let (new_pattern, new_template) = unique_linkifier();
    iago().patch(&format!("/realm/filters/{id}"), &[("pattern", &new_pattern), ("url_template", &new_template)]).success();
    let event = queue.wait_for("update", |e| {
        e["type"] == "realm_linkifiers" && e["realm_linkifiers"].as_array().unwrap().iter().any(|l| l["pattern"] == new_pattern.as_str())
    });
    assert_event_matches_openapi(&event);
    remove(id);
    queue.wait_for("removal", |e| {
        e["type"] == "realm_linkifiers" && !e["realm_linkifiers"].as_array().unwrap().iter().any(|l| l["id"] == id)
    });
}

#[test]
fn a_member_refused_sends_no_event() {
    let (pattern, template) = unique_linkifier();
    let mut queue = register_for(&Client::dev("cordelia@zulip.com"), r#"["realm_linkifiers"]"#);
    Client::dev("hamlet@zulip.com")
        .post("/realm/filters", &[("pattern", &pattern), ("url_template", &template)])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    // A later change by an administrator is the sentinel: no event up to it may carry the
    // refused pattern (other tests' changes may arrive in between).
    let (sentinel, sentinel_template) = unique_linkifier();
    let id = add(&iago(), &sentinel, &sentinel_template);
    let has = |e: &Value, key: &str, value: Value| e["realm_linkifiers"].as_array().is_some_and(|l| l.iter().any(|x| x[key] == value));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut seen_sentinel = false;
    while !seen_sentinel && std::time::Instant::now() < deadline {
        for event in queue.poll(false) {
            assert!(!has(&event, "pattern", Value::from(pattern.as_str())), "refused linkifier in {event:?}");
            seen_sentinel |= has(&event, "id", Value::from(id));
        }
    }
    assert!(seen_sentinel, "the sentinel event arrived");
    remove(id);
}

#[test]
fn messages_link_text_matching_a_linkifier() {
    let prefix = unique("LK");
    let pattern = format!("{prefix}-(?P<id>[0-9]+)");
    let id = add(&iago(), &pattern, &format!("https://tracker.example.com/ticket/{{id}}?from={prefix}"));
    let hamlet = Client::dev("hamlet@zulip.com");
    let message_id = chat::send_to_channel(&hamlet, "Verona", &unique("linkifiers"), &format!("fixes {prefix}-42 but not `{prefix}-43`"));
    let message = chat::fetch(&hamlet, message_id);
    let expected = format!(
        "<p>fixes <a href=\"https://tracker.example.com/ticket/42?from={prefix}\">{prefix}-42</a> but not <code>{prefix}-43</code></p>"
    );
    assert_eq!(message["content"], expected.as_str());
    remove(id);
}

#[test]
fn topic_links_list_linkifier_matches_and_urls_in_the_topic() {
    let prefix = unique("LK");
    let id = add(&iago(), &format!("{prefix}-(?P<id>[0-9]+)"), "https://tracker.example.com/ticket/{id}");
    let hamlet = Client::dev("hamlet@zulip.com");
    let topic = format!("{prefix}-7 see https://zulip.com/");
    let message_id = chat::send_to_channel(&hamlet, "Verona", &topic, "topic links");
    let body = hamlet.get(&format!("/messages/{message_id}"), &[]).success();
    assert_matches_openapi("GET", "/messages/{message_id}", &body);
    assert_eq!(
        body["message"]["topic_links"],
        serde_json::json!([
            { "text": format!("{prefix}-7"), "url": "https://tracker.example.com/ticket/7" },
            { "text": "https://zulip.com/", "url": "https://zulip.com/" },
        ])
    );
    remove(id);
}
