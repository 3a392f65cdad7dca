//! Invitations and joining (issue 29): `POST/GET /invites`, revoking, resending, reusable
//! links, the sign-up routes under `/accounts/`, the organization's join rules, and the
//! emails they send (read from the development outbox, `GET /dev_emails`).

mod common;
mod event_support;
mod onboarding;

use common::*;
use event_support::register_for;
use onboarding::*;
use serde_json::{json, Value};

const PASSWORD: &str = "a-long-test-password";

fn new_address(prefix: &str) -> String {
    format!("{}@example.org", unique(prefix).to_lowercase())
}

/// Invites `address` as `inviter` to Verona; answers the sign-up key mailed to it.
fn invite(inviter: &Client, address: &str, extra: &[(&str, &str)]) -> String {
    let verona = channel_id(inviter, "Verona").to_string();
    let streams = format!("[{verona}]");
    let mut form = vec![("invitee_emails", address), ("stream_ids", streams.as_str())];
    form.extend_from_slice(extra);
    inviter.post("/invites", &form).success();
    join_key(&last_email_to(None, address))
}

fn pending_invite<'a>(invites: &'a Value, address: &str) -> Option<&'a Value> {
    invites["invites"].as_array().unwrap().iter().find(|i| i["email"] == address)
}

// --- POST /invites: validation ---

#[test]
fn invite_requires_addresses_and_channels() {
    let hamlet = Client::dev("hamlet@zulip.com");
    hamlet
        .post("/invites", &[("invitee_emails", "x@example.org")])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'stream_ids' argument");
    hamlet
        .post("/invites", &[("invitee_emails", ""), ("stream_ids", "[]")])
        .bad_request("BAD_REQUEST", "You must specify at least one email address.");
}

#[test]
fn invite_to_an_unknown_channel_sends_nothing() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let address = new_address("nochannel");
    hamlet
        .post("/invites", &[("invitee_emails", address.as_str()), ("stream_ids", "[987654]")])
        .bad_request("BAD_REQUEST", "Invalid channel ID 987654. No invites were sent.");
    assert_nothing_mailed_to(None, &address, &hamlet);
}

#[test]
fn a_malformed_address_sends_no_invitation_at_all() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let good = new_address("good");
    let list = format!("{good}, not-an-address");
    let body = hamlet
        .post("/invites", &[("invitee_emails", list.as_str()), ("stream_ids", "[]")])
        .bad_request("INVITATION_FAILED", "Some emails did not validate, so we didn't send any invitations.");
    assert_eq!(body["errors"], json!([["not-an-address", "Invalid address.", false]]));
    assert_eq!(body["sent_invitations"], false);
    assert_eq!(body["daily_limit_reached"], false);
    assert_eq!(body["license_limit_reached"], false);
    assert_nothing_mailed_to(None, &good, &hamlet);
    assert!(pending_invite(&hamlet.get("/invites", &[]).success(), &good).is_none());
}

#[test]
fn existing_members_are_skipped_and_the_others_invited() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let fresh = new_address("fresh");
    let list = format!("othello@zulip.com\nNew Person <{fresh}>");
    let body = hamlet.post("/invites", &[("invitee_emails", list.as_str()), ("stream_ids", "[]")]).bad_request(
        "INVITATION_FAILED",
        "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
    );
    assert_eq!(body["errors"], json!([["othello@zulip.com", "Already has an account.", false]]));
    assert_eq!(body["sent_invitations"], true);
    let mail = last_email_to(None, &fresh);
    assert_eq!(mail["subject"], "King Hamlet invited you to join Zulip Dev");
    assert!(pending_invite(&hamlet.get("/invites", &[]).success(), &fresh).is_some());
}

#[test]
fn inviting_only_members_invites_nobody() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let body = hamlet
        .post("/invites", &[("invitee_emails", "othello@zulip.com"), ("stream_ids", "[]")])
        .bad_request("INVITATION_FAILED", "We weren't able to invite anyone.");
    assert_eq!(body["sent_invitations"], false);
}

