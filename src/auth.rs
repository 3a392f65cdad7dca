//! HTTP Basic authentication (`email:api_key`) and the role checks built on it.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use crate::context::RequestContext;
use crate::db::realms::{self, RealmRow};
use crate::db::users::{self, UserRow};
use crate::error::{ApiError, ApiResult};
use crate::secrets;

/// The user named by the request's Basic credentials, in the organization its Host
/// addresses. One D1 round trip: the organization and the key's owner in one batch.
pub async fn authenticate(ctx: &RequestContext) -> ApiResult<UserRow> {
    let header = ctx.header("Authorization").ok_or_else(ApiError::not_logged_in)?;
    let (email, api_key) = parse_basic(&header).ok_or_else(ApiError::malformed_credentials)?;

    let key_hash = secrets::api_key_hash(&api_key);
    let results = crate::db::run_batch(
        &ctx.db,
        vec![realms::by_string_id_stmt(&ctx.db, &ctx.realm_string_id)?, users::by_api_key_stmt(&ctx.db, &ctx.realm_string_id, &key_hash)?],
    )
    .await?;
    let realm: RealmRow = results[0].results()?.into_iter().next().ok_or_else(ApiError::nonexistent_subdomain)?;
    let user: Option<UserRow> = results[1].results()?.into_iter().next();
    ctx.remember_realm(realm.clone());

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
