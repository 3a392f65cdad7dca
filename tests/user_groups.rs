//! User groups: creation, listing, members, subgroups and `GET /user_groups/{id}/members/{user_id}`.

mod accounts;
mod common;

use accounts::{new_bot, new_user};
use common::*;
use serde_json::{json, Value};

fn create_group(creator: &Client, members: &[i64], subgroups: &[i64]) -> i64 {
    let name = unique("group");
    let members = json!(members).to_string();
    let subgroups = json!(subgroups).to_string();
    let body = creator
        .post("/user_groups/create", &[("name", &name), ("description", "A test group"), ("members", &members), ("subgroups", &subgroups)])
        .success();
    assert_matches_openapi("POST", "/user_groups/create", &body);
    body["group_id"].as_i64().unwrap()
}

fn is_member(viewer: &Client, group_id: i64, user_id: i64, direct_only: bool) -> bool {
    let direct = direct_only.to_string();
    let body = viewer.get(&format!("/user_groups/{group_id}/members/{user_id}"), &[("direct_member_only", &direct)]).success();
    assert_matches_openapi("GET", "/user_groups/{user_group_id}/members/{user_id}", &body);
    body["is_user_group_member"].as_bool().unwrap()
}

fn groups(viewer: &Client) -> Vec<Value> {
    let body = viewer.get("/user_groups", &[]).success();
    assert_matches_openapi("GET", "/user_groups", &body);
    body["user_groups"].as_array().unwrap().clone()
}

fn system_group(viewer: &Client, name: &str) -> Value {
    groups(viewer).into_iter().find(|g| g["name"] == name).unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn created_group_is_listed_with_members_and_subgroups() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let inner = create_group(&hamlet, &[othello.user_id], &[]);
    let outer = create_group(&hamlet, &[hamlet.user_id], &[inner]);
    let all = groups(&hamlet);
    let group = all.iter().find(|g| g["id"] == outer).unwrap();
    assert_eq!(group["members"], json!([hamlet.user_id]));
    assert_eq!(group["direct_subgroup_ids"], json!([inner]));
    assert_eq!(group["is_system_group"], false);
    assert_eq!(group["description"], "A test group");
    assert_eq!(group["creator_id"], hamlet.user_id);
    assert_eq!(group["deactivated"], false);
}

#[test]
fn system_groups_are_listed_with_role_members() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let desdemona = Client::dev("desdemona@zulip.com");
    let admins = system_group(&hamlet, "role:administrators");
    assert_eq!(admins["is_system_group"], true);
    assert!(admins["members"].as_array().unwrap().contains(&json!(iago.user_id)));
    let owners = system_group(&hamlet, "role:owners");
    assert!(admins["direct_subgroup_ids"].as_array().unwrap().contains(&owners["id"]));
    assert!(owners["members"].as_array().unwrap().contains(&json!(desdemona.user_id)));
    for name in ["role:moderators", "role:fullmembers", "role:members", "role:everyone", "role:internet", "role:nobody"] {
        system_group(&hamlet, name);
    }
}

#[test]
fn membership_counts_two_levels_of_subgroups() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let user = new_user("deep");
    let innermost = create_group(&hamlet, &[user.user_id], &[]);
    let middle = create_group(&hamlet, &[], &[innermost]);
    let outer = create_group(&hamlet, &[hamlet.user_id], &[middle]);

    assert!(is_member(&hamlet, outer, user.user_id, false));
    assert!(!is_member(&hamlet, outer, user.user_id, true));
    assert!(is_member(&hamlet, middle, user.user_id, false));
    assert!(is_member(&hamlet, innermost, user.user_id, true));
    assert!(is_member(&hamlet, outer, hamlet.user_id, true));
    assert!(!is_member(&hamlet, innermost, hamlet.user_id, false));

    let body = hamlet.get(&format!("/user_groups/{outer}/members"), &[]).success();
    assert_matches_openapi("GET", "/user_groups/{user_group_id}/members", &body);
    let members = body["members"].clone();
    assert_eq!(members, json!([hamlet.user_id.min(user.user_id), hamlet.user_id.max(user.user_id)]));
    let direct = hamlet.get(&format!("/user_groups/{outer}/members"), &[("direct_member_only", "true")]).success()["members"].clone();
    assert_eq!(direct, json!([hamlet.user_id]));
}

#[test]
fn system_group_membership_follows_roles_through_subgroups() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let iago = Client::dev("iago@zulip.com");
    let polonius = Client::dev("polonius@zulip.com");
    let members = system_group(&hamlet, "role:members")["id"].as_i64().unwrap();
    let everyone = system_group(&hamlet, "role:everyone")["id"].as_i64().unwrap();
    assert!(is_member(&hamlet, members, iago.user_id, false));
    assert!(!is_member(&hamlet, members, iago.user_id, true));
    assert!(is_member(&hamlet, members, hamlet.user_id, true));
    assert!(!is_member(&hamlet, members, polonius.user_id, false));
    assert!(is_member(&hamlet, everyone, polonius.user_id, true));
}

