//! One API key per user: every login answers the same key until it is regenerated, which
//! invalidates the old key at once; `GET /bots` shows each bot's key.

mod common;
use common::*;

fn dev_key(email: &str) -> String {
    Client::dev(email).api_key
}

#[test]
fn every_login_answers_the_same_key() {
    assert_eq!(dev_key("othello@zulip.com"), dev_key("othello@zulip.com"));
}

#[test]
fn regenerating_replaces_the_key_and_the_old_one_stops_working() {
    let iago = Client::dev("iago@zulip.com");
    let email = format!("{}@zulip.com", unique("rekey"));
    iago.post("/users", &[("email", &email), ("password", "pw-123456789"), ("full_name", "Re Key")]).success();
    let user = Client::dev(&email);
    let body = user.post("/users/me/api_key/regenerate", &[]).success();
    let new_key = body["api_key"].as_str().unwrap().to_string();
    assert_eq!(new_key.len(), 32);
    assert_ne!(new_key, user.api_key);
    user.get("/users/me", &[]).error(401, "INVALID_API_KEY", "Invalid API key");
    let renewed = Client { api_key: new_key.clone(), ..user.clone() };
    renewed.get("/users/me", &[]).success();
    // Logging in again answers the new key.
    assert_eq!(dev_key(&email), new_key);
}

#[test]
fn bots_list_their_current_key() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let short = unique("keybot");
    let created = hamlet.post("/bots", &[("full_name", &short), ("short_name", &short)]).success();
    let bot_id = created["user_id"].as_i64().unwrap();
    let key = created["api_key"].as_str().unwrap().to_string();
    let listed = hamlet.get("/bots", &[]).success();
    let bot = listed["bots"].as_array().unwrap().iter().find(|b| b["user_id"] == bot_id).unwrap().clone();
    assert_eq!(bot["api_key"], key.as_str());
    let email = bot["username"].as_str().unwrap().to_string();
    let regenerated = hamlet.post(&format!("/bots/{bot_id}/api_key/regenerate"), &[]).success();
    let new_key = regenerated["api_key"].as_str().unwrap();
    assert_ne!(new_key, key);
    let listed = hamlet.get("/bots", &[]).success();
    let bot = listed["bots"].as_array().unwrap().iter().find(|b| b["user_id"] == bot_id).unwrap().clone();
    assert_eq!(bot["api_key"], new_key);
    let old = Client { email: email.clone(), api_key: key, user_id: bot_id, realm: None };
    old.get("/users/me", &[]).error(401, "INVALID_API_KEY", "Invalid API key");
    let new = Client { email, api_key: new_key.to_string(), user_id: bot_id, realm: None };
    new.get("/users/me", &[]).success();
}
