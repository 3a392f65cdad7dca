//! Channels and subscriptions.

mod chat;
mod common;
use chat::*;
use common::*;
use serde_json::{json, Value};

fn subs(name: &str) -> String {
    json!([{ "name": name }]).to_string()
}

#[test]
fn subscribing_creates_a_missing_channel() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("create");
    let body = hamlet.post("/users/me/subscriptions", &[("subscriptions", &subs(&name))]).success();
    assert_eq!(body["subscribed"][hamlet.user_id.to_string()], json!([name]));
    assert_eq!(body["already_subscribed"], json!({}));
    assert!(body.get("unauthorized").is_none());
    let id = hamlet.get("/get_stream_id", &[("stream", &name)]).success()["stream_id"].as_i64().unwrap();
    let stream = hamlet.get(&format!("/streams/{id}"), &[]).success()["stream"].clone();
    assert_channel_shape(&stream);
    assert_eq!(stream["name"], name.as_str());
    assert_eq!(stream["invite_only"], false);
    assert_eq!(stream["history_public_to_subscribers"], true);
    assert_eq!(stream["creator_id"], hamlet.user_id);
    assert_eq!(stream["subscriber_count"], 1);
}

#[test]
fn subscribing_again_reports_already_subscribed() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("again");
    create_channel(&hamlet, &name, &[], &[]);
    let body = hamlet.post("/users/me/subscriptions", &[("subscriptions", &subs(&name))]).success();
    assert_eq!(body["already_subscribed"][hamlet.user_id.to_string()], json!([name]));
    assert_eq!(body["subscribed"], json!({}));
}

#[test]
fn principals_subscribe_other_users() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("principals");
    let body =
        hamlet.post("/users/me/subscriptions", &[("subscriptions", &subs(&name)), ("principals", "[\"othello@zulip.com\"]")]).success();
    assert_eq!(body["subscribed"][othello.user_id.to_string()], json!([name]));
    let id = othello.get("/get_stream_id", &[("stream", &name)]).success()["stream_id"].as_i64().unwrap();
    let members = othello.get(&format!("/streams/{id}/members"), &[]).success()["subscribers"].clone();
    assert_eq!(members, json!([othello.user_id]));
}

#[test]
fn unknown_principal_is_unauthorized_principal() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("bad-principal");
    hamlet.post("/users/me/subscriptions", &[("subscriptions", &subs(&name)), ("principals", "[\"nobody@zulip.com\"]")]).error(
        403,
        "UNAUTHORIZED_PRINCIPAL",
        "User not authorized to execute queries on behalf of 'nobody@zulip.com'",
    );
}

#[test]
fn guests_cannot_create_channels() {
    let polonius = Client::dev("polonius@zulip.com");
    polonius
        .post("/users/me/subscriptions", &[("subscriptions", &subs(&unique("guest")))])
        .bad_request("BAD_REQUEST", "Insufficient permission");
}

#[test]
fn private_channel_is_unauthorized_for_outsiders() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("private");
    create_channel(&hamlet, &name, &[("invite_only", "true")], &[]);
    othello
        .post("/users/me/subscriptions", &[("subscriptions", &subs(&name))])
        .bad_request("BAD_REQUEST", &format!("Unable to access channel ({name})."));
    let body =
        othello.post("/users/me/subscriptions", &[("subscriptions", &subs(&name)), ("authorization_errors_fatal", "false")]).success();
    assert_eq!(body["unauthorized"], json!([name]));
    assert_eq!(body["subscribed"], json!({}));
}

#[test]
fn private_channel_defaults_to_protected_history() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("private-history");
    let id = create_channel(&hamlet, &name, &[("invite_only", "true")], &[]);
    let stream = hamlet.get(&format!("/streams/{id}"), &[]).success()["stream"].clone();
    assert_eq!(stream["invite_only"], true);
    assert_eq!(stream["history_public_to_subscribers"], false);
}

#[test]
fn private_channel_is_invisible_to_outsiders() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("hidden");
    let id = create_channel(&hamlet, &name, &[("invite_only", "true")], &[]);
    othello.get(&format!("/streams/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid channel ID");
    othello.get("/get_stream_id", &[("stream", &name)]).bad_request("BAD_REQUEST", &format!("Invalid channel name '{name}'"));
    othello.get(&format!("/streams/{id}/members"), &[]).bad_request("BAD_REQUEST", "Invalid channel ID");
    let streams = othello.get("/streams", &[]).success()["streams"].clone();
    assert!(!streams.as_array().unwrap().iter().any(|s| s["stream_id"] == id));
}

