//! Password rules as Zulip has them (`zerver/lib/password_strength.py`): at least
//! `PASSWORD_MIN_LENGTH` characters and at least `PASSWORD_MIN_GUESSES` guesses by the
//! zxcvbn estimator (the `zxcvbn` crate, the maintained Rust port of the estimator Zulip
//! uses), at most `PASSWORD_MAX_LENGTH` characters; and the "forgot password" link's life.

use crate::error::{ApiError, ApiResult};

/// Zulip's `PASSWORD_MIN_LENGTH`, `PASSWORD_MAX_LENGTH` and `PASSWORD_MIN_GUESSES`, as
/// `POST /register` reports them.
pub const PASSWORD_MIN_LENGTH: usize = 6;
pub const PASSWORD_MAX_LENGTH: usize = 100;
pub const PASSWORD_MIN_GUESSES: u64 = 10_000;

/// How long a "forgot password" link works (Zulip: 24 hours).
pub const RESET_LINK_VALID_MINUTES: i64 = 24 * 60;
/// Length of the random token of a reset link.
pub const RESET_TOKEN_LENGTH: usize = 32;
/// Where the link leads: the web client's "set a new password" page.
pub const RESET_PATH: &str = "/password/reset/";

/// Zulip's `check_password_strength`.
pub fn is_strong_enough(password: &str) -> bool {
    let length = password.chars().count();
    if !(PASSWORD_MIN_LENGTH..=PASSWORD_MAX_LENGTH).contains(&length) {
        return false;
    }
    zxcvbn::zxcvbn(password, &[]).guesses() >= PASSWORD_MIN_GUESSES
}

/// A new password for an account (sign-up, reset): Zulip's form error when it is weak.
pub fn check_password_strength(password: &str) -> ApiResult<()> {
    if is_strong_enough(password) {
        Ok(())
    } else {
        Err(ApiError::bad_request("The password is too weak."))
    }
}

/// The reset link of a token.
pub fn reset_url(base_url: &str, token: &str) -> String {
    format!("{base_url}{RESET_PATH}{token}/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_common_and_overlong_passwords_are_too_weak() {
        assert!(!is_strong_enough("abc"));
        assert!(!is_strong_enough("password"));
        assert!(!is_strong_enough("123456789"));
        assert!(!is_strong_enough("qwertyuiop"), "a keyboard row");
        assert!(!is_strong_enough(&"x7Q!".repeat(26)));
        assert!(is_strong_enough("a-long-test-password"));
        assert!(is_strong_enough("correct horse battery staple"));
    }
}
