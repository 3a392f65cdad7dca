//! `PATCH /realm/user_settings_defaults`: administrators change the organization's defaults
//! for the personal settings of people who join later; validated as `PATCH /settings`,
//! announced by `realm_user_settings_defaults`, shown by `/register`, and applied to people
//! created by an administrator or signing up through an invitation. Each test changes an
//! organization of its own, since other tests create users in the seeded one.

mod common;
mod event_support;
mod onboarding;

use common::*;
use event_support::register_for;
use onboarding::{accounts, join_key, last_email_to, password_login_in};
use serde_json::{json, Value};

const PASSWORD: &str = "a-long-test-password";

fn defaults(client: &Client) -> Value {
    client.post("/register", &[("fetch_event_types", r#"["realm_user_settings_defaults"]"#)]).success()["realm_user_settings_defaults"]
        .clone()
}

fn settings_of(client: &Client) -> Value {
    let form = [("fetch_event_types", r#"["user_settings"]"#), ("client_capabilities", r#"{"user_settings_object": true}"#)];
    client.post("/register", &form).success()["user_settings"].clone()
}

/// A new person of the owner's organization, created by the owner, with `role`.
fn person_with_role(owner: &Client, role: i64) -> Client {
    let email = format!("{}@{}.example.com", unique("p").to_lowercase(), owner.realm.as_deref().unwrap());
    let body = owner.post("/users", &[("email", &email), ("password", PASSWORD), ("full_name", "Some Person")]).success();
    if role != 400 {
        owner.patch(&format!("/users/{}", body["user_id"]), &[("role", &role.to_string())]).success();
    }
    password_login_in(owner.realm.as_deref(), &email, PASSWORD)
}

#[test]
fn an_owner_changes_defaults_and_register_shows_them() {
    let (owner, _) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    let body =
        owner.patch("/realm/user_settings_defaults", &[("emojiset", "text"), ("enable_sounds", "false"), ("color_scheme", "2")]).success();
    assert_matches_openapi("patch", "/realm/user_settings_defaults", &body);
    let defaults = defaults(&owner);
    assert_eq!((defaults["emojiset"].clone(), defaults["enable_sounds"].clone()), (json!("text"), json!(false)));
    assert_eq!(defaults["color_scheme"], 2);
    assert_eq!(defaults["enable_digest_emails"], true, "an untouched default keeps the catalogue's value");
    assert!(defaults.get("timezone").is_none());
}

#[test]
fn an_administrator_changes_defaults() {
    let (owner, _) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    let admin = person_with_role(&owner, 200);
    admin.patch("/realm/user_settings_defaults", &[("web_home_view", "all_messages")]).success();
    assert_eq!(defaults(&owner)["web_home_view"], "all_messages");
}

#[test]
fn moderators_members_and_guests_may_not_change_defaults() {
    let (owner, member) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    let moderator = person_with_role(&owner, 300);
    let guest = person_with_role(&owner, 600);
    for who in [&moderator, &member, &guest] {
        who.patch("/realm/user_settings_defaults", &[("emojiset", "text")]).error(
            400,
            "UNAUTHORIZED_PRINCIPAL",
            "Must be an organization administrator",
        );
    }
    assert_eq!(defaults(&owner)["emojiset"], "google");
}

#[test]
fn a_change_sends_realm_user_settings_defaults_to_everyone() {
    let (owner, member) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    let mut queue = register_for(&member, r#"["realm_user_settings_defaults"]"#);
    owner.patch("/realm/user_settings_defaults", &[("left_side_userlist", "true")]).success();
    let mut event = queue.wait_for("realm_user_settings_defaults", |e| e["type"] == "realm_user_settings_defaults");
    event.as_object_mut().unwrap().remove("id");
    assert_eq!(event, json!({"type": "realm_user_settings_defaults", "op": "update", "property": "left_side_userlist", "value": true}));
}

#[test]
fn an_unchanged_default_sends_no_event() {
    let (owner, _) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    let mut queue = register_for(&owner, r#"["realm_user_settings_defaults", "message"]"#);
    owner.patch("/realm/user_settings_defaults", &[("emojiset", "google"), ("enter_sends", "true")]).success();
    let seen = queue.events_before_sentinel();
    let properties: Vec<&Value> = seen.iter().filter(|e| e["type"] == "realm_user_settings_defaults").map(|e| &e["property"]).collect();
    assert_eq!(properties, [&json!("enter_sends")]);
}

#[test]
fn a_bad_value_changes_no_default() {
    let (owner, _) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    owner
        .patch("/realm/user_settings_defaults", &[("emojiset", "text"), ("color_scheme", "7")])
        .bad_request("BAD_REQUEST", "Invalid color_scheme");
    owner
        .patch("/realm/user_settings_defaults", &[("enable_sounds", "maybe")])
        .bad_request("BAD_REQUEST", "enable_sounds is not a boolean");
    owner
        .patch("/realm/user_settings_defaults", &[("email_notifications_batching_period_seconds", "0")])
        .bad_request("BAD_REQUEST", "Invalid email batching period: 0 seconds");
    owner
        .patch("/realm/user_settings_defaults", &[("email_address_visibility", "9")])
        .bad_request("BAD_REQUEST", "Invalid email_address_visibility");
    let defaults = defaults(&owner);
    assert_eq!((defaults["emojiset"].clone(), defaults["color_scheme"].clone()), (json!("google"), json!(1)));
}

#[test]
fn personal_identity_settings_are_not_defaults() {
    let (owner, _) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    let body = owner.patch("/realm/user_settings_defaults", &[("timezone", "Asia/Tokyo"), ("default_language", "de")]).success();
    assert_eq!(body["ignored_parameters_unsupported"], json!(["timezone", "default_language"]));
    assert_eq!(defaults(&owner)["default_language"], "en");
}

#[test]
fn people_created_later_start_with_the_defaults() {
    let (owner, _) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    let form = [
        ("emojiset", "text"),
        ("enable_sounds", "false"),
        ("automatically_follow_topics_policy", "1"),
        ("automatically_follow_topics_where_mentioned", "false"),
        ("email_address_visibility", "4"),
    ];
    owner.patch("/realm/user_settings_defaults", &form).success();
    let newcomer = person_with_role(&owner, 400);
    let settings = settings_of(&newcomer);
    assert_eq!((settings["emojiset"].clone(), settings["enable_sounds"].clone()), (json!("text"), json!(false)));
    assert_eq!(settings["automatically_follow_topics_policy"], 1);
    assert_eq!(settings["automatically_follow_topics_where_mentioned"], false);
    assert_eq!(settings["email_address_visibility"], 4);
}

#[test]
fn a_newcomer_whose_address_members_may_not_see_is_announced_to_them_without_it() {
    let (owner, member) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    owner.patch("/realm/user_settings_defaults", &[("email_address_visibility", "3")]).success();
    let mut members_queue = register_for(&member, r#"["realm_user"]"#);
    let mut owners_queue = register_for(&owner, r#"["realm_user"]"#);
    let newcomer = person_with_role(&owner, 400);
    let added = |e: &Value| e["op"] == "add" && e["person"]["user_id"] == newcomer.user_id;

    let seen_by_member = members_queue.wait_for("the newcomer", added)["person"].clone();
    let member_view = member.get(&format!("/users/{}", newcomer.user_id), &[]).success()["user"].clone();
    assert_eq!(seen_by_member["delivery_email"], Value::Null);
    assert_eq!(seen_by_member["email"], member_view["email"]);
    assert_ne!(seen_by_member["email"], newcomer.email.as_str());
    let seen_by_owner = owners_queue.wait_for("the newcomer", added)["person"].clone();
    assert_eq!((seen_by_owner["delivery_email"].clone(), seen_by_owner["email"].clone()), (json!(newcomer.email), json!(newcomer.email)));
}

#[test]
fn people_who_joined_earlier_keep_their_settings() {
    let (owner, member) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    owner.patch("/realm/user_settings_defaults", &[("emojiset", "twitter"), ("automatically_follow_topics_policy", "1")]).success();
    let settings = settings_of(&member);
    assert_eq!((settings["emojiset"].clone(), settings["automatically_follow_topics_policy"].clone()), (json!("google"), json!(3)));
}

#[test]
fn people_signing_up_through_an_invitation_start_with_the_defaults() {
    let (owner, _) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    let realm = owner.realm.clone();
    owner.patch("/realm/user_settings_defaults", &[("twenty_four_hour_time", "true"), ("web_home_view", "recent_topics")]).success();
    let address = format!("{}@example.org", unique("invited").to_lowercase());
    owner.post("/invites", &[("invitee_emails", address.as_str()), ("stream_ids", "[]")]).success();
    let key = join_key(&last_email_to(realm.as_deref(), &address));
    let form = [("key", key.as_str()), ("full_name", "In Vited"), ("password", PASSWORD)];
    accounts(realm.as_deref(), "POST", "/accounts/register/", &form, None).success();
    let settings = settings_of(&password_login_in(realm.as_deref(), &address, PASSWORD));
    assert_eq!((settings["twenty_four_hour_time"].clone(), settings["web_home_view"].clone()), (json!(true), json!("recent_topics")));
}

#[test]
fn bots_keep_the_catalogue_defaults() {
    let (owner, _) = organization_with_member("defaults", "Defaults Org", PASSWORD);
    owner.patch("/realm/user_settings_defaults", &[("emojiset", "text")]).success();
    let bot = owner.post("/bots", &[("full_name", "Default Bot"), ("short_name", &unique("dbot").to_lowercase())]).success();
    let user_id = bot["user_id"].as_i64().unwrap();
    let email = owner.get(&format!("/users/{user_id}"), &[]).success()["user"]["email"].as_str().unwrap().to_string();
    let bot_client = Client { email, api_key: bot["api_key"].as_str().unwrap().to_string(), user_id, realm: owner.realm.clone() };
    assert_eq!(settings_of(&bot_client)["emojiset"], "google");
}