#[test]
fn subscriptions_have_every_property() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("props");
    let id = create_channel(&hamlet, &name, &[], &[]);
    let body = hamlet.get("/users/me/subscriptions", &[("include_subscribers", "true")]).success();
    let sub = body["subscriptions"].as_array().unwrap().iter().find(|s| s["stream_id"] == id).unwrap().clone();
    assert_channel_shape(&sub);
    for p in SUBSCRIPTION_PROPERTIES {
        assert!(sub.get(*p).is_some(), "missing {p}: {sub}");
    }
    assert_eq!(sub["in_home_view"], true);
    assert_eq!(sub["is_muted"], false);
    assert_eq!(sub["subscribers"], json!([hamlet.user_id]));
}

#[test]
fn unsubscribing_reports_removed_and_not_removed() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("leave");
    create_channel(&hamlet, &name, &[], &[]);
    let list = json!([name]).to_string();
    let body = hamlet.delete("/users/me/subscriptions", &[("subscriptions", &list)]).success();
    assert_eq!(body["removed"], json!([name]));
    assert_eq!(body["not_removed"], json!([]));
    let body = hamlet.delete("/users/me/subscriptions", &[("subscriptions", &list)]).success();
    assert_eq!(body["not_removed"], json!([name]));
}

#[test]
fn unsubscribing_from_a_missing_channel_is_an_error() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("nowhere");
    hamlet
        .delete("/users/me/subscriptions", &[("subscriptions", &json!([name]).to_string())])
        .bad_request("BAD_REQUEST", &format!("Channel(s) ({name}) do not exist"));
}

#[test]
fn patching_subscriptions_adds_and_removes_in_one_request() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (leaving, joining) = (unique("patch leave"), unique("patch join"));
    create_channel(&hamlet, &leaving, &[], &[]);
    let add = json!([{ "name": joining, "description": "joined by a patch" }]).to_string();
    let delete = json!([leaving]).to_string();
    let body = hamlet.patch("/users/me/subscriptions", &[("add", &add), ("delete", &delete)]).success();
    assert_matches_openapi("patch", "/users/me/subscriptions", &body);
    assert_eq!(body["subscribed"][hamlet.user_id.to_string()], json!([joining]));
    assert_eq!(body["already_subscribed"], json!({}));
    assert_eq!((body["removed"].clone(), body["not_removed"].clone()), (json!([leaving]), json!([])));
    let names: Vec<Value> = hamlet.get("/users/me/subscriptions", &[]).success()["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert!(names.contains(&json!(joining)) && !names.contains(&json!(leaving)), "{names:?}");
}

#[test]
fn patching_subscriptions_with_nothing_to_do_is_an_error() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .patch("/users/me/subscriptions", &[("add", "[]")])
        .bad_request("BAD_REQUEST", "Nothing to do. Specify at least one of \"add\" or \"delete\".");
}

#[test]
fn a_patch_leaving_a_missing_channel_adds_nothing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (missing, joining) = (unique("patch nowhere"), unique("patch not created"));
    let add = json!([{ "name": joining }]).to_string();
    hamlet
        .patch("/users/me/subscriptions", &[("add", &add), ("delete", &json!([missing]).to_string())])
        .bad_request("BAD_REQUEST", &format!("Channel(s) ({missing}) do not exist"));
    hamlet.get("/get_stream_id", &[("stream", &joining)]).bad_request("BAD_REQUEST", &format!("Invalid channel name '{joining}'"));
}

#[test]
fn removing_others_needs_an_administrator() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let name = unique("kick");
    // Created by an administrator: a channel's creator administers it, and may remove others.
    create_channel(&iago, &name, &[], &[othello.user_id]);
    let list = json!([name]).to_string();
    let principals = json!([othello.user_id]).to_string();
    hamlet
        .delete("/users/me/subscriptions", &[("subscriptions", &list), ("principals", &principals)])
        .bad_request("BAD_REQUEST", "Insufficient permission");
    let body = iago.delete("/users/me/subscriptions", &[("subscriptions", &list), ("principals", &principals)]).success();
    assert_eq!(body["removed"], json!([name]));
}

#[test]
fn streams_lists_public_channels() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let name = unique("listed");
    let id = create_channel(&hamlet, &name, &[], &[]);
    let streams = cordelia.get("/streams", &[]).success()["streams"].clone();
    let found = streams.as_array().unwrap().iter().find(|s| s["stream_id"] == id).expect("public channel listed").clone();
    assert_channel_shape(&found);
}

