//! Bots: `POST /bots`, `GET /bots`, bot API keys and the bot fields of the User object.

mod accounts;
mod common;

use accounts::{new_bot, new_user};
use common::*;

fn server_host() -> String {
    let url = server_url();
    let host = url.split_once("://").unwrap().1;
    host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host).to_string()
}

#[test]
fn generic_bot_authenticates_with_its_own_key() {
    let owner = new_user("owner");
    let short_name = unique("helper");
    let body = owner.post("/bots", &[("full_name", "Helper Bot"), ("short_name", &short_name)]).success();
    let bot_id = body["user_id"].as_i64().unwrap();
    let api_key = body["api_key"].as_str().unwrap();
    assert_eq!(api_key.len(), 32);
    assert!(body["avatar_url"].is_string());

    let email = format!("{short_name}-bot@{}", server_host());
    let me = request("GET", "/users/me", &[], None, Some((&email, api_key)), None).success();
    assert_eq!(me["user_id"], bot_id);
    assert_eq!(me["email"], email.as_str());
    assert_eq!(me["is_bot"], true);
    assert_eq!(me["full_name"], "Helper Bot");
    let user = owner.get(&format!("/users/{bot_id}"), &[]).success()["user"].clone();
    assert_eq!((user["bot_type"].as_i64(), user["bot_owner_id"].as_i64()), (Some(1), Some(owner.user_id)));
}

