//! Accounts and their API keys.

use worker::D1Database;

use crate::db::{self, api_keys, users::{self, NewUser}};
use crate::error::{ApiError, ApiResult};
use crate::secrets;

/// Issues a fresh API key for a user and stores its hash; answers the key, which is
/// shown only this once.
pub async fn do_issue_api_key(db: &D1Database, realm_id: i64, user_id: i64) -> ApiResult<String> {
    let key = secrets::new_api_key();
    api_keys::insert(db, realm_id, user_id, &secrets::api_key_hash(&key), db::now()).await?;
    Ok(key)
}

/// Email addresses as Zulip accepts them: one `@`, a non-empty local part, a dotted domain
/// without spaces.
pub fn is_valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else { return false };
    !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && email.len() <= 254
}

/// Creates an account after checking the email is valid and free in the organization.
pub async fn check_create_user(db: &D1Database, new_user: &NewUser<'_>, password: Option<&str>) -> ApiResult<i64> {
    if !is_valid_email(new_user.email) {
        return Err(ApiError::bad_request(format!("Invalid email '{}'", new_user.email)));
    }
    if users::by_email(db, new_user.realm_id, new_user.email).await?.is_some() {
        return Err(ApiError::bad_request(format!("Email '{}' already in use", new_user.email)));
    }
    let hash = match password {
        Some(password) => Some(secrets::hash_password(password).await?),
        None => None,
    };
    let user = NewUser { password_hash: hash.as_deref(), ..*new_user };
    users::insert(db, &user, db::now()).await.map_err(|err| {
        // Two concurrent creations of one address: the unique index decides.
        if err.to_string().contains("UNIQUE") {
            ApiError::bad_request(format!("Email '{}' already in use", new_user.email))
        } else {
            ApiError::from(err)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::is_valid_email;

    #[test]
    fn emails_need_a_local_part_and_a_dotted_domain() {
        assert!(is_valid_email("hamlet@zulip.com"));
        assert!(!is_valid_email("hamlet"));
        assert!(!is_valid_email("@zulip.com"));
        assert!(!is_valid_email("hamlet@localhost"));
        assert!(!is_valid_email("ham let@zulip.com"));
        assert!(!is_valid_email("a@b@zulip.com"));
    }
}
