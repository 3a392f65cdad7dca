//! Administering a channel: `PATCH /streams/{stream_id}` (name, description, access,
//! message retention, unarchiving), archiving (`DELETE /streams/{stream_id}`), deleting a
//! topic, and the channel's email address; who may do each, the `stream` events, the
//! notification bot's messages in "channel events", and what a refused request leaves.

mod chat;
mod common;
mod event_support;

use chat::{new_channel, send_to_channel, silent_mention, topic_ids};
use common::*;
use event_support::*;
use serde_json::{json, Value};

const CHANNEL_EVENTS: &str = "channel events";

fn stream(client: &Client, id: i64) -> Value {
    client.get(&format!("/streams/{id}"), &[]).success()["stream"].clone()
}

/// A queue for channel and message events with raw Markdown, and the capabilities given.
fn watch(client: &Client, capabilities: &str) -> Queue {
    register(
        client,
        &[
            ("event_types", r#"["stream", "message", "subscription", "delete_message"]"#),
            ("apply_markdown", "false"),
            ("client_capabilities", capabilities),
        ],
    )
}

fn stream_update(id: i64, property: &'static str) -> impl Fn(&Value) -> bool {
    move |e: &Value| e["type"] == "stream" && e["op"] == "update" && e["stream_id"] == id && e["property"] == property
}

/// The next notification-bot message in the channel's "channel events" topic.
#[track_caller]
fn channel_notice(queue: &mut Queue, channel_id: i64) -> String {
    let event = queue.wait_for("channel events notice", |e| {
        e["type"] == "message" && e["message"]["stream_id"] == channel_id && e["message"]["subject"] == CHANNEL_EVENTS
    });
    assert_eq!(event["message"]["sender_email"], "notification-bot@zulip.com");
    event["message"]["content"].as_str().unwrap().to_string()
}

#[test]
fn an_administrator_renames_a_channel_and_its_viewers_hear_of_it() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let (old, id) = new_channel(&hamlet, &[], false, true);
    let mut queue = watch(&hamlet, "{}");
    let new = unique("renamed-");
    let body = iago.patch(&format!("/streams/{id}"), &[("new_name", &format!("  {new} "))]).success();
    assert_matches_openapi("PATCH", "/streams/{stream_id}", &body);
    let event = queue.wait_for("rename", stream_update(id, "name"));
    assert_eq!((event["value"].as_str(), event["name"].as_str()), (Some(new.as_str()), Some(old.as_str())));
    let notice = channel_notice(&mut queue, id);
    assert_eq!(notice, format!("{} renamed channel **{old}** to **{new}**.", silent_mention("Iago", iago.user_id)));
    assert_eq!(stream(&hamlet, id)["name"], new.as_str());
    assert_eq!(hamlet.get("/get_stream_id", &[("stream", &new)]).success()["stream_id"], id);
}

#[test]
fn a_rename_to_the_same_or_a_taken_name_is_refused_but_a_change_of_case_is_not() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let (name, id) = new_channel(&hamlet, &[], false, true);
    let (taken, _) = new_channel(&hamlet, &[], false, true);
    let path = format!("/streams/{id}");
    iago.patch(&path, &[("new_name", &name)]).bad_request("BAD_REQUEST", "Channel already has that name.");
    iago.patch(&path, &[("new_name", &taken.to_uppercase())]).bad_request("BAD_REQUEST", "Channel name already in use.");
    iago.patch(&path, &[("new_name", " ")]).bad_request("BAD_REQUEST", "Channel name can't be empty.");
    assert_eq!(stream(&hamlet, id)["name"], name.as_str());
    iago.patch(&path, &[("new_name", &name.to_uppercase())]).success();
    assert_eq!(stream(&hamlet, id)["name"], name.to_uppercase());
}

#[test]
fn only_administrators_administer_a_channel() {
    let hamlet = Client::dev("hamlet@zulip.com");
    // Created by an administrator: a channel's creator administers it.
    let (name, id) = new_channel(&Client::dev("iago@zulip.com"), &[], false, true);
    let path = format!("/streams/{id}");
    for email in ["hamlet@zulip.com", "shiva@zulip.com", "polonius@zulip.com"] {
        let client = Client::dev(email);
        let refused =
            if email == "polonius@zulip.com" { "Invalid channel ID" } else { "You do not have permission to administer this channel." };
        client.patch(&path, &[("new_name", &unique("nope-")), ("description", "x")]).bad_request("BAD_REQUEST", refused);
        client.delete(&path, &[]).bad_request("BAD_REQUEST", refused);
    }
    let after = stream(&hamlet, id);
    assert_eq!(
        (after["name"].as_str(), after["description"].as_str(), after["is_archived"].as_bool()),
        (Some(name.as_str()), Some(""), Some(false))
    );
    // The owner administers too.
    Client::dev("desdemona@zulip.com").patch(&path, &[("description", "By the owner")]).success();
    assert_eq!(stream(&hamlet, id)["description"], "By the owner");
}