/// A bot's key derives from the id its creation reads ahead of the write; creations at
/// once race for that id, and every bot still gets its own working key.
#[test]
fn bots_created_at_once_each_authenticate_with_their_own_key() {
    let owner = new_user("racer");
    let created: Vec<(String, i64, String)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..6)
            .map(|i| {
                let owner = &owner;
                scope.spawn(move || {
                    let short_name = unique(&format!("racer{i}"));
                    let body = owner.post("/bots", &[("full_name", "Racer Bot"), ("short_name", &short_name)]).success();
                    (
                        format!("{short_name}-bot@{}", server_host()),
                        body["user_id"].as_i64().unwrap(),
                        body["api_key"].as_str().unwrap().to_string(),
                    )
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let mut ids: Vec<i64> = created.iter().map(|(_, id, _)| *id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), created.len());
    for (email, bot_id, api_key) in &created {
        let me = request("GET", "/users/me", &[], None, Some((email, api_key)), None).success();
        assert_eq!(me["user_id"], *bot_id);
    }
}

#[test]
fn bot_fields_appear_in_the_user_object() {
    let owner = new_user("fields");
    let bot = new_bot(&owner, "2", &[]);
    let hamlet = Client::dev("hamlet@zulip.com");
    let user = hamlet.get(&format!("/users/{}", bot.user_id), &[]).success()["user"].clone();
    assert_eq!((user["is_bot"].as_bool(), user["bot_type"].as_i64()), (Some(true), Some(2)));
    assert_eq!(user["bot_owner_id"], owner.user_id);
    let human = hamlet.get(&format!("/users/{}", hamlet.user_id), &[]).success()["user"].clone();
    assert_eq!((human["bot_type"].is_null(), human["bot_owner_id"].is_null()), (true, true));
}

#[test]
fn every_bot_type_but_embedded_can_be_created() {
    let owner = new_user("types");
    let generic = new_bot(&owner, "1", &[]);
    let incoming = new_bot(&owner, "2", &[]);
    let outgoing = new_bot(&owner, "3", &[("payload_url", "\"https://bots.example.com/hook\"")]);
    for (bot, bot_type) in [(&generic, 1), (&incoming, 2), (&outgoing, 3)] {
        bot.get("/users/me", &[]).success();
        let user = owner.get(&format!("/users/{}", bot.user_id), &[]).success()["user"].clone();
        assert_eq!(user["bot_type"], bot_type);
    }
}

#[test]
fn invalid_bot_types_and_services_are_refused() {
    let owner = new_user("badtype");
    owner
        .post("/bots", &[("full_name", "Bad"), ("short_name", &unique("bad")), ("bot_type", "9")])
        .bad_request("BAD_REQUEST", "Invalid bot type");
    for service in ["helloworld", "nosuchbot"] {
        owner
            .post("/bots", &[("full_name", "Bad"), ("short_name", &unique("bad")), ("bot_type", "4"), ("service_name", service)])
            .bad_request("BAD_REQUEST", "Embedded bots are not enabled.");
    }
    owner
        .post("/bots", &[("full_name", "Bad"), ("short_name", &unique("bad")), ("bot_type", "3"), ("payload_url", "\"not a url\"")])
        .bad_request("BAD_REQUEST", "payload_url is not a URL");
}

#[test]
fn bot_names_are_checked() {
    let owner = new_user("names");
    let short_name = unique("taken");
    owner.post("/bots", &[("full_name", "First"), ("short_name", &short_name)]).success();
    owner.post("/bots", &[("full_name", "Second"), ("short_name", &short_name)]).bad_request("BAD_REQUEST", "Username already in use");
    owner.post("/bots", &[("full_name", "Blank"), ("short_name", "  ")]).bad_request("BAD_REQUEST", "Bad name or username");
    owner.post("/bots", &[("full_name", ""), ("short_name", &unique("noname"))]).bad_request("BAD_REQUEST", "Name too short!");
}

#[test]
fn guests_cannot_create_bots() {
    let polonius = Client::dev("polonius@zulip.com");
    polonius
        .post("/bots", &[("full_name", "Guest Bot"), ("short_name", &unique("guest"))])
        .bad_request("BAD_REQUEST", "Not allowed for guest users");
}

#[test]
fn get_bots_lists_the_callers_active_bots() {
    let owner = new_user("lister");
    let first = new_bot(&owner, "1", &[]);
    let second = new_bot(&owner, "2", &[]);
    let other_owner = new_user("other");
    let foreign = new_bot(&other_owner, "1", &[]);

    let bots = owner.get("/bots", &[]).success()["bots"].as_array().unwrap().clone();
    let ids: Vec<i64> = bots.iter().map(|b| b["user_id"].as_i64().unwrap()).collect();
    assert_eq!(ids, vec![first.user_id, second.user_id]);
    assert_eq!(bots[0]["username"], first.email.as_str());
    assert_eq!(bots[0]["full_name"], "Test Bot");
    assert!(!ids.contains(&foreign.user_id));

    // A deactivated bot is no longer listed, and its key is refused.
    let iago = Client::dev("iago@zulip.com");
    iago.delete(&format!("/users/{}", second.user_id), &[]).bad_request("BAD_REQUEST", "No such user");
    second.delete("/users/me", &[]).success();
    second.get("/users/me", &[]).error(401, "USER_DEACTIVATED", "Account is deactivated");
    let bots = owner.get("/bots", &[]).success()["bots"].as_array().unwrap().clone();
    assert_eq!(bots.len(), 1);
}

#[test]
fn deactivating_the_owner_deactivates_its_bots() {
    let owner = new_user("leaving");
    let bot = new_bot(&owner, "1", &[]);
    bot.get("/users/me", &[]).success();
    owner.delete("/users/me", &[]).success();
    bot.get("/users/me", &[]).error(401, "USER_DEACTIVATED", "Account is deactivated");
    let hamlet = Client::dev("hamlet@zulip.com");
    assert_eq!(hamlet.get(&format!("/users/{}", bot.user_id), &[]).success()["user"]["is_active"], false);
}

#[test]
fn regenerating_a_bot_key_replaces_the_old_one() {
    let owner = new_user("regen");
    let bot = new_bot(&owner, "1", &[]);
    let body = owner.post(&format!("/bots/{}/api_key/regenerate", bot.user_id), &[]).success();
    let new_key = body["api_key"].as_str().unwrap();
    assert_ne!(new_key, bot.api_key);
    bot.get("/users/me", &[]).error(401, "INVALID_API_KEY", "Invalid API key");
    request("GET", "/users/me", &[], None, Some((&bot.email, new_key)), None).success();

    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.post(&format!("/bots/{}/api_key/regenerate", bot.user_id), &[]).bad_request("BAD_REQUEST", "No such bot");
}