#[test]
fn a_thousand_addresses_are_over_the_daily_limit_and_nothing_is_created() {
    let iago = Client::dev("iago@zulip.com");
    let prefix = unique("bulk").to_lowercase();
    let addresses: Vec<String> = (0..1000).map(|i| format!("{prefix}-{i}@example.org")).collect();
    let list = addresses.join(",");
    let body = iago.post("/invites", &[("invitee_emails", list.as_str()), ("stream_ids", "[]")]).bad_request(
        "INVITATION_FAILED",
        "To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.",
    );
    assert_eq!(body["daily_limit_reached"], true);
    assert_eq!(body["sent_invitations"], false);
    let invites = iago.get("/invites", &[]).success();
    assert!(invites["invites"].as_array().unwrap().iter().all(|i| !i["email"].as_str().unwrap_or("").starts_with(&prefix)));
    assert_nothing_mailed_to(None, &addresses[0], &iago);
}

// --- POST /invites: permissions ---

#[test]
fn guests_may_not_invite() {
    let polonius = Client::dev("polonius@zulip.com");
    polonius
        .post("/invites", &[("invitee_emails", "x@example.org"), ("stream_ids", "[]")])
        .bad_request("BAD_REQUEST", "Insufficient permission");
}

#[test]
fn only_administrators_invite_administrators_and_moderators() {
    let hamlet = Client::dev("hamlet@zulip.com");
    for role in ["200", "300"] {
        hamlet
            .post("/invites", &[("invitee_emails", "x@example.org"), ("stream_ids", "[]"), ("invite_as", role)])
            .bad_request("BAD_REQUEST", "Must be an organization administrator");
    }
}

#[test]
fn only_owners_invite_owners() {
    let iago = Client::dev("iago@zulip.com");
    iago.post("/invites", &[("invitee_emails", "x@example.org"), ("stream_ids", "[]"), ("invite_as", "100")])
        .bad_request("UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
    iago.post("/invites", &[("invitee_emails", "x@example.org"), ("stream_ids", "[]"), ("invite_as", "7")])
        .bad_request("BAD_REQUEST", "Invalid invite_as");
}

#[test]
fn can_invite_users_group_decides_who_invites() {
    let owner = new_organization();
    let realm = owner.realm.clone();
    let member_email = new_address("member");
    owner.post("/invites", &[("invitee_emails", member_email.as_str()), ("stream_ids", "[]")]).success();
    let key = join_key(&last_email_to(realm.as_deref(), &member_email));
    accounts(
        realm.as_deref(),
        "POST",
        "/accounts/register/",
        &[("key", key.as_str()), ("full_name", "Mem Ber"), ("password", PASSWORD)],
        None,
    )
    .success();
    let member = password_login_in(realm.as_deref(), &member_email, PASSWORD);
    let address = new_address("bygroup");
    member.post("/invites", &[("invitee_emails", address.as_str()), ("stream_ids", "[]")]).success();

    let state = owner.post("/register", &[]).success();
    let admins = state["realm_user_groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "role:administrators")
        .map(|g| g["id"].as_i64().unwrap())
        .unwrap();
    owner.patch("/realm", &[("can_invite_users_group", &admins.to_string())]).success();
    assert_eq!(owner.post("/register", &[]).success()["realm_can_invite_users_group"], admins);
    member
        .post("/invites", &[("invitee_emails", "y@example.org"), ("stream_ids", "[]")])
        .bad_request("BAD_REQUEST", "Insufficient permission");
}

// --- GET /invites, DELETE, resend ---

#[test]
fn pending_invitations_are_listed_for_their_creator_and_administrators() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let address = new_address("listed");
    invite(&hamlet, &address, &[("invite_expires_in_minutes", "60"), ("notify_referrer_on_join", "false")]);
    let mine = hamlet.get("/invites", &[]).success();
    let entry = pending_invite(&mine, &address).expect("listed for its creator");
    assert_eq!(entry["invited_by_user_id"], hamlet.user_id);
    assert_eq!(entry["invited_as"], 400);
    assert_eq!(entry["is_multiuse"], false);
    assert_eq!(entry["notify_referrer_on_join"], false);
    let invited = entry["invited"].as_i64().unwrap();
    assert_eq!(entry["expiry_date"].as_i64().unwrap() - invited, 3600);
    assert!(pending_invite(&Client::dev("iago@zulip.com").get("/invites", &[]).success(), &address).is_some(), "administrators see it");
    assert!(pending_invite(&Client::dev("othello@zulip.com").get("/invites", &[]).success(), &address).is_none(), "other members do not");
}

#[test]
fn an_invitation_that_never_expires_has_no_expiry_date() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let address = new_address("forever");
    invite(&hamlet, &address, &[("invite_expires_in_minutes", "null")]);
    assert_eq!(pending_invite(&hamlet.get("/invites", &[]).success(), &address).unwrap()["expiry_date"], Value::Null);
}

