//! Zulip's new-login email (`email_on_new_login`): who is told of a sign-in, and how the
//! device is named. A person who just joined is not told (their first sign-in is the
//! sign-up itself), nor one who turned `enable_login_emails` off.
//!
//! The device is named from a few well-known words of the `User-Agent` header, as Zulip
//! did before it used a parser: a user-agent database (ua-parser's regexes) would cost
//! the worker more than the rest of this feature, for a name that is only a hint.

use chrono::DateTime;

use crate::db::users::UserRow;
use crate::domain::email::{escape_html, OutgoingEmail};
use crate::domain::user_settings;

/// Seconds after joining during which sign-ins are not mailed about (Zulip's 60).
pub const JUST_JOINED_SECONDS: i64 = 60;

/// Whether a password sign-in of `user` at `now` is mailed about.
pub fn wants_notice(user: &UserRow, now: i64) -> bool {
    user.is_bot == 0 && now - user.date_joined > JUST_JOINED_SECONDS && user_settings::flag(user, "enable_login_emails")
}

/// The browser a `User-Agent` names, if one is recognised (Zulip's own apps first).
pub fn device_browser(user_agent: &str) -> Option<&'static str> {
    let ua = user_agent.to_lowercase();
    let has = |word: &str| ua.contains(word);
    Some(if has("zulip") {
        "Zulip"
    } else if has("edg/") || has("edge") {
        "Edge"
    } else if has("opr/") || has("opera") {
        "Opera"
    } else if has("firefox") && !has("seamonkey") {
        "Firefox"
    } else if has("chromium") {
        "Chromium"
    } else if has("chrome") || has("crios") {
        "Chrome"
    } else if has("safari") {
        "Safari"
    } else if has("msie") || has("trident") {
        "Internet Explorer"
    } else {
        return None;
    })
}

/// The operating system a `User-Agent` names, if one is recognised.
pub fn device_os(user_agent: &str) -> Option<&'static str> {
    let ua = user_agent.to_lowercase();
    let has = |word: &str| ua.contains(word);
    Some(if has("android") {
        "Android"
    } else if has("iphone") || has("ipad") || has("like mac os x") {
        "iOS"
    } else if has("windows") {
        "Windows"
    } else if has("macintosh") || has("mac os x") {
        "macOS"
    } else if has(" cros ") {
        "ChromeOS"
    } else if has("linux") {
        "Linux"
    } else {
        return None;
    })
}

/// The sign-in being reported.
pub struct SignIn<'a> {
    pub to: &'a str,
    pub realm_url: &'a str,
    pub user_agent: &'a str,
    pub ip: Option<&'a str>,
    pub at: i64,
    pub unsubscribe_url: &'a str,
}

/// The email, with Zulip's subject ("New login from Firefox on Linux") and facts. Times are
/// in UTC: the worker carries no time-zone database.
pub fn new_login_email(sign_in: &SignIn) -> OutgoingEmail {
    let browser = device_browser(sign_in.user_agent).unwrap_or("An unknown browser");
    let os = device_os(sign_in.user_agent).unwrap_or("an unknown operating system");
    let time = DateTime::from_timestamp(sign_in.at, 0).map(|t| t.format("%A, %B %-d, %Y, %H:%M UTC").to_string()).unwrap_or_default();
    let facts = [
        format!("Organization: {}", sign_in.realm_url),
        format!("Email: {}", sign_in.to),
        format!("Time: {time}"),
        format!("Device: {browser} on {os}."),
        format!("IP address: {}", sign_in.ip.unwrap_or("Unknown IP address")),
    ];
    let reset_url = format!("{}/accounts/password/reset/", sign_in.realm_url);
    let intro = "We noticed a recent login for the following account.";
    let fine = "If this was you, great! There's nothing else you need to do.";
    let warning = "If you do not recognize this login, or think your account may have been compromised, please reset your password";
    let text = format!(
        "{intro}\n\n{}\n\n{fine}\n\n{warning} at {reset_url}.\n\nUnsubscribe from login notifications: {}\n",
        facts.join("\n"),
        sign_in.unsubscribe_url
    );
    let items: String = facts.iter().map(|f| format!("<li>{}</li>", escape_html(f))).collect();
    let html = format!(
        "<html><body><p>{intro}</p><ul>{items}</ul><p>{fine}</p><p>{warning}: <a href=\"{}\">reset your password</a>.</p>\
         <p><small><a href=\"{}\">Unsubscribe from login notifications</a></small></p></body></html>",
        escape_html(&reset_url),
        escape_html(sign_in.unsubscribe_url)
    );
    OutgoingEmail { to: sign_in.to.to_string(), subject: format!("New login from {browser} on {os}"), text, html }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIREFOX_LINUX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    const CHROME_MAC: &str =
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
    const SAFARI_IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

    #[test]
    fn well_known_browsers_and_systems_are_named() {
        assert_eq!((device_browser(FIREFOX_LINUX), device_os(FIREFOX_LINUX)), (Some("Firefox"), Some("Linux")));
        assert_eq!((device_browser(CHROME_MAC), device_os(CHROME_MAC)), (Some("Chrome"), Some("macOS")));
        assert_eq!((device_browser(SAFARI_IPHONE), device_os(SAFARI_IPHONE)), (Some("Safari"), Some("iOS")));
        assert_eq!(device_browser("ZulipMobile/27.200 (Android 14)"), Some("Zulip"));
        assert_eq!(device_os("ZulipMobile/27.200 (Android 14)"), Some("Android"));
    }

    #[test]
    fn an_unknown_agent_is_said_to_be_unknown() {
        let email = new_login_email(&SignIn {
            to: "a@example.org",
            realm_url: "https://chat.example.org",
            user_agent: "curl/8.5",
            ip: None,
            at: 0,
            unsubscribe_url: "https://chat.example.org/u",
        });
        assert_eq!(email.subject, "New login from An unknown browser on an unknown operating system");
        assert!(email.text.contains("IP address: Unknown IP address"));
        assert!(email.text.contains("Time: Thursday, January 1, 1970, 00:00 UTC"));
    }
}