#[test]
fn a_description_change_carries_its_rendering_and_the_old_and_new_text() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, id) = new_channel(&hamlet, &[], false, true);
    let mut queue = watch(&hamlet, "{}");
    iago.patch(&format!("/streams/{id}"), &[("description", "Plans\nand <ideas>")]).success();
    let event = queue.wait_for("description", stream_update(id, "description"));
    assert_eq!(event["value"], "Plans and <ideas>");
    assert_eq!(event["rendered_description"], "<p>Plans and &lt;ideas&gt;</p>");
    let notice = channel_notice(&mut queue, id);
    assert_eq!(
        notice,
        format!(
            "{} changed the description for this channel.\n\n* **Old description:**\n```` quote\n*No description.*\n````\n\
             * **New description:**\n```` quote\nPlans and <ideas>\n````",
            silent_mention("Iago", iago.user_id)
        )
    );
    let shown = stream(&hamlet, id);
    assert_eq!(
        (shown["description"].as_str(), shown["rendered_description"].as_str()),
        (Some("Plans and <ideas>"), Some("<p>Plans and &lt;ideas&gt;</p>"))
    );
    iago.patch(&format!("/streams/{id}"), &[("description", &"d".repeat(1025))])
        .bad_request("BAD_REQUEST", "description is too long (limit: 1024 characters)");
    assert_eq!(stream(&hamlet, id)["description"], "Plans and <ideas>");
}

#[test]
fn making_a_channel_private_protects_its_history_and_hides_it_from_outsiders() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let (_, id) = new_channel(&hamlet, &[], false, true);
    let mut queue = watch(&hamlet, "{}");
    iago.patch(&format!("/streams/{id}"), &[("is_private", "true")]).success();
    let event = queue.wait_for("privacy", stream_update(id, "invite_only"));
    assert_eq!(
        (&event["value"], &event["history_public_to_subscribers"], &event["is_web_public"]),
        (&json!(true), &json!(false), &json!(false))
    );
    let notice = channel_notice(&mut queue, id);
    assert_eq!(
        notice,
        format!(
            "{} changed the [access permissions](/help/channel-permissions) for this channel from **Public** to **Private, protected history**.",
            silent_mention("Iago", iago.user_id)
        )
    );
    let shown = stream(&hamlet, id);
    assert_eq!((shown["invite_only"].as_bool(), shown["history_public_to_subscribers"].as_bool()), (Some(true), Some(false)));
    othello.get(&format!("/streams/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid channel ID");
}

