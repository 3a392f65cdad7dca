//! Mobile push against a server whose relay is the test double `tests/push_relay/relay.py`
//! (its URL in PUSH_RELAY_URL): registration, rotation, legacy removal, notifications.

mod chat;
mod common;
mod http_double;
mod push_support;

use std::time::{Duration, Instant};

use common::{assert_matches_openapi, unique, Client};
use push_support::*;
use serde_json::Value;

#[test]
fn every_invalid_field_is_a_bad_request_naming_it_and_nothing_is_stored() {
    let othello = Client::dev("othello@zulip.com");
    let (_, push_key) = new_key(1);
    let d = Device { device_id: device_id(), key: [0; 32], push_key, token: unique("tok") };
    let cases: Vec<(&str, &str, &str)> = vec![
        ("push_key_id", "-1", "Invalid push_key_id: must be an unsigned 32-bit integer"),
        ("push_key_id", "4294967296", "Invalid push_key_id: must be an unsigned 32-bit integer"),
        ("push_key", "not base64!", "Invalid push_key: not standard Base64"),
        ("push_key", "MjIy", "Invalid push_key: unsupported cryptosystem"),
        ("push_key", "MTIz", "Invalid push_key: the key must be 32 bytes"),
        ("token_kind", "gcm", "Invalid token_kind: must be 'fcm' or 'apns'"),
        ("token_id", "%%%", "Invalid token_id: not standard Base64"),
        ("bouncer_public_key", "a-b_", "Invalid bouncer_public_key: not standard Base64"),
        ("encrypted_push_registration", "abc", "Invalid encrypted_push_registration: not standard Base64"),
    ];
    for (field, value, msg) in cases {
        let mut params = full_params(&d);
        params.iter_mut().find(|(k, _)| *k == field).unwrap().1 = value.to_string();
        post(&othello, "/mobile_push/register", &params).bad_request("BAD_REQUEST", msg);
    }
    let bad_device: Vec<(&str, String)> =
        full_params(&d).into_iter().map(|(k, v)| if k == "device_id" { (k, "x".to_string()) } else { (k, v) }).collect();
    post(&othello, "/mobile_push/register", &bad_device).bad_request("BAD_REQUEST", "device_id is not an integer");
    // Nothing stored: a key rotation of that device is still an initial registration.
    let rotation = [("device_id", d.device_id.clone()), ("push_key_id", "1".into()), ("push_key", d.push_key.clone())];
    post(&othello, "/mobile_push/register", &rotation)
        .bad_request("BAD_REQUEST", "Initial registration requires both the push key fields and the token fields");
    // And nothing reached the relay.
    assert!(relay_log().iter().all(|e| e["body"]["token_id"] != token_id_of(&d.token).as_str()));
}

#[test]
fn initial_registration_needs_both_groups() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let (_, push_key) = new_key(2);
    let d = Device { device_id: device_id(), key: [0; 32], push_key, token: unique("tok") };
    let only_token: Vec<_> = full_params(&d).into_iter().filter(|(k, _)| !k.starts_with("push_key")).collect();
    post(&cordelia, "/mobile_push/register", &only_token)
        .bad_request("BAD_REQUEST", "Initial registration requires both the push key fields and the token fields");
    let partial: Vec<_> = full_params(&d).into_iter().filter(|(k, _)| *k != "bouncer_public_key").collect();
    post(&cordelia, "/mobile_push/register", &partial).bad_request(
        "BAD_REQUEST",
        "Missing token fields: token_kind, token_id, bouncer_public_key and encrypted_push_registration go together",
    );
}

