//! Server-wide settings: the `[vars]` of `wrangler.toml` and the constants of the API
//! version this server implements.

use worker::Env;

/// The highest feature level of the spec's Versioning table.
pub const ZULIP_FEATURE_LEVEL: i64 = 496;
/// The Zulip release whose API this server speaks (clients parse it as a version).
pub const ZULIP_VERSION: &str = "11.0-dev";
pub const ZULIP_MERGE_BASE: &str = "11.0-dev";

#[derive(Debug, Clone)]
pub struct Settings {
    /// `DEVELOPMENT = "true"`: enables the development seed and the dev login endpoints.
    /// Set in `[vars]` for `wrangler dev`; the production environment leaves it unset.
    pub development: bool,
    /// The domain whose subdomains name organizations (`lear.<root_domain>`).
    pub root_domain: String,
    /// The organization reached at the root domain, `localhost` and IP addresses.
    pub default_realm: String,
    /// The push relay (Zulip's push bouncer); none: push notifications are off.
    pub push_relay: Option<PushRelay>,
    /// `EDIT_LIMIT_GRACE_SECS`: seconds allowed beyond every edit and move time limit.
    pub edit_limit_grace_seconds: i64,
}

/// `PUSH_RELAY_URL` with the credentials of Zulip's bouncer protocol: this server's
/// `ZULIP_ORG_ID` and `ZULIP_ORG_KEY` (a secret), sent as HTTP basic auth.
#[derive(Debug, Clone)]
pub struct PushRelay {
    pub url: String,
    pub org_id: String,
    pub org_key: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            development: false,
            root_domain: "localhost".into(),
            default_realm: "zulip".into(),
            push_relay: None,
            edit_limit_grace_seconds: crate::domain::message_edit::EDIT_LIMIT_GRACE_SECONDS,
        }
    }
}

impl Settings {
    pub fn from_env(env: &Env) -> Self {
        let var = |name: &str| env.var(name).ok().map(|v| v.to_string());
        let defaults = Settings::default();
        Settings {
            development: var("DEVELOPMENT").as_deref() == Some("true"),
            root_domain: var("ROOT_DOMAIN").unwrap_or(defaults.root_domain),
            default_realm: var("DEFAULT_REALM").unwrap_or(defaults.default_realm),
            push_relay: match (
                var("PUSH_RELAY_URL"),
                var("ZULIP_ORG_ID"),
                env.secret("ZULIP_ORG_KEY").ok().map(|v| v.to_string()).or_else(|| var("ZULIP_ORG_KEY")),
            ) {
                (Some(url), Some(org_id), Some(org_key)) if !url.is_empty() => {
                    Some(PushRelay { url: url.trim_end_matches('/').to_string(), org_id, org_key })
                }
                _ => None,
            },
            edit_limit_grace_seconds: var("EDIT_LIMIT_GRACE_SECS")
                .and_then(|v| v.trim().parse().ok())
                .filter(|v: &i64| *v >= 0)
                .unwrap_or(defaults.edit_limit_grace_seconds),
        }
    }
}
