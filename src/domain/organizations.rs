//! What a new organization may be called. Its `string_id` is the subdomain that reaches it
//! (`<string_id>.<ROOT_DOMAIN>`), so it follows Zulip's subdomain rules.

use crate::error::{ApiError, ApiResult};

pub const MIN_SUBDOMAIN_LENGTH: usize = 3;
pub const MAX_SUBDOMAIN_LENGTH: usize = 40;
/// Zulip's limit on an organization's name.
pub const MAX_REALM_NAME_LENGTH: usize = 40;
/// Zulip's limit on an organization's description.
pub const MAX_REALM_DESCRIPTION_LENGTH: usize = 1000;
/// Subdomains that name the service itself rather than an organization.
const RESERVED_SUBDOMAINS: &[&str] = &["www", "api", "static", "admin", "mail", "chat", "app", "help", "status"];

/// Checks a subdomain with Zulip's messages.
pub fn check_subdomain(string_id: &str) -> ApiResult<()> {
    if string_id.chars().count() < MIN_SUBDOMAIN_LENGTH {
        return Err(ApiError::bad_request(format!("Subdomain needs to have length {MIN_SUBDOMAIN_LENGTH} or greater.")));
    }
    if string_id.chars().count() > MAX_SUBDOMAIN_LENGTH {
        return Err(ApiError::too_long("Subdomain", MAX_SUBDOMAIN_LENGTH as i64));
    }
    let allowed = string_id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !allowed || string_id.starts_with('-') || string_id.ends_with('-') {
        return Err(ApiError::bad_request("Subdomain can only have lowercase letters, numbers, and '-'s."));
    }
    if RESERVED_SUBDOMAINS.contains(&string_id) {
        return Err(ApiError::bad_request("Subdomain reserved. Please choose a different one."));
    }
    Ok(())
}

pub fn check_realm_name(name: &str) -> ApiResult<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ApiError::bad_request("Organization name can't be empty."));
    }
    if name.chars().count() > MAX_REALM_NAME_LENGTH {
        return Err(ApiError::too_long("Organization name", MAX_REALM_NAME_LENGTH as i64));
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(result: ApiResult<()>) -> String {
        result.unwrap_err().msg
    }

    #[test]
    fn subdomains_are_lowercase_letters_digits_and_inner_hyphens() {
        assert!(check_subdomain("acme-2").is_ok());
        assert_eq!(msg(check_subdomain("Acme")), "Subdomain can only have lowercase letters, numbers, and '-'s.");
        assert_eq!(msg(check_subdomain("-acme")), "Subdomain can only have lowercase letters, numbers, and '-'s.");
        assert_eq!(msg(check_subdomain("ac.me")), "Subdomain can only have lowercase letters, numbers, and '-'s.");
    }

    #[test]
    fn subdomains_have_zulips_lengths() {
        assert_eq!(msg(check_subdomain("ab")), "Subdomain needs to have length 3 or greater.");
        assert_eq!(msg(check_subdomain(&"a".repeat(41))), "Subdomain is too long (limit: 40 characters)");
        assert!(check_subdomain(&"a".repeat(40)).is_ok());
    }

    #[test]
    fn service_subdomains_are_reserved() {
        assert_eq!(msg(check_subdomain("www")), "Subdomain reserved. Please choose a different one.");
    }

    #[test]
    fn realm_names_are_trimmed_non_empty_and_bounded() {
        assert_eq!(check_realm_name("  Acme  ").unwrap(), "Acme");
        assert!(check_realm_name("   ").is_err());
        assert!(check_realm_name(&"n".repeat(41)).is_err());
    }
}