/// The topics of channel `id` as `client` sees them, but for the notification bot's
/// "channel events" topic that opens every new channel.
fn topics_after_the_opening(client: &Client, id: i64) -> Value {
    let topics = client.get(&format!("/users/me/{id}/topics"), &[]).success()["topics"].clone();
    topics.as_array().unwrap().iter().filter(|t| t["name"] != "channel events").cloned().collect()
}

#[test]
fn topics_are_listed_most_recent_first() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("topics");
    let id = create_channel(&hamlet, &name, &[], &[]);
    let first = send_to_channel(&hamlet, &name, "alpha", "1");
    let second = send_to_channel(&hamlet, &name, "beta", "2");
    let topics = topics_after_the_opening(&hamlet, id);
    assert_eq!(topics, json!([{ "name": "beta", "max_id": second }, { "name": "alpha", "max_id": first }]));
}

#[test]
fn topics_of_a_channel_with_protected_history_are_those_the_user_received() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    for history_public in [false, true] {
        let (name, id) = new_channel(&hamlet, &[], true, history_public);
        let before = send_to_channel_id(&hamlet, id, "before", "1");
        hamlet
            .post("/users/me/subscriptions", &[("subscriptions", &subs(&name)), ("principals", &json!([othello.user_id]).to_string())])
            .success();
        let after = send_to_channel_id(&hamlet, id, "after", "2");
        let topics = topics_after_the_opening(&othello, id);
        let mut expected = vec![json!({ "name": "after", "max_id": after })];
        if history_public {
            expected.push(json!({ "name": "before", "max_id": before }));
        }
        assert_eq!(topics, json!(expected), "history public to subscribers: {history_public}");
    }
}

#[test]
fn realm_settings_are_changed_by_administrators_only() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .patch("/realm", &[("allow_message_editing", "false")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    let body = king.patch("/realm", &[("message_content_edit_limit_seconds", "1200")]).success();
    assert_eq!(body["message_content_edit_limit_seconds"], 1200);
    let body = king.patch("/realm", &[("message_content_edit_limit_seconds", "600")]).success();
    assert_eq!(body["message_content_edit_limit_seconds"], 600);
    king.patch("/realm", &[("message_content_edit_limit_seconds", "-5")])
        .bad_request("BAD_REQUEST", "Bad value for 'message_content_edit_limit_seconds': -5");
}

#[test]
fn realm_group_settings_take_a_group_id() {
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    king.patch("/realm", &[("can_mention_many_users_group", "99999999")]).bad_request("BAD_REQUEST", "Invalid user group");
}

#[test]
fn realm_group_settings_accept_a_system_group_id() {
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    let id = create_channel(&king, &unique("groups"), &[], &[]);
    let stream = king.get(&format!("/streams/{id}"), &[]).success()["stream"].clone();
    // Channel objects name the system groups by id: role:administrators and role:everyone.
    let administrators = stream["can_remove_subscribers_group"].as_i64().unwrap().to_string();
    let everyone = stream["can_send_message_group"].as_i64().unwrap().to_string();
    // Setting the defaults again changes no behaviour for other tests.
    let body =
        king.patch("/realm", &[("can_resolve_topics_group", &everyone), ("can_mention_many_users_group", &administrators)]).success();
    assert_eq!(body["can_resolve_topics_group"].to_string(), everyone);
    assert_eq!(body["can_mention_many_users_group"].to_string(), administrators);
    let new_form = format!("{{\"new\": {administrators}}}");
    king.patch("/realm", &[("can_mention_many_users_group", &new_form)]).success();
    king.patch("/realm", &[("can_move_messages_between_channels_group", &everyone)])
        .bad_request("BAD_REQUEST", "'can_move_messages_between_channels_group' setting cannot be set to 'role:everyone' group.");
}

#[test]
fn subscription_status_says_whether_a_person_is_subscribed() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("status");
    let id = create_channel(&hamlet, &name, &[], &[]);
    let status = |user_id: i64| othello.get(&format!("/users/{user_id}/subscriptions/{id}"), &[]).success()["is_subscribed"].clone();
    assert_eq!((status(hamlet.user_id), status(othello.user_id)), (json!(true), json!(false)));
}

#[test]
fn subscription_status_needs_a_known_person_and_a_visible_channel() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let public = create_channel(&hamlet, &unique("status-public"), &[], &[]);
    othello.get(&format!("/users/99999999/subscriptions/{public}"), &[]).bad_request("BAD_REQUEST", "No such user");
    let private = create_channel(&hamlet, &unique("status-private"), &[("invite_only", "true")], &[]);
    othello.get(&format!("/users/{}/subscriptions/{private}", hamlet.user_id), &[]).bad_request("BAD_REQUEST", "Invalid channel ID");
}
