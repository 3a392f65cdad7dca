//! HTTP Basic authentication (`email:api_key`) and the role checks built on it.

use std::cell::RefCell;
use std::collections::HashMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use worker::D1Database;

use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::realms::{self, RealmRow};
use crate::db::users::{self, UserRow};
use crate::error::{ApiError, ApiResult};
use crate::realm_cache::RealmState;
use crate::secrets;

/// The organization `realm_string_id` (when it exists) and, checked against it, the user
/// named by the `Authorization` header's Basic credentials. One D1 round trip: the
/// organization and the key's owner in one batch.
pub async fn authenticate(db: &D1Database, realm_string_id: &str, authorization: Option<&str>) -> (Option<RealmRow>, ApiResult<UserRow>) {
    let mut batch = Batch::new();
    let pending = match add_authentication(&mut batch, realm_string_id, authorization) {
        Ok(pending) => pending,
        Err(err) => return (None, Err(err)),
    };
    match batch.run(db).await {
        Ok(results) => check_authentication(&results, pending),
        Err(err) => (None, Err(err.into())),
    }
}

/// Credentials whose rows a batch will read; [`check_authentication`] checks them.
pub struct PendingAuthentication {
    email: String,
    /// The hash of the presented key: the isolate remembers whom it authenticated.
    key_hash: String,
    realm: Slot<RealmRow>,
    user: Slot<UserRow>,
}

/// Adds the organization and the key's owner to `batch`, so that an endpoint can read its
/// own rows in the same round trip. Those rows must not be used unless
/// [`check_authentication`] accepts the credentials. A missing or malformed header fails
/// here, before anything is read.
pub fn add_authentication(batch: &mut Batch, realm_string_id: &str, authorization: Option<&str>) -> ApiResult<PendingAuthentication> {
    let header = authorization.ok_or_else(ApiError::not_logged_in)?;
    let (email, api_key) = parse_basic(header).ok_or_else(ApiError::malformed_credentials)?;
    let key_hash = secrets::api_key_hash(&api_key);
    let realm = batch.add::<RealmRow>(realms::by_string_id_stmt(realm_string_id)?);
    let user = batch.add::<UserRow>(users::by_api_key_stmt(realm_string_id, &key_hash)?);
    Ok(PendingAuthentication { email, key_hash, realm, user })
}

/// The organization (when it exists) and the authenticated user, from a batch that ran
/// [`add_authentication`]'s statements.
pub fn check_authentication(results: &BatchResults, pending: PendingAuthentication) -> (Option<RealmRow>, ApiResult<UserRow>) {
    let rows = results.first(pending.realm).and_then(|realm| Ok((realm, results.first(pending.user)?)));
    match rows {
        Ok((realm, user)) => {
            // A key that belongs to nobody now is forgotten; one presented with another
            // user's email still belongs to its owner.
            let key_has_owner = user.is_some();
            let checked = check_credentials(realm.as_ref(), user, &pending.email);
            match &checked {
                Ok(user) => remember_key_owner(&pending.key_hash, user),
                Err(_) if !key_has_owner => forget_key_owner(&pending.key_hash),
                Err(_) => {}
            }
            (realm, checked)
        }
        Err(err) => (None, Err(err.into())),
    }
}

/// Keys this isolate remembers the owners of; past it, it starts over.
const KEY_OWNERS_CAPACITY: usize = 4096;

thread_local! {
    /// API key hash -> the user row that key last authenticated as, in this isolate.
    static KEY_OWNERS: RefCell<HashMap<String, UserRow>> = RefCell::new(HashMap::new());
}

fn remember_key_owner(key_hash: &str, user: &UserRow) {
    KEY_OWNERS.with(|owners| {
        let mut owners = owners.borrow_mut();
        if owners.len() >= KEY_OWNERS_CAPACITY && !owners.contains_key(key_hash) {
            owners.clear();
        }
        owners.insert(key_hash.to_string(), user.clone());
    });
}

fn forget_key_owner(key_hash: &str) {
    KEY_OWNERS.with(|owners| owners.borrow_mut().remove(key_hash));
}

/// The user the key of `authorization` authenticated as when this isolate last checked it:
/// a guess that lets a request read as that user in its authentication's own batch. It
/// grants nothing: the batch checks the credentials, and its reads are used only when the
/// user it authenticates is exactly this row.
pub fn last_key_owner(authorization: Option<&str>) -> Option<UserRow> {
    let (_, api_key) = parse_basic(authorization?)?;
    let key_hash = secrets::api_key_hash(&api_key);
    KEY_OWNERS.with(|owners| owners.borrow().get(&key_hash).cloned())
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

/// Reads an endpoint makes as its user, which `RequestContext::read_as_user` folds into
/// the batch that authenticates them. `add` only builds statements (it writes nothing and
/// may run twice); `take` reads their rows.
pub trait ReadAsUser {
    type Slots;
    type Output;
    fn add(&self, batch: &mut Batch, db: &D1Database, me: &UserRow, realm: &RealmState) -> ApiResult<Self::Slots>;
    fn take(&self, results: &BatchResults, slots: Self::Slots, me: &UserRow, realm: &RealmState) -> ApiResult<Self::Output>;
    /// Whether the isolate keeps these reads' answers for a later write that proves them
    /// current in its own batch (`RequestContext::recall_as_user`).
    fn remembered(&self) -> bool {
        false
    }
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
