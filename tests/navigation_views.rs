//! Navigation views: built-in and custom views, private to their owner; events and register
//! state.

mod common;
mod event_support;
use common::*;
use event_support::*;
use serde_json::Value;

fn views(client: &Client) -> Vec<Value> {
    client.get("/navigation_views", &[]).success()["navigation_views"].as_array().unwrap().clone()
}

fn view(client: &Client, fragment: &str) -> Option<Value> {
    views(client).into_iter().find(|v| v["fragment"] == fragment)
}

/// A custom fragment no other test uses.
fn custom_fragment() -> String {
    format!("narrow/channel/{}", unique("v"))
}

fn add_custom(client: &Client, fragment: &str, name: &str) {
    client.post("/navigation_views", &[("fragment", fragment), ("is_pinned", "true"), ("name", name)]).success();
}

#[test]
fn adding_a_custom_view_lists_it() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let fragment = custom_fragment();
    let name = unique("My view ");
    let body = hamlet.post("/navigation_views", &[("fragment", &fragment), ("is_pinned", "false"), ("name", &name)]).success();
    assert_matches_openapi("POST", "/navigation_views", &body);
    assert!(body.get("ignored_parameters_unsupported").is_none(), "{body}");
    let list = hamlet.get("/navigation_views", &[]).success();
    assert_matches_openapi("GET", "/navigation_views", &list);
    let v = view(&hamlet, &fragment).expect("listed");
    assert_eq!(v["is_pinned"], false);
    assert_eq!(v["name"], name.as_str());
}

#[test]
fn built_in_view_takes_no_name() {
    // Each built-in fragment exists once per user: use a fresh user-independent check of the
    // refusal, and a user (cordelia) that only this test gives built-in views.
    let cordelia = Client::dev("cordelia@zulip.com");
    cordelia
        .post("/navigation_views", &[("fragment", "inbox"), ("is_pinned", "true"), ("name", "Box")])
        .bad_request("BAD_REQUEST", "Built-in views cannot have a custom name.");
    if view(&cordelia, "recent").is_none() {
        cordelia.post("/navigation_views", &[("fragment", "recent"), ("is_pinned", "false")]).success();
    }
    let v = view(&cordelia, "recent").unwrap();
    assert_eq!(v["name"], Value::Null);
    assert!(view(&cordelia, "inbox").is_none() || view(&cordelia, "inbox").unwrap()["name"].is_null());
}

#[test]
fn custom_view_needs_a_name() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let fragment = custom_fragment();
    hamlet
        .post("/navigation_views", &[("fragment", &fragment), ("is_pinned", "true")])
        .bad_request("BAD_REQUEST", "Custom views must have a valid name.");
    hamlet
        .post("/navigation_views", &[("fragment", &fragment), ("is_pinned", "true"), ("name", "  ")])
        .bad_request("BAD_REQUEST", "name cannot be blank");
    assert!(view(&hamlet, &fragment).is_none());
}

#[test]
fn fragment_and_is_pinned_are_required() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/navigation_views", &[("is_pinned", "true"), ("name", "x")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'fragment' argument");
    hamlet
        .post("/navigation_views", &[("fragment", &custom_fragment()), ("name", "x")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'is_pinned' argument");
    hamlet
        .post("/navigation_views", &[("fragment", &custom_fragment()), ("is_pinned", "maybe"), ("name", "x")])
        .bad_request("BAD_REQUEST", "is_pinned is not a boolean");
}

#[test]
fn blank_fragment_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/navigation_views", &[("fragment", "   "), ("is_pinned", "true"), ("name", "x")])
        .bad_request("BAD_REQUEST", "fragment cannot be blank");
}

#[test]
fn fragments_are_unique_per_user() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let fragment = custom_fragment();
    add_custom(&hamlet, &fragment, &unique("first "));
    hamlet
        .post("/navigation_views", &[("fragment", &fragment), ("is_pinned", "false"), ("name", &unique("second "))])
        .bad_request("BAD_REQUEST", "Navigation view already exists.");
    assert_eq!(view(&hamlet, &fragment).unwrap()["is_pinned"], true);
    // Another user may use the same fragment.
    add_custom(&othello, &fragment, &unique("theirs "));
}

#[test]
fn names_are_unique_per_user() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("Same name ");
    add_custom(&hamlet, &custom_fragment(), &name);
    let other = custom_fragment();
    hamlet
        .post("/navigation_views", &[("fragment", &other), ("is_pinned", "true"), ("name", &name)])
        .bad_request("BAD_REQUEST", "Navigation view already exists.");
    assert!(view(&hamlet, &other).is_none());
}

#[test]
fn adding_emits_navigation_view_add_to_the_owner() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let mut queue = register_for(&hamlet, r#"["navigation_view"]"#);
    let fragment = custom_fragment();
    let name = unique("evt ");
    add_custom(&hamlet, &fragment, &name);
    let event = queue.wait_for("navigation_view add", |e| {
        e["type"] == "navigation_view" && e["op"] == "add" && e["navigation_view"]["fragment"] == fragment.as_str()
    });
    assert_eq!(event["navigation_view"]["is_pinned"], true);
    assert_eq!(event["navigation_view"]["name"], name.as_str());
}

