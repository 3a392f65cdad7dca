//! HTTP Basic authentication (`email:api_key`) and the role checks built on it.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use worker::D1Database;

use crate::db::batch::Batch;
use crate::db::realms::{self, RealmRow};
use crate::db::users::{self, UserRow};
use crate::error::{ApiError, ApiResult};
use crate::secrets;

/// The organization `realm_string_id` (when it exists) and, checked against it, the user
/// named by the `Authorization` header's Basic credentials. One D1 round trip: the
/// organization and the key's owner in one batch.
pub async fn authenticate(db: &D1Database, realm_string_id: &str, authorization: Option<&str>) -> (Option<RealmRow>, ApiResult<UserRow>) {
    let header = match authorization {
        Some(header) => header,
        None => return (None, Err(ApiError::not_logged_in())),
    };
    let Some((email, api_key)) = parse_basic(header) else { return (None, Err(ApiError::malformed_credentials())) };
    match load(db, realm_string_id, &api_key).await {
        Ok((realm, user)) => {
            let checked = check_credentials(realm.as_ref(), user, &email);
            (realm, checked)
        }
        Err(err) => (None, Err(err)),
    }
}

async fn load(db: &D1Database, realm_string_id: &str, api_key: &str) -> ApiResult<(Option<RealmRow>, Option<UserRow>)> {
    let key_hash = secrets::api_key_hash(api_key);
    let mut batch = Batch::new();
    let realm = batch.add::<RealmRow>(realms::by_string_id_stmt(db, realm_string_id)?);
    let user = batch.add::<UserRow>(users::by_api_key_stmt(db, realm_string_id, &key_hash)?);
    let results = batch.run(db).await?;
    Ok((results.first(realm)?, results.first(user)?))
}

fn check_credentials(realm: Option<&RealmRow>, user: Option<UserRow>, email: &str) -> ApiResult<UserRow> {
    let realm = realm.ok_or_else(ApiError::nonexistent_subdomain)?;
    if realm.deactivated != 0 {
        return Err(ApiError::realm_deactivated());
    }
    let user = user.ok_or_else(ApiError::invalid_api_key)?;
    let names_user = email.eq_ignore_ascii_case(&user.email) || email.eq_ignore_ascii_case(&user.delivery_email);
    if !names_user {
        return Err(ApiError::invalid_api_key());
    }
    if !user.is_active() {
        return Err(ApiError::user_deactivated());
    }
    Ok(user)
}

/// Organization administrators and owners only.
pub fn require_admin(user: &UserRow) -> ApiResult<()> {
    if user.is_realm_admin() {
        Ok(())
    } else {
        Err(ApiError::must_be_admin())
    }
}

/// Members and above: guests may not (Zulip's `require_member_or_admin`).
pub fn require_member(user: &UserRow) -> ApiResult<()> {
    if user.is_guest() {
        return Err(ApiError::bad_request("Not allowed for guest users"));
    }
    Ok(())
}

/// Bots only (bot storage, feature level 494).
pub fn require_bot(user: &UserRow) -> ApiResult<()> {
    if user.is_bot() {
        Ok(())
    } else {
        Err(ApiError::bot_required())
    }
}

/// Splits `Basic base64(email:api_key)`; `None` when it is not that shape.
pub fn parse_basic(header: &str) -> Option<(String, String)> {
    let (scheme, encoded) = header.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    let (email, key) = decoded.split_once(':')?;
    Some((email.to_string(), key.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_header_splits_at_the_first_colon() {
        let header = format!("Basic {}", STANDARD.encode("hamlet@zulip.com:abc:def"));
        assert_eq!(parse_basic(&header), Some(("hamlet@zulip.com".into(), "abc:def".into())));
    }

    #[test]
    fn other_schemes_and_garbage_are_rejected() {
        assert_eq!(parse_basic("Bearer abc"), None);
        assert_eq!(parse_basic("Basic !!!"), None);
        assert_eq!(parse_basic(&format!("Basic {}", STANDARD.encode("no-colon"))), None);
    }
}
