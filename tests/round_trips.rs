//! How many sequential D1 round trips the hot requests cost, read from the
//! `X-D1-Round-Trips` header a development server answers (counted by the worker around
//! every D1 call of the request). Structural, not timed: each test repeats the request once
//! so that the isolate's first-request work (placement lookup, settings cache) is done, and
//! asserts the steady-state count of the repeat.

mod accounts;
mod chat;
mod common;
mod upload_support;
use chat::*;
use common::*;

/// The round trips of a request, from its header.
#[track_caller]
fn round_trips(resp: Resp) -> u32 {
    assert_eq!(resp.status, 200, "{:?}", resp.body);
    resp.d1_round_trips.expect("the development server answers X-D1-Round-Trips")
}

/// A channel of hamlet's with `extra` more subscribers and `messages` messages; its name.
fn channel_with(hamlet: &Client, extra: &[&str], messages: usize) -> String {
    let name = unique("trips");
    let others: Vec<i64> = extra.iter().map(|e| user_id(e)).collect();
    create_channel(hamlet, &name, &[], &others);
    for n in 0..messages {
        send_to_channel(hamlet, &name, "t", &format!("message {n}"));
    }
    name
}

const ELEVEN_OTHERS: [&str; 11] = [
    "othello@zulip.com",
    "cordelia@zulip.com",
    "prospero@zulip.com",
    "iago@zulip.com",
    "shiva@zulip.com",
    "desdemona@zulip.com",
    "aaron@zulip.com",
    "extrauser0@zulip.com",
    "extrauser1@zulip.com",
    "extrauser2@zulip.com",
    "extrauser3@zulip.com",
];

#[test]
fn get_own_user_costs_one_round_trip() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.get("/users/me", &[]).success();
    assert_eq!(round_trips(hamlet.get("/users/me", &[])), 1);
}

#[test]
fn get_one_message_costs_one_round_trip_with_authentication_folded_in() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 1);
    let id = send_to_channel(&hamlet, &name, "t", "the one");
    let path = format!("/messages/{id}");
    hamlet.get(&path, &[]).success();
    assert_eq!(round_trips(hamlet.get(&path, &[])), 1);
}

/// `make bench`'s committed fan-out floor writes and leaves the organization's settings
/// current, so it does not add a settings read to the send measured after it.
#[test]
fn the_bench_floors_write_leaves_the_organizations_settings_current() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 1);
    let path = format!("/messages/{}", send_to_channel(&hamlet, &name, "t", "after the floor"));
    hamlet.get(&path, &[]).success();
    let room = format!("round-trips-{}", std::process::id());
    anonymous("POST", "/dev_bench/fan_out/wake", &[("room", &room), ("commit_first", "true")]).success();
    assert_eq!(round_trips(hamlet.get(&path, &[])), 1);
}

#[test]
fn one_message_is_not_shown_to_a_request_whose_authentication_fails() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let id = send_direct(&hamlet, &[othello.user_id], "between us");
    let path = format!("/messages/{id}");
    // Warm: the organization's placement and settings are known to the isolate.
    hamlet.get(&path, &[]).success();
    let wrong_key = Client { api_key: "0".repeat(32), ..Client::dev("hamlet@zulip.com") };
    let body = wrong_key.get(&path, &[]).error(401, "INVALID_API_KEY", "Invalid API key");
    assert!(body.get("message").is_none(), "{body}");
    // Another user's email with hamlet's key.
    let mismatched = Client { email: "cordelia@zulip.com".into(), ..Client::dev("hamlet@zulip.com") };
    let body = mismatched.get(&path, &[]).error(401, "INVALID_API_KEY", "Invalid API key");
    assert!(body.get("message").is_none(), "{body}");
    // A user who was not sent the message does not see it.
    let cordelia = Client::dev("cordelia@zulip.com");
    cordelia.get(&path, &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn a_key_presented_with_another_users_email_still_folds_its_owners_next_request() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 1);
    let path = format!("/messages/{}", send_to_channel(&hamlet, &name, "t", "mine"));
    hamlet.get(&path, &[]).success();
    let mismatched = Client { email: "cordelia@zulip.com".into(), ..hamlet.clone() };
    mismatched.get(&path, &[]).error(401, "INVALID_API_KEY", "Invalid API key");
    assert_eq!(round_trips(hamlet.get(&path, &[])), 1);
}