#[test]
fn deactivated_user_is_never_a_member() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let user = new_user("leaver");
    let group = create_group(&hamlet, &[user.user_id], &[]);
    let members_group = system_group(&hamlet, "role:members")["id"].as_i64().unwrap();
    assert!(is_member(&hamlet, group, user.user_id, true));
    user.delete("/users/me", &[]).success();
    assert!(!is_member(&hamlet, group, user.user_id, true));
    assert!(!is_member(&hamlet, members_group, user.user_id, false));
    let listed = groups(&hamlet).into_iter().find(|g| g["id"] == group).unwrap();
    assert_eq!(listed["members"], json!([]));
}

#[test]
fn bots_may_be_asked_about_and_may_ask() {
    let owner = new_user("botowner");
    let bot = new_bot(&owner, "1", &[]);
    let group = create_group(&owner, &[bot.user_id], &[]);
    assert!(is_member(&owner, group, bot.user_id, true));
    assert!(is_member(&bot, group, bot.user_id, false));
    assert!(!is_member(&bot, group, owner.user_id, false));
}

#[test]
fn unknown_group_or_user_is_an_error() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let group = create_group(&hamlet, &[], &[]);
    hamlet.get(&format!("/user_groups/99999999/members/{}", hamlet.user_id), &[]).bad_request("BAD_REQUEST", "Invalid user group");
    hamlet.get(&format!("/user_groups/{group}/members/99999999"), &[]).bad_request("BAD_REQUEST", "No such user");
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    king.get(&format!("/user_groups/{group}/members/{}", king.user_id), &[]).bad_request("BAD_REQUEST", "Invalid user group");
}

#[test]
fn members_are_added_and_removed() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let (a, b) = (new_user("ma"), new_user("mb"));
    let group = create_group(&hamlet, &[hamlet.user_id], &[]);
    let add = json!([a.user_id, b.user_id]).to_string();
    hamlet.post(&format!("/user_groups/{group}/members"), &[("add", &add)]).success();
    assert!(is_member(&hamlet, group, a.user_id, true) && is_member(&hamlet, group, b.user_id, true));

    let delete = json!([a.user_id]).to_string();
    hamlet.post(&format!("/user_groups/{group}/members"), &[("delete", &delete)]).success();
    assert!(!is_member(&hamlet, group, a.user_id, true));

    let again = json!([b.user_id]).to_string();
    hamlet
        .post(&format!("/user_groups/{group}/members"), &[("add", &again)])
        .bad_request("BAD_REQUEST", &format!("User {} is already a member of this group", b.user_id));
    hamlet
        .post(&format!("/user_groups/{group}/members"), &[("delete", &delete)])
        .bad_request("BAD_REQUEST", &format!("There is no member '{}' in this user group", a.user_id));
    hamlet
        .post(&format!("/user_groups/{group}/members"), &[])
        .bad_request("BAD_REQUEST", "Nothing to do. Specify at least one of \"add\" or \"delete\".");
    hamlet.post(&format!("/user_groups/{group}/members"), &[("add", "[99999999]")]).bad_request("BAD_REQUEST", "Invalid user ID: 99999999");
}

#[test]
fn subgroups_are_added_and_removed_without_cycles() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let a = create_group(&hamlet, &[hamlet.user_id], &[]);
    let b = create_group(&hamlet, &[hamlet.user_id], &[]);
    let c = create_group(&hamlet, &[hamlet.user_id], &[]);
    hamlet.post(&format!("/user_groups/{a}/subgroups"), &[("add", &json!([b]).to_string())]).success();
    hamlet.post(&format!("/user_groups/{b}/subgroups"), &[("add", &json!([c]).to_string())]).success();
    let direct = hamlet.get(&format!("/user_groups/{a}/subgroups"), &[("direct_subgroup_only", "true")]).success()["subgroups"].clone();
    assert_eq!(direct, json!([b]));
    let body = hamlet.get(&format!("/user_groups/{a}/subgroups"), &[]).success();
    assert_matches_openapi("GET", "/user_groups/{user_group_id}/subgroups", &body);
    let all = body["subgroups"].clone();
    assert_eq!(all, json!([b, c]));

    // c -> a would close the cycle a -> b -> c -> a; a -> a too.
    hamlet
        .post(&format!("/user_groups/{c}/subgroups"), &[("add", &json!([a]).to_string())])
        .bad_request("BAD_REQUEST", &format!("User group {c} is already a subgroup of one of the passed subgroups."));
    hamlet
        .post(&format!("/user_groups/{a}/subgroups"), &[("add", &json!([a]).to_string())])
        .bad_request("BAD_REQUEST", &format!("User group {a} is already a subgroup of one of the passed subgroups."));
    hamlet
        .post(&format!("/user_groups/{a}/subgroups"), &[("add", &json!([b]).to_string())])
        .bad_request("BAD_REQUEST", &format!("User group {b} is already a subgroup of this group."));

    hamlet.post(&format!("/user_groups/{a}/subgroups"), &[("delete", &json!([b]).to_string())]).success();
    hamlet
        .post(&format!("/user_groups/{a}/subgroups"), &[("delete", &json!([b]).to_string())])
        .bad_request("BAD_REQUEST", &format!("User group {b} is not a subgroup of this group."));
    hamlet
        .post(&format!("/user_groups/{a}/subgroups"), &[("add", "[99999999]")])
        .bad_request("BAD_REQUEST", "Invalid user group ID: 99999999");
}