#[test]
fn making_a_channel_private_is_a_deletion_for_those_who_no_longer_see_it() {
    let (_, id) = new_channel(&Client::dev("hamlet@zulip.com"), &[], false, true);
    let mut queue = register_for(&Client::dev("othello@zulip.com"), r#"["stream", "message"]"#);
    Client::dev("iago@zulip.com").patch(&format!("/streams/{id}"), &[("is_private", "true")]).success();
    let events = queue.events_before_sentinel();
    let about: Vec<&Value> =
        events.iter().filter(|e| e["type"] == "stream" && (e["stream_id"] == id || e["stream_ids"] == json!([id]))).collect();
    assert_eq!(about.len(), 1, "{about:?}");
    assert_eq!(about[0]["op"], "delete");
}

#[test]
fn making_a_private_channel_public_shows_it_to_those_who_could_not_see_it() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let (name, id) = new_channel(&hamlet, &[&iago], true, false);
    let mut outsider = register_for(&othello, r#"["stream", "subscription"]"#);
    let mut subscriber = register_for(&hamlet, r#"["stream"]"#);
    iago.patch(&format!("/streams/{id}"), &[("is_private", "false")]).success();
    let created = outsider.wait_for("create", |e| e["type"] == "stream" && e["op"] == "create" && e["streams"][0]["stream_id"] == id);
    assert_eq!((created["streams"][0]["stream_id"].as_i64(), created["streams"][0]["name"].as_str()), (Some(id), Some(name.as_str())));
    assert_eq!(created["streams"][0]["invite_only"], false);
    let peers = outsider.wait_for("peer_add", |e| e["type"] == "subscription" && e["op"] == "peer_add" && e["stream_ids"] == json!([id]));
    let mut subscribers: Vec<i64> = peers["user_ids"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    subscribers.sort();
    let mut expected = vec![hamlet.user_id, iago.user_id];
    expected.sort();
    assert_eq!((peers["stream_ids"].clone(), subscribers), (json!([id]), expected));
    let update = subscriber.wait_for("privacy", stream_update(id, "invite_only"));
    assert_eq!((&update["value"], &update["history_public_to_subscribers"]), (&json!(false), &json!(true)));
    assert_eq!(stream(&othello, id)["invite_only"], false);
}

#[test]
fn changing_privacy_needs_access_to_the_channel_content() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, id) = new_channel(&hamlet, &[], true, false);
    iago.patch(&format!("/streams/{id}"), &[("is_private", "false")]).bad_request("BAD_REQUEST", "Channel content access is required.");
    assert_eq!(stream(&hamlet, id)["invite_only"], true);
}

#[test]
fn refused_access_combinations_change_nothing() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, id) = new_channel(&hamlet, &[], false, true);
    let path = format!("/streams/{id}");
    iago.patch(&path, &[("history_public_to_subscribers", "false")]).bad_request("BAD_REQUEST", "Invalid parameters");
    iago.patch(&path, &[("is_private", "false"), ("history_public_to_subscribers", "false")])
        .bad_request("BAD_REQUEST", "Invalid parameters");
    iago.patch(&path, &[("is_web_public", "true")]).bad_request("BAD_REQUEST", "Web-public channels are not enabled.");
    // Checked before the rename it comes with, which does not happen either.
    iago.patch(&path, &[("is_private", "true"), ("is_web_public", "true"), ("new_name", &unique("never-"))])
        .bad_request("BAD_REQUEST", "Invalid parameters");
    let shown = stream(&hamlet, id);
    assert_eq!(
        (shown["invite_only"].as_bool(), shown["history_public_to_subscribers"].as_bool(), shown["is_web_public"].as_bool()),
        (Some(false), Some(true), Some(false))
    );
    assert!(shown["name"].as_str().unwrap().starts_with("edit-"));
}

#[test]
fn message_retention_is_for_owners_and_bad_values_change_nothing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, id) = new_channel(&hamlet, &[], false, true);
    let path = format!("/streams/{id}");
    let iago = Client::dev("iago@zulip.com");
    iago.patch(&path, &[("message_retention_days", "30")]).error(400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
    let owner = Client::dev("desdemona@zulip.com");
    for refused in ["soon", "0", "-3"] {
        owner
            .patch(&path, &[("message_retention_days", refused)])
            .bad_request("BAD_REQUEST", &format!("Bad value for 'message_retention_days': {refused}"));
    }
    assert!(stream(&hamlet, id)["message_retention_days"].is_null());
}

#[test]
fn an_owner_sets_a_channel_retention_period_and_the_channel_is_told() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let owner = Client::dev("desdemona@zulip.com");
    let (_, id) = new_channel(&hamlet, &[], false, true);
    let path = format!("/streams/{id}");
    let mut queue = watch(&hamlet, "{}");
    owner.patch(&path, &[("message_retention_days", "3650")]).success();
    assert_eq!(queue.wait_for("retention", stream_update(id, "message_retention_days"))["value"], 3650);
    let by = silent_mention("Desdemona", owner.user_id);
    let notice = |old: &str, new: &str, summary: &str| {
        format!(
            "{by} has changed the [message retention period](/help/message-retention-policy) for this channel:\n\
             * **Old retention period**: {old}\n* **New retention period**: {new}\n\n{summary}"
        )
    };
    let deleted = "Messages in this channel will now be automatically deleted 3650 days after they are sent.";
    assert_eq!(channel_notice(&mut queue, id), notice("Forever", "3650 days", deleted));
    assert_eq!(stream(&hamlet, id)["message_retention_days"], 3650);

    owner.patch(&path, &[("message_retention_days", "\"unlimited\"")]).success();
    assert_eq!(queue.wait_for("forever", stream_update(id, "message_retention_days"))["value"], -1);
    let kept = "Messages in this channel will now be retained forever.";
    assert_eq!(channel_notice(&mut queue, id), notice("3650 days", "Forever", kept));

    owner.patch(&path, &[("message_retention_days", "\"realm_default\"")]).success();
    assert!(queue.wait_for("organization's", stream_update(id, "message_retention_days"))["value"].is_null());
    assert!(stream(&hamlet, id)["message_retention_days"].is_null());
}

