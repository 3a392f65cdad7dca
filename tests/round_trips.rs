//! How many sequential D1 round trips the hot requests cost, read from the
//! `X-D1-Round-Trips` header a development server answers (counted by the worker around
//! every D1 call of the request). Structural, not timed: each test repeats the request once
//! so that the isolate's first-request work (placement lookup, settings cache) is done, and
//! asserts the steady-state count of the repeat.

mod chat;
mod common;
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
fn get_one_message_costs_auth_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 1);
    let id = send_to_channel(&hamlet, &name, "t", "the one");
    let path = format!("/messages/{id}");
    hamlet.get(&path, &[]).success();
    assert_eq!(round_trips(hamlet.get(&path, &[])), 4);
}

#[test]
fn get_a_channel_window_costs_auth_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &[], 3);
    let narrow = format!(r#"[{{"operator": "channel", "operand": "{name}"}}]"#);
    let query = [("anchor", "newest"), ("num_before", "100"), ("num_after", "0"), ("narrow", narrow.as_str())];
    let body = hamlet.get("/messages", &query).success();
    assert_eq!(body["messages"].as_array().unwrap().len(), 3);
    assert_eq!(round_trips(hamlet.get("/messages", &query)), 4);
}

#[test]
fn sending_to_a_channel_of_twelve_costs_one_read_and_one_write_after_auth() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = channel_with(&hamlet, &ELEVEN_OTHERS, 0);
    let send = |content: &str| hamlet.post("/messages", &[("type", "stream"), ("to", &name), ("topic", "t"), ("content", content)]);
    send("first").success();
    assert_eq!(round_trips(send("second")), 4);
}

#[test]
fn registering_for_the_full_state_costs_auth_and_one_batch() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post("/register", &[]).success();
    assert_eq!(round_trips(hamlet.post("/register", &[])), 3);
}
