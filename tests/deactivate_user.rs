//! Deactivation: `DELETE /users/me`, `DELETE /users/{user_id}`, `POST /users/{user_id}/reactivate`.

mod accounts;
mod common;

use accounts::new_user;
use common::*;

#[test]
fn own_deactivation_refuses_the_api_key() {
    let user = new_user("selfgone");
    user.delete("/users/me", &[]).success();
    user.get("/users/me", &[]).error(401, "USER_DEACTIVATED", "Account is deactivated");
    let hamlet = Client::dev("hamlet@zulip.com");
    let seen = hamlet.get(&format!("/users/{}", user.user_id), &[]).success();
    assert_eq!(seen["user"]["is_active"], false);
}

#[test]
fn deactivated_user_cannot_log_in_again() {
    let user = new_user("nologin");
    user.delete("/users/me", &[]).success();
    anonymous("POST", "/fetch_api_key", &[("username", &user.email), ("password", accounts::PASSWORD)]).error(
        401,
        "USER_DEACTIVATED",
        "Account is deactivated",
    );
}

#[test]
fn only_owner_cannot_deactivate_themselves() {
    // King Lear is the only owner of `lear` (no test changes roles there).
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    let body = king.delete("/users/me", &[]).bad_request("CANNOT_DEACTIVATE_LAST_USER", "Cannot deactivate the only organization owner.");
    assert_eq!(body["entity"], "organization owner");
    assert_eq!(body["is_last_owner"], true);
    king.get("/users/me", &[]).success();
}

#[test]
fn only_user_cannot_deactivate_themselves() {
    // `solo` is a development organization with a single user.
    let solo = Client::dev_in(Some("solo"), "solo@solo.org");
    let body = solo.delete("/users/me", &[]).bad_request("CANNOT_DEACTIVATE_LAST_USER", "Cannot deactivate the only user.");
    assert_eq!(body["entity"], "user");
    assert_eq!(body["is_last_owner"], false);
    solo.get("/users/me", &[]).success();
}

#[test]
fn administrator_deactivates_and_reactivates_a_user() {
    let iago = Client::dev("iago@zulip.com");
    let user = new_user("admingone");
    iago.delete(&format!("/users/{}", user.user_id), &[]).success();
    user.get("/users/me", &[]).error(401, "USER_DEACTIVATED", "Account is deactivated");

    iago.post(&format!("/users/{}/reactivate", user.user_id), &[]).success();
    let me = user.get("/users/me", &[]).success();
    assert_eq!(me["is_active"], true);
}

#[test]
fn reactivated_user_key_works_again_after_own_deactivation() {
    let iago = Client::dev("iago@zulip.com");
    let user = new_user("comeback");
    user.delete("/users/me", &[]).success();
    user.get("/users/me", &[]).error(401, "USER_DEACTIVATED", "Account is deactivated");
    iago.post(&format!("/users/{}/reactivate", user.user_id), &[]).success();
    user.get("/users/me", &[]).success();
}

#[test]
fn deactivating_others_needs_an_administrator() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let user = new_user("protected");
    hamlet.delete(&format!("/users/{}", user.user_id), &[]).bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    hamlet
        .post(&format!("/users/{}/reactivate", user.user_id), &[])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    user.get("/users/me", &[]).success();
}

#[test]
fn administrator_cannot_deactivate_an_owner() {
    let iago = Client::dev("iago@zulip.com");
    let desdemona = Client::dev("desdemona@zulip.com");
    iago.delete(&format!("/users/{}", desdemona.user_id), &[]).bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
    desdemona.get("/users/me", &[]).success();
}

#[test]
fn only_owner_cannot_be_deactivated_by_an_owner() {
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    king.delete(&format!("/users/{}", king.user_id), &[]).bad_request("BAD_REQUEST", "Cannot deactivate the only organization owner");
}

#[test]
fn deactivating_twice_and_reactivating_an_active_user_are_errors() {
    let iago = Client::dev("iago@zulip.com");
    let user = new_user("twice");
    iago.post(&format!("/users/{}/reactivate", user.user_id), &[]).bad_request("BAD_REQUEST", "User is already active");
    iago.delete(&format!("/users/{}", user.user_id), &[]).success();
    iago.delete(&format!("/users/{}", user.user_id), &[]).bad_request("BAD_REQUEST", "User is deactivated");
}

#[test]
fn unknown_user_is_an_error() {
    let iago = Client::dev("iago@zulip.com");
    iago.delete("/users/99999999", &[]).bad_request("BAD_REQUEST", "No such user");
    iago.post("/users/99999999/reactivate", &[]).bad_request("BAD_REQUEST", "No such user");
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    iago.delete(&format!("/users/{}", king.user_id), &[]).bad_request("BAD_REQUEST", "No such user");
}