#[test]
fn get_a_channel_window_costs_one_round_trip_with_authentication_folded_in() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 3);
    let narrow = format!(r#"[{{"operator": "channel", "operand": "{name}"}}]"#);
    let query = [("anchor", "newest"), ("num_before", "100"), ("num_after", "0"), ("narrow", narrow.as_str())];
    let body = hamlet.get("/messages", &query).success();
    assert_eq!(body["messages"].as_array().unwrap().len(), 4, "the channel's opening notice and three messages");
    assert_eq!(round_trips(hamlet.get("/messages", &query)), 1);
}

#[test]
fn first_unread_anchor_costs_no_extra_round_trip() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 0);
    let othello = Client::dev("othello@zulip.com");
    othello.post("/users/me/subscriptions", &[("subscriptions", &format!(r#"[{{"name": "{name}"}}]"#))]).success();
    let unread = send_to_channel(&othello, &name, "t", "unread for hamlet");
    let narrow = format!(r#"[{{"operator": "channel", "operand": "{name}"}}]"#);
    let query = [("anchor", "first_unread"), ("num_before", "5"), ("num_after", "5"), ("narrow", narrow.as_str())];
    let body = hamlet.get("/messages", &query).success();
    assert_eq!(body["anchor"], unread);
    assert_eq!(body["found_anchor"], true);
    assert_eq!(round_trips(hamlet.get("/messages", &query)), 1);
}

#[test]
fn a_changed_setting_is_visible_on_the_very_next_request() {
    let owner = fresh_organization();
    let name = unique("settings");
    create_channel(&owner, &name, &[], &[]);
    let id = send_to_channel(&owner, &name, "t", "before");
    owner.patch(&format!("/messages/{id}"), &[("content", "after")]).success();
    let path = format!("/messages/{id}");
    assert!(fetch(&owner, id).get("edit_history").is_some());
    owner.patch("/realm", &[("message_edit_history_visibility_policy", "none")]).success();
    assert!(fetch(&owner, id).get("edit_history").is_none(), "a cached copy of the old setting was served");
    owner.patch("/realm", &[("message_edit_history_visibility_policy", "all")]).success();
    let window = owner.get("/messages", &[("anchor", &id.to_string()), ("num_before", "0"), ("num_after", "0")]).success();
    assert!(window["messages"][0].get("edit_history").is_some(), "a cached copy of the old setting was served");
    assert_eq!(round_trips(owner.get(&path, &[])), 1);
}

#[test]
fn a_new_linkifier_is_visible_on_the_very_next_request() {
    let owner = fresh_organization();
    let name = unique("linkifiers");
    create_channel(&owner, &name, &[], &[]);
    let id = send_to_channel(&owner, &name, "ticket #42", "body");
    assert_eq!(fetch(&owner, id)["topic_links"], serde_json::json!([]));
    let pattern = "#(?P<id>[0-9]+)";
    owner.post("/realm/filters", &[("pattern", pattern), ("url_template", "https://tickets.example.com/{id}")]).success();
    let links = fetch(&owner, id)["topic_links"].clone();
    assert_eq!(links, serde_json::json!([{ "text": "#42", "url": "https://tickets.example.com/42" }]));
}

#[test]
fn sending_to_a_channel_of_twelve_costs_one_read_with_authentication_and_one_write() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &ELEVEN_OTHERS, 0);
    let send = |topic: &str| hamlet.post("/messages", &[("type", "stream"), ("to", &name), ("topic", topic), ("content", "hi")]);
    send("started").success();
    send("started").success();
    // Another topic of the channel: reads that this isolate has not seen.
    send("other").success();
    assert_eq!(round_trips(send("other")), 2);
}

/// A new user who wrote twice to another new one (the second send's reads are remembered,
/// so the next one is planned from them); the sender and the recipient.
fn sender_who_wrote_twice() -> (Client, Client) {
    let sender = accounts::new_user("trips");
    let recipient = accounts::new_user("trips");
    send_direct(&sender, &[recipient.user_id], "first");
    send_direct(&sender, &[recipient.user_id], "second");
    (sender, recipient)
}

#[test]
fn sending_a_direct_message_costs_one_read_with_authentication_and_one_write() {
    let sender = accounts::new_user("trips");
    let (first, second) = (accounts::new_user("trips"), accounts::new_user("trips"));
    send_direct(&sender, &[first.user_id], "warm");
    assert_eq!(round_trips(post_direct(&sender, &[first.user_id, second.user_id], "hi")), 2);
}

/// A send whose reads this isolate answered before (the sender, the destination, the
/// topic, the mentions) plans from those answers and proves them current in its write.
#[test]
fn a_repeated_send_to_a_channel_of_twelve_commits_in_one_round_trip() {
    // Users of its own: another test muting the sender, or giving a subscriber a push
    // device, between two sends would change what the next one reads.
    let sender = accounts::new_user("trips");
    let others: Vec<i64> = (0..11).map(|_| accounts::new_user("trips").user_id).collect();
    let name = unique("trips");
    create_channel(&sender, &name, &[], &others);
    let send = |content: &str| sender.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", content)]);
    // The first message starts the topic, which changes what the next one reads.
    send("first").success();
    send("second").success();
    assert_eq!(round_trips(send("third")), 1);
}

#[test]
fn a_repeated_direct_message_commits_in_one_round_trip() {
    let sender = accounts::new_user("trips");
    let to = [accounts::new_user("trips").user_id, accounts::new_user("trips").user_id];
    let send = |content: &str| post_direct(&sender, &to, content);
    send("first").success();
    send("second").success();
    assert_eq!(round_trips(send("third")), 1);
}

/// The remembered answers are checked in the write: a change since costs the send a read
/// again (the failed write, the read, the write), never a plan from the old answers.
#[test]
fn a_repeated_send_after_what_it_read_changed_reads_again() {
    let (sender, recipient) = sender_who_wrote_twice();
    recipient.post(&format!("/users/me/muted_users/{}", sender.user_id), &[]).success();
    let third = post_direct(&sender, &[recipient.user_id], "third");
    let id = third.body["id"].as_i64().expect("sent");
    assert_eq!(round_trips(third), 3);
    assert!(flags(&fetch(&recipient, id)).contains(&"read".to_string()), "a muted sender's message arrives read");
}

#[test]
fn a_repeated_send_sees_its_recipient_deactivated_since() {
    let (sender, recipient) = sender_who_wrote_twice();
    Client::dev("iago@zulip.com").delete(&format!("/users/{}", recipient.user_id), &[]).success();
    let third = post_direct(&sender, &[recipient.user_id], "third");
    third.bad_request("BAD_REQUEST", &format!("'{}' is no longer using Zulip.", recipient.email));
}

#[test]
fn a_repeated_send_sees_its_sender_unsubscribed_from_the_private_channel_since() {
    let owner = accounts::new_user("trips");
    let member = accounts::new_user("trips");
    let (name, _) = new_channel(&owner, &[&member], true, true);
    let send = |content: &str| member.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", content)]);
    send("first").success();
    send("second").success();
    send("third").success();
    member.delete("/users/me/subscriptions", &[("subscriptions", &format!("[\"{name}\"]"))]).success();
    send("fourth").bad_request("BAD_REQUEST", &format!("Not authorized to send to channel '{name}'"));
}

#[test]
fn a_repeated_send_sees_an_organization_setting_changed_since() {
    let owner = fresh_organization();
    let name = unique("settings");
    create_channel(&owner, &name, &[], &[]);
    let send = |content: &str| owner.post("/messages", &[("type", "stream"), ("to", &name), ("topic", ""), ("content", content)]);
    send("first").success();
    send("second").success();
    assert_eq!(round_trips(send("third")), 1);
    owner.patch("/realm", &[("topics_policy", "disable_empty_topic")]).success();
    send("fourth").bad_request("BAD_REQUEST", "Sending messages to the general chat is not allowed in this channel.");
}

#[test]
fn a_repeated_send_with_a_regenerated_key_is_refused() {
    let (sender, recipient) = sender_who_wrote_twice();
    let fresh = sender.post("/users/me/api_key/regenerate", &[]).success()["api_key"].as_str().unwrap().to_string();
    let third = post_direct(&sender, &[recipient.user_id], "third");
    assert_eq!(third.status, 401, "{:?}", third.body);
    let renewed = Client { api_key: fresh, ..sender };
    send_direct(&renewed, &[recipient.user_id], "fourth");
}

#[test]
fn a_presence_ping_costs_authentication_one_read_and_one_batch() {
    let user = accounts::new_user("trips");
    user.get("/users/me", &[]).success();
    // The first ping: stored, sent to the organization, and answered with its presence.
    let first = user.post("/users/me/presence", &[("status", "active"), ("slim_presence", "true")]);
    assert!(first.body["presences"][user.user_id.to_string()].is_object(), "{:?}", first.body);
    assert_eq!(round_trips(first), 3);
    // A repeat within the minute stores nothing and still answers.
    assert_eq!(round_trips(user.post("/users/me/presence", &[("status", "active")])), 3);
    assert_eq!(round_trips(user.post("/users/me/presence", &[("status", "active"), ("ping_only", "true")])), 2);
}

#[test]
fn a_reaction_costs_authentication_one_read_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 1);
    let path = format!("/messages/{}/reactions", send_to_channel(&hamlet, &name, "t", "react"));
    hamlet.get("/users/me", &[]).success();
    assert_eq!(round_trips(hamlet.post(&path, &[("emoji_name", "smile")])), 3);
    assert_eq!(round_trips(hamlet.delete(&path, &[("emoji_name", "smile")])), 3);
}

