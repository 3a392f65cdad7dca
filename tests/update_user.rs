//! `PATCH /users/{user_id}`: administrators change roles (owner changes need an owner) and names.

mod accounts;
mod common;

use accounts::new_user;
use common::*;

fn role_of(viewer: &Client, user_id: i64) -> i64 {
    viewer.get(&format!("/users/{user_id}"), &[]).success()["user"]["role"].as_i64().unwrap()
}

#[test]
fn administrator_sets_every_non_owner_role() {
    let iago = Client::dev("iago@zulip.com");
    let user = new_user("roles");
    for role in [300, 200, 600, 400] {
        iago.patch(&format!("/users/{}", user.user_id), &[("role", &role.to_string())]).success();
        assert_eq!(role_of(&iago, user.user_id), role);
    }
    let me = user.get("/users/me", &[]).success();
    assert_eq!((me["is_admin"].as_bool(), me["is_guest"].as_bool()), (Some(false), Some(false)));
}

#[test]
fn only_owners_grant_and_remove_the_owner_role() {
    let iago = Client::dev("iago@zulip.com");
    let desdemona = Client::dev("desdemona@zulip.com");
    let user = new_user("owner");
    iago.patch(&format!("/users/{}", user.user_id), &[("role", "100")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
    assert_eq!(role_of(&iago, user.user_id), 400);

    desdemona.patch(&format!("/users/{}", user.user_id), &[("role", "100")]).success();
    let me = user.get("/users/me", &[]).success();
    assert_eq!((me["role"].as_i64(), me["is_owner"].as_bool(), me["is_admin"].as_bool()), (Some(100), Some(true), Some(true)));

    iago.patch(&format!("/users/{}", user.user_id), &[("role", "400")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
    desdemona.patch(&format!("/users/{}", user.user_id), &[("role", "400")]).success();
    assert_eq!(role_of(&iago, user.user_id), 400);
}

#[test]
fn only_owner_keeps_the_owner_role() {
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    king.patch(&format!("/users/{}", king.user_id), &[("role", "200")])
        .bad_request("BAD_REQUEST", "The owner permission cannot be removed from the only organization owner.");
    assert_eq!(role_of(&king, king.user_id), 100);
}

#[test]
fn invalid_role_is_refused() {
    let iago = Client::dev("iago@zulip.com");
    let user = new_user("badrole");
    iago.patch(&format!("/users/{}", user.user_id), &[("role", "500")]).bad_request("BAD_REQUEST", "Invalid role");
    iago.patch(&format!("/users/{}", user.user_id), &[("role", "owner")]).bad_request("BAD_REQUEST", "role is not an integer");
}

#[test]
fn members_cannot_change_roles() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let user = new_user("nochange");
    hamlet
        .patch(&format!("/users/{}", user.user_id), &[("role", "200")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
    assert_eq!(role_of(&hamlet, user.user_id), 400);
}

#[test]
fn administrator_renames_a_user() {
    let iago = Client::dev("iago@zulip.com");
    let user = new_user("rename");
    iago.patch(&format!("/users/{}", user.user_id), &[("full_name", "Renamed Person")]).success();
    assert_eq!(user.get("/users/me", &[]).success()["full_name"], "Renamed Person");
    iago.patch(&format!("/users/{}", user.user_id), &[("full_name", "x@y")]).bad_request("BAD_REQUEST", "Invalid characters in name!");
}

#[test]
fn a_bad_value_changes_nothing() {
    let iago = Client::dev("iago@zulip.com");
    let user = new_user("atomic");
    let bad_profile = serde_json::json!([{ "id": 99999999, "value": "x" }]).to_string();
    iago.patch(&format!("/users/{}", user.user_id), &[("role", "300"), ("full_name", "Changed Name"), ("profile_data", &bad_profile)])
        .bad_request("BAD_REQUEST", "Field id 99999999 not found.");
    let seen = iago.get(&format!("/users/{}", user.user_id), &[]).success()["user"].clone();
    assert_eq!((seen["role"].as_i64(), seen["full_name"].as_str()), (Some(400), Some("Test User")));
}