#[test]
fn a_revoked_invitation_link_says_so() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let address = new_address("revoked");
    let key = invite(&hamlet, &address, &[]);
    let id = pending_invite(&hamlet.get("/invites", &[]).success(), &address).unwrap()["id"].as_i64().unwrap();
    Client::dev("othello@zulip.com")
        .delete(&format!("/invites/{id}"), &[])
        .bad_request("BAD_REQUEST", "Must be an organization administrator");
    let mut iago_queue = register_for(&Client::dev("iago@zulip.com"), r#"["invites_changed", "message"]"#);
    hamlet.delete(&format!("/invites/{id}"), &[]).success();
    iago_queue.wait_for("invites_changed", |e| e["type"] == "invites_changed");
    hamlet.delete(&format!("/invites/{id}"), &[]).bad_request("BAD_REQUEST", "No such invitation");
    accounts(None, "GET", &format!("/accounts/register/{key}/"), &[], None).error(400, "BAD_REQUEST", "This invitation has been revoked.");
    accounts(None, "POST", "/accounts/register/", &[("key", key.as_str()), ("full_name", "Late"), ("password", PASSWORD)], None).error(
        400,
        "BAD_REQUEST",
        "This invitation has been revoked.",
    );
}

#[test]
fn resending_mails_a_new_link_and_the_old_one_stops_working() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let address = new_address("resent");
    let old_key = invite(&hamlet, &address, &[]);
    let id = pending_invite(&hamlet.get("/invites", &[]).success(), &address).unwrap()["id"].as_i64().unwrap();
    hamlet.post(&format!("/invites/{id}/resend"), &[]).success();
    let new_key = join_key(&last_email_to(None, &address));
    assert_ne!(new_key, old_key);
    accounts(None, "GET", &format!("/accounts/register/{old_key}/"), &[], None).error(
        404,
        "BAD_REQUEST",
        "We couldn't find your confirmation ID.",
    );
    assert_eq!(accounts(None, "GET", &format!("/accounts/register/{new_key}/"), &[], None).success()["email"], address);
    hamlet.post("/invites/999999/resend", &[]).bad_request("BAD_REQUEST", "No such invitation");
}

// --- Signing up through an invitation ---

