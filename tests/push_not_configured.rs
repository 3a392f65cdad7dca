//! A server without relay settings (`make test` runs this file a second time against a
//! server started with PUSH_RELAY=off): push is off and registration is refused.
//! Against the relay-enabled server (PUSH_RELAY_URL set) the tests have nothing to prove.

mod common;

use common::Client;

fn relay_configured() -> bool {
    std::env::var("PUSH_RELAY_URL").is_ok()
}

#[test]
fn registration_without_relay_settings_is_push_service_not_configured() {
    if relay_configured() {
        return;
    }
    Client::dev("hamlet@zulip.com")
        .post(
            "/mobile_push/register",
            &[
                ("device_id", "1"),
                ("push_key_id", "1"),
                ("push_key", "MQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB"),
                ("token_kind", "fcm"),
                ("token_id", "AAAAAAAAAAA="),
                ("bouncer_public_key", "AAAA"),
                ("encrypted_push_registration", "AAAA"),
            ],
        )
        .bad_request("PUSH_SERVICE_NOT_CONFIGURED", "Server is not configured to use push notification service.");
}

#[test]
fn server_settings_and_register_without_relay_settings_say_push_is_off() {
    if relay_configured() {
        return;
    }
    let body = common::request("GET", "/server_settings", &[], None, None, None).success();
    assert_eq!(body["push_notifications_enabled"], false);
    let state = Client::dev("hamlet@zulip.com").post("/register", &[("fetch_event_types", r#"["realm"]"#)]).success();
    assert_eq!(state["realm_push_notifications_enabled"], false);
}

#[test]
fn a_test_notification_to_an_unknown_token_is_invalid_push_device_token_without_a_relay_too() {
    if relay_configured() {
        return;
    }
    Client::dev("hamlet@zulip.com")
        .post("/mobile_push/test_notification", &[("token", "never-registered")])
        .bad_request("INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
}
