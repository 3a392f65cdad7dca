//! `POST /channels/create`: one new channel with Zulip's creation parameters, its listed
//! subscribers (only them), its events, and its errors; and the same creation parameters
//! on the subscribe-to-create path. Every test creates channels of its own.

mod common;
mod event_support;

use common::*;
use event_support::*;
use serde_json::{json, Value};

fn iago() -> Client {
    Client::dev("iago@zulip.com")
}
fn hamlet() -> Client {
    Client::dev("hamlet@zulip.com")
}
fn othello() -> Client {
    Client::dev("othello@zulip.com")
}

fn create(client: &Client, name: &str, subscribers: &[i64], extra: &[(&str, &str)]) -> Resp {
    let subscribers = json!(subscribers).to_string();
    let mut form = vec![("name", name), ("subscribers", subscribers.as_str())];
    form.extend_from_slice(extra);
    client.post("/channels/create", &form)
}

fn created_id(body: &Value) -> i64 {
    body["id"].as_i64().expect("an id")
}

fn stream(client: &Client, id: i64) -> Value {
    client.get(&format!("/streams/{id}"), &[]).success()["stream"].clone()
}

fn members_of(viewer: &Client, id: i64) -> Vec<i64> {
    let body = viewer.get(&format!("/streams/{id}/members"), &[]).success();
    let mut ids: Vec<i64> = body["subscribers"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    ids.sort();
    ids
}

/// Whether a channel of that name exists (as iago, an administrator, sees it).
fn exists(name: &str) -> bool {
    iago().get("/get_stream_id", &[("stream", name)]).status == 200
}

fn system_group(name: &str) -> i64 {
    let groups = hamlet().get("/user_groups", &[]).success()["user_groups"].as_array().unwrap().clone();
    groups.iter().find(|g| g["name"] == name).unwrap()["id"].as_i64().unwrap()
}

#[test]
fn creating_a_channel_answers_its_id() {
    let name = unique("created-");
    let body = create(&hamlet(), &name, &[hamlet().user_id], &[]).success();
    assert_matches_openapi("POST", "/channels/create", &body);
    let id = created_id(&body);
    assert_eq!(stream(&hamlet(), id)["name"], name.as_str());
}

#[test]
fn only_the_listed_subscribers_are_subscribed() {
    let name = unique("listed-");
    let id = created_id(&create(&hamlet(), &name, &[othello().user_id], &[]).success());
    assert_eq!(members_of(&othello(), id), vec![othello().user_id], "the creator is not subscribed unless listed");
}

#[test]
fn a_channel_may_start_without_subscribers() {
    let name = unique("empty-");
    let id = created_id(&create(&hamlet(), &name, &[], &[]).success());
    assert!(members_of(&hamlet(), id).is_empty());
    assert_eq!(stream(&hamlet(), id)["subscriber_count"], 0);
}

#[test]
fn creation_applies_every_parameter() {
    let name = unique("configured-");
    let folder = iago().post("/channel_folders/create", &[("name", &unique("folder-")), ("description", "")]).success()
        ["channel_folder_id"]
        .as_i64()
        .unwrap();
    let admins = system_group("role:administrators").to_string();
    let folder = folder.to_string();
    let extra = [
        ("description", "All about **music**"),
        ("invite_only", "true"),
        ("history_public_to_subscribers", "true"),
        ("folder_id", folder.as_str()),
        ("message_retention_days", "3650"),
        ("announce", "false"),
        ("send_new_subscription_messages", "false"),
        ("topics_policy", "disable_empty_topic"),
        ("can_send_message_group", admins.as_str()),
        ("can_add_subscribers_group", admins.as_str()),
        ("can_remove_subscribers_group", admins.as_str()),
        ("can_subscribe_group", admins.as_str()),
        ("can_move_messages_within_channel_group", admins.as_str()),
        ("can_resolve_topics_group", admins.as_str()),
        ("can_delete_any_message_group", admins.as_str()),
        ("can_delete_own_message_group", admins.as_str()),
    ];
    // The owner: only owners set a retention policy.
    let id = created_id(&create(&Client::dev("desdemona@zulip.com"), &name, &[hamlet().user_id], &extra).success());
    let s = stream(&hamlet(), id);
    assert_eq!(s["description"], "All about **music**");
    assert_eq!((s["invite_only"].as_bool(), s["history_public_to_subscribers"].as_bool()), (Some(true), Some(true)));
    assert_eq!(s["folder_id"].to_string(), folder);
    assert_eq!(s["message_retention_days"], 3650);
    assert_eq!(s["topics_policy"], "disable_empty_topic");
    for (setting, _) in &extra[8..] {
        assert_eq!(s[setting].to_string(), admins, "{setting}");
    }
    let owner = Client::dev("desdemona@zulip.com").user_id;
    assert_eq!(s["can_administer_channel_group"], json!({"direct_members": [owner], "direct_subgroups": []}), "its creator administers it");
}

#[test]
fn a_private_channel_keeps_its_history_from_new_subscribers_by_default() {
    let name = unique("protected-");
    let id = created_id(&create(&hamlet(), &name, &[hamlet().user_id], &[("invite_only", "true")]).success());
    let s = stream(&hamlet(), id);
    assert_eq!((s["invite_only"].as_bool(), s["history_public_to_subscribers"].as_bool()), (Some(true), Some(false)));
    othello().get(&format!("/streams/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid channel ID");
}

#[test]
fn a_taken_name_is_refused_with_a_conflict() {
    let name = unique("taken-");
    let id = created_id(&create(&hamlet(), &name, &[hamlet().user_id], &[]).success());
    let body = create(&iago(), &name.to_uppercase(), &[othello().user_id], &[]).error(
        409,
        "CHANNEL_ALREADY_EXISTS",
        &format!("Channel '{name}' already exists"),
    );
    assert_eq!(body["result"], "error");
    assert_eq!(members_of(&hamlet(), id), vec![hamlet().user_id], "the refused request subscribed nobody");
}

#[test]
fn an_empty_name_is_refused() {
    create(&hamlet(), "  ", &[hamlet().user_id], &[]).bad_request("BAD_REQUEST", "Channel name can't be empty.");
}

#[test]
fn a_name_over_sixty_characters_is_refused() {
    let name = format!("{}{}", unique("long-"), "x".repeat(61));
    create(&hamlet(), &name, &[hamlet().user_id], &[]).bad_request("BAD_REQUEST", "Channel name too long (limit: 60 characters).");
    assert!(!exists(&name));
}

#[test]
fn subscribers_are_required() {
    hamlet()
        .post("/channels/create", &[("name", &unique("no-subscribers-"))])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'subscribers' argument");
}

#[test]
fn only_moderators_and_up_create_a_channel_with_its_own_topics_policy() {
    let name = unique("topics-policy-");
    let policy = [("topics_policy", "disable_empty_topic")];
    create(&hamlet(), &name, &[hamlet().user_id], &policy).bad_request("BAD_REQUEST", "Insufficient permission");
    assert!(!exists(&name), "the refused request created nothing");
    let id = created_id(&create(&Client::dev("shiva@zulip.com"), &name, &[hamlet().user_id], &policy).success());
    assert_eq!(stream(&hamlet(), id)["topics_policy"], "disable_empty_topic");
}

#[test]
fn guests_may_not_create_channels() {
    let polonius = Client::dev("polonius@zulip.com");
    let name = unique("guest-made-");
    create(&polonius, &name, &[polonius.user_id], &[]).bad_request("BAD_REQUEST", "Insufficient permission");
    assert!(!exists(&name));
}

#[test]
fn web_public_channels_are_refused() {
    let name = unique("web-public-");
    create(&iago(), &name, &[iago().user_id], &[("is_web_public", "true")])
        .bad_request("BAD_REQUEST", "Web-public channels are not enabled.");
    assert!(!exists(&name));
}

#[test]
fn only_owners_set_a_retention_policy() {
    let name = unique("retained-");
    create(&hamlet(), &name, &[hamlet().user_id], &[("message_retention_days", "\"realm_default\"")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
    assert!(!exists(&name));
}

#[test]
fn an_unknown_subscriber_creates_nothing() {
    let name = unique("unknown-subscriber-");
    let resp = create(&hamlet(), &name, &[987654321], &[]);
    assert_eq!(resp.status, 403, "{}", resp.body);
    assert!(!exists(&name));
}

#[test]
fn an_unsuitable_group_creates_nothing() {
    let name = unique("unsuitable-");
    let everyone = system_group("role:everyone").to_string();
    create(&hamlet(), &name, &[hamlet().user_id], &[("can_subscribe_group", &everyone)])
        .bad_request("BAD_REQUEST", "'can_subscribe_group' setting cannot be set to 'role:everyone' group.");
    assert!(!exists(&name));
}

#[test]
fn creation_tells_everyone_of_a_public_channel_and_its_subscribers_of_their_subscription() {
    let name = unique("announced-");
    let mut watcher = register_for(&othello(), r#"["stream", "subscription"]"#);
    let mut subscriber = register_for(&hamlet(), r#"["subscription"]"#);
    let id = created_id(&create(&iago(), &name, &[hamlet().user_id], &[("description", "news")]).success());
    let created = watcher.wait_for("stream create", |e| e["type"] == "stream" && e["op"] == "create" && e["streams"][0]["stream_id"] == id);
    let channel = &created["streams"][0];
    assert_eq!((channel["name"].as_str(), channel["description"].as_str()), (Some(name.as_str()), Some("news")));
    let added = subscriber
        .wait_for("subscription add", |e| e["type"] == "subscription" && e["op"] == "add" && e["subscriptions"][0]["stream_id"] == id);
    assert_eq!(added["subscriptions"][0]["name"], name.as_str());
}

#[test]
fn a_private_channel_is_announced_only_to_its_subscribers() {
    let name = unique("quiet-");
    let mut outsider = register_for(&othello(), r#"["stream"]"#);
    let id = created_id(&create(&hamlet(), &name, &[hamlet().user_id], &[("invite_only", "true")]).success());
    // A public channel created after it: its event proves the private one's would have come.
    let sentinel = created_id(&create(&hamlet(), &unique("sentinel-"), &[hamlet().user_id], &[]).success());
    let events = outsider.events_until("the sentinel", |e| e["type"] == "stream" && e["streams"][0]["stream_id"] == sentinel);
    assert!(!events.iter().any(|e| e["streams"][0]["stream_id"] == id), "{events:?}");
}

// ---- the subscribe-to-create path

#[test]
fn subscribing_creates_with_the_same_parameters() {
    let name = unique("subscribe-made-");
    let subs = json!([{ "name": name, "description": "made by subscribing" }]).to_string();
    let admins = system_group("role:administrators").to_string();
    let form = [("subscriptions", subs.as_str()), ("can_resolve_topics_group", admins.as_str()), ("can_subscribe_group", admins.as_str())];
    hamlet().post("/users/me/subscriptions", &form).success();
    let id = hamlet().get("/get_stream_id", &[("stream", &name)]).success()["stream_id"].as_i64().unwrap();
    let s = stream(&hamlet(), id);
    assert_eq!(s["description"], "made by subscribing");
    assert_eq!(s["can_resolve_topics_group"].to_string(), admins);
    assert_eq!(s["can_subscribe_group"].to_string(), admins);
}

#[test]
fn subscribing_refuses_web_public_creation() {
    let name = unique("subscribe-web-public-");
    let subs = json!([{ "name": name }]).to_string();
    iago()
        .post("/users/me/subscriptions", &[("subscriptions", &subs), ("is_web_public", "true")])
        .bad_request("BAD_REQUEST", "Web-public channels are not enabled.");
    assert!(!exists(&name));
}

#[test]
fn is_default_stream_makes_a_new_channel_a_default_channel_for_administrators_only() {
    let name = unique("default-");
    create(&hamlet(), &name, &[], &[("is_default_stream", "true")]).bad_request("BAD_REQUEST", "Insufficient permission");
    create(&iago(), &name, &[], &[("is_default_stream", "true"), ("invite_only", "true")])
        .bad_request("BAD_REQUEST", "A default channel cannot be private.");
    assert!(!exists(&name), "a refused creation creates nothing");
    let id = created_id(&create(&iago(), &name, &[], &[("is_default_stream", "true")]).success());
    let streams = iago().get("/streams", &[("include_default", "true")]).success();
    let created = streams["streams"].as_array().unwrap().iter().find(|s| s["stream_id"] == id).cloned().expect("listed");
    assert_eq!(created["is_default"], true, "{created}");
}