#[test]
fn signing_up_makes_a_member_subscribed_and_signed_in_and_tells_everyone() {
    let iago = Client::dev("iago@zulip.com");
    let address = new_address("joiner");
    let mut hamlet_queue = register_for(&Client::dev("hamlet@zulip.com"), r#"["realm_user", "message"]"#);
    let mut iago_queue = register_for(&iago, r#"["invites_changed", "subscription", "message"]"#);
    let key = invite(&iago, &address, &[("invite_as", "300")]);
    iago_queue.wait_for("invites_changed on invite", |e| e["type"] == "invites_changed");

    let link = accounts(None, "GET", &format!("/accounts/register/{key}/"), &[], None).success();
    assert_eq!(link["kind"], "invitation");
    assert_eq!(link["email"], address);
    assert_eq!(link["invited_as"], 300);
    assert_eq!(link["realm_name"], "Zulip Dev");

    let joined =
        accounts(None, "POST", "/accounts/register/", &[("key", key.as_str()), ("full_name", "New Joiner"), ("password", PASSWORD)], None);
    assert!(joined.cookie("sessionid").is_some_and(|c| !c.is_empty()), "signed in: {:?}", joined.set_cookies);
    assert!(joined.cookie("csrftoken").is_some());
    let body = joined.success();
    assert_eq!(body["email"], address);
    let user_id = body["user_id"].as_i64().unwrap();

    let added =
        hamlet_queue.wait_for("realm_user add", |e| e["type"] == "realm_user" && e["op"] == "add" && e["person"]["user_id"] == user_id);
    assert_eq!(added["person"]["full_name"], "New Joiner");
    // Other tests invite in parallel, so any invites_changed may be theirs: wait for the
    // new member's peer_add, then for the invites_changed that follows the use.
    iago_queue.wait_for("the new member's peer_add", |e| {
        e["type"] == "subscription" && e["op"] == "peer_add" && e["user_ids"].as_array().is_some_and(|u| u.contains(&json!(user_id)))
    });
    iago_queue.wait_for("invites_changed on use", |e| e["type"] == "invites_changed");

    let me = password_login_in(None, &address, PASSWORD);
    let profile = me.get("/users/me", &[]).success();
    assert_eq!(profile["role"], 300);
    assert_eq!(profile["full_name"], "New Joiner");
    let subs = me.get("/users/me/subscriptions", &[]).success();
    assert!(subs["subscriptions"].as_array().unwrap().iter().any(|s| s["name"] == "Verona"), "{subs}");
    assert!(pending_invite(&iago.get("/invites", &[]).success(), &address).is_none(), "no longer pending");
}

/// The notification bot's direct messages to `referrer` that name `user_id` (raw content).
fn joined_notices(referrer: &Client, user_id: i64) -> Vec<String> {
    let narrow = r#"[{"operator": "is", "operand": "dm"}, {"operator": "sender", "operand": "notification-bot@zulip.com"}]"#;
    let body = referrer
        .get(
            "/messages",
            &[("narrow", narrow), ("anchor", "newest"), ("num_before", "100"), ("num_after", "0"), ("apply_markdown", "false")],
        )
        .success();
    let mention = format!("|{user_id}**");
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .filter(|c| c.contains(&mention))
        .map(String::from)
        .collect()
}

fn sign_up(key: &str, full_name: &str) -> i64 {
    accounts(None, "POST", "/accounts/register/", &[("key", key), ("full_name", full_name), ("password", PASSWORD)], None).success()
        ["user_id"]
        .as_i64()
        .unwrap()
}

#[test]
fn a_referrer_who_asked_is_told_by_the_notification_bot_when_the_invitee_joins() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let unasked = sign_up(&invite(&hamlet, &new_address("quiet"), &[("notify_referrer_on_join", "false")]), "Quiet Joiner");
    let asked = sign_up(&invite(&hamlet, &new_address("told"), &[]), "Told Joiner");
    assert_eq!(joined_notices(&hamlet, asked), [format!("@_**Told Joiner|{asked}** accepted your invitation to join Zulip!")]);
    // The notice asked for came after the one not asked for would have: none was sent.
    assert!(joined_notices(&hamlet, unasked).is_empty());
}

#[test]
fn an_invitation_link_works_once() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let address = new_address("once");
    let key = invite(&hamlet, &address, &[]);
    accounts(None, "POST", "/accounts/register/", &[("key", key.as_str()), ("full_name", "First"), ("password", PASSWORD)], None).success();
    accounts(None, "POST", "/accounts/register/", &[("key", key.as_str()), ("full_name", "Second"), ("password", PASSWORD)], None).error(
        400,
        "BAD_REQUEST",
        "This confirmation link has already been used.",
    );
    accounts(None, "GET", &format!("/accounts/register/{key}/"), &[], None).error(
        400,
        "BAD_REQUEST",
        "This confirmation link has already been used.",
    );
}

#[test]
fn a_forged_link_is_not_found() {
    for key in ["AAAAAAAAAAAAAAAAAAAAAAAA", "short", "has%20space-and-more-chars"] {
        accounts(None, "GET", &format!("/accounts/register/{key}/"), &[], None).error(
            404,
            "BAD_REQUEST",
            "We couldn't find your confirmation ID.",
        );
    }
    accounts(None, "POST", "/accounts/register/", &[("key", "AAAAAAAAAAAAAAAAAAAAAAAA"), ("full_name", "X"), ("password", PASSWORD)], None)
        .error(404, "BAD_REQUEST", "We couldn't find your confirmation ID.");
}

#[test]
fn signing_up_with_a_weak_password_creates_nothing_and_keeps_the_link() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let address = new_address("weak");
    let key = invite(&hamlet, &address, &[]);
    accounts(None, "POST", "/accounts/register/", &[("key", key.as_str()), ("full_name", "Weak"), ("password", "password")], None).error(
        400,
        "BAD_REQUEST",
        "The password is too weak.",
    );
    accounts(None, "POST", "/accounts/register/", &[("key", key.as_str()), ("full_name", "  "), ("password", PASSWORD)], None).error(
        400,
        "BAD_REQUEST",
        "Name too short!",
    );
    assert_eq!(accounts(None, "GET", &format!("/accounts/register/{key}/"), &[], None).success()["email"], address);
}

// --- Reusable links ---

