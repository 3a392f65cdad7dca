//! Browser sessions of the web client, as Zulip's web app has them: signing in sets an
//! HttpOnly `sessionid` cookie naming a server-side session, and a `csrftoken` cookie the
//! page reads and repeats in the `X-CSRFToken` header of every write. Every other client
//! keeps HTTP Basic. The token is derived from the session id with the server's secret, so
//! checking it costs no read; SameSite=Lax keeps the cookie off cross-site form posts too.

use cookie::time::Duration;
use cookie::{Cookie, SameSite};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use worker::Method;

use crate::secrets;

pub const SESSION_COOKIE: &str = "sessionid";
pub const CSRF_COOKIE: &str = "csrftoken";
pub const CSRF_HEADER: &str = "X-CSRFToken";
/// How long a session authenticates (Zulip's `SESSION_COOKIE_AGE`: two weeks).
pub const SESSION_LIFETIME_SECS: i64 = 14 * 86_400;
/// Characters of `[A-Za-z0-9]` in a session id: 190 bits, as an API key.
pub const SESSION_ID_LENGTH: usize = 32;

/// What the `sessions` table stores for a session id (never the id itself).
pub fn session_hash(session_id: &str) -> String {
    secrets::sha256_hex(format!("session:{session_id}").as_bytes())
}

/// The CSRF token of a session: HMAC-SHA256 of its id under the server's secret, in hex.
pub fn csrf_token(secret: &[u8], session_id: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(format!("csrf:{session_id}").as_bytes());
    crate::secrets::hex(&mac.finalize().into_bytes()[..16])
}

/// Whether a request with a session must carry the CSRF token: every method that may
/// change state (reads carry none, so `<img>` loads of uploads work).
pub fn needs_csrf(method: &Method) -> bool {
    !matches!(method, Method::Get | Method::Head | Method::Options)
}

/// What a session request's CSRF header proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsrfCheck {
    /// The token matches, or the method needs none.
    Passed,
    Missing,
    Incorrect,
}

impl CsrfCheck {
    pub fn of(method: &Method, presented: Option<&str>, expected: &str) -> Self {
        if !needs_csrf(method) {
            return CsrfCheck::Passed;
        }
        match presented {
            None => CsrfCheck::Missing,
            Some(token) if secrets::constant_time_eq(token.trim().as_bytes(), expected.as_bytes()) => CsrfCheck::Passed,
            Some(_) => CsrfCheck::Incorrect,
        }
    }

    /// Zulip's reason in `CSRF_FAILED` answers.
    pub fn reason(self) -> Option<&'static str> {
        match self {
            CsrfCheck::Passed => None,
            CsrfCheck::Missing => Some("CSRF token missing."),
            CsrfCheck::Incorrect => Some("CSRF token incorrect."),
        }
    }
}

/// The value of cookie `name` in a `Cookie` request header.
pub fn cookie_value(header: &str, name: &str) -> Option<String> {
    Cookie::split_parse(header).flatten().find(|c| c.name() == name).map(|c| c.value().to_string())
}

/// The `Set-Cookie` values that start a session in the browser.
pub fn session_cookies(session_id: &str, csrf_token: &str, secure: bool) -> [String; 2] {
    let age = Duration::seconds(SESSION_LIFETIME_SECS);
    [cookie(SESSION_COOKIE, session_id, true, secure, age), cookie(CSRF_COOKIE, csrf_token, false, secure, age)]
}

/// The `Set-Cookie` values that remove both cookies (signing out).
pub fn cleared_cookies(secure: bool) -> [String; 2] {
    [SESSION_COOKIE, CSRF_COOKIE].map(|name| cookie(name, "", name == SESSION_COOKIE, secure, Duration::ZERO))
}

fn cookie(name: &'static str, value: &str, http_only: bool, secure: bool, max_age: Duration) -> String {
    Cookie::build((name, value.to_string()))
        .path("/")
        .http_only(http_only)
        .secure(secure)
        .same_site(SameSite::Lax)
        .max_age(max_age)
        .build()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_http_only_and_lax_and_the_csrf_cookie_is_readable() {
        let [session, csrf] = session_cookies("abc", "tok", true);
        assert!(session.starts_with("sessionid=abc;") && session.contains("HttpOnly") && session.contains("SameSite=Lax"), "{session}");
        assert!(session.contains("Secure") && session.contains("Max-Age=1209600") && session.contains("Path=/"), "{session}");
        assert!(csrf.starts_with("csrftoken=tok;") && !csrf.contains("HttpOnly"), "{csrf}");
        assert!(!session_cookies("abc", "tok", false)[0].contains("Secure"));
    }

    #[test]
    fn cleared_cookies_expire_at_once() {
        let [session, csrf] = cleared_cookies(false);
        assert!(session.starts_with("sessionid=;") && session.contains("Max-Age=0"), "{session}");
        assert!(csrf.starts_with("csrftoken=;") && csrf.contains("Max-Age=0"), "{csrf}");
    }

    #[test]
    fn a_cookie_is_found_among_others() {
        assert_eq!(cookie_value("a=1; sessionid=xyz; csrftoken=t", SESSION_COOKIE).as_deref(), Some("xyz"));
        assert_eq!(cookie_value("a=1", SESSION_COOKIE), None);
    }

    #[test]
    fn writes_need_the_token_and_reads_do_not() {
        let token = csrf_token(b"secret", "session");
        assert_eq!(CsrfCheck::of(&Method::Get, None, &token), CsrfCheck::Passed);
        assert_eq!(CsrfCheck::of(&Method::Post, None, &token), CsrfCheck::Missing);
        assert_eq!(CsrfCheck::of(&Method::Post, Some("wrong"), &token), CsrfCheck::Incorrect);
        assert_eq!(CsrfCheck::of(&Method::Delete, Some(&token), &token), CsrfCheck::Passed);
        assert_ne!(csrf_token(b"secret", "other"), token);
    }
}
