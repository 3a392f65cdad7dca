//! JSON Web Token login.
//!
//! Each organization's HS256 secret is a Worker secret: `JWT_SECRET_<STRING_ID>` (the
//! organization's subdomain upper-cased, `-` as `_`), else the shared `JWT_SECRET`. An
//! organization with neither (or an empty one) has JWT login disabled. Development sets
//! `JWT_SECRET_ZULIP` in `wrangler.toml` `[vars]`; production uses `wrangler secret put`.

use chrono::{DateTime, Duration, Utc};
use jwt_compact::alg::{Hs256, Hs256Key};
use jwt_compact::{AlgorithmExt, TimeOptions, UntrustedToken};
use serde::Deserialize;
use serde_json::{json, Value};
use worker::Env;

use crate::actions::users::do_issue_api_key;
use crate::context::RequestContext;
use crate::domain::users::{user_dict, UserDictOptions};
use crate::error::{ApiError, ApiResult};
use crate::platform::rate_limits::{self, Bucket};
use crate::response::Reply;

/// The secret verifying an organization's tokens, if JWT login is configured for it.
pub fn jwt_secret(env: &Env, realm_string_id: &str) -> Option<String> {
    let specific = format!("JWT_SECRET_{}", realm_string_id.to_ascii_uppercase().replace(['-', '.'], "_"));
    let read = |name: &str| crate::settings::secret(env, name);
    read(&specific).or_else(|| read("JWT_SECRET")).filter(|s| !s.is_empty())
}

#[derive(Debug, Deserialize)]
struct EmailClaim {
    #[serde(default)]
    email: Option<Value>,
}

/// Verifies an HS256 token and answers its `email` claim. `exp` and `nbf`, when present,
/// are checked against `now` without leeway (as PyJWT does for Zulip).
pub fn verify_token(token: &str, secret: &[u8], now: DateTime<Utc>) -> ApiResult<String> {
    let bad = || ApiError::bad_request("Bad JSON web token");
    let untrusted = UntrustedToken::new(token).map_err(|_| bad())?;
    let key = Hs256Key::new(secret);
    let verified = Hs256.validator::<EmailClaim>(&key).validate(&untrusted).map_err(|_| bad())?;
    let claims = verified.claims();
    let options = TimeOptions::new(Duration::zero(), move || now);
    if claims.expiration.is_some() {
        claims.validate_expiration(&options).map_err(|_| bad())?;
    }
    if claims.not_before.is_some() {
        claims.validate_maturity(&options).map_err(|_| bad())?;
    }
    match &claims.custom.email {
        Some(Value::String(email)) => Ok(email.clone()),
        Some(_) => Err(bad()),
        None => Err(ApiError::bad_request("No email specified in JSON web token claims")),
    }
}

/// The `email` claim of a token, before any verification: the account read with the
/// organization (used only once the token verifies) and charged with failed logins.
fn claimed_email(token: &str) -> Option<String> {
    let untrusted = UntrustedToken::new(token).ok()?;
    let claims = untrusted.deserialize_claims_unchecked::<EmailClaim>().ok()?;
    claims.custom.email.and_then(|e| e.as_str().map(str::to_string))
}

fn now() -> DateTime<Utc> {
    DateTime::from_timestamp_millis(worker::Date::now().as_millis() as i64).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// # `POST /jwt/fetch_api_key`
/// Open. `token`: an HS256 JWT whose `email` claim names the user; `include_profile`
/// adds the `user` object. Answers a fresh `api_key` and the user's `email`.
/// - JWT not configured for the organization, no token, a token that is malformed, badly
///   signed, expired or without `email`: 400 `BAD_REQUEST` (Zulip's messages);
/// - unknown user: 401 `AUTHENTICATION_FAILED`; deactivated user: 401 `USER_DEACTIVATED`.
pub async fn jwt_fetch_api_key(ctx: &RequestContext) -> ApiResult<Reply> {
    let include_profile = ctx.params.bool_or("include_profile", false)?;
    let token = ctx.params.str("token")?.unwrap_or_default();
    // The user the token claims is read with the organization; it signs in only once the
    // token is verified.
    let claimed = claimed_email(&token).unwrap_or_default();
    let (realm, claimed_user) = ctx.auth.realm_and_signing_in(&claimed).await?;
    if realm.deactivated != 0 {
        return Err(ApiError::realm_deactivated());
    }
    let secret = jwt_secret(&ctx.env, &realm.string_id)
        .ok_or_else(|| ApiError::bad_request("JWT authentication is not enabled for this organization"))?;
    if token.is_empty() {
        return Err(ApiError::bad_request("No JSON web token passed in request"));
    }
    // Failures count against the account the token names, verified or not.
    let attempt = Bucket::LoginFailures { realm_id: realm.id, username: &claimed };
    rate_limits::before_login(&ctx.env, &ctx.settings.rate_limits, &attempt).await?;
    let user = match verify_token(&token, secret.as_bytes(), now()) {
        Ok(email) if email == claimed => claimed_user,
        Ok(_) => None,
        Err(err) => return Err(rate_limits::login_failed(&ctx.env, &ctx.settings.rate_limits, &attempt, err).await),
    };
    let Some(signing_in) = user else {
        let failed = ApiError::authentication_failed("Your username or password is incorrect");
        return Err(rate_limits::login_failed(&ctx.env, &ctx.settings.rate_limits, &attempt, failed).await);
    };
    let user = &signing_in.user;
    if !user.is_active() {
        return Err(ApiError::user_deactivated());
    }
    let api_key = do_issue_api_key(&ctx.db, &ctx.env, user, signing_in.api_key_version).await?;
    let mut body = json!({ "api_key": api_key, "email": user.delivery_email });
    if include_profile {
        let host = &ctx.realm_host;
        let opts = UserDictOptions { realm_host: host, client_gravatar: false };
        body["user"] = user_dict(user, user, &opts);
    }
    Ok(Reply::json(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jwt_compact::{Claims, Header};
    use serde::Serialize;

    #[derive(Serialize)]
    struct Email {
        email: &'static str,
    }

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(secs, 0).unwrap()
    }

    fn sign(secret: &[u8], exp: Option<i64>) -> String {
        let mut claims = Claims::new(Email { email: "hamlet@zulip.com" });
        claims.expiration = exp.map(at);
        Hs256.token(&Header::empty(), &claims, &Hs256Key::new(secret)).unwrap()
    }

    #[test]
    fn valid_token_yields_the_email() {
        assert_eq!(verify_token(&sign(b"s3cret", Some(2_000)), b"s3cret", at(1_000)).unwrap(), "hamlet@zulip.com");
        assert_eq!(verify_token(&sign(b"s3cret", None), b"s3cret", at(1_000)).unwrap(), "hamlet@zulip.com");
    }

    #[test]
    fn expired_wrong_key_and_garbage_are_bad_tokens() {
        for (token, key) in [(sign(b"s3cret", Some(999)), &b"s3cret"[..]), (sign(b"other", None), b"s3cret"), ("abc".into(), b"s3cret")] {
            assert_eq!(verify_token(&token, key, at(1_000)).unwrap_err().msg, "Bad JSON web token");
        }
    }
}