#[test]
fn members_may_not_create_reusable_links_by_default() {
    Client::dev("hamlet@zulip.com").post("/invites/multiuse", &[]).bad_request("BAD_REQUEST", "Insufficient permission");
}

#[test]
fn a_reusable_link_lets_several_people_join_until_revoked() {
    let iago = Client::dev("iago@zulip.com");
    let denmark = channel_id(&iago, "Denmark");
    let body = iago.post("/invites/multiuse", &[("stream_ids", &format!("[{denmark}]")), ("invite_as", "600")]).success();
    let link = body["invite_link"].as_str().unwrap().to_string();
    let key = link.trim_end_matches('/').rsplit('/').next().unwrap().to_string();
    let listed = iago.get("/invites", &[]).success();
    let entry = listed["invites"].as_array().unwrap().iter().find(|i| i["link_url"] == link.as_str()).expect("listed");
    assert_eq!(entry["is_multiuse"], true);
    assert_eq!(entry["invited_as"], 600);

    let opened = accounts(None, "GET", &format!("/accounts/register/{key}/"), &[], None).success();
    assert_eq!(opened["kind"], "multiuse");
    for name in ["first", "second"] {
        let address = new_address(name);
        accounts(None, "POST", "/accounts/home/", &[("email", address.as_str()), ("key", key.as_str())], None).success();
        let confirmation = last_email_to(None, &address);
        assert_eq!(confirmation["subject"], "Activate your account on Zulip Dev");
        let signup_key = join_key(&confirmation);
        accounts(None, "POST", "/accounts/register/", &[("key", signup_key.as_str()), ("full_name", name), ("password", PASSWORD)], None)
            .success();
        let me = password_login_in(None, &address, PASSWORD);
        assert_eq!(me.get("/users/me", &[]).success()["role"], 600);
        let subs = me.get("/users/me/subscriptions", &[]).success();
        assert!(subs["subscriptions"].as_array().unwrap().iter().any(|s| s["stream_id"] == denmark), "{subs}");
    }

    let id = entry["id"].as_i64().unwrap();
    iago.delete(&format!("/invites/multiuse/{id}"), &[]).success();
    iago.delete(&format!("/invites/multiuse/{id}"), &[]).bad_request("BAD_REQUEST", "Invitation has already been revoked");
    accounts(None, "GET", &format!("/accounts/register/{key}/"), &[], None).error(400, "BAD_REQUEST", "This invitation has been revoked.");
    let late = new_address("late");
    accounts(None, "POST", "/accounts/home/", &[("email", late.as_str()), ("key", key.as_str())], None).error(
        400,
        "BAD_REQUEST",
        "This invitation has been revoked.",
    );
    assert_nothing_mailed_to(None, &late, &iago);
}

#[test]
fn a_reusable_link_needs_an_address_first() {
    let iago = Client::dev("iago@zulip.com");
    let link = iago.post("/invites/multiuse", &[]).success()["invite_link"].as_str().unwrap().to_string();
    let key = link.trim_end_matches('/').rsplit('/').next().unwrap().to_string();
    accounts(None, "POST", "/accounts/register/", &[("key", key.as_str()), ("full_name", "X"), ("password", PASSWORD)], None).error(
        400,
        "REQUEST_VARIABLE_MISSING",
        "Missing 'email' argument",
    );
    accounts(None, "POST", "/accounts/home/", &[("email", "hamlet@zulip.com"), ("key", key.as_str())], None).error(
        400,
        "BAD_REQUEST",
        "hamlet@zulip.com already has an account",
    );
}

// --- Join rules ---