#[test]
fn a_read_behind_an_access_check_costs_one_round_trip_after_authentication() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 1);
    let id = send_to_channel(&hamlet, &name, "t", "history");
    let channel_id = hamlet.get("/get_stream_id", &[("stream", name.as_str())]).success()["stream_id"].as_i64().unwrap();
    hamlet.get("/users/me", &[]).success();
    assert_eq!(round_trips(hamlet.get(&format!("/streams/{channel_id}/members"), &[])), 2);
    assert_eq!(round_trips(hamlet.get(&format!("/users/{}/status", user_id("othello@zulip.com")), &[])), 2);
    assert_eq!(round_trips(hamlet.get(&format!("/messages/{id}/history"), &[])), 2);
}

#[test]
fn creating_a_channel_by_subscribing_costs_one_batch_and_its_opening_message_and_marking_read_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("trips");
    hamlet.get("/users/me", &[]).success();
    let subscriptions = format!(r#"[{{"name": "{name}"}}]"#);
    // Creating the channel, subscribing and reading what the events need: one batch; then
    // the notification bot's opening message in the channel: one read, one write.
    let created = hamlet.post("/users/me/subscriptions", &[("subscriptions", subscriptions.as_str())]);
    assert_eq!(round_trips(created), 5);
    send_to_channel(&hamlet, &name, "t", "to read");
    let channel_id = hamlet.get("/get_stream_id", &[("stream", name.as_str())]).success()["stream_id"].as_i64().unwrap();
    let read = hamlet.post("/mark_topic_as_read", &[("stream_id", channel_id.to_string().as_str()), ("topic_name", "t")]);
    assert_eq!(round_trips(read), 3);
}

