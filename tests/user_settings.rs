//! `PATCH /settings`: the caller's own settings, stored, validated as Zulip does, announced
//! by `user_settings` (and the legacy events for clients that read settings at the top
//! level), shown by the register response and honoured when rendering (`translate_emoticons`).
//! Each test creates its own user, so no shared user's settings change.

mod chat;
mod common;
mod event_support;

use common::{assert_matches_openapi, unique, Client};
use event_support::register;
use serde_json::{json, Value};

fn new_user() -> Client {
    let email = format!("{}@zulip.com", unique("settings"));
    Client::dev("iago@zulip.com")
        .post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", &unique("Setter"))])
        .success();
    Client::dev(&email)
}

fn settings_object(client: &Client) -> Value {
    let state = client
        .post("/register", &[("fetch_event_types", r#"["user_settings"]"#), ("client_capabilities", r#"{"user_settings_object": true}"#)])
        .success();
    state["user_settings"].clone()
}

/// A setting, the value sent, and the value the API answers.
type Change = (&'static str, &'static str, fn() -> Value);

const CHANGES: &[Change] = &[
    ("enable_offline_push_notifications", "false", || json!(false)),
    ("enable_online_push_notifications", "false", || json!(false)),
    ("enable_stream_push_notifications", "true", || json!(true)),
    ("enable_followed_topic_push_notifications", "false", || json!(false)),
    ("pm_content_in_desktop_notifications", "false", || json!(false)),
    ("wildcard_mentions_notify", "false", || json!(false)),
    ("enable_followed_topic_wildcard_mentions_notify", "false", || json!(false)),
    ("enable_desktop_notifications", "false", || json!(false)),
    ("enable_sounds", "false", || json!(false)),
    ("translate_emoticons", "true", || json!(true)),
    ("twenty_four_hour_time", "true", || json!(true)),
    ("emojiset", "text", || json!("text")),
    ("enter_sends", "true", || json!(true)),
    ("left_side_userlist", "true", || json!(true)),
    ("timezone", "Europe/Paris", || json!("Europe/Paris")),
    ("color_scheme", "2", || json!(2)),
    ("web_home_view", "recent_topics", || json!("recent_topics")),
    ("notification_sound", "none", || json!("none")),
    ("email_notifications_batching_period_seconds", "600", || json!(600)),
    ("automatically_follow_topics_policy", "1", || json!(1)),
];

#[test]
fn changed_settings_are_stored_and_shown_by_register() {
    let user = new_user();
    let form: Vec<(&str, &str)> = CHANGES.iter().map(|(k, v, _)| (*k, *v)).collect();
    let body = user.patch("/settings", &form).success();
    assert_matches_openapi("patch", "/settings", &body);
    let settings = settings_object(&user);
    for (name, _, expected) in CHANGES {
        assert_eq!(settings[*name], expected(), "{name}");
    }
    // Untouched settings keep their defaults.
    assert_eq!(settings["enable_digest_emails"], true);
    // Clients without user_settings_object read them at the top level.
    let legacy =
        user.post("/register", &[("fetch_event_types", r#"["update_display_settings", "update_global_notifications"]"#)]).success();
    assert_eq!(legacy["emojiset"], "text");
    assert_eq!(legacy["enable_sounds"], false);
    assert_eq!(legacy["timezone"], "Europe/Paris");
}

#[test]
fn a_change_sends_user_settings_and_the_legacy_event_only_to_legacy_clients() {
    let user = new_user();
    let mut modern = register(&user, &[("client_capabilities", r#"{"user_settings_object": true}"#)]);
    let mut legacy = register(&user, &[]);
    user.patch("/settings", &[("emojiset", "twitter"), ("enable_sounds", "false")]).success();
    // The sentinel: a setting without a legacy event.
    user.patch("/settings", &[("send_read_receipts", "false")]).success();
    let is_sentinel = |e: &Value| e["type"] == "user_settings" && e["property"] == "send_read_receipts";

    let seen = legacy.events_until("sentinel", is_sentinel);
    let find = |kind: &str, key: &str, name: &str| seen.iter().find(|e| e["type"] == kind && e[key] == name).cloned();
    let update = find("user_settings", "property", "emojiset").expect("user_settings event");
    assert_eq!(update["op"], "update");
    assert_eq!(update["value"], "twitter");
    let display = find("update_display_settings", "setting_name", "emojiset").expect("update_display_settings event");
    assert_eq!(display["setting"], "twitter");
    assert_eq!(display["user"], user.email.as_str());
    let global = find("update_global_notifications", "notification_name", "enable_sounds").expect("update_global_notifications event");
    assert_eq!(global["setting"], false);

    let seen = modern.events_until("sentinel", is_sentinel);
    assert!(seen.iter().any(|e| e["type"] == "user_settings" && e["property"] == "enable_sounds" && e["value"] == false));
    assert!(seen.iter().all(|e| e["type"] != "update_display_settings" && e["type"] != "update_global_notifications"), "{seen:?}");
}

#[test]
fn a_timezone_change_is_announced_to_the_organization() {
    let user = new_user();
    let mut othello = register(&Client::dev("othello@zulip.com"), &[("event_types", r#"["realm_user"]"#)]);
    user.patch("/settings", &[("timezone", "Asia/Tokyo")]).success();
    let event = othello.wait_for("realm_user update", |e| e["op"] == "update" && e["person"]["user_id"] == user.user_id);
    assert_eq!(event["person"]["timezone"], "Asia/Tokyo");
    let seen = Client::dev("othello@zulip.com").get(&format!("/users/{}", user.user_id), &[]).success();
    assert_eq!(seen["user"]["timezone"], "Asia/Tokyo");
}

#[test]
fn a_user_who_hides_their_address_from_members_shows_them_a_placeholder() {
    let user = new_user();
    user.patch("/settings", &[("email_address_visibility", "3")]).success();
    assert_eq!(settings_object(&user)["email_address_visibility"], 3);
    let path = format!("/users/{}", user.user_id);
    let member_view = Client::dev("othello@zulip.com").get(&path, &[]).success()["user"].clone();
    assert_eq!(member_view["delivery_email"], Value::Null);
    let placeholder = member_view["email"].as_str().unwrap().to_string();
    assert!(placeholder.starts_with(&format!("user{}@", user.user_id)), "{placeholder}");
    let admin_view = Client::dev("iago@zulip.com").get(&path, &[]).success()["user"].clone();
    assert_eq!((admin_view["delivery_email"].clone(), admin_view["email"].clone()), (json!(user.email), json!(user.email)));
    assert_eq!(user.get("/users/me", &[]).success()["delivery_email"], user.email.as_str());
}

#[test]
fn who_loses_or_gains_sight_of_an_address_is_told_what_they_now_see_and_nobody_else() {
    let user = new_user();
    let mut member = register(&Client::dev("othello@zulip.com"), &[("event_types", r#"["realm_user"]"#)]);
    let mut admin = register(&Client::dev("iago@zulip.com"), &[("event_types", r#"["realm_user"]"#)]);
    let about_user = |e: &Value| e["type"] == "realm_user" && e["person"]["user_id"] == user.user_id;
    // The sentinel: a time zone change, which everyone hears of.
    let is_sentinel = |e: &Value| about_user(e) && e["person"]["timezone"] == "Asia/Tokyo";

    user.patch("/settings", &[("email_address_visibility", "3")]).success();
    user.patch("/settings", &[("timezone", "Asia/Tokyo")]).success();
    let seen = member.events_until("the time zone", is_sentinel);
    let hidden: Vec<&Value> = seen.iter().filter(|e| about_user(e) && !is_sentinel(e)).map(|e| &e["person"]).collect();
    let placeholder = Client::dev("othello@zulip.com").get(&format!("/users/{}", user.user_id), &[]).success()["user"]["email"].clone();
    assert!(hidden.iter().any(|p| p.get("delivery_email") == Some(&Value::Null)), "{seen:?}");
    assert!(hidden.iter().any(|p| p["new_email"] == placeholder), "{seen:?}");
    assert!(hidden.iter().all(|p| p.get("delivery_email").is_none_or(Value::is_null)), "{seen:?}");
    // The Gravatar avatar a client computed from the address comes as a URL.
    assert!(hidden.iter().any(|p| p["avatar_url"].is_string()), "{seen:?}");
    let seen = admin.events_until("the time zone", is_sentinel);
    assert_eq!(seen.iter().filter(|e| about_user(e)).count(), 1, "an administrator sees the address still: {seen:?}");

    user.patch("/settings", &[("email_address_visibility", "1")]).success();
    let shown = member.wait_for("the address shown again", |e| about_user(e) && e["person"].get("delivery_email").is_some());
    assert_eq!(shown["person"]["delivery_email"], user.email.as_str());
    let renamed = member.wait_for("the address as email", |e| about_user(e) && e["person"].get("new_email").is_some());
    assert_eq!(renamed["person"]["new_email"], user.email.as_str());
}

#[test]
fn no_event_shows_a_hidden_address_to_whom_may_not_see_it() {
    let user = new_user();
    user.patch("/settings", &[("email_address_visibility", "3")]).success();
    let othello = Client::dev("othello@zulip.com");
    let mut queue = register(&othello, &[("event_types", r#"["message", "typing", "reaction"]"#)]);
    let message_id = chat::send_direct(&user, &[othello.user_id], "hello");
    user.post("/typing", &[("op", "start"), ("to", &format!("[{}]", othello.user_id))]).success();
    user.post(&format!("/messages/{message_id}/reactions"), &[("emoji_name", "octopus")]).success();
    let seen = queue.events_until("the reaction", |e| e["type"] == "reaction");
    let placeholder = othello.get(&format!("/users/{}", user.user_id), &[]).success()["user"]["email"].clone();
    let message = &seen.iter().find(|e| e["type"] == "message").expect("the message event")["message"];
    assert_eq!(message["sender_email"], placeholder);
    let typing = seen.iter().find(|e| e["type"] == "typing").expect("the typing event");
    assert_eq!(typing["sender"]["email"], placeholder);
    assert!(!serde_json::to_string(&seen).unwrap().contains(&user.email), "{seen:?}");
}

#[test]
fn an_unchanged_value_sends_no_event() {
    let user = new_user();
    let mut queue = register(&user, &[("event_types", r#"["user_settings"]"#)]);
    user.patch("/settings", &[("enter_sends", "false")]).success();
    user.patch("/settings", &[("enter_sends", "true")]).success();
    let seen = queue.events_until("enter_sends update", |e| e["property"] == "enter_sends");
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["value"], true);
}

#[test]
fn invalid_values_are_bad_requests_with_zulips_messages_and_change_nothing() {
    let user = new_user();
    let cases = [
        ("translate_emoticons", "maybe", "translate_emoticons is not a boolean"),
        ("color_scheme", "7", "Invalid color_scheme"),
        ("web_font_size_px", "big", "web_font_size_px is not an integer"),
        ("emojiset", "apple", "Invalid emojiset"),
        ("web_home_view", "everything", "Invalid web_home_view"),
        ("default_language", "klingon", "Invalid default_language"),
        ("notification_sound", "boom", "Invalid notification sound 'boom'"),
        ("email_notifications_batching_period_seconds", "0", "Invalid email batching period: 0 seconds"),
        ("timezone", "Mars/Olympus_Mons", "timezone is not a recognized time zone"),
        ("email_address_visibility", "6", "Invalid email_address_visibility"),
    ];
    for (name, value, msg) in cases {
        // A valid change beside the invalid one is not stored either.
        user.patch("/settings", &[("enable_sounds", "false"), (name, value)]).bad_request("BAD_REQUEST", msg);
    }
    let settings = settings_object(&user);
    assert_eq!(settings["enable_sounds"], true);
    assert_eq!(settings["emojiset"], "google");
    assert_eq!(settings["timezone"], "");
}

#[test]
fn unknown_parameters_are_listed_as_ignored() {
    let user = new_user();
    let body = user.patch("/settings", &[("left_side_userlist", "true"), ("no_such_setting", "1")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], json!(["no_such_setting"]));
    assert_eq!(settings_object(&user)["left_side_userlist"], true);
}

#[test]
fn a_bot_may_not_change_settings() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let short = unique("settingsbot");
    let created = hamlet.post("/bots", &[("full_name", &short), ("short_name", &short)]).success();
    let bot_id = created["user_id"].as_i64().unwrap();
    let email = hamlet.get(&format!("/users/{bot_id}"), &[]).success()["user"]["email"].as_str().unwrap().to_string();
    let bot = Client { email, api_key: created["api_key"].as_str().unwrap().to_string(), user_id: bot_id, realm: None };
    bot.patch("/settings", &[("enter_sends", "true")]).bad_request("BAD_REQUEST", "This endpoint does not accept bot requests.");
}

#[test]
fn translate_emoticons_renders_the_senders_emoticons() {
    let user = new_user();
    let hamlet = Client::dev("hamlet@zulip.com");
    let plain = chat::send_direct(&user, &[hamlet.user_id], "before :)");
    assert_eq!(chat::fetch(&user, plain)["content"], "<p>before :)</p>");
    user.patch("/settings", &[("translate_emoticons", "true")]).success();
    let translated = chat::send_direct(&user, &[hamlet.user_id], "after :)");
    let html = chat::fetch(&user, translated)["content"].as_str().unwrap().to_string();
    assert!(html.contains(r#"class="emoji emoji-1f642""#), "{html}");
    let preview = user.post("/messages/render", &[("content", ":)")]).success();
    assert!(preview["rendered"].as_str().unwrap().contains("emoji-1f642"));
    // Another sender's setting is theirs: hamlet's message stays as typed.
    let theirs = chat::send_direct(&hamlet, &[user.user_id], "hamlet :)");
    assert_eq!(chat::fetch(&user, theirs)["content"], "<p>hamlet :)</p>");
}

#[test]
fn a_user_changes_their_own_full_name_and_everyone_is_told() {
    let user = new_user();
    let mut othello = event_support::register_for(&Client::dev("othello@zulip.com"), r#"["realm_user"]"#);
    let name = unique("Renamed Self");
    user.patch("/settings", &[("full_name", &name)]).success();
    let event = othello.wait_for("the rename", |e| e["type"] == "realm_user" && e["person"]["user_id"] == user.user_id);
    assert_eq!(event["op"], "update");
    assert_eq!(event["person"]["full_name"], name.as_str());
    assert_eq!(user.get("/users/me", &[]).success()["full_name"], name.as_str());
}

#[test]
fn a_full_name_that_breaks_mention_syntax_is_refused_and_nothing_changes() {
    let user = new_user();
    let before = user.get("/users/me", &[]).success()["full_name"].clone();
    user.patch("/settings", &[("full_name", "   ")]).bad_request("BAD_REQUEST", "Name too short!");
    user.patch("/settings", &[("full_name", &"x".repeat(101))]).bad_request("BAD_REQUEST", "Name too long!");
    assert_eq!(user.get("/users/me", &[]).success()["full_name"], before);
}