#[test]
fn registration_is_forwarded_to_the_relay_and_a_direct_message_reaches_it_encrypted() {
    let prospero = Client::dev("prospero@zulip.com");
    let d = register(&prospero);
    let relay_id = relay_device_id(&d.token);
    let reg = relay_log().into_iter().rev().find(|e| e["path"] == "/api/v1/remotes/push/e2ee/register").unwrap();
    assert_eq!(reg["body"]["token_kind"], "fcm");

    let hamlet = Client::dev("hamlet@zulip.com");
    let content = unique("secret push content");
    hamlet.post("/messages", &[("type", "direct"), ("to", &format!("[{}]", prospero.user_id)), ("content", &content)]).success();
    let found = payloads_for(&relay_id, &d.key, |p| p["content"] == content.as_str());
    assert_eq!(found.len(), 1, "no decryptable notification with the message");
    assert_eq!(found[0]["type"], "message");
    assert_eq!(found[0]["recipient_type"], "direct");
    assert_eq!(found[0]["sender_id"], hamlet.user_id);
    assert_eq!(found[0]["user_id"], prospero.user_id);
    let request = relay_log()
        .iter()
        .filter(|e| e["path"] == "/api/v1/remotes/push/e2ee/notify")
        .flat_map(|e| e["body"]["push_requests"].as_array().cloned().unwrap_or_default())
        .find(|r| {
            r["token_id"] == relay_id.as_str()
                && decrypt(&d.key, r["payload"]["encrypted_data"].as_str().unwrap())["content"] == content.as_str()
        })
        .unwrap();
    assert_eq!(request["fcm_priority"], "high", "{request}");
    assert_eq!(request["payload"]["push_key_id"], 17);
}