#[test]
fn registering_for_the_full_state_costs_one_batch_once_the_key_is_known() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/register", &[]).success();
    // The queue first, then the credentials checked in the state's own batch.
    assert_eq!(round_trips(hamlet.post("/register", &[])), 1);
}

/// The owner of a new organization of its own, so that changing its settings disturbs no
/// other test.
fn fresh_organization() -> Client {
    let string_id = unique("trips").to_lowercase();
    let email = format!("owner@{string_id}.example.com");
    let fields = [("string_id", string_id.as_str()), ("name", "Trips"), ("owner_email", email.as_str()), ("owner_full_name", "Owner")];
    let created = server_admin_post(Some(DEV_SERVER_ADMIN_SECRET), "/server_admin/organizations", &fields).success();
    let password = created["owner"]["password"].as_str().unwrap();
    let login = [("username", email.as_str()), ("password", password)];
    let key = request("POST", "/fetch_api_key", &[], Some(Body::Form(&login)), None, Some(&string_id)).success()["api_key"]
        .as_str()
        .unwrap()
        .to_string();
    Client { email, api_key: key, user_id: created["owner"]["user_id"].as_i64().unwrap(), realm: Some(string_id) }
}

fn demote_to_guest(user: &Client) {
    Client::dev("iago@zulip.com").patch(&format!("/users/{}", user.user_id), &[("role", "600")]).success();
}

