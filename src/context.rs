//! Everything a handler knows about its request: the organization it addresses, its
//! parameters ([`crate::request_body`]), the runtime bindings, and its [`Authenticator`]
//! (the acting user, with the rate-limit count). Handlers ask `ctx.user()` or, for a
//! role, `ctx.user_as::<Administrator>()`.

use std::rc::Rc;

use worker::{D1Database, Env, Headers, Method, Request};

use crate::auth::{Authenticator, Credentials, Guard, ReadAsUser};
use crate::db::realms::RealmRow;
use crate::db::users::UserRow;
use crate::error::ApiResult;
use crate::params::Params;
use crate::platform::realm_cache::RealmState;
use crate::request_body::{OctetBody, RequestBody, UploadedFile};
use crate::settings::Settings;

pub struct RequestContext {
    pub env: Env,
    /// The organization's own database (`crate::platform::directory`); every query of the request.
    pub db: D1Database,
    /// Its binding (`DB`, `DB_2`, ...), for work that opens it again after the response.
    pub database: String,
    pub settings: std::rc::Rc<Settings>,
    pub method: Method,
    pub params: Params,
    pub files: Vec<UploadedFile>,
    pub octets: OctetBody,
    /// The raw text of a body that is neither form-encoded nor multipart (a webhook's JSON).
    pub text: Option<String>,
    pub headers: Headers,
    /// `scheme://host[:port]` as the client addressed us; the organization's URL.
    pub base_url: String,
    /// `host[:port]` of the organization, as the client addressed it.
    pub realm_host: String,
    /// The sending client's name: the `client` parameter, else as Zulip derives it from the
    /// User-Agent (`ZulipPython/0.9.0 (...)` -> `ZulipPython`).
    pub client: String,
    /// The request URL's query string, without `?` (empty if none).
    pub query: String,
    /// The organization's `string_id`, chosen from the Host header.
    pub realm_string_id: String,
    /// Who the request's credentials name, and its rate-limit count.
    pub auth: Authenticator,
    /// The runtime's context, for work that continues after the response (shared with
    /// the follow-up of a message the request sends, `message_send::Site`).
    pub worker: Option<Rc<worker::Context>>,
}

impl RequestContext {
    /// The request's context; `settings` are the worker's, read once per request.
    pub async fn from_request(mut req: Request, env: Env, settings: std::rc::Rc<Settings>) -> ApiResult<Self> {
        let url = req.url()?;
        let host = req.headers().get("Host")?.unwrap_or_else(|| url.host_str().unwrap_or("localhost").to_string());
        let base_url = format!("{}://{}", url.scheme(), host);
        let query = url.query().unwrap_or("").to_string();
        let realm_string_id = realm_string_id_for_host(&host, &settings);
        // The development organizations exist before their placement is looked up.
        if settings.development {
            crate::dev_seed::ensure_seeded(&env, &settings.default_realm).await?;
        }
        let database = crate::platform::directory::resolve(&env, &realm_string_id).await?;
        let mut credentials = Credentials::of_request(req.headers(), &req.method(), &env);
        let RequestBody { params, files, octets, text } = RequestBody::read(&mut req, url.query().unwrap_or("")).await?;
        // Incoming webhooks authenticate by the key in their URL, as Zulip's do.
        let has_basic = matches!(credentials, Some(Credentials::Basic(_)));
        if url.path().starts_with(crate::domain::webhooks::URL_PREFIX) && !has_basic {
            if let Some(key) = params.peek("api_key") {
                credentials = Some(Credentials::WebhookKey(key));
            }
        }
        let headers = req.headers().clone();
        let client = client_name(&params, &headers);
        let client_ip = headers.get("CF-Connecting-IP").ok().flatten().unwrap_or_else(|| "unknown".into());
        let auth_db = crate::platform::directory::database(&env, &database)?;
        Ok(RequestContext {
            db: crate::platform::directory::database(&env, &database)?,
            auth: Authenticator::new(env.clone(), auth_db, realm_string_id.clone(), credentials, client_ip, settings.rate_limits.clone()),
            database,
            env,
            settings,
            method: req.method(),
            params,
            files,
            octets,
            text,
            headers,
            realm_host: host,
            base_url,
            query,
            client,
            realm_string_id,
            worker: None,
        })
    }

