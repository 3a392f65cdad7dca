//! Fresh accounts for end-to-end tests of accounts, bots and groups: created through the
//! API (iago may create users), so each test owns the users it changes.
#![allow(dead_code)]

use crate::common::*;

pub const PASSWORD: &str = "a-long-test-password";

/// A new member of the default organization, logged in with its password.
pub fn new_user(prefix: &str) -> Client {
    let iago = Client::dev("iago@zulip.com");
    let email = format!("{}@zulip.com", unique(prefix));
    let body = iago.post("/users", &[("email", email.as_str()), ("password", PASSWORD), ("full_name", "Test User")]).success();
    let user_id = body["user_id"].as_i64().unwrap();
    let client = password_login(&email);
    assert_eq!(client.user_id, user_id);
    client
}

/// Logs in with `POST /fetch_api_key`.
pub fn password_login(email: &str) -> Client {
    let body = anonymous("POST", "/fetch_api_key", &[("username", email), ("password", PASSWORD)]).success();
    Client {
        email: body["email"].as_str().unwrap().to_string(),
        api_key: body["api_key"].as_str().unwrap().to_string(),
        user_id: body["user_id"].as_i64().unwrap(),
        realm: None,
    }
}

/// A new bot of `owner` (`bot_type` 1 generic unless given), as a client using its key.
pub fn new_bot(owner: &Client, bot_type: &str, extra: &[(&str, &str)]) -> Client {
    let short_name = unique("bot");
    let mut form: Vec<(&str, &str)> = vec![("full_name", "Test Bot"), ("short_name", short_name.as_str()), ("bot_type", bot_type)];
    form.extend_from_slice(extra);
    let body = owner.post("/bots", &form).success();
    let user_id = body["user_id"].as_i64().unwrap();
    let api_key = body["api_key"].as_str().unwrap().to_string();
    let email = owner.get(&format!("/users/{user_id}"), &[]).success()["user"]["email"].as_str().unwrap().to_string();
    Client { email, api_key, user_id, realm: owner.realm.clone() }
}