#[test]
fn a_role_change_applies_to_the_very_next_fetch() {
    let member = accounts::new_user("trips");
    let iago = Client::dev("iago@zulip.com");
    let (name, channel_id) = new_channel(&iago, &[], false, true);
    let id = send_to_channel_id(&iago, channel_id, "t", "public history");
    let narrow = format!(r#"[{{"operator": "channel", "operand": "{name}"}}]"#);
    let query = [("anchor", "newest"), ("num_before", "5"), ("num_after", "0"), ("narrow", narrow.as_str())];
    for _ in 0..2 {
        assert_eq!(member.get("/messages", &query).success()["messages"].as_array().unwrap().last().unwrap()["id"], id);
        member.get(&format!("/messages/{id}"), &[]).success();
    }
    demote_to_guest(&member);
    let window = member.get("/messages", &query);
    assert!(window.status != 200 || window.body["messages"].as_array().unwrap().is_empty(), "{:?}", window.body);
    member.get(&format!("/messages/{id}"), &[]).bad_request("BAD_REQUEST", "Invalid message(s)");
}

#[test]
fn a_role_change_applies_to_the_very_next_send() {
    let member = accounts::new_user("trips");
    let iago = Client::dev("iago@zulip.com");
    let (name, _) = new_channel(&iago, &[], false, true);
    let send = |content: &str| member.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", content)]);
    send("first").success();
    send("second").success();
    send("third").success();
    demote_to_guest(&member);
    send("fourth").bad_request("BAD_REQUEST", &format!("Not authorized to send to channel '{name}'"));
}

#[test]
fn an_organization_wide_event_reads_no_list_of_the_organizations_users() {
    let user = accounts::new_user("trips");
    user.get("/users/me", &[]).success();
    // Authentication, the write; the hub sends the event to every queue it holds.
    assert_eq!(round_trips(user.post("/users/me/status", &[("status_text", "busy")])), 2);
}

#[test]
fn creating_a_user_group_and_changing_its_members_cost_authentication_one_read_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.get("/users/me", &[]).success();
    let members = format!("[{}]", user_id("othello@zulip.com"));
    let name = unique("trips");
    let created = hamlet.post("/user_groups/create", &[("name", name.as_str()), ("description", "d"), ("members", members.as_str())]);
    let group_id = created.body["group_id"].as_i64().expect("group_id");
    assert_eq!(round_trips(created), 3);
    let add = format!("[{}]", user_id("cordelia@zulip.com"));
    assert_eq!(round_trips(hamlet.post(&format!("/user_groups/{group_id}/members"), &[("add", add.as_str())])), 3);
    let other = hamlet.post("/user_groups/create", &[("name", unique("trips").as_str()), ("description", "d")]).success()["group_id"]
        .as_i64()
        .unwrap();
    let subgroups = format!("[{other}]");
    assert_eq!(round_trips(hamlet.post(&format!("/user_groups/{group_id}/subgroups"), &[("add", subgroups.as_str())])), 3);
}