    /// The authenticated user ([`Authenticator::user`]).
    pub async fn user(&self) -> ApiResult<UserRow> {
        self.auth.user().await
    }

    /// The authenticated user in the role `G` asks for ([`crate::auth::Guard`]).
    pub async fn user_as<G: Guard>(&self) -> ApiResult<G> {
        self.auth.user_as().await
    }

    /// Authenticates and makes `reads` as the user, in one round trip where it can
    /// ([`Authenticator::read_as_user`]).
    pub async fn read_as_user<R: ReadAsUser>(&self, reads: &R) -> ApiResult<(UserRow, Rc<RealmState>, R::Output)> {
        self.auth.read_as_user(reads).await
    }

    /// `parsed`, reported after authentication's errors: a request that is both
    /// unauthenticated and malformed is told it is unauthenticated.
    pub async fn after_authentication<T>(&self, parsed: ApiResult<T>) -> ApiResult<T> {
        if parsed.is_err() {
            self.auth.user().await?;
        }
        parsed
    }

    /// The addressed organization; `NONEXISTENT_SUBDOMAIN` when there is none.
    pub async fn realm(&self) -> ApiResult<RealmRow> {
        self.auth.realm().await
    }

    /// The organization's settings and linkifiers, current for this request.
    pub async fn realm_state(&self, realm_id: i64) -> ApiResult<Rc<RealmState>> {
        self.auth.realm_state(realm_id).await
    }

    /// Runs `work` after the response is sent (`wait_until`); inline when there is no
    /// runtime context (unit tests).
    pub fn defer(&self, work: impl std::future::Future<Output = ()> + 'static) {
        if let Some(worker) = &self.worker {
            worker.wait_until(work);
        }
    }

    /// The client's address as Cloudflare reports it.
    pub fn client_ip(&self) -> String {
        self.header("CF-Connecting-IP").unwrap_or_else(|| "unknown".into())
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers.get(name).ok().flatten()
    }
}

/// The sending client's name (see [`RequestContext::client`]).
fn client_name(params: &Params, headers: &Headers) -> String {
    if let Ok(Some(name)) = params.str("client") {
        return name;
    }
    let agent = headers.get("User-Agent").ok().flatten().unwrap_or_default();
    let name = agent.split(['/', ' ']).next().unwrap_or("").trim();
    if name.is_empty() {
        "API".to_string()
    } else {
        name.to_string()
    }
}

/// The organization a Host header addresses: `<string_id>.<root domain>`; the bare root
/// domain, `localhost` and IP addresses reach the default organization.
pub fn realm_string_id_for_host(host: &str, settings: &Settings) -> String {
    let host = host
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map(|(h, _)| h)
        .unwrap_or(host)
        .to_ascii_lowercase();
    let root = settings.root_domain.to_ascii_lowercase();
    let is_ip = host.parse::<std::net::IpAddr>().is_ok() || host.starts_with('[');
    if is_ip || host == "localhost" || host == root {
        return settings.default_realm.clone();
    }
    for suffix in [format!(".{root}"), ".localhost".to_string()] {
        if let Some(sub) = host.strip_suffix(&suffix) {
            if !sub.is_empty() && !sub.contains('.') {
                return sub.to_string();
            }
        }
    }
    settings.default_realm.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings { root_domain: "chat.example.com".into(), default_realm: "zulip".into(), ..Settings::default() }
    }

    #[test]
    fn localhost_and_ips_reach_the_default_organization() {
        for host in ["localhost", "localhost:8787", "127.0.0.1:8787", "chat.example.com"] {
            assert_eq!(realm_string_id_for_host(host, &settings()), "zulip", "{host}");
        }
    }

    #[test]
    fn subdomain_names_the_organization() {
        assert_eq!(realm_string_id_for_host("lear.chat.example.com", &settings()), "lear");
        assert_eq!(realm_string_id_for_host("Lear.localhost:8787", &settings()), "lear");
    }
}
