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
    /// `ZULIP_ADMINISTRATOR`: whom the push relay contacts about this server.
    pub administrator: Option<String>,
    /// Why this configuration must not be served, if it must not: development mode on a
    /// root domain that is not loopback would open password-less logins to the world, so
    /// every request answers an error instead.
    pub refusal: Option<String>,
    /// `EMAIL_FROM` / `EMAIL_REPLY_TO`: the sender of every email.
    pub email_sender: crate::domain::email::Sender,
    /// The email provider (`EMAIL_API_URL` and the secret `EMAIL_API_KEY`); none: emails
    /// wait in the outbox (development keeps them for `dev_emails` instead).
    pub email_provider: Option<EmailProvider>,
    /// The rate limits' rules (`RATE_LIMIT_*`, `crate::platform::rate_limits`).
    pub rate_limits: crate::platform::rate_limits::Rules,
    /// `EXPORT_STEP_PAUSE_SECS`: seconds between two steps of an export's build (0: the
    /// next step at once), to leave a large organization's database to its users.
    pub export_step_pause_secs: i64,
}

/// An email provider's HTTP API (`crate::domain::email`).
#[derive(Debug, Clone)]
pub struct EmailProvider {
    pub url: String,
    pub api_key: String,
}

/// Resend's endpoint, the default of `EMAIL_API_URL`.
pub const DEFAULT_EMAIL_API_URL: &str = "https://api.resend.com/emails";

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
            administrator: None,
            refusal: None,
            email_sender: crate::domain::email::Sender { from: "Team chat <noreply@localhost>".into(), reply_to: None },
            email_provider: None,
            rate_limits: crate::platform::rate_limits::Rules::read(|_| None),
            export_step_pause_secs: 0,
        }
    }
}

/// A `[vars]` entry of `wrangler.toml` (or `--var`): every read of one goes through here.
pub fn var(env: &Env, name: &str) -> Option<String> {
    env.var(name).ok().map(|v| v.to_string())
}

/// A Worker secret (`wrangler secret put`); every read of one goes through here.
pub fn secret(env: &Env, name: &str) -> Option<String> {
    env.secret(name).ok().map(|v| v.to_string())
}

/// `EVENT_QUEUE_HEARTBEAT_SECS`: how long a long-poll waits before the heartbeat (50, as
/// Zulip's).
pub fn event_queue_heartbeat_secs(env: &Env) -> i64 {
    var(env, "EVENT_QUEUE_HEARTBEAT_SECS").and_then(|v| v.parse::<i64>().ok()).unwrap_or(50)
}

impl Settings {
    /// The settings of this isolate. Variables and secrets are fixed for an isolate's life
    /// (changing one deploys a new version, in new isolates), so they are read once: each
    /// read is a call into JavaScript, and every request needs the settings.
    pub fn from_env(env: &Env) -> std::rc::Rc<Self> {
        thread_local! {
            static READ: std::cell::OnceCell<std::rc::Rc<Settings>> = const { std::cell::OnceCell::new() };
        }
        READ.with(|read| read.get_or_init(|| std::rc::Rc::new(Settings::read(env))).clone())
    }

    fn read(env: &Env) -> Self {
        let var = |name: &str| var(env, name);
        let defaults = Settings::default();
        let development = var("DEVELOPMENT").as_deref() == Some("true");
        let root_domain = var("ROOT_DOMAIN").unwrap_or(defaults.root_domain);
        let refusal = (development && !is_local_domain(&root_domain))
            .then(|| format!("DEVELOPMENT is set while ROOT_DOMAIN ({root_domain}) is not localhost or loopback"));
        Settings {
            development,
            root_domain,
            administrator: var("ZULIP_ADMINISTRATOR").filter(|v| !v.is_empty()),
            refusal,
            default_realm: var("DEFAULT_REALM").unwrap_or(defaults.default_realm),
            push_relay: match (var("PUSH_RELAY_URL"), var("ZULIP_ORG_ID"), secret(env, "ZULIP_ORG_KEY").or_else(|| var("ZULIP_ORG_KEY"))) {
                (Some(url), Some(org_id), Some(org_key)) if !url.is_empty() => {
                    Some(PushRelay { url: url.trim_end_matches('/').to_string(), org_id, org_key })
                }
                _ => None,
            },
            edit_limit_grace_seconds: var("EDIT_LIMIT_GRACE_SECS")
                .and_then(|v| v.trim().parse().ok())
                .filter(|v: &i64| *v >= 0)
                .unwrap_or(defaults.edit_limit_grace_seconds),
            email_sender: crate::domain::email::Sender {
                from: var("EMAIL_FROM").filter(|v| !v.is_empty()).unwrap_or(defaults.email_sender.from),
                reply_to: var("EMAIL_REPLY_TO").filter(|v| !v.is_empty()),
            },
            rate_limits: crate::platform::rate_limits::Rules::read(var),
            export_step_pause_secs: var("EXPORT_STEP_PAUSE_SECS")
                .and_then(|v| v.trim().parse().ok())
                .filter(|v: &i64| *v >= 0)
                .unwrap_or(0),
            email_provider: env.secret("EMAIL_API_KEY").ok().map(|v| v.to_string()).filter(|v| !v.is_empty()).map(|api_key| {
                EmailProvider {
                    url: var("EMAIL_API_URL").filter(|v| !v.is_empty()).unwrap_or_else(|| DEFAULT_EMAIL_API_URL.into()),
                    api_key,
                }
            }),
        }
    }
}

impl Settings {
    /// The host of organization `string_id`: the root domain for the default one.
    pub fn organization_host(&self, string_id: &str) -> String {
        if string_id == self.default_realm {
            self.root_domain.clone()
        } else {
            format!("{string_id}.{}", self.root_domain)
        }
    }

    /// `ZULIP_ADMINISTRATOR`, else `admin@` the root domain.
    pub fn administrator_email(&self) -> String {
        self.administrator.clone().unwrap_or_else(|| format!("admin@{}", self.root_domain))
    }
}

/// Whether a root domain names this machine only (`localhost`, `*.localhost`, a loopback
/// address): the only places development mode may run.
pub fn is_local_domain(domain: &str) -> bool {
    let domain = domain.trim().trim_end_matches('.').to_ascii_lowercase();
    domain == "localhost"
        || domain.ends_with(".localhost")
        || domain.trim_start_matches('[').trim_end_matches(']').parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether a Host header (a name or address, with or without a port) names this machine.
pub fn is_local_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit())).map_or(host, |(name, _)| name),
    };
    is_local_domain(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_domains_are_local() {
        for domain in ["localhost", "chat.localhost", "127.0.0.1", "[::1]", "LOCALHOST."] {
            assert!(is_local_domain(domain), "{domain}");
        }
        for domain in ["chat.example.com", "localhost.example.com", "10.0.0.2", ""] {
            assert!(!is_local_domain(domain), "{domain}");
        }
    }

    #[test]
    fn hosts_with_ports_are_local_when_their_name_is() {
        for host in ["127.0.0.1:8787", "localhost", "lear.localhost:8787", "[::1]:8787"] {
            assert!(is_local_host(host), "{host}");
        }
        for host in ["chat.example.com", "lear.chat.example.com:443", "10.0.0.1:80"] {
            assert!(!is_local_host(host), "{host}");
        }
    }
}