#[test]
fn key_rotation_encrypts_later_notifications_with_the_new_key() {
    let iago = Client::dev("iago@zulip.com");
    let d = register(&iago);
    let relay_id = relay_device_id(&d.token);
    let (new_secret, new_push_key) = new_key(9);
    let params = [("device_id", d.device_id.clone()), ("push_key_id", "99".into()), ("push_key", new_push_key)];
    post(&iago, "/mobile_push/register", &params).success();
    let content = unique("after rotation");
    Client::dev("othello@zulip.com")
        .post("/messages", &[("type", "direct"), ("to", &format!("[{}]", iago.user_id)), ("content", &content)])
        .success();
    let start = Instant::now();
    let request = loop {
        let hit = relay_log()
            .iter()
            .filter(|e| e["path"] == "/api/v1/remotes/push/e2ee/notify")
            .flat_map(|e| e["body"]["push_requests"].as_array().cloned().unwrap_or_default())
            .find(|r| r["token_id"] == relay_id.as_str() && r["payload"]["push_key_id"] == 99);
        if let Some(hit) = hit {
            break hit;
        }
        assert!(start.elapsed() < Duration::from_secs(15), "no notification with the new key id");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(decrypt(&new_secret, request["payload"]["encrypted_data"].as_str().unwrap())["content"], content.as_str());
}

#[test]
fn token_rotation_is_forwarded_to_the_relay() {
    let shiva = Client::dev("shiva@zulip.com");
    let d = register(&shiva);
    let new_token = unique("rotated-token");
    let params: Vec<_> =
        full_params(&Device { token: new_token.clone(), ..d }).into_iter().filter(|(k, _)| !k.starts_with("push_key")).collect();
    post(&shiva, "/mobile_push/register", &params).success();
    relay_device_id(&new_token);
}

#[test]
fn registration_removes_legacy_registrations_of_the_same_token() {
    let polonius = Client::dev("polonius@zulip.com");
    let token = unique("legacy-token");
    polonius.post("/users/me/android_gcm_reg_id", &[("token", &token)]).success();
    // Known here: the test notification to it succeeds.
    polonius.post("/mobile_push/test_notification", &[("token", &token)]).success();
    let (key, push_key) = new_key(4);
    let d = Device { device_id: device_id(), key, push_key, token: token.clone() };
    post(&polonius, "/mobile_push/register", &full_params(&d)).success();
    // Removed locally and at the relay.
    polonius.post("/mobile_push/test_notification", &[("token", &token)]).bad_request("INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
    assert!(!wait_for_relay(|e| e["path"] == "/api/v1/remotes/push/unregister" && e["body"]["token"] == token.as_str()).is_empty());
}

#[test]
fn test_notification_with_a_token_goes_to_that_device_only() {
    let desdemona = Client::dev("desdemona@zulip.com");
    let (one, two) = (unique("legacy-one"), unique("legacy-two"));
    desdemona.post("/users/me/android_gcm_reg_id", &[("token", &one)]).success();
    desdemona.post("/users/me/apns_device_token", &[("token", &two), ("appid", "org.zulip.Zulip")]).success();
    let body = desdemona.post("/mobile_push/test_notification", &[("token", &one)]).success();
    assert_matches_openapi("post", "/mobile_push/test_notification", &body);
    let sent = wait_for_relay(|e| e["path"] == "/api/v1/remotes/push/test_notification" && e["body"]["token"] == one.as_str());
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["body"]["base_payload"]["event"], "test");
    assert!(relay_log().iter().all(|e| e["body"]["token"] != two.as_str() || e["path"] != "/api/v1/remotes/push/test_notification"));
}

#[test]
fn test_notification_without_a_token_goes_to_all_devices() {
    let othello = Client::dev("othello@zulip.com");
    let legacy = unique("legacy-all");
    othello.post("/users/me/android_gcm_reg_id", &[("token", &legacy)]).success();
    let d = register(&othello);
    let relay_id = relay_device_id(&d.token);
    othello.post("/mobile_push/test_notification", &[]).success();
    assert!(!wait_for_relay(|e| e["path"] == "/api/v1/remotes/push/test_notification" && e["body"]["token"] == legacy.as_str()).is_empty());
    let tests = payloads_for(&relay_id, &d.key, |p| p["event"] == "test");
    assert!(!tests.is_empty(), "the E2EE device got no test notification");
    assert_eq!(tests[0]["user_id"], othello.user_id);
}

#[test]
fn test_notification_to_an_unknown_token_is_invalid_push_device_token() {
    Client::dev("hamlet@zulip.com")
        .post("/mobile_push/test_notification", &[("token", &unique("never-registered"))])
        .bad_request("INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
}

#[test]
fn test_notification_to_a_token_the_relay_rejects_is_invalid_remote_push_device_token() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let token = unique("relay-forgets-token");
    hamlet.post("/users/me/android_gcm_reg_id", &[("token", &token)]).success();
    hamlet
        .post("/mobile_push/test_notification", &[("token", &token)])
        .bad_request("INVALID_REMOTE_PUSH_DEVICE_TOKEN", "Device not recognized by the push bouncer");
}

#[test]
fn server_settings_and_register_say_push_is_on() {
    let body = common::request("GET", "/server_settings", &[], None, None, None).success();
    assert_eq!(body["push_notifications_enabled"], true);
    let state = Client::dev("hamlet@zulip.com").post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_push_notifications_enabled"], true);
}

fn full_name(client: &Client) -> String {
    client.get("/users/me", &[]).success()["full_name"].as_str().unwrap().to_string()
}

#[test]
fn a_mention_in_a_channel_notifies_and_an_unmentioned_message_does_not() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let d = register(&cordelia);
    let relay_id = relay_device_id(&d.token);
    let hamlet = Client::dev("hamlet@zulip.com");
    let topic = unique("push topic");
    let plain = unique("no mention here");
    chat::send_to_channel(&hamlet, "Verona", &topic, &plain);
    let mention = unique("mentioned");
    chat::send_to_channel(&hamlet, "Verona", &topic, &format!("@**{}** {mention}", full_name(&cordelia)));
    let found = payloads_for(&relay_id, &d.key, |p| p["content"].as_str().is_some_and(|c| c.contains(&mention)));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["recipient_type"], "channel");
    assert_eq!(found[0]["channel_name"], "Verona");
    assert_eq!(found[0]["topic"], topic.as_str());
    // The sentinel: a direct message sent after the plain one has arrived, the plain one has not.
    let sentinel = unique("sentinel");
    chat::send_direct(&hamlet, &[cordelia.user_id], &sentinel);
    assert_eq!(payloads_for(&relay_id, &d.key, |p| p["content"] == sentinel.as_str()).len(), 1);
    assert!(payloads_now(&relay_id, &d.key, &|p: &Value| p["content"] == plain.as_str()).is_empty());
}

#[test]
fn a_channel_with_push_notifications_on_notifies_every_message() {
    let othello = Client::dev("othello@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("push channel");
    let channel_id = chat::create_channel(&hamlet, &name, &[], &[hamlet.user_id, othello.user_id]);
    push_every_message(&othello, channel_id);
    let d = register(&othello);
    let relay_id = relay_device_id(&d.token);
    let content = unique("every message");
    chat::send_to_channel(&hamlet, &name, "t", &content);
    let found = payloads_for(&relay_id, &d.key, |p| p["content"] == content.as_str());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["channel_id"], channel_id);
}

