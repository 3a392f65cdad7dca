//! Rate limits in Zulip's shape, counted by the `RateLimiter` Durable Object (one object
//! per bucket, so a limit holds across isolates and machines).
//!
//! Each rule is two Worker variables, `<NAME>` (requests per window; `0` turns the rule
//! off) and `<NAME>_WINDOW_SECS`; without them Zulip's defaults apply:
//! - `RATE_LIMIT_USER_REQUESTS`: every authenticated request, per user (200 a minute);
//! - `RATE_LIMIT_IP_REQUESTS`: unauthenticated requests and failed authentications, per
//!   IP address (100 a minute);
//! - `RATE_LIMIT_LOGIN_FAILURES`: failed password and JWT logins of one account (5 per
//!   30 minutes); only failures count, and a login over the limit is refused untried.
//! - `RATE_LIMIT_PASSWORD_RESET_EMAIL`: "forgot password" requests per address (Zulip: 2
//!   an hour); over it the answer stays the same and nothing is mailed;
//! - `RATE_LIMIT_PASSWORD_RESET_IP`: "forgot password" requests per IP address (20 an hour).

use team_chat_durable_objects::protocol::{bindings, RateLimitCheck, RateLimitDecision, RateLimitRefund};
use worker::{Env, Method, Request, RequestInit};

use crate::error::{ApiError, ApiResult};

/// One rule: at most `limit` requests in `window_secs`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    pub limit: u32,
    pub window_secs: u32,
}

