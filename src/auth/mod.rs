//! Authentication (HTTP Basic `email:api_key` for API clients, the session cookie for the
//! web client), the [`Authenticator`] of a request, and the roles a handler asks for
//! ([`Administrator`], [`Member`], [`Bot`]).

mod authenticator;
mod guards;

pub use authenticator::{Authenticator, Remember};
pub use guards::{require_bot, require_member, Administrator, Bot, Guard, Member};

use std::cell::RefCell;
use std::collections::HashMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use worker::D1Database;

use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::realms::{self, RealmRow};
use crate::db::sessions;
use crate::db::users::{self, UserRow};
use crate::domain::sessions::{self as browser, CsrfCheck};
use crate::domain::users::{password_owner, realm_and_signing_in, SigningIn};
use crate::error::{ApiError, ApiResult};
use crate::platform::rate_limits::{self, Bucket};
use crate::platform::realm_cache::RealmState;
use crate::secrets;

/// How a request says who it is.
#[derive(Debug, Clone)]
pub enum Credentials {
    /// An `Authorization` header: HTTP Basic `email:api_key`, every API client's.
    Basic(String),
    /// The web client's `sessionid` cookie (when there is no `Authorization` header), with
    /// what its CSRF header proves.
    Session { id: String, csrf: CsrfCheck },
    /// An incoming webhook's `api_key` query parameter (`/api/v1/external/…`): the key
    /// alone names its owner, as Zulip's webhook URLs do.
    WebhookKey(String),
}

impl Credentials {
    /// The request's credentials, if it presents any.
    pub fn of_request(headers: &worker::Headers, method: &worker::Method, env: &worker::Env) -> Option<Self> {
        let header = |name: &str| headers.get(name).ok().flatten();
        if let Some(authorization) = header("Authorization") {
            return Some(Credentials::Basic(authorization));
        }
        let id = browser::cookie_value(&header("Cookie")?, browser::SESSION_COOKIE).filter(|id| !id.is_empty())?;
        let csrf = match secrets::api_key_secret(env) {
            Ok(secret) => CsrfCheck::of(method, header(browser::CSRF_HEADER).as_deref(), &browser::csrf_token(secret.as_bytes(), &id)),
            // No secret, no token to match: the server refuses every key too.
            Err(_) => CsrfCheck::Incorrect,
        };
        Some(Credentials::Session { id, csrf })
    }

    /// What the isolate remembers the owner under: the stored hash of the key or session.
    fn owner_key(&self) -> Option<String> {
        match self {
            Credentials::Basic(header) => parse_basic(header).map(|(_, key)| secrets::api_key_hash(&key)),
            Credentials::Session { id, .. } => Some(browser::session_hash(id)),
            Credentials::WebhookKey(key) => Some(secrets::api_key_hash(key)),
        }
    }
}

/// The `WWW-Authenticate` challenge of a 401: Basic, so HTTP clients retry with their
/// key, except for a browser request without an `Authorization` header (the web client),
/// where a Basic challenge would open the browser's password dialog (Zulip answers its web
/// app with `Session` too).
pub fn challenge_for(headers: &worker::Headers) -> &'static str {
    let has = |name: &str| headers.get(name).ok().flatten().is_some();
    let from_browser = has("Sec-Fetch-Mode") || has(browser::CSRF_HEADER) || has("Cookie");
    if from_browser && !has("Authorization") {
        "Session realm=\"zulip\""
    } else {
        "Basic realm=\"zulip\""
    }
}

/// The organization `realm_string_id` (when it exists) and, checked against it, the user
/// the credentials name. One D1 round trip: the organization and the key's or session's
/// owner in one batch.
pub async fn authenticate(
    db: &D1Database,
    realm_string_id: &str,
    credentials: Option<&Credentials>,
) -> (Option<RealmRow>, ApiResult<UserRow>) {
    let mut batch = Batch::new();
    let pending = match add_authentication(&mut batch, realm_string_id, credentials) {
        Ok(pending) => pending,
        Err(err) => return (None, Err(err)),
    };
    match batch.run(db).await {
        Ok(results) => check_authentication(&results, pending),
        Err(err) => (None, Err(err.into())),
    }
}

/// What credentials claim beside their key or session.
enum Claim {
    /// Basic credentials' email, which must name the key's owner.
    Email(String),
    /// A webhook's key alone: an unknown key is an invalid one.
    KeyOnly,
    /// A session, whose unknown or expired id is answered as no credentials at all.
    Session,
}

/// Credentials whose rows a batch will read; [`check_authentication`] checks them.
pub struct PendingAuthentication {
    claim: Claim,
    /// The hash of the presented key or session: the isolate remembers whom it authenticated.
    key_hash: String,
    realm: Slot<RealmRow>,
    user: Slot<UserRow>,
}