#[test]
fn system_groups_cannot_be_edited() {
    let iago = Client::dev("iago@zulip.com");
    let admins = system_group(&iago, "role:administrators")["id"].as_i64().unwrap();
    let user = new_user("notadmin");
    iago.post(&format!("/user_groups/{admins}/members"), &[("add", &json!([user.user_id]).to_string())])
        .bad_request("BAD_REQUEST", "Insufficient permission");
    assert!(!is_member(&iago, admins, user.user_id, false));
}

#[test]
fn outsiders_cannot_edit_a_group() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let group = create_group(&hamlet, &[hamlet.user_id], &[]);
    othello
        .post(&format!("/user_groups/{group}/members"), &[("add", &json!([othello.user_id]).to_string())])
        .bad_request("BAD_REQUEST", "Insufficient permission");
    // Those in the organization's `can_manage_all_groups` (owners) may.
    let desdemona = Client::dev("desdemona@zulip.com");
    desdemona.post(&format!("/user_groups/{group}/members"), &[("add", &json!([othello.user_id]).to_string())]).success();
}

#[test]
fn group_names_are_checked() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("dupgroup");
    hamlet.post("/user_groups/create", &[("name", &name), ("description", "first")]).success();
    hamlet
        .post("/user_groups/create", &[("name", &name), ("description", "second")])
        .bad_request("BAD_REQUEST", &format!("User group '{name}' already exists."));
    hamlet
        .post("/user_groups/create", &[("name", "role:mine"), ("description", "x")])
        .bad_request("BAD_REQUEST", "User group name cannot start with 'role:'.");
    hamlet
        .post("/user_groups/create", &[("name", " "), ("description", "x")])
        .bad_request("BAD_REQUEST", "User group name cannot be empty.");
    hamlet
        .post("/user_groups/create", &[("name", &unique("nodesc"))])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'description' argument");
    hamlet
        .post("/user_groups/create", &[("name", &unique("badmember")), ("description", "x"), ("members", "[99999999]")])
        .bad_request("BAD_REQUEST", "Invalid user ID: 99999999");
}

#[test]
fn guests_cannot_create_groups() {
    let polonius = Client::dev("polonius@zulip.com");
    polonius
        .post("/user_groups/create", &[("name", &unique("guestgroup")), ("description", "x")])
        .bad_request("BAD_REQUEST", "Not allowed for guest users");
}

#[test]
fn full_members_are_members_past_the_organizations_waiting_period() {
    let (owner, member) = organization_with_member("waiting-", "Waiting period", "a-long-member-password-7");
    let full_members = system_group(&owner, "role:fullmembers")["id"].as_i64().unwrap();
    assert!(is_member(&owner, full_members, member.user_id, true), "no waiting period: a full member at once");
    owner.patch("/realm", &[("waiting_period_threshold", "10")]).success();
    assert!(!is_member(&owner, full_members, member.user_id, true), "joined today, ten days to wait");
    assert!(is_member(&owner, full_members, owner.user_id, false), "the owner, through role:moderators");
    let listed = system_group(&owner, "role:fullmembers");
    assert!(!listed["members"].as_array().unwrap().contains(&json!(member.user_id)), "{listed}");
    let state = member.post("/register", &[("fetch_event_types", r#"["realm_user_groups"]"#)]).success();
    let groups = state["realm_user_groups"].as_array().unwrap();
    let registered = groups.iter().find(|g| g["id"] == full_members).unwrap();
    assert!(!registered["members"].as_array().unwrap().contains(&json!(member.user_id)), "{registered}");
}