#[test]
fn register_lists_the_callers_views_only() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let mine = custom_fragment();
    let theirs = custom_fragment();
    add_custom(&hamlet, &mine, &unique("mine "));
    add_custom(&othello, &theirs, &unique("theirs "));
    let body = hamlet.post("/register", &[("fetch_event_types", r#"["navigation_views"]"#)]).success();
    let list = body["navigation_views"].as_array().unwrap();
    assert!(list.iter().any(|v| v["fragment"] == mine.as_str() && v["is_pinned"] == true));
    assert!(!list.iter().any(|v| v["fragment"] == theirs.as_str()));
}

#[test]
fn updating_changes_the_given_fields_and_emits_update() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let fragment = custom_fragment();
    add_custom(&hamlet, &fragment, &unique("before "));
    let mut queue = register_for(&hamlet, r#"["navigation_view"]"#);
    let name = unique("after ");
    let body = hamlet.patch(&format!("/navigation_views/{fragment}"), &[("is_pinned", "false"), ("name", &name)]).success();
    assert_matches_openapi("PATCH", "/navigation_views/{fragment}", &body);
    let event = queue.wait_for("navigation_view update", |e| {
        e["type"] == "navigation_view" && e["op"] == "update" && e["fragment"] == fragment.as_str()
    });
    assert_eq!(event["data"], serde_json::json!({ "is_pinned": false, "name": name }));
    let v = view(&hamlet, &fragment).unwrap();
    assert_eq!(v["is_pinned"], false);
    assert_eq!(v["name"], name.as_str());
}

#[test]
fn updating_a_percent_encoded_fragment_works() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let fragment = custom_fragment();
    add_custom(&hamlet, &fragment, &unique("enc "));
    hamlet.patch(&format!("/navigation_views/{}", fragment.replace('/', "%2F")), &[("is_pinned", "false")]).success();
    assert_eq!(view(&hamlet, &fragment).unwrap()["is_pinned"], false);
}

#[test]
fn updating_a_built_in_view_name_is_refused() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.patch("/navigation_views/inbox", &[("name", "Box")]).bad_request("BAD_REQUEST", "Built-in views cannot have a custom name.");
}

#[test]
fn updating_to_a_taken_name_is_refused_and_nothing_changes() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let taken = unique("taken ");
    add_custom(&hamlet, &custom_fragment(), &taken);
    let fragment = custom_fragment();
    let own = unique("own ");
    add_custom(&hamlet, &fragment, &own);
    hamlet
        .patch(&format!("/navigation_views/{fragment}"), &[("name", &taken), ("is_pinned", "false")])
        .bad_request("BAD_REQUEST", "Navigation view already exists.");
    let v = view(&hamlet, &fragment).unwrap();
    assert_eq!(v["name"], own.as_str());
    assert_eq!(v["is_pinned"], true);
}

#[test]
fn unknown_fragment_is_not_found() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let fragment = custom_fragment();
    hamlet.patch(&format!("/navigation_views/{fragment}"), &[("is_pinned", "true")]).error(
        404,
        "BAD_REQUEST",
        "Navigation view does not exist.",
    );
    hamlet.delete(&format!("/navigation_views/{fragment}"), &[]).error(404, "BAD_REQUEST", "Navigation view does not exist.");
}

#[test]
fn another_users_view_behaves_as_missing_and_is_unchanged() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let fragment = custom_fragment();
    add_custom(&hamlet, &fragment, &unique("private "));
    othello.patch(&format!("/navigation_views/{fragment}"), &[("is_pinned", "false")]).error(
        404,
        "BAD_REQUEST",
        "Navigation view does not exist.",
    );
    othello.delete(&format!("/navigation_views/{fragment}"), &[]).error(404, "BAD_REQUEST", "Navigation view does not exist.");
    assert_eq!(view(&hamlet, &fragment).unwrap()["is_pinned"], true);
    assert!(view(&othello, &fragment).is_none());
}

#[test]
fn removing_deletes_the_view_and_emits_remove() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let fragment = custom_fragment();
    add_custom(&hamlet, &fragment, &unique("doomed "));
    let mut queue = register_for(&hamlet, r#"["navigation_view"]"#);
    let body = hamlet.delete(&format!("/navigation_views/{fragment}"), &[]).success();
    assert_matches_openapi("DELETE", "/navigation_views/{fragment}", &body);
    queue.wait_for("navigation_view remove", |e| {
        e["type"] == "navigation_view" && e["op"] == "remove" && e["fragment"] == fragment.as_str()
    });
    assert!(view(&hamlet, &fragment).is_none());
}

#[test]
fn unknown_parameters_are_reported_as_ignored() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let fragment = custom_fragment();
    let body = hamlet
        .post("/navigation_views", &[("fragment", &fragment), ("is_pinned", "true"), ("name", &unique("ign ")), ("icon", "x")])
        .success();
    assert_eq!(body["ignored_parameters_unsupported"], serde_json::json!(["icon"]));
    let body = hamlet.patch(&format!("/navigation_views/{fragment}"), &[("is_pinned", "false"), ("color", "x")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], serde_json::json!(["color"]));
}