/// Adds the organization and the key's or session's owner to `batch`, so that an endpoint
/// can read its own rows in the same round trip. Those rows must not be used unless
/// [`check_authentication`] accepts the credentials. Missing or malformed credentials, and
/// a session's write without its CSRF token, fail here, before anything is read.
pub fn add_authentication(batch: &mut Batch, realm_string_id: &str, credentials: Option<&Credentials>) -> ApiResult<PendingAuthentication> {
    let (claim, key_hash, owner) = match credentials.ok_or_else(ApiError::not_logged_in)? {
        Credentials::Basic(header) => {
            let (email, api_key) = parse_basic(header).ok_or_else(ApiError::malformed_credentials)?;
            let key_hash = secrets::api_key_hash(&api_key);
            let owner = users::by_api_key_stmt(realm_string_id, &key_hash)?;
            (Claim::Email(email), key_hash, owner)
        }
        Credentials::WebhookKey(api_key) => {
            let key_hash = secrets::api_key_hash(api_key);
            let owner = users::by_api_key_stmt(realm_string_id, &key_hash)?;
            (Claim::KeyOnly, key_hash, owner)
        }
        Credentials::Session { id, csrf } => {
            if let Some(reason) = csrf.reason() {
                return Err(ApiError::csrf_failed(reason));
            }
            let key_hash = browser::session_hash(id);
            let owner = sessions::user_stmt(realm_string_id, &key_hash, crate::db::now())?;
            (Claim::Session, key_hash, owner)
        }
    };
    let realm = batch.add::<RealmRow>(realms::by_string_id_stmt(realm_string_id)?);
    let user = batch.add::<UserRow>(owner);
    Ok(PendingAuthentication { claim, key_hash, realm, user })
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
            let checked = check_credentials(realm.as_ref(), user, &pending.claim);
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

/// The user the key or session of `credentials` authenticated as when this isolate last
/// checked it: a guess that lets a request read as that user in its authentication's own
/// batch. It grants nothing: the batch checks the credentials, and its reads are used only
/// when the user it authenticates is exactly this row.
pub fn last_key_owner(credentials: Option<&Credentials>) -> Option<UserRow> {
    let key_hash = credentials?.owner_key()?;
    KEY_OWNERS.with(|owners| owners.borrow().get(&key_hash).cloned())
}

/// The user `claim` authenticates as (see [`Claim`]).
fn check_credentials(realm: Option<&RealmRow>, user: Option<UserRow>, claim: &Claim) -> ApiResult<UserRow> {
    let realm = realm.ok_or_else(ApiError::nonexistent_subdomain)?;
    if realm.deactivated != 0 {
        return Err(ApiError::realm_deactivated());
    }
    let user = match claim {
        Claim::Session => user.ok_or_else(ApiError::not_logged_in)?,
        Claim::KeyOnly => user.ok_or_else(ApiError::invalid_api_key)?,
        Claim::Email(email) => {
            let user = user.ok_or_else(ApiError::invalid_api_key)?;
            let names_user = email.eq_ignore_ascii_case(&user.email) || email.eq_ignore_ascii_case(&user.delivery_email);
            if !names_user {
                return Err(ApiError::invalid_api_key());
            }
            user
        }
    };
    if !user.is_active() {
        return Err(ApiError::user_deactivated());
    }
    Ok(user)
}

/// The user `username` (a login email) names, when `password` is theirs: the rules of
/// every password sign-in (`POST /fetch_api_key`, the web client's `POST /accounts/login/`).
/// - wrong email or password: 401 `AUTHENTICATION_FAILED`, the same for both so the answer
///   does not reveal which accounts exist;
/// - deactivated user or organization: 401 `USER_DEACTIVATED` / `REALM_DEACTIVATED`;
/// - after `RATE_LIMIT_LOGIN_FAILURES` failures of one account: 429 `RATE_LIMIT_HIT`.
pub async fn password_sign_in(
    db: &D1Database,
    env: &worker::Env,
    rules: &rate_limits::Rules,
    realm_string_id: &str,
    username: &str,
    password: &str,
) -> ApiResult<SigningIn> {
    let (realm, candidate) = realm_and_signing_in(db, realm_string_id, username).await?;
    let realm = realm.ok_or_else(ApiError::nonexistent_subdomain)?;
    if realm.deactivated != 0 {
        return Err(ApiError::realm_deactivated());
    }
    let attempt = Bucket::LoginFailures { realm_id: realm.id, username };
    rate_limits::before_login(env, rules, &attempt).await?;
    let Some(signing_in) = password_owner(candidate, password).await? else {
        let failed = ApiError::authentication_failed("Your username or password is incorrect");
        return Err(rate_limits::login_failed(env, rules, &attempt, failed).await);
    };
    if !signing_in.user.is_active() {
        return Err(ApiError::user_deactivated());
    }
    Ok(signing_in)
}

/// The user a development login names, without a password (`POST /dev_fetch_api_key`, the
/// development login page); the caller checks that the server is in development mode.
pub async fn development_sign_in(db: &D1Database, realm_string_id: &str, email: &str) -> ApiResult<SigningIn> {
    let (realm, signing_in) = realm_and_signing_in(db, realm_string_id, email).await?;
    let realm = realm.ok_or_else(ApiError::nonexistent_subdomain)?;
    if realm.deactivated != 0 {
        return Err(ApiError::realm_deactivated());
    }
    let signing_in = signing_in.ok_or_else(|| ApiError::authentication_failed("This user is not registered."))?;
    if !signing_in.user.is_active() {
        return Err(ApiError::user_deactivated());
    }
    Ok(signing_in)
}

/// Reads an endpoint makes as its user, which [`Authenticator::read_as_user`] folds into
/// the batch that authenticates them. `add` only builds statements (it writes nothing and
/// may run twice); `take` reads their rows.
pub trait ReadAsUser {
    type Slots;
    type Output;
    fn add(&self, batch: &mut Batch, me: &UserRow, realm: &RealmState) -> ApiResult<Self::Slots>;
    fn take(&self, results: &BatchResults, slots: Self::Slots, me: &UserRow, realm: &RealmState) -> ApiResult<Self::Output>;
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
