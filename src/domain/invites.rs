//! Invitations and the organization's join rules, as Zulip has them
//! (`zerver/views/invite.py`, `zerver/lib/email_validation.py`): which addresses may join,
//! who may invite whom, and the API shape of an invitation.

use serde_json::{json, Value};

use crate::db::invites::{InvitationRow, JoinRulesRow, MultiuseRow, RealmDomainRow};
use crate::db::users::UserRow;
use crate::domain::users::is_valid_email;
use crate::error::{ApiError, ApiResult};
use crate::model::Role;

/// Zulip's `INVITATION_LINK_VALIDITY_DAYS` (10), in minutes: the default expiry.
pub const DEFAULT_EXPIRY_MINUTES: i64 = 10 * 24 * 60;
/// Zulip's `INVITES_DEFAULT_REALM_DAILY_MAX`: email invitations an organization may send in
/// a day. A request over it sends none (`daily_limit_reached`).
pub const DAILY_INVITE_LIMIT: i64 = 100;
/// Length of the random key of an invitation or sign-up link.
pub const LINK_KEY_LENGTH: usize = 24;
/// Where the links lead: the web client's sign-up page (Zulip's reusable links are
/// `/join/<key>/`; this server uses the same for every sign-up link).
pub const JOIN_PATH: &str = "/join/";

/// The link of a sign-up key.
/// What the notification bot tells a referrer when their invitee joins (Zulip's text).
pub fn referrer_notice(joined: &UserRow) -> String {
    format!("{} accepted your invitation to join Zulip!", crate::domain::message_edit::silent_mention(joined))
}

pub fn join_url(base_url: &str, key: &str) -> String {
    format!("{base_url}{JOIN_PATH}{key}/")
}

/// Zulip's `get_invitee_emails_set`: addresses separated by commas or newlines, each
/// possibly `Name <address>`; trimmed, duplicates dropped, order kept.
pub fn parse_invitee_emails(raw: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in raw.split([',', '\n']) {
        let email = match (part.find('<'), part.rfind('>')) {
            (Some(start), Some(end)) if start < end => &part[start + 1..end],
            _ => part,
        };
        let email = email.trim().to_string();
        if !out.contains(&email) {
            out.push(email);
        }
    }
    out
}

/// Throwaway-address domains, one per line: the list Zulip checks (PyPI
/// `disposable-email-domains`, written by `scripts/gen-disposable-domains.py`).
const DISPOSABLE_DOMAINS: &str = include_str!("disposable_domains.txt");

/// Whether addresses at `domain` are throwaway ones (the domain itself is listed, as
/// Zulip matches it: a subdomain of a listed domain is not).
pub fn is_disposable_domain(domain: &str) -> bool {
    static LISTED: std::sync::OnceLock<std::collections::HashSet<&'static str>> = std::sync::OnceLock::new();
    LISTED.get_or_init(|| DISPOSABLE_DOMAINS.lines().collect()).contains(domain.to_ascii_lowercase().as_str())
}

/// The organization's rule for one address (Zulip's `validate_email_is_valid`): `None`
/// when it may join, else Zulip's per-address message.
pub fn email_error(email: &str, rules: &JoinRulesRow, domains: &[RealmDomainRow]) -> Option<&'static str> {
    if !is_valid_email(email) {
        return Some("Invalid address.");
    }
    let (local, domain) = email.rsplit_once('@')?;
    let domain = domain.to_ascii_lowercase();
    if rules.emails_restricted_to_domains != 0 {
        if local.contains('+') {
            return Some("Email addresses containing + are not allowed.");
        }
        let allowed =
            domains.iter().any(|d| d.domain == domain || (d.allow_subdomains != 0 && domain.ends_with(&format!(".{}", d.domain))));
        if !allowed {
            return Some("Outside your domain.");
        }
    } else if rules.disallow_disposable_email_addresses != 0 && is_disposable_domain(&domain) {
        return Some("Please use your real email address.");
    }
    None
}

/// Zulip's per-address error for an address an account of the organization has.
pub fn existing_user_error(user: &UserRow) -> (&'static str, bool) {
    if user.is_active() {
        ("Already has an account.", false)
    } else {
        ("Account has been deactivated.", true)
    }
}

/// `invite_as`: one of Zulip's five roles.
pub fn parse_invite_as(value: i64) -> ApiResult<Role> {
    Role::from_code(value).ok_or_else(|| ApiError::bad_request("Invalid invite_as"))
}

/// Zulip's `check_role_based_permissions`: owners only by owners; administrators and
/// moderators only by administrators.
pub fn check_may_invite_as(me: &UserRow, invite_as: Role) -> ApiResult<()> {
    if invite_as == Role::Owner && !me.is_realm_owner() {
        return Err(ApiError::must_be_owner());
    }
    if invite_as.is_at_least(Role::Moderator) && !me.is_realm_admin() {
        return Err(ApiError::bad_request("Must be an organization administrator"));
    }
    Ok(())
}

/// Whether `me` may manage (revoke, resend) an invitation `referred_by` made, of this role:
/// their own, or as an administrator (owners' invitations only by owners).
pub fn check_may_manage(me: &UserRow, referred_by: Option<i64>, invited_as: Role) -> ApiResult<()> {
    if referred_by == Some(me.id) {
        return Ok(());
    }
    if invited_as == Role::Owner && !me.is_realm_owner() {
        return Err(ApiError::must_be_owner());
    }
    if !me.is_realm_admin() {
        return Err(ApiError::bad_request("Must be an organization administrator"));
    }
    Ok(())
}

