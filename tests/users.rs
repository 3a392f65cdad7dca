//! Reading users: `GET /users/me`, `GET /users`, `GET /users/{user_id}`.

mod common;
use common::*;

const USER_FIELDS: &[&str] = &[
    "user_id",
    "delivery_email",
    "email",
    "full_name",
    "date_joined",
    "is_active",
    "is_owner",
    "is_admin",
    "is_guest",
    "is_bot",
    "bot_type",
    "bot_owner_id",
    "role",
    "timezone",
    "avatar_url",
    "avatar_version",
    "is_imported_stub",
];

#[test]
fn own_user_has_every_user_field() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let me = hamlet.get("/users/me", &[]).success();
    // Zulip's own-user answer leaves out the bot fields (GET /users/{id} has them).
    for field in USER_FIELDS.iter().filter(|f| !["bot_type", "bot_owner_id"].contains(*f)) {
        assert!(me.get(*field).is_some(), "missing {field} in {me:?}");
    }
    assert_eq!(me["full_name"], "King Hamlet");
    assert_eq!(me["role"], 400);
    assert_eq!(me["is_bot"], false);
    assert!(me.get("bot_type").is_none() && me.get("bot_owner_id").is_none(), "{me:?}");
}

#[test]
fn roles_use_zulip_codes() {
    let iago = Client::dev("iago@zulip.com");
    let members = iago.get("/users", &[]).success()["members"].as_array().unwrap().clone();
    let role_of = |email: &str| members.iter().find(|m| m["email"] == email).unwrap()["role"].as_i64().unwrap();
    assert_eq!(role_of("desdemona@zulip.com"), 100);
    assert_eq!(role_of("iago@zulip.com"), 200);
    assert_eq!(role_of("shiva@zulip.com"), 300);
    assert_eq!(role_of("hamlet@zulip.com"), 400);
    assert_eq!(role_of("polonius@zulip.com"), 600);
    let desdemona = members.iter().find(|m| m["email"] == "desdemona@zulip.com").unwrap();
    assert_eq!((desdemona["is_owner"].as_bool(), desdemona["is_admin"].as_bool()), (Some(true), Some(true)));
}

#[test]
fn get_user_by_id_answers_that_user() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let body = hamlet.get(&format!("/users/{}", othello.user_id), &[]).success();
    assert_eq!(body["user"]["user_id"], othello.user_id);
    assert_eq!(body["user"]["email"], "othello@zulip.com");
    for field in USER_FIELDS {
        assert!(body["user"].get(*field).is_some(), "missing {field}");
    }
}

#[test]
fn get_unknown_user_is_a_bad_request() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet.get("/users/99999999", &[]).bad_request("BAD_REQUEST", "No such user");
}

#[test]
fn user_of_another_organization_is_not_visible() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    hamlet.get(&format!("/users/{}", king.user_id), &[]).bad_request("BAD_REQUEST", "No such user");
}

#[test]
fn client_gravatar_false_always_sends_avatar_urls() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let members = hamlet.get("/users", &[("client_gravatar", "false")]).success()["members"].as_array().unwrap().clone();
    assert!(members.iter().all(|m| m["avatar_url"].is_string()));
}

#[test]
fn date_joined_is_iso_8601() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let me = hamlet.get("/users/me", &[]).success();
    let date = me["date_joined"].as_str().unwrap();
    assert!(date.len() >= 20 && date.as_bytes()[4] == b'-' && date.contains('T'), "{date}");
}