#[test]
fn a_new_profile_field_and_a_users_profile_data_cost_authentication_one_read_and_one_batch() {
    let owner = fresh_organization();
    owner.get("/users/me", &[]).success();
    let created = owner.post("/realm/profile_fields", &[("name", "Team"), ("field_type", "1")]);
    let text_field = created.body["id"].as_i64().expect("id");
    assert_eq!(round_trips(created), 3);
    let users_field = owner.post("/realm/profile_fields", &[("name", "Mentor"), ("field_type", "6")]).success()["id"].as_i64().unwrap();
    // A value naming users reads them together with the fields.
    let data = format!(r#"[{{"id": {text_field}, "value": "chat"}}, {{"id": {users_field}, "value": [{}]}}]"#, owner.user_id);
    assert_eq!(round_trips(owner.patch("/users/me/profile_data", &[("data", data.as_str())])), 3);
}

#[test]
fn creating_an_account_costs_one_read_one_batch_and_the_announcement() {
    let owner = fresh_organization();
    owner.get("/users/me", &[]).success();
    let email = format!("{}@example.com", unique("trips").to_lowercase());
    let fields = [("email", email.as_str()), ("password", "a long password"), ("full_name", "New Account")];
    // Authentication, one read, one batch; then the announcement of the new user: the
    // organization and its notification bot in one read, and the message's send (its read
    // and its write).
    assert_eq!(round_trips(owner.post("/users", &fields)), 6);
}

/// A bot's API key derives from its id, which the read picks, so the account and its key
/// are one write. When another account takes that id in between (this binary's other tests
/// create accounts on the same server at the same time), the bot is inserted, then keyed:
/// two more round trips. So of a few creations, one costs three and none more than five.
#[test]
fn creating_a_bot_costs_authentication_one_read_and_one_write() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.get("/users/me", &[]).success();
    let mut costs = Vec::new();
    for _ in 0..4 {
        let short_name = unique("trips").to_lowercase();
        let cost = round_trips(hamlet.post("/bots", &[("full_name", "Trips Bot"), ("short_name", short_name.as_str())]));
        costs.push(cost);
        if cost == 3 {
            break;
        }
    }
    assert!(costs.contains(&3) && costs.iter().all(|&cost| cost <= 5), "round trips of each creation: {costs:?}");
}

#[test]
fn a_groups_members_and_subgroups_cost_one_round_trip_after_authentication() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let members = format!("[{}]", hamlet.user_id);
    let name = unique("trips");
    let group_id = hamlet
        .post("/user_groups/create", &[("name", name.as_str()), ("description", "d"), ("members", members.as_str())])
        .success()["group_id"]
        .as_i64()
        .unwrap();
    hamlet.get("/users/me", &[]).success();
    assert_eq!(round_trips(hamlet.get(&format!("/user_groups/{group_id}/members"), &[])), 2);
    assert_eq!(round_trips(hamlet.get(&format!("/user_groups/{group_id}/subgroups"), &[])), 2);
    assert_eq!(round_trips(hamlet.get(&format!("/user_groups/{group_id}/members/{}", hamlet.user_id), &[])), 2);
}

#[test]
fn listing_and_rekeying_ones_bots_cost_authentication_one_read_and_at_most_one_write() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let short_name = unique("trips").to_lowercase();
    let bot_id =
        hamlet.post("/bots", &[("full_name", "Trips Bot"), ("short_name", short_name.as_str())]).success()["user_id"].as_i64().unwrap();
    hamlet.get("/bots", &[]).success();
    // Every key hash is stored already: nothing to write.
    assert_eq!(round_trips(hamlet.get("/bots", &[])), 2);
    assert_eq!(round_trips(hamlet.post(&format!("/bots/{bot_id}/api_key/regenerate"), &[])), 3);
}

#[test]
fn an_administrators_changes_to_a_user_cost_authentication_one_read_and_one_batch() {
    let user = accounts::new_user("trips");
    let iago = Client::dev("iago@zulip.com");
    iago.get("/users/me", &[]).success();
    let changes = [("role", "300"), ("full_name", "Trips Moderator")];
    assert_eq!(round_trips(iago.patch(&format!("/users/{}", user.user_id), &changes)), 3);
}

#[test]
fn muting_a_user_costs_authentication_one_read_and_one_batch() {
    let muter = accounts::new_user("trips");
    let path = format!("/users/me/muted_users/{}", accounts::new_user("trips").user_id);
    muter.post(&path, &[]).success();
    muter.delete(&path, &[]).success();
    assert_eq!(round_trips(muter.post(&path, &[])), 3);
    assert_eq!(round_trips(muter.delete(&path, &[])), 3);
}

#[test]
fn unsubscribing_costs_authentication_one_read_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &["othello@zulip.com"], 0);
    let names = serde_json::json!([name]).to_string();
    hamlet.delete("/users/me/subscriptions", &[("subscriptions", &names)]).success();
    subscribe(&hamlet, &name);
    assert_eq!(round_trips(hamlet.delete("/users/me/subscriptions", &[("subscriptions", &names)])), 3);
}