/// `invite_expires_in_minutes`: absent is the default, `null` never expires, else a
/// positive number of minutes.
pub fn expiry(now: i64, minutes: Option<Option<i64>>) -> ApiResult<Option<i64>> {
    match minutes {
        None => Ok(Some(now + DEFAULT_EXPIRY_MINUTES * 60)),
        Some(None) => Ok(None),
        Some(Some(m)) if m > 0 && m <= 10 * 365 * 24 * 60 => Ok(Some(now + m * 60)),
        Some(Some(_)) => Err(ApiError::bad_request("Invalid invite_expires_in_minutes")),
    }
}

/// An email invitation as `GET /invites` shows it.
pub fn invitation_dict(row: &InvitationRow) -> Value {
    json!({
        "id": row.id,
        "email": row.email,
        "invited_by_user_id": row.referred_by,
        "invited": row.created_at,
        "expiry_date": row.expires_at,
        "invited_as": row.invited_as,
        "is_multiuse": false,
        "notify_referrer_on_join": row.notify_referrer_on_join != 0,
    })
}

/// A reusable link as `GET /invites` shows it.
pub fn multiuse_dict(row: &MultiuseRow, base_url: &str) -> Value {
    json!({
        "id": row.id,
        "invited_by_user_id": row.referred_by,
        "invited": row.created_at,
        "expiry_date": row.expires_at,
        "invited_as": row.invited_as,
        "is_multiuse": true,
        "notify_referrer_on_join": false,
        "link_url": join_url(base_url, &row.link_key),
    })
}

/// A `realm_domains` entry as `POST /register` and its events show it.
pub fn realm_domain_dict(row: &RealmDomainRow) -> Value {
    json!({ "domain": row.domain, "allow_subdomains": row.allow_subdomains != 0 })
}

/// Zulip's `validate_domain`: a lower-cased domain of dot-separated labels of letters,
/// digits, `-` and `_`, not starting or ending with `-` or `.`; Zulip's "Invalid domain" otherwise.
pub fn check_domain(raw: &str) -> ApiResult<String> {
    let domain = raw.trim().to_ascii_lowercase();
    let label_ok = |l: &str| {
        !l.is_empty() && !l.starts_with('-') && !l.ends_with('-') && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    if domain.is_empty() || domain.len() > 255 || !domain.split('.').all(label_ok) {
        return Err(ApiError::bad_request(format!(
            "Invalid domain: {}",
            if domain.is_empty() { "Domain can't be empty." } else { "Domain is invalid." }
        )));
    }
    Ok(domain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(restricted: bool, disposable: bool) -> JoinRulesRow {
        JoinRulesRow {
            invite_required: 1,
            emails_restricted_to_domains: restricted as i64,
            disallow_disposable_email_addresses: disposable as i64,
            can_invite_users_group: 0,
            create_multiuse_invite_group: 0,
        }
    }

    #[test]
    fn invitee_list_splits_and_unwraps_names() {
        assert_eq!(
            parse_invitee_emails("a@x.co, Bob <b@x.co>\nc@x.co,a@x.co"),
            vec!["a@x.co".to_string(), "b@x.co".into(), "c@x.co".into()]
        );
        assert_eq!(parse_invitee_emails(""), vec![String::new()]);
    }

    #[test]
    fn addresses_follow_the_join_rules() {
        let domains = vec![
            RealmDomainRow { domain: "zulip.com".into(), allow_subdomains: 0 },
            RealmDomainRow { domain: "corp.co".into(), allow_subdomains: 1 },
        ];
        assert_eq!(email_error("not-an-address", &rules(false, true), &[]), Some("Invalid address."));
        assert_eq!(email_error("x@mailinator.com", &rules(false, true), &[]), Some("Please use your real email address."));
        assert_eq!(email_error("x@mailinator.com", &rules(false, false), &[]), None);
        assert_eq!(email_error("x@YOPMAIL.com", &rules(false, true), &[]), Some("Please use your real email address."));
        assert_eq!(email_error("x@example.com", &rules(false, true), &[]), None);
        assert_eq!(email_error("x@other.org", &rules(true, true), &domains), Some("Outside your domain."));
        assert_eq!(email_error("x@zulip.com", &rules(true, true), &domains), None);
        assert_eq!(email_error("x@eu.corp.co", &rules(true, true), &domains), None);
        assert_eq!(email_error("x@eu.zulip.com", &rules(true, true), &domains), Some("Outside your domain."));
        assert_eq!(email_error("x+y@zulip.com", &rules(true, true), &domains), Some("Email addresses containing + are not allowed."));
    }

    #[test]
    fn expiry_defaults_to_ten_days_and_null_never_expires() {
        assert_eq!(expiry(0, None).unwrap(), Some(864000));
        assert_eq!(expiry(0, Some(None)).unwrap(), None);
        assert_eq!(expiry(0, Some(Some(30))).unwrap(), Some(1800));
        assert!(expiry(0, Some(Some(0))).is_err());
    }
}
