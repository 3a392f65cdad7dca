//! The unsubscribe links of the emails people can turn off (Zulip's
//! `/accounts/unsubscribe/<email type>/<token>`): each works without signing in and turns
//! one setting off.

use crate::model::ids::{RealmId, UserId};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The kinds of email a link turns off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmailKind {
    MissedMessages,
    Login,
}

impl EmailKind {
    /// The kind named in a link's path.
    pub fn from_path(segment: &str) -> Option<Self> {
        match segment {
            "missed_messages" => Some(Self::MissedMessages),
            "login" => Some(Self::Login),
            _ => None,
        }
    }

    fn path(self) -> &'static str {
        match self {
            Self::MissedMessages => "missed_messages",
            Self::Login => "login",
        }
    }

    /// The user setting the link turns off.
    pub fn setting(self) -> &'static str {
        match self {
            Self::MissedMessages => "enable_offline_email_notifications",
            Self::Login => "enable_login_emails",
        }
    }

    /// What the page says once it is off.
    pub fn confirmation(self) -> &'static str {
        match self {
            Self::MissedMessages => "You will no longer get emails about messages you missed.",
            Self::Login => "You will no longer get emails when someone signs in to your account.",
        }
    }
}

/// The token of a link: an HMAC of the kind, the organization and the user under the
/// server's secret, so the link needs no stored state and cannot be guessed.
fn token(kind: EmailKind, secret: &[u8], realm_id: RealmId, user_id: UserId) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(format!("unsubscribe:{}:{realm_id}:{user_id}", kind.path()).as_bytes());
    crate::secrets::hex(&mac.finalize().into_bytes()[..16])
}

/// `/accounts/unsubscribe/<kind>/<user_id>-<token>/`.
pub fn unsubscribe_url(kind: EmailKind, base_url: &str, secret: &[u8], realm_id: RealmId, user_id: UserId) -> String {
    format!("{base_url}/accounts/unsubscribe/{}/{user_id}-{}/", kind.path(), token(kind, secret, realm_id, user_id))
}

/// Whether `raw` (`<user_id>-<token>`) is a genuine link of this kind; answers the user id.
pub fn check_unsubscribe(kind: EmailKind, secret: &[u8], realm_id: i64, raw: &str) -> Option<i64> {
    let (id, given) = raw.split_once('-')?;
    let user_id: i64 = id.parse().ok()?;
    let expected = token(kind, secret, RealmId(realm_id), UserId(user_id));
    crate::secrets::constant_time_eq(expected.as_bytes(), given.as_bytes()).then_some(user_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsubscribe_links_are_checked() {
        let url = unsubscribe_url(EmailKind::MissedMessages, "http://x", b"secret", RealmId(1), UserId(42));
        assert!(url.starts_with("http://x/accounts/unsubscribe/missed_messages/42-"), "{url}");
        let raw = url.trim_end_matches('/').rsplit('/').next().unwrap();
        assert_eq!(check_unsubscribe(EmailKind::MissedMessages, b"secret", 1, raw), Some(42));
        assert_eq!(check_unsubscribe(EmailKind::MissedMessages, b"secret", 2, raw), None, "another organization");
        assert_eq!(check_unsubscribe(EmailKind::MissedMessages, b"other", 1, raw), None);
        assert_eq!(check_unsubscribe(EmailKind::MissedMessages, b"secret", 1, "43-abc"), None);
    }

    #[test]
    fn a_link_turns_off_only_its_own_kind() {
        let url = unsubscribe_url(EmailKind::Login, "http://x", b"secret", RealmId(1), UserId(42));
        let raw = url.trim_end_matches('/').rsplit('/').next().unwrap();
        assert_eq!(check_unsubscribe(EmailKind::Login, b"secret", 1, raw), Some(42));
        assert_eq!(check_unsubscribe(EmailKind::MissedMessages, b"secret", 1, raw), None);
    }
}