#[test]
fn flagging_a_narrow_costs_authentication_one_read_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 3);
    let narrow = serde_json::json!([{ "operator": "channel", "operand": name }]).to_string();
    let star = |op: &str| {
        let form =
            [("anchor", "oldest"), ("num_before", "0"), ("num_after", "10"), ("narrow", narrow.as_str()), ("op", op), ("flag", "starred")];
        hamlet.post("/messages/flags/narrow", &form)
    };
    star("add").success();
    assert_eq!(round_trips(star("remove")), 3);
    assert_eq!(round_trips(star("add")), 3);
}

#[test]
fn editing_a_scheduled_message_costs_authentication_one_read_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 0);
    let to = channel_id(&hamlet, &name).to_string();
    let at = (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 3600).to_string();
    let form = [("type", "stream"), ("to", to.as_str()), ("topic", "t"), ("content", "later"), ("scheduled_delivery_timestamp", &at)];
    let id = hamlet.post("/scheduled_messages", &form).success()["scheduled_message_id"].as_i64().unwrap();
    let path = format!("/scheduled_messages/{id}");
    hamlet.patch(&path, &[("content", "first edit")]).success();
    assert_eq!(round_trips(hamlet.patch(&path, &[("content", "second edit")])), 3);
    assert_eq!(round_trips(hamlet.patch(&path, &[("to", &to)])), 3);
}

#[test]
fn a_channels_topics_cost_one_round_trip_with_authentication_folded_in() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 2);
    let path = format!("/users/me/{}/topics", channel_id(&hamlet, &name));
    hamlet.get(&path, &[]).success();
    assert_eq!(round_trips(hamlet.get(&path, &[])), 1);
}

#[test]
fn subscribing_others_named_by_email_costs_one_read_one_batch_and_the_opening_message() {
    let iago = Client::dev("iago@zulip.com");
    iago.get("/users/me", &[]).success();
    let subscriptions = format!(r#"[{{"name": "{}"}}]"#, unique("trips"));
    let principals = r#"["othello@zulip.com", "cordelia@zulip.com"]"#;
    let created = iago.post("/users/me/subscriptions", &[("subscriptions", subscriptions.as_str()), ("principals", principals)]);
    assert_eq!(created.body["subscribed"].as_object().map(|s| s.len()), Some(2), "{:?}", created.body);
    // The new channel's opening message: one read and one write more.
    assert_eq!(round_trips(created), 5);
}

#[test]
fn signing_in_costs_one_read_and_one_write() {
    let user = accounts::new_user("trips");
    let form = [("username", user.email.as_str()), ("password", accounts::PASSWORD)];
    // The organization with the user, their password hash and key version; the key's hash.
    assert_eq!(round_trips(anonymous("POST", "/fetch_api_key", &form)), 2);
    assert_eq!(round_trips(anonymous("POST", "/dev_fetch_api_key", &[("username", user.email.as_str())])), 2);
}

#[test]
fn a_user_named_by_id_or_email_is_read_with_what_is_asked_about_them() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    othello.post("/users/me/presence", &[("status", "active")]).success();
    hamlet.get("/users/me", &[]).success();
    let include = [("include_custom_profile_fields", "true")];
    for who in [othello.user_id.to_string(), othello.email.clone()] {
        assert_eq!(round_trips(hamlet.get(&format!("/users/{who}"), &include)), 2);
        assert_eq!(round_trips(hamlet.get(&format!("/users/{who}/presence"), &[])), 2);
    }
}

#[test]
fn deleting_a_message_costs_authentication_one_read_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &["othello@zulip.com"], 0);
    let first = send_to_channel(&hamlet, &name, "t", "first");
    let second = send_to_channel(&hamlet, &name, "t", "second");
    hamlet.delete(&format!("/messages/{first}"), &[]).success();
    assert_eq!(round_trips(hamlet.delete(&format!("/messages/{second}"), &[])), 3);
}