#[test]
fn a_channels_topics_policy_is_announced_and_governs_sending() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (name, id) = new_channel(&Client::dev("iago@zulip.com"), &[], false, true);
    let mut queue = watch(&hamlet, "{}");
    hamlet
        .patch(&format!("/streams/{id}"), &[("topics_policy", "empty_topic_only")])
        .bad_request("BAD_REQUEST", "You do not have permission to administer this channel.");
    Client::dev("iago@zulip.com").patch(&format!("/streams/{id}"), &[("topics_policy", "empty_topic_only")]).success();
    assert_eq!(queue.wait_for("topics policy", stream_update(id, "topics_policy"))["value"], "empty_topic_only");
    assert_eq!(stream(&hamlet, id)["topics_policy"], "empty_topic_only");
    let send = |topic: &str| hamlet.post("/messages", &[("type", "stream"), ("to", name.as_str()), ("topic", topic), ("content", "hi")]);
    send("named").bad_request("BAD_REQUEST", "Only the general chat topic is allowed in this channel.");
    send("").success();
}

#[test]
fn only_moderators_and_up_give_a_channel_its_own_topics_policy() {
    let iago = Client::dev("iago@zulip.com");
    let (hamlet, shiva) = (Client::dev("hamlet@zulip.com"), Client::dev("shiva@zulip.com"));
    let (_, id) = new_channel(&iago, &[], false, true);
    let members = json!([hamlet.user_id, shiva.user_id]).to_string();
    let form = [("name", unique("channel-admins").as_str()), ("description", "administer"), ("members", members.as_str())]
        .map(|(k, v)| (k, v.to_string()));
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let group = iago.post("/user_groups/create", &form).success()["group_id"].to_string();
    iago.patch(&format!("/streams/{id}"), &[("can_administer_channel_group", &group)]).success();
    hamlet
        .patch(&format!("/streams/{id}"), &[("topics_policy", "disable_empty_topic")])
        .bad_request("BAD_REQUEST", "Insufficient permission");
    assert_eq!(stream(&iago, id)["topics_policy"], "inherit", "the refused change changed nothing");
    shiva.patch(&format!("/streams/{id}"), &[("topics_policy", "disable_empty_topic")]).success();
    assert_eq!(stream(&iago, id)["topics_policy"], "disable_empty_topic");
    hamlet.patch(&format!("/streams/{id}"), &[("topics_policy", "inherit")]).success();
    assert_eq!(stream(&iago, id)["topics_policy"], "inherit", "anyone administering may go back to the organization's policy");
}

#[test]
fn a_bad_topics_policy_changes_nothing() {
    let (_, id) = new_channel(&Client::dev("hamlet@zulip.com"), &[], false, true);
    let iago = Client::dev("iago@zulip.com");
    iago.patch(&format!("/streams/{id}"), &[("topics_policy", "mandatory")]).bad_request("BAD_REQUEST", "Invalid topics_policy");
    assert_eq!(stream(&iago, id)["topics_policy"], "inherit");
}