#[test]
fn reading_a_notified_message_sends_a_removal() {
    let prospero = Client::dev("prospero@zulip.com");
    let d = register(&prospero);
    let relay_id = relay_device_id(&d.token);
    let content = unique("to be read");
    let id = chat::send_direct(&Client::dev("iago@zulip.com"), &[prospero.user_id], &content);
    assert_eq!(payloads_for(&relay_id, &d.key, |p| p["content"] == content.as_str()).len(), 1);
    prospero.post("/messages/flags", &[("op", "add"), ("flag", "read"), ("messages", &format!("[{id}]"))]).success();
    let removals = payloads_for(&relay_id, &d.key, |p| p["type"] == "remove" && p["message_ids"] == serde_json::json!([id]));
    assert_eq!(removals.len(), 1);
    assert_eq!(removals[0]["user_id"], prospero.user_id);
}

#[test]
fn deleting_a_notified_message_sends_a_removal() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let d = register(&cordelia);
    let relay_id = relay_device_id(&d.token);
    let iago = Client::dev("iago@zulip.com");
    let content = unique("to be deleted");
    let id = chat::send_direct(&iago, &[cordelia.user_id], &content);
    assert_eq!(payloads_for(&relay_id, &d.key, |p| p["content"] == content.as_str()).len(), 1);
    iago.delete(&format!("/messages/{id}"), &[]).success();
    let removals = payloads_for(&relay_id, &d.key, |p| p["type"] == "remove" && p["message_ids"] == serde_json::json!([id]));
    assert_eq!(removals.len(), 1);
}