#[test]
fn editing_a_message_costs_authentication_one_read_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &["othello@zulip.com"], 0);
    let id = send_to_channel(&hamlet, &name, "t", "first");
    let path = format!("/messages/{id}");
    hamlet.patch(&path, &[("content", "second")]).success();
    assert_eq!(round_trips(hamlet.patch(&path, &[("content", "third, for @**Othello, the Moor of Venice**")])), 3);
    // Linking an upload: the links, and what the upload's event needs, in the same batch.
    let url = upload_support::upload(&hamlet, "trips.txt", b"t");
    assert_eq!(round_trips(hamlet.patch(&path, &[("content", &format!("fourth [f]({url})"))])), 3);
}

#[test]
fn moving_messages_costs_authentication_one_read_and_one_batch_with_the_notices() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &["othello@zulip.com"], 0);
    let other = channel_with(&hamlet, &["othello@zulip.com"], 0);
    let other_id = channel_id(&hamlet, &other);
    let first = send_to_channel(&hamlet, &name, "t", "first");
    let second = send_to_channel(&hamlet, &name, "u", "second");
    // The notification bot exists after the first move.
    hamlet.patch(&format!("/messages/{first}"), &[("topic", "t2")]).success();
    let within = hamlet.patch(&format!("/messages/{second}"), &[("topic", "u2"), ("propagate_mode", "change_all")]);
    assert_eq!(round_trips(within), 3);
    let across = hamlet.patch(&format!("/messages/{second}"), &[("stream_id", other_id.to_string().as_str())]);
    assert_eq!(round_trips(across), 3);
    // Resolving, and undoing it at once (its notice is withdrawn).
    let resolve = |topic: &str| hamlet.patch(&format!("/messages/{second}"), &[("topic", topic), ("propagate_mode", "change_all")]);
    assert_eq!(round_trips(resolve("✔ u2")), 3);
    assert_eq!(round_trips(resolve("u2")), 3);
}

#[test]
fn the_organizations_users_with_their_profile_data_cost_one_round_trip_after_authentication() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.get("/users/me", &[]).success();
    assert_eq!(round_trips(hamlet.get("/users", &[("include_custom_profile_fields", "true")])), 2);
}

#[test]
fn deactivating_and_reactivating_a_user_cost_authentication_one_read_and_one_batch() {
    let user = accounts::new_user("trips");
    let iago = Client::dev("iago@zulip.com");
    iago.get("/users/me", &[]).success();
    assert_eq!(round_trips(iago.delete(&format!("/users/{}", user.user_id), &[])), 3);
    assert_eq!(round_trips(iago.post(&format!("/users/{}/reactivate", user.user_id), &[])), 3);
}

#[test]
fn regenerating_ones_api_key_costs_authentication_one_read_and_one_batch() {
    let user = accounts::new_user("trips");
    user.get("/users/me", &[]).success();
    assert_eq!(round_trips(user.post("/users/me/api_key/regenerate", &[])), 3);
}

#[test]
fn saving_a_draft_costs_authentication_one_read_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel_id = hamlet.get("/get_stream_id", &[("stream", "Verona")]).success()["stream_id"].as_i64().unwrap();
    hamlet.get("/users/me", &[]).success();
    let draft = format!(r#"{{"type": "stream", "to": [{channel_id}], "topic": "trips", "content": "draft", "timestamp": 1700000000}}"#);
    let created = hamlet.post("/drafts", &[("drafts", format!("[{draft}]").as_str())]);
    let id = created.body["ids"][0].as_i64().expect("draft id");
    assert_eq!(round_trips(created), 3);
    assert_eq!(round_trips(hamlet.patch(&format!("/drafts/{id}"), &[("draft", draft.as_str())])), 3);
}

#[test]
fn sending_a_link_to_an_upload_costs_one_read_with_authentication_and_one_write() {
    let hamlet = accounts::new_user("trips");
    let othello = accounts::new_user("trips");
    hamlet.get("/users/me", &[]).success();
    let url = upload_support::upload(&hamlet, "trips-link.txt", b"t");
    let form = [("type", "direct"), ("to", &format!("[{}]", othello.user_id)), ("content", &format!("[file]({url})"))];
    // The attachment event's reads run in the write batch, after the link.
    assert_eq!(round_trips(hamlet.post("/messages", &form)), 2);
}