#[test]
fn archiving_a_channel_tells_each_client_in_the_form_it_knows_and_stops_sending() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let (name, id) = new_channel(&hamlet, &[], false, true);
    let mut aware = watch(&hamlet, r#"{"archived_channels": true}"#);
    let mut legacy = register_for(&hamlet, r#"["stream", "message"]"#);
    iago.delete(&format!("/streams/{id}"), &[]).success();
    let update = aware.wait_for("archive", stream_update(id, "is_archived"));
    assert_eq!((&update["value"], update["name"].as_str()), (&json!(true), Some(name.as_str())));
    assert!(update.get("with_capability").is_none());
    assert_eq!(channel_notice(&mut aware, id), format!("Channel {name} has been archived."));
    let deleted = legacy.wait_for("delete", |e| e["type"] == "stream" && e["op"] == "delete" && e["stream_ids"] == json!([id]));
    assert_eq!((deleted["stream_ids"].clone(), deleted["streams"].clone()), (json!([id]), json!([{ "stream_id": id }])));
    // Each queue hears of it once, in its own form.
    let about_it = |e: &Value| {
        e["type"] == "stream" && (e["stream_id"] == id || e["stream_ids"].as_array().is_some_and(|ids| ids.contains(&json!(id))))
    };
    let rest = legacy.events_before_sentinel();
    assert!(!rest.iter().any(about_it), "{rest:?}");
    let rest = aware.events_before_sentinel();
    assert!(!rest.iter().any(about_it), "{rest:?}");

    assert_eq!(stream(&hamlet, id)["is_archived"], true);
    let listed = hamlet.get("/streams", &[]).success();
    assert!(listed["streams"].as_array().unwrap().iter().all(|s| s["stream_id"] != id));
    let subscribed = hamlet.get("/users/me/subscriptions", &[]).success();
    assert!(subscribed["subscriptions"].as_array().unwrap().iter().all(|s| s["stream_id"] != id));
    hamlet
        .post("/messages", &[("type", "stream"), ("to", &id.to_string()), ("topic", "t"), ("content", "late")])
        .bad_request("BAD_REQUEST", &format!("Not authorized to send to channel '{name}'"));
    iago.delete(&format!("/streams/{id}"), &[]).bad_request("BAD_REQUEST", "Channel is already deactivated");
}

#[test]
fn unarchiving_brings_a_channel_back() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let (name, id) = new_channel(&hamlet, &[], false, true);
    let path = format!("/streams/{id}");
    iago.patch(&path, &[("is_archived", "false")]).bad_request("BAD_REQUEST", "Channel is not currently deactivated");
    iago.delete(&path, &[]).success();
    let mut aware = watch(&hamlet, r#"{"archived_channels": true}"#);
    let mut legacy = register_for(&hamlet, r#"["stream"]"#);
    iago.patch(&path, &[("is_archived", "false")]).success();
    let update = aware.wait_for("unarchive", stream_update(id, "is_archived"));
    assert_eq!(update["value"], false);
    assert_eq!(channel_notice(&mut aware, id), format!("Channel {name} un-archived."));
    let created = legacy.wait_for("create", |e| e["type"] == "stream" && e["op"] == "create" && e["streams"][0]["stream_id"] == id);
    assert_eq!((created["streams"][0]["stream_id"].as_i64(), created["streams"][0]["is_archived"].as_bool()), (Some(id), Some(false)));
    assert_eq!(stream(&hamlet, id)["is_archived"], false);
    send_to_channel(&hamlet, &name, "back", "hello again");
}

#[test]
fn deleting_a_topic_deletes_its_messages_for_everyone() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let (name, id) = new_channel(&hamlet, &[&iago], false, true);
    let doomed: Vec<i64> = (0..3).map(|i| send_to_channel(&hamlet, &name, "Doomed", &format!("m{i}"))).collect();
    let kept = send_to_channel(&hamlet, &name, "kept", "stays");
    let path = format!("/streams/{id}/delete_topic");
    for email in ["hamlet@zulip.com", "shiva@zulip.com", "polonius@zulip.com"] {
        Client::dev(email).post(&path, &[("topic_name", "doomed")]).error(
            400,
            "UNAUTHORIZED_PRINCIPAL",
            "Must be an organization administrator",
        );
    }
    assert_eq!(topic_ids(&hamlet, id, "Doomed"), doomed);
    let mut queue =
        register(&hamlet, &[("event_types", r#"["delete_message"]"#), ("client_capabilities", r#"{"bulk_message_deletion": true}"#)]);
    let body = iago.post(&path, &[("topic_name", "doomed")]).success();
    assert_matches_openapi("POST", "/streams/{stream_id}/delete_topic", &body);
    assert_eq!(body["complete"], true);
    let event = queue.wait_for("delete", |e| e["type"] == "delete_message" && e["stream_id"] == id);
    let mut deleted: Vec<i64> = event["message_ids"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    deleted.sort();
    assert_eq!(deleted, doomed);
    assert!(topic_ids(&hamlet, id, "Doomed").is_empty());
    assert_eq!(topic_ids(&hamlet, id, "kept"), vec![kept]);
    iago.post(&path, &[]).bad_request("REQUEST_VARIABLE_MISSING", "Missing 'topic_name' argument");
}

#[test]
fn a_topic_of_a_channel_the_administrator_cannot_read_is_not_deleted() {
    let iago = Client::dev("iago@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let (name, id) = new_channel(&hamlet, &[], true, true);
    let message = send_to_channel(&hamlet, &name, "secret", "kept");
    iago.post(&format!("/streams/{id}/delete_topic"), &[("topic_name", "secret")]).bad_request("BAD_REQUEST", "Invalid channel ID");
    assert_eq!(topic_ids(&hamlet, id, "secret"), vec![message]);
}

#[test]
fn a_channel_has_no_email_address_on_this_server() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (_, id) = new_channel(&hamlet, &[], false, true);
    hamlet
        .get(&format!("/streams/{id}/email_address"), &[])
        .bad_request("BAD_REQUEST", "This server has no email gateway: channels have no email address.");
    hamlet.get("/streams/987654321/email_address", &[]).bad_request("BAD_REQUEST", "Invalid channel ID");
}
