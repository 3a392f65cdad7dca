//! Links past their expiry (issue 29): an invitation and a "forgot password" link aged by
//! a direct write to the test server's local database (`wrangler d1 execute`), which says
//! so and creates nothing. A binary of its own, its tests one at a time: the write locks
//! the database for a moment, which would fail other tests' requests running beside it.

mod accounts;
mod common;
mod onboarding;

use std::sync::Mutex;

use common::*;
use onboarding::*;

const PASSWORD: &str = accounts::PASSWORD;
const NEW_PASSWORD: &str = "another-long-passphrase-42";

/// The tests of this binary run one at a time (see above).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn new_address(prefix: &str) -> String {
    format!("{}@example.org", unique(prefix).to_lowercase())
}

#[test]
fn an_expired_invitation_link_says_so_and_creates_nothing() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let hamlet = Client::dev("hamlet@zulip.com");
    let address = new_address("expired");
    hamlet.post("/invites", &[("invitee_emails", address.as_str()), ("stream_ids", "[]"), ("invite_expires_in_minutes", "5")]).success();
    let key = join_key(&last_email_to(None, &address));
    execute_on_database(&format!("UPDATE invitations SET expires_at = created_at - 1 WHERE email = '{address}'"));
    accounts(None, "GET", &format!("/accounts/register/{key}/"), &[], None).error(
        400,
        "BAD_REQUEST",
        "The confirmation link has expired or been deactivated.",
    );
    accounts(None, "POST", "/accounts/register/", &[("key", key.as_str()), ("full_name", "Late"), ("password", PASSWORD)], None).error(
        400,
        "BAD_REQUEST",
        "The confirmation link has expired or been deactivated.",
    );
    request("POST", "/fetch_api_key", &[], Some(Body::Form(&[("username", &address), ("password", PASSWORD)])), None, None).error(
        401,
        "AUTHENTICATION_FAILED",
        "Your username or password is incorrect",
    );
}

#[test]
fn an_expired_reset_link_says_so() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let user = accounts::new_user("pwexpired");
    accounts(None, "POST", "/accounts/password/reset/", &[("email", user.email.as_str())], None).success();
    let token = reset_token(&last_email_to(None, &user.email));
    execute_on_database(&format!("UPDATE password_resets SET expires_at = created_at - 1 WHERE user_id = {}", user.user_id));
    accounts(None, "POST", &format!("/accounts/password/reset/{token}/"), &[("new_password", NEW_PASSWORD)], None).error(
        400,
        "BAD_REQUEST",
        "The confirmation link has expired or been deactivated.",
    );
    accounts::password_login(&user.email);
}