#[test]
fn a_failing_relay_does_not_fail_sending_and_is_retried_then_counted() {
    let push_failures_before = push_failures();
    let shiva = Client::dev("shiva@zulip.com");
    let d = register(&shiva);
    let relay_id = relay_device_id(&d.token);
    // The test relay answers 503 to any request for a device whose push_key_id is u32::MAX.
    let params = [("device_id", d.device_id.clone()), ("push_key_id", u32::MAX.to_string()), ("push_key", d.push_key.clone())];
    post(&shiva, "/mobile_push/register", &params).success();
    let content = unique("relay is down");
    chat::send_direct(&Client::dev("hamlet@zulip.com"), &[shiva.user_id], &content);
    let attempts = |log: &[Value]| {
        log.iter()
            .filter(|e| e["path"] == "/api/v1/remotes/push/e2ee/notify" && e["status"] == 503)
            .filter(|e| {
                e["body"]["push_requests"].as_array().unwrap().iter().any(|r| {
                    r["token_id"] == relay_id.as_str()
                        && decrypt(&d.key, r["payload"]["encrypted_data"].as_str().unwrap())["content"] == content.as_str()
                })
            })
            .count()
    };
    // Three attempts are made; one lost on the way (a network error, also retried) never
    // reaches the relay's log, so a retry is proven by the second one that does.
    let start = Instant::now();
    while attempts(&relay_log()) < 2 {
        assert!(start.elapsed() < Duration::from_secs(15), "the relay error was not retried");
        std::thread::sleep(Duration::from_millis(200));
    }
    // When every attempt failed, the operator finds the failure counted for the organization.
    while push_failures() <= push_failures_before {
        assert!(start.elapsed() < Duration::from_secs(30), "the failed notification was not counted");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The push failures counted on the server (the server operator's route).
fn push_failures() -> i64 {
    let response = ureq::get(&format!("{}/api/v1/server_admin/background_failures", common::server_url()))
        .set("Authorization", "Bearer dev-server-admin-secret")
        .call()
        .unwrap();
    let body: Value = serde_json::from_str(&response.into_string().unwrap()).unwrap();
    body["failures"].as_array().unwrap().iter().filter(|f| f["kind"] == "push").map(|f| f["failures"].as_i64().unwrap()).sum()
}

#[test]
fn legacy_registration_needs_a_token_and_apns_an_appid() {
    let cordelia = Client::dev("cordelia@zulip.com");
    cordelia.post("/users/me/android_gcm_reg_id", &[("token", "")]).bad_request("BAD_REQUEST", "Empty or invalid length token");
    cordelia
        .post("/users/me/apns_device_token", &[("token", &unique("apns"))])
        .bad_request("REQUEST_VARIABLE_MISSING", "Missing 'appid' argument");
    let body = cordelia.post("/users/me/android_gcm_reg_id", &[("token", &unique("fcm"))]).success();
    assert_matches_openapi("post", "/users/me/android_gcm_reg_id", &body);
}

#[test]
fn a_legacy_registration_is_removed_here_and_at_the_relay() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let token = unique("removed-fcm");
    cordelia.post("/users/me/android_gcm_reg_id", &[("token", &token)]).success();
    let body = cordelia.delete("/users/me/android_gcm_reg_id", &[("token", &token)]).success();
    assert_matches_openapi("delete", "/users/me/android_gcm_reg_id", &body);
    cordelia.post("/mobile_push/test_notification", &[("token", &token)]).bad_request("INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
    assert!(!wait_for_relay(|e| e["path"] == "/api/v1/remotes/push/unregister" && e["body"]["token"] == token.as_str()).is_empty());
}

#[test]
fn removing_a_token_the_user_has_not_registered_with_that_kind_is_refused() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let token = unique("kept-fcm");
    cordelia.post("/users/me/android_gcm_reg_id", &[("token", &token)]).success();
    cordelia.delete("/users/me/apns_device_token", &[("token", &token)]).bad_request("BAD_REQUEST", "Token does not exist");
    Client::dev("hamlet@zulip.com")
        .delete("/users/me/android_gcm_reg_id", &[("token", &token)])
        .bad_request("BAD_REQUEST", "Token does not exist");
    cordelia.delete("/users/me/android_gcm_reg_id", &[("token", "")]).bad_request("BAD_REQUEST", "Empty or invalid length token");
    // Still registered: the test notification reaches it.
    cordelia.post("/mobile_push/test_notification", &[("token", &token)]).success();
}

#[test]
fn a_scheduled_direct_message_notifies_its_recipient_when_delivered() {
    let prospero = Client::dev("prospero@zulip.com");
    let d = register(&prospero);
    let relay_id = relay_device_id(&d.token);
    let hamlet = Client::dev("hamlet@zulip.com");
    let content = unique("scheduled push content");
    let due = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 2;
    hamlet
        .post(
            "/scheduled_messages",
            &[
                ("type", "direct"),
                ("to", &format!("[{}]", prospero.user_id)),
                ("content", &content),
                ("scheduled_delivery_timestamp", &due.to_string()),
            ],
        )
        .success();
    let found = payloads_for(&relay_id, &d.key, |p| p["content"] == content.as_str());
    assert_eq!(found.len(), 1, "no notification for the delivered scheduled message");
    assert_eq!(found[0]["sender_id"], hamlet.user_id);
    assert_eq!(found[0]["recipient_type"], "direct");
}

#[test]
fn an_edit_that_adds_a_mention_notifies_the_newly_mentioned_user_only() {
    let cordelia = Client::dev("cordelia@zulip.com");
    let d = register(&cordelia);
    let relay_id = relay_device_id(&d.token);
    let othello = Client::dev("othello@zulip.com");
    let o = register(&othello);
    let othello_relay_id = relay_device_id(&o.token);
    let hamlet = Client::dev("hamlet@zulip.com");
    let topic = unique("edit push topic");
    let marker = unique("edited to mention");
    // Othello is mentioned from the start (notified once, by the send).
    let id = chat::send_to_channel(&hamlet, "Verona", &topic, &format!("@**{}** {marker}", full_name(&othello)));
    assert_eq!(payloads_for(&othello_relay_id, &o.key, |p| p["content"].as_str().is_some_and(|c| c.contains(&marker))).len(), 1);
    let edited = format!("@**{}** @**{}** {marker} again", full_name(&othello), full_name(&cordelia));
    hamlet.patch(&format!("/messages/{id}"), &[("content", &edited)]).success();
    let found = payloads_for(&relay_id, &d.key, |p| p["content"].as_str().is_some_and(|c| c.contains(&marker)));
    assert_eq!(found.len(), 1, "the newly mentioned user gets one notification");
    assert_eq!(found[0]["message_id"], id);
    // Othello, mentioned before the edit, is not notified again. The edit's notifications go
    // out in one relay request, which has already reached Cordelia, so this is final.
    assert_eq!(payloads_now(&othello_relay_id, &o.key, &|p: &Value| p["content"].as_str().is_some_and(|c| c.contains(&marker))).len(), 1);
}

/// Turns on `client`'s push notifications for every message of a channel.
fn push_every_message(client: &Client, channel_id: i64) {
    let data = format!(r#"[{{"stream_id": {channel_id}, "property": "push_notifications", "value": true}}]"#);
    client.post("/users/me/subscriptions/properties", &[("subscription_data", &data)]).success();
}

#[test]
fn the_notification_bots_direct_message_notifies_its_recipient() {
    let prospero = Client::dev("prospero@zulip.com");
    let d = register(&prospero);
    let relay_id = relay_device_id(&d.token);
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("told channel");
    chat::create_channel(&hamlet, &name, &[], &[hamlet.user_id]);
    // Subscribed by someone else to a channel that already existed: told by direct message.
    let subscriptions = serde_json::json!([{ "name": name }]).to_string();
    hamlet
        .post("/users/me/subscriptions", &[("subscriptions", &subscriptions), ("principals", &format!("[{}]", prospero.user_id))])
        .success();
    let found = payloads_for(&relay_id, &d.key, |p| p["content"].as_str().is_some_and(|c| c.contains(&name)));
    assert_eq!(found.len(), 1, "no notification for the notification bot's direct message");
    assert_eq!(found[0]["recipient_type"], "direct");
    assert_eq!(found[0]["sender_full_name"], "Notification Bot");
}

#[test]
fn the_notification_bots_notice_in_a_channel_notifies_who_asked_for_every_message() {
    let othello = Client::dev("othello@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let channel_id = chat::create_channel(&hamlet, &unique("renamed push"), &[], &[hamlet.user_id, othello.user_id]);
    push_every_message(&othello, channel_id);
    let d = register(&othello);
    let relay_id = relay_device_id(&d.token);
    let new_name = unique("renamed to");
    hamlet.patch(&format!("/streams/{channel_id}"), &[("new_name", &new_name)]).success();
    let found = payloads_for(&relay_id, &d.key, |p| p["content"].as_str().is_some_and(|c| c.contains(&new_name)));
    assert_eq!(found.len(), 1, "no notification for the rename notice");
    assert_eq!(found[0]["channel_id"], channel_id);
    assert_eq!(found[0]["sender_full_name"], "Notification Bot");
}

#[test]
fn a_moves_notice_in_the_new_thread_notifies_who_asked_for_every_message() {
    let othello = Client::dev("othello@zulip.com");
    let hamlet = Client::dev("hamlet@zulip.com");
    let from = chat::create_channel(&hamlet, &unique("moved from"), &[], &[hamlet.user_id, othello.user_id]);
    let to = chat::create_channel(&hamlet, &unique("moved to"), &[], &[hamlet.user_id, othello.user_id]);
    let topic = unique("moved topic");
    let id = chat::send_to_channel_id(&hamlet, from, &topic, "to be moved");
    push_every_message(&othello, to);
    let d = register(&othello);
    let relay_id = relay_device_id(&d.token);
    let moved =
        [("stream_id", to.to_string()), ("propagate_mode", "change_all".into()), ("send_notification_to_new_thread", "true".into())];
    let moved: Vec<(&str, &str)> = moved.iter().map(|(k, v)| (*k, v.as_str())).collect();
    chat::edit(&hamlet, id, &moved).success();
    let found = payloads_for(&relay_id, &d.key, |p| p["channel_id"] == to && p["sender_full_name"] == "Notification Bot");
    assert_eq!(found.len(), 1, "no notification for the move's notice");
    assert_eq!(found[0]["topic"], topic.as_str());
}

#[test]
fn an_outgoing_webhook_bots_reply_notifies_the_user_it_answers() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let d = register(&hamlet);
    let relay_id = relay_device_id(&d.token);
    let reply = unique("the bot's reply");
    let answer = serde_json::json!({ "content": reply }).to_string();
    let (url, _requests) = http_double::double(Box::new(move |_| Some((200, answer.clone()))));
    let short = unique("pushbot");
    let created = hamlet
        .post(
            "/bots",
            &[
                ("full_name", &format!("Push {short}")),
                ("short_name", &short),
                ("bot_type", "3"),
                ("payload_url", &serde_json::json!(url).to_string()),
            ],
        )
        .success();
    let bot_id = created["user_id"].as_i64().unwrap();
    chat::send_direct(&hamlet, &[bot_id], "ping");
    let found = payloads_for(&relay_id, &d.key, |p| p["content"] == reply.as_str());
    assert_eq!(found.len(), 1, "no notification for the bot's reply");
    assert_eq!(found[0]["sender_id"], bot_id);
    assert_eq!(found[0]["recipient_type"], "direct");
}