/// What a rule counts.
pub enum Bucket<'a> {
    User { realm_id: i64, user_id: i64 },
    Ip(&'a str),
    LoginFailures { realm_id: i64, username: &'a str },
    PasswordResetEmail { realm_id: i64, email: &'a str },
    PasswordResetIp(&'a str),
}

const USER: (&str, Rule) = ("RATE_LIMIT_USER_REQUESTS", Rule { limit: 200, window_secs: 60 });
const IP: (&str, Rule) = ("RATE_LIMIT_IP_REQUESTS", Rule { limit: 100, window_secs: 60 });
const LOGIN_FAILURES: (&str, Rule) = ("RATE_LIMIT_LOGIN_FAILURES", Rule { limit: 5, window_secs: 30 * 60 });
const PASSWORD_RESET_EMAIL: (&str, Rule) = ("RATE_LIMIT_PASSWORD_RESET_EMAIL", Rule { limit: 2, window_secs: 3600 });
const PASSWORD_RESET_IP: (&str, Rule) = ("RATE_LIMIT_PASSWORD_RESET_IP", Rule { limit: 20, window_secs: 3600 });

/// Every bucket's rule as the Worker's variables set it, read once per isolate with the
/// rest of `crate::settings::Settings`; `None` for a rule turned off.
#[derive(Debug, Clone)]
pub struct Rules {
    user: Option<Rule>,
    ip: Option<Rule>,
    login_failures: Option<Rule>,
    password_reset_email: Option<Rule>,
    password_reset_ip: Option<Rule>,
}

impl Rules {
    /// The rules from the variables `var` reads; Zulip's default where one is unset.
    pub fn read(var: impl Fn(&str) -> Option<String>) -> Self {
        let number = |name: &str| var(name).and_then(|v| v.trim().parse::<u32>().ok());
        let rule = |(name, default): (&str, Rule)| {
            let rule = Rule {
                limit: number(name).unwrap_or(default.limit),
                window_secs: number(&format!("{name}_WINDOW_SECS")).unwrap_or(default.window_secs),
            };
            (rule.limit > 0 && rule.window_secs > 0).then_some(rule)
        };
        Rules {
            user: rule(USER),
            ip: rule(IP),
            login_failures: rule(LOGIN_FAILURES),
            password_reset_email: rule(PASSWORD_RESET_EMAIL),
            password_reset_ip: rule(PASSWORD_RESET_IP),
        }
    }
}

impl Bucket<'_> {
    /// The rule in force for this bucket; `None` when it is off.
    pub fn rule(&self, rules: &Rules) -> Option<Rule> {
        match self {
            Bucket::User { .. } => rules.user,
            Bucket::Ip(_) => rules.ip,
            Bucket::LoginFailures { .. } => rules.login_failures,
            Bucket::PasswordResetEmail { .. } => rules.password_reset_email,
            Bucket::PasswordResetIp(_) => rules.password_reset_ip,
        }
    }

    /// The rate limiter object's name.
    fn name(&self) -> String {
        match self {
            Bucket::User { realm_id, user_id } => format!("user:{realm_id}:{user_id}"),
            Bucket::Ip(ip) => format!("ip:{ip}"),
            Bucket::LoginFailures { realm_id, username } => format!("login:{realm_id}:{}", username.trim().to_lowercase()),
            Bucket::PasswordResetEmail { realm_id, email } => format!("reset:{realm_id}:{}", email.trim().to_lowercase()),
            Bucket::PasswordResetIp(ip) => format!("reset-ip:{ip}"),
        }
    }
}

/// Counts one request of `bucket` (or only looks, when `count` is false); `None` when the
/// rule is off. Refusal is the caller's decision ([`refuse_over_limit`]).
pub async fn check(env: &Env, rules: &Rules, bucket: &Bucket<'_>, count: bool) -> ApiResult<Option<RateLimitDecision>> {
    let Some(rule) = bucket.rule(rules) else { return Ok(None) };
    let check = RateLimitCheck { limit: rule.limit, window_secs: rule.window_secs, count };
    let mut resp = command(env, bucket, "check", &serde_json::to_string(&check)?).await?;
    Ok(Some(resp.json().await?))
}

/// Takes back the count `decision` made in `bucket`, if it made one.
pub async fn refund(env: &Env, bucket: &Bucket<'_>, decision: Option<&RateLimitDecision>) -> ApiResult<()> {
    let Some(counted_at_ms) = decision.and_then(|d| d.counted_at_ms) else { return Ok(()) };
    command(env, bucket, "refund", &serde_json::to_string(&RateLimitRefund { counted_at_ms })?).await?;
    Ok(())
}

async fn command(env: &Env, bucket: &Bucket<'_>, name: &str, body: &str) -> ApiResult<worker::Response> {
    let stub = env.durable_object(bindings::RATE_LIMITER)?.id_from_name(&bucket.name())?.get_stub()?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_body(Some(body.into()));
    let resp = stub.fetch_with_request(Request::new_with_init(&format!("https://rate-limiter/{name}"), &init)?).await?;
    if resp.status_code() != 200 {
        return Err(ApiError::internal(format!("RateLimiter answered {}", resp.status_code())));
    }
    Ok(resp)
}

/// Zulip's `RATE_LIMIT_HIT` when the decision refused the request.
pub fn refuse_over_limit(decision: Option<&RateLimitDecision>) -> ApiResult<()> {
    match decision {
        Some(d) if !d.allowed => Err(ApiError::rate_limit_hit(d.retry_after_ms as f64 / 1000.0, headers(d).into())),
        _ => Ok(()),
    }
}

/// Refuses a login attempt when the account's failed logins are over the limit; counts
/// nothing (only failures count, through [`login_failed`]).
pub async fn before_login(env: &Env, rules: &Rules, attempt: &Bucket<'_>) -> ApiResult<()> {
    refuse_over_limit(check(env, rules, attempt, false).await?.as_ref())
}

/// Counts a failed login, then answers the login's own error.
pub async fn login_failed(env: &Env, rules: &Rules, attempt: &Bucket<'_>, err: ApiError) -> ApiError {
    match check(env, rules, attempt, true).await {
        Ok(_) => err,
        Err(limiter_error) => limiter_error,
    }
}

/// The `X-RateLimit-*` headers Zulip puts on authenticated responses.
pub fn headers(decision: &RateLimitDecision) -> [(&'static str, String); 3] {
    [
        ("X-RateLimit-Limit", decision.limit.to_string()),
        ("X-RateLimit-Remaining", decision.remaining.to_string()),
        ("X-RateLimit-Reset", (decision.reset_ms / 1000).to_string()),
    ]
}