#[test]
fn join_rules_are_in_register_and_changed_by_patch_realm() {
    let owner = new_organization();
    let state = owner.post("/register", &[]).success();
    assert_eq!(state["realm_invite_required"], true);
    assert_eq!(state["realm_emails_restricted_to_domains"], false);
    assert_eq!(state["realm_disallow_disposable_email_addresses"], true);
    assert_eq!(state["realm_domains"], json!([]));
    let mut queue = register_for(&owner, r#"["realm", "realm_domains", "message"]"#);
    owner.patch("/realm", &[("emails_restricted_to_domains", "true"), ("invite_required", "false")]).success();
    queue.wait_for("realm update_dict", |e| e["type"] == "realm" && e["data"]["emails_restricted_to_domains"] == true);
    owner.post("/realm/domains", &[("domain", "Example.COM"), ("allow_subdomains", "true")]).success();
    queue.wait_for("realm_domains add", |e| {
        e["type"] == "realm_domains" && e["op"] == "add" && e["realm_domain"]["domain"] == "example.com"
    });
    owner
        .post("/realm/domains", &[("domain", "example.com")])
        .bad_request("BAD_REQUEST", "The domain example.com is already a part of your organization.");
    let state = owner.post("/register", &[]).success();
    assert_eq!(state["realm_invite_required"], false);
    assert_eq!(state["realm_emails_restricted_to_domains"], true);
    assert_eq!(state["realm_domains"], json!([{"domain": "example.com", "allow_subdomains": true}]));
    owner.delete("/realm/domains/example.com", &[]).success();
    owner.delete("/realm/domains/example.com", &[]).bad_request("BAD_REQUEST", "No entry found for domain example.com.");
}

#[test]
fn restricted_domains_and_disposable_addresses_are_refused_per_address() {
    let owner = new_organization();
    let general = channel_id(&owner, "general").to_string();
    let streams = format!("[{general}]");
    let body = owner
        .post("/invites", &[("invitee_emails", "someone@mailinator.com"), ("stream_ids", streams.as_str())])
        .bad_request("INVITATION_FAILED", "Some emails did not validate, so we didn't send any invitations.");
    assert_eq!(body["errors"], json!([["someone@mailinator.com", "Please use your real email address.", false]]));
    owner.patch("/realm", &[("emails_restricted_to_domains", "true")]).success();
    owner.post("/realm/domains", &[("domain", "corp.example")]).success();
    let body = owner
        .post("/invites", &[("invitee_emails", "a@elsewhere.example, b+tag@corp.example"), ("stream_ids", streams.as_str())])
        .bad_request("INVITATION_FAILED", "Some emails did not validate, so we didn't send any invitations.");
    assert_eq!(
        body["errors"],
        json!([
            ["a@elsewhere.example", "Outside your domain.", false],
            ["b+tag@corp.example", "Email addresses containing + are not allowed.", false]
        ])
    );
    owner.post("/invites", &[("invitee_emails", "c@corp.example"), ("stream_ids", streams.as_str())]).success();
    assert_eq!(last_email_to(owner.realm.as_deref(), "c@corp.example")["subject"], "Olive Owner invited you to join Onboarding Org");
}

#[test]
fn an_open_organization_lets_anyone_ask_to_join() {
    let owner = new_organization();
    let realm = owner.realm.clone();
    let address = new_address("open");
    accounts(realm.as_deref(), "POST", "/accounts/home/", &[("email", address.as_str())], None).error(
        400,
        "BAD_REQUEST",
        "Sign-up in this organization requires an invitation.",
    );
    owner.patch("/realm", &[("invite_required", "false")]).success();
    accounts(realm.as_deref(), "POST", "/accounts/home/", &[("email", "x@mailinator.com")], None).error(
        400,
        "BAD_REQUEST",
        "Please use your real email address.",
    );
    accounts(realm.as_deref(), "POST", "/accounts/home/", &[("email", address.as_str())], None).success();
    let key = join_key(&last_email_to(realm.as_deref(), &address));
    accounts(
        realm.as_deref(),
        "POST",
        "/accounts/register/",
        &[("key", key.as_str()), ("full_name", "Open Joiner"), ("password", PASSWORD)],
        None,
    )
    .success();
    assert_eq!(password_login_in(realm.as_deref(), &address, PASSWORD).get("/users/me", &[]).success()["role"], 400);
}

// --- The development outbox ---

#[test]
fn dev_emails_lists_text_and_html_newest_first() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let first = new_address("order-a");
    let second = new_address("order-b");
    invite(&hamlet, &first, &[]);
    invite(&hamlet, &second, &[]);
    let all = dev_emails(None);
    let position = |a: &str| all.iter().position(|e| e["to"] == a).unwrap();
    assert!(position(&second) < position(&first), "newest first");
    let mail = &all[position(&second)];
    let keys: Vec<&str> = mail.as_object().unwrap().keys().map(String::as_str).collect();
    for key in ["to", "subject", "text", "html", "sent_at"] {
        assert!(keys.contains(&key), "{key} in {keys:?}");
    }
    assert!(mail["html"].as_str().unwrap().contains("<a href="));
    assert!(mail["sent_at"].as_i64().is_some());
}
