//! This server and its organizations at the push relay, as a Zulip server is at Zulip's
//! push bouncer: the relay (tests/push_relay/relay.py) refuses servers it has not
//! registered and organizations it was not told of, as the real one does; the server then
//! registers itself, uploads its organizations with their UUIDs, and tries again.

mod common;
mod push_support;
use common::*;
use push_support::*;
use serde_json::Value;

/// The tests change what the one relay knows: one at a time.
static RELAY: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn relay_url() -> String {
    std::env::var("PUSH_RELAY_URL").expect("PUSH_RELAY_URL is not set: run with scripts/with-test-server.sh")
}

fn relay_knowledge() -> Value {
    ureq::get(&format!("{}/servers", relay_url())).call().unwrap().into_json().unwrap()
}

fn is_uuid4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.iter().map(|p| p.len()).collect::<Vec<_>>() == [8, 4, 4, 4, 12]
        && s.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
        && parts[2].starts_with('4')
}

/// The relay's copy of the organization at `host`, once it has one.
fn uploaded_organization(host: &str) -> Value {
    let knowledge = relay_knowledge();
    knowledge["realms"]["test-server"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, r)| r.clone())
        .find(|r| r["host"] == host)
        .unwrap_or(Value::Null)
}

/// Registers a legacy FCM token of `client`: a relay request naming the organization.
fn register_token(client: &Client) -> String {
    let token = unique("relay-registration-");
    client.post("/users/me/android_gcm_reg_id", &[("token", &token)]).success();
    token
}

#[test]
fn a_relay_that_knows_nothing_learns_the_server_and_its_organizations_and_the_request_goes_through() {
    let _one = RELAY.lock().unwrap_or_else(|e| e.into_inner());
    ureq::post(&format!("{}/forget", relay_url())).call().unwrap();
    let hamlet = Client::dev("hamlet@zulip.com");
    let token = register_token(&hamlet);

    let server = &relay_knowledge()["servers"]["test-server"];
    assert_eq!(server["hostname"], "localhost", "{server}");
    assert_eq!(server["contact_email"], "admin@localhost");
    let zulip = uploaded_organization("localhost");
    let uuid = zulip["uuid"].as_str().expect("the default organization was uploaded");
    assert!(is_uuid4(uuid), "{uuid}");
    assert!(zulip["uuid_owner_secret"].as_str().unwrap().starts_with("zuliprealm_"));
    assert_eq!(zulip["deactivated"], false);
    // The token reached the relay under the organization's UUID, after it was refused once.
    let sent = wait_for_relay(|e| e["path"] == "/api/v1/remotes/push/register" && e["body"]["token"] == token.as_str());
    assert_eq!(sent.first().map(|e| e["status"].clone()), Some(401.into()), "{sent:?}");
    assert_eq!(sent.last().unwrap()["status"], 200, "{sent:?}");
    assert!(sent.iter().all(|e| e["body"]["realm_uuid"] == uuid), "{sent:?}");
}

#[test]
fn every_organization_is_named_by_its_own_uuid_never_its_subdomain() {
    let _one = RELAY.lock().unwrap_or_else(|e| e.into_inner());
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    let token = register_token(&king);
    let sent = wait_for_relay(|e| e["path"] == "/api/v1/remotes/push/register" && e["body"]["token"] == token.as_str());
    let accepted = sent.iter().find(|e| e["status"] == 200).expect("the relay took the token");
    let lear_uuid = accepted["body"]["realm_uuid"].as_str().unwrap();
    assert!(is_uuid4(lear_uuid), "{lear_uuid}");
    assert_eq!(uploaded_organization("lear.localhost")["uuid"], lear_uuid);
    assert_ne!(uploaded_organization("localhost")["uuid"], lear_uuid);
}
