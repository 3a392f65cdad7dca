//! Everything a handler knows about its request: the organization it addresses, its
//! parameters, the runtime bindings, and (once authenticated) the acting user.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use team_chat_durable_objects::protocol::RateLimitDecision;
use worker::{D1Database, Env, FormEntry, Headers, Method, Request};

use crate::auth::{Credentials, ReadAsUser};
use crate::db::batch::Batch;
use crate::db::realms::RealmRow;
use crate::db::users::UserRow;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::rate_limits::{self, Bucket};
use crate::realm_cache::RealmState;
use crate::remembered_reads::{self, Recall};
use crate::settings::Settings;

/// A file sent in a multipart body.
pub struct UploadedFile {
    pub field: String,
    pub name: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// The raw body of an `application/offset+octet-stream` request (a tus chunk).
pub enum OctetBody {
    /// Another content type: the body was read as parameters.
    Absent,
    Bytes(Vec<u8>),
    /// Reading it failed part way (the connection dropped).
    Broken,
}

/// A rate-limit count made beside authentication, for the user the key last authenticated
/// as in this isolate.
struct EarlyCount {
    realm_id: i64,
    user_id: i64,
    decision: ApiResult<Option<RateLimitDecision>>,
}

/// The user this isolate last authenticated these credentials as, with the organization's
/// state it holds: what a batch that folds authentication in is built as.
fn guessed_owner(credentials: Option<&Credentials>) -> Option<(Rc<RealmState>, UserRow)> {
    let user = crate::auth::last_key_owner(credentials)?;
    Some((crate::realm_cache::any_cached(user.realm_id)?, user))
}

pub struct RequestContext {
    pub env: Env,
    /// The organization's own database (`crate::directory`); every query of the request.
    pub db: D1Database,
    /// Its binding (`DB`, `DB_2`, ...), for work that opens it again after the response.
    pub database: String,
    pub settings: Settings,
    pub method: Method,
    pub params: Params,
    pub files: Vec<UploadedFile>,
    pub octets: OctetBody,
    pub headers: Headers,
    /// The API key (HTTP Basic) or browser session the request presents, if any.
    pub credentials: Option<Credentials>,
    /// `scheme://host[:port]` as the client addressed us; the organization's URL.
    pub base_url: String,
    /// The organization's `string_id`, chosen from the Host header.
    pub realm_string_id: String,
    realm: RefCell<Option<RealmRow>>,
    /// The rate limit this request was counted against, for the `X-RateLimit-*` headers.
    rate_limit: RefCell<Option<RateLimitDecision>>,
    /// The answers of this request's [`ReadAsUser::remembered`] reads, until the writer
    /// says they still hold after its write ([`Self::remember_reads`]).
    reads_to_remember: RefCell<Option<(String, remembered_reads::Rows)>>,
    /// A count made for the user remembered answers named ([`Self::recall_as_user`]),
    /// which the request's authentication then confirms or refunds like any early count.
    recalled_count: RefCell<Option<EarlyCount>>,
    /// The runtime's context, for work that continues after the response.
    pub worker: Option<worker::Context>,
}

/// The largest form-encoded body: room for a bot's whole storage (Zulip allows 10 million
/// characters) and any real request, small enough to refuse before reading it.
pub const MAX_FORM_BODY_BYTES: u64 = 32 << 20;
/// A multipart body carries one upload and a little framing.
const MULTIPART_OVERHEAD_BYTES: u64 = 1 << 20;

/// Refuses a body whose declared length is over the bound, before reading it.
fn check_body_size(req: &Request, multipart: bool) -> ApiResult<()> {
    let declared = req.headers().get("Content-Length")?.and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(0);
    let max_upload_mib = crate::domain::register_state::MAX_FILE_UPLOAD_SIZE_MIB as u64;
    if multipart && declared > (max_upload_mib << 20) + MULTIPART_OVERHEAD_BYTES {
        return Err(ApiError::upload_too_large(max_upload_mib as i64));
    }
    if !multipart && declared > MAX_FORM_BODY_BYTES {
        return Err(ApiError::bad_request(format!("Request body too large (limit: {} MiB)", MAX_FORM_BODY_BYTES >> 20)).with_status(413));
    }
    Ok(())
}

impl RequestContext {
    /// The request's context; `settings` are the worker's, read once per request.
    pub async fn from_request(mut req: Request, env: Env, settings: Settings) -> ApiResult<Self> {
        let url = req.url()?;
        let host = req.headers().get("Host")?.unwrap_or_else(|| url.host_str().unwrap_or("localhost").to_string());
        let base_url = format!("{}://{}", url.scheme(), host);
        let realm_string_id = realm_string_id_for_host(&host, &settings);
        // The development organizations exist before their placement is looked up.
        if settings.development {
            crate::dev_seed::ensure_seeded(&env, &settings.default_realm).await?;
        }
        let database = crate::directory::resolve(&env, &realm_string_id).await?;

        let credentials = Credentials::of_request(req.headers(), &req.method(), &env);
        let query = Params::parse_urlencoded(url.query().unwrap_or(""));
        let content_type = req.headers().get("Content-Type")?.unwrap_or_default().to_ascii_lowercase();
        let mut body = Vec::new();
        let mut files = Vec::new();
        let mut octets = OctetBody::Absent;
        check_body_size(&req, content_type.starts_with("multipart/form-data"))?;
        if content_type.starts_with("multipart/form-data") {
            let form = req.form_data().await.map_err(|_| ApiError::bad_request("Malformed multipart body"))?;
            let (form, names) = form_field_names(form);
            for name in names {
                for entry in form.get_all(&name).unwrap_or_default() {
                    match entry {
                        FormEntry::Field(value) => body.push((name.clone(), value)),
                        FormEntry::File(file) => files.push(UploadedFile {
                            field: name.clone(),
                            name: file.name(),
                            content_type: file.type_(),
                            bytes: file.bytes().await?,
                        }),
                    }
                }
            }
        } else if content_type.starts_with(crate::domain::tus::CHUNK_CONTENT_TYPE) {
            octets = match req.bytes().await {
                Ok(bytes) => OctetBody::Bytes(bytes),
                Err(_) => OctetBody::Broken,
            };
        } else if req.method() != Method::Get {
            // Form-encoded is the API's body format; clients that omit the content type
            // (curl -d does not) still send it form-encoded.
            let text = req.text().await.unwrap_or_default();
            if !content_type.starts_with("application/json") {
                body = Params::parse_urlencoded(&text);
            }
        }

        Ok(RequestContext {
            db: crate::directory::database(&env, &database)?,
            database,
            env,
            settings,
            method: req.method(),
            params: Params::new(query, body),
            files,
            octets,
            headers: req.headers().clone(),
            credentials,
            base_url,
            realm_string_id,
            realm: RefCell::new(None),
            rate_limit: RefCell::new(None),
            reads_to_remember: RefCell::new(None),
            recalled_count: RefCell::new(None),
            worker: None,
        })
    }

    /// The addressed organization; `NONEXISTENT_SUBDOMAIN` when there is none.
    pub async fn realm(&self) -> ApiResult<RealmRow> {
        if let Some(realm) = self.realm.borrow().as_ref() {
            return Ok(realm.clone());
        }
        let realm = crate::db::realms::by_string_id(&self.db, &self.realm_string_id).await?.ok_or_else(ApiError::nonexistent_subdomain)?;
        self.remember_realm(realm.clone());
        Ok(realm)
    }

    /// The organization (`NONEXISTENT_SUBDOMAIN` without one) and its user signing in with
    /// this login email, if any, read together (`crate::domain::users::realm_and_signing_in`).
    pub async fn realm_and_signing_in(&self, email: &str) -> ApiResult<(RealmRow, Option<crate::domain::users::SigningIn>)> {
        let (realm, signing_in) = crate::domain::users::realm_and_signing_in(&self.db, &self.realm_string_id, email).await?;
        let realm = realm.ok_or_else(ApiError::nonexistent_subdomain)?;
        self.remember_realm(realm.clone());
        Ok((realm, signing_in))
    }

    /// Runs `work` after the response is sent (`wait_until`); inline when there is no
    /// runtime context (unit tests).
    pub fn defer(&self, work: impl std::future::Future<Output = ()> + 'static) {
        if let Some(worker) = &self.worker {
            worker.wait_until(work);
        }
    }

    /// The organization's settings and linkifiers (`crate::realm_cache`): from the isolate's
    /// cache when the version this request's authentication read is current, else read now.
    pub async fn realm_state(&self, realm_id: i64) -> ApiResult<Rc<RealmState>> {
        crate::realm_cache::load(&self.db, realm_id, self.settings_version(realm_id)).await
    }

    /// The settings version read with this request's authentication, if any.
    pub fn settings_version(&self, realm_id: i64) -> Option<i64> {
        self.realm.borrow().as_ref().filter(|r| r.id == realm_id).map(|r| r.settings_version)
    }

    pub fn remember_realm(&self, realm: RealmRow) {
        *self.realm.borrow_mut() = Some(realm);
    }

    /// The authenticated user (HTTP Basic `email:api_key`, or the web client's session),
    /// counted against the user's rate limit; a failed authentication counts against the
    /// client's IP address.
    pub async fn user(&self) -> ApiResult<UserRow> {
        let credentials = self.credentials.as_ref();
        let guess = crate::auth::last_key_owner(credentials);
        let authenticate = crate::auth::authenticate(&self.db, &self.realm_string_id, credentials);
        let ((realm, authenticated), early) = self.beside_early_count(authenticate, guess.as_ref()).await;
        self.accept(realm, authenticated, early).await
    }

    /// Authenticates and makes `reads` as the user, in ONE D1 round trip where it can:
    /// `reads`' statements go into the batch that checks the credentials.
    ///
    /// That batch is built as the user row and with the settings this isolate last saw for
    /// the key; what it read is used only when the credentials pass, authentication returns
    /// exactly that row, and the settings version it read is the one the statements were
    /// built with. Otherwise (the key's first request in this isolate, a changed user or
    /// setting) the reads run again as the user authentication returned: one more round
    /// trip, never a read made as someone else or under old settings. Authentication's
    /// errors come first, as with [`Self::user`].
    pub async fn read_as_user<R: ReadAsUser>(&self, reads: &R) -> ApiResult<(UserRow, Rc<RealmState>, R::Output)> {
        let credentials = self.credentials.as_ref();
        let me = match guessed_owner(credentials) {
            Some((state, guessed)) => {
                let mut batch = Batch::new();
                let pending = crate::auth::add_authentication(&mut batch, &self.realm_string_id, credentials);
                // A statement that cannot be built reports its error after authentication's.
                let slots = match pending {
                    Ok(pending) => reads.add(&mut batch, &self.db, &guessed, &state).map(|slots| (pending, slots)),
                    Err(err) => Err(err),
                };
                match slots {
                    Ok((pending, slots)) => {
                        let key = if reads.remembered() { remembered_reads::key(&batch) } else { None };
                        let (results, early) = self.beside_early_count(batch.run(&self.db), Some(&guessed)).await;
                        let results = results?;
                        let (realm, authenticated) = crate::auth::check_authentication(&results, pending);
                        let me = self.accept(realm, authenticated, early).await?;
                        if me == guessed && self.settings_version(me.realm_id) == Some(state.version) {
                            let output = reads.take(&results, slots, &me, &state)?;
                            if let Some(key) = key {
                                *self.reads_to_remember.borrow_mut() = Some((key, results.to_rows()?));
                            }
                            return Ok((me, state, output));
                        }
                        me
                    }
                    Err(_) => self.user().await?,
                }
            }
            None => self.user().await?,
        };
        let state = self.realm_state(me.realm_id).await?;
        let mut batch = Batch::new();
        let slots = reads.add(&mut batch, &self.db, &me, &state)?;
        let results = batch.run(&self.db).await?;
        let output = reads.take(&results, slots, &me, &state)?;
        Ok((me, state, output))
    }

    /// What [`Self::read_as_user`] would answer, from the answers this isolate remembers
    /// for exactly the same statements (`reads` must say it is [`ReadAsUser::remembered`]),
    /// with no round trip; `None` when it has none, or when they fail authentication or
    /// `reads`' own checks. Only a write may use them, and only with the [`Recall`]'s
    /// guards first in its batch: they fail it, writing nothing, unless every read still
    /// answers what was remembered ([`Recall::is_stale`]; the writer then reads again).
    /// The request is counted against the user's rate limit here, before any write; the
    /// writer settles the count once it committed ([`Self::settle_recalled_count`]), and a
    /// request that reads again has its authentication confirm or refund it.
    pub async fn recall_as_user<R: ReadAsUser>(&self, reads: &R) -> ApiResult<Option<(UserRow, Rc<RealmState>, R::Output, Recall)>> {
        let credentials = self.credentials.as_ref();
        let Some((state, guessed)) = guessed_owner(credentials).filter(|_| reads.remembered()) else { return Ok(None) };
        let mut batch = Batch::new();
        let Ok(pending) = crate::auth::add_authentication(&mut batch, &self.realm_string_id, credentials) else {
            return Ok(None);
        };
        let Ok(slots) = reads.add(&mut batch, &self.db, &guessed, &state) else { return Ok(None) };
        let Some(recalled) = remembered_reads::recall(&batch)? else { return Ok(None) };
        let (realm, authenticated) = crate::auth::check_authentication(&recalled.results, pending);
        let (Some(realm), Ok(me)) = (realm, authenticated) else { return Ok(None) };
        if me != guessed || realm.settings_version != state.version {
            return Ok(None);
        }
        let Ok(output) = reads.take(&recalled.results, slots, &me, &state) else { return Ok(None) };
        if self.rate_limit.borrow().is_none() {
            let early = self.count_early(&me).await;
            let within = matches!(&early.decision, Ok(d) if rate_limits::refuse_over_limit(d.as_ref()).is_ok());
            *self.recalled_count.borrow_mut() = Some(early);
            // Over the limit: refused by the request's own authentication, which may also
            // find that the key no longer authenticates (then the count is refunded).
            if !within {
                return Ok(None);
            }
        }
        self.remember_realm(realm);
        Ok(Some((me, state, output, recalled.recall)))
    }

    /// A write made from recalled answers committed: the count made for their user is this
    /// request's (its `X-RateLimit-*` headers).
    pub fn settle_recalled_count(&self) {
        if let Some(EarlyCount { decision: Ok(decision), .. }) = self.recalled_count.borrow_mut().take() {
            *self.rate_limit.borrow_mut() = decision;
        }
    }

    /// Keeps what this request's [`ReadAsUser::remembered`] reads answered, for the user's
    /// next write of the same reads; the writer calls it when its write left those answers
    /// as they were (else that next write would find them changed and read again).
    pub fn remember_reads(&self) {
        if let Some((key, rows)) = self.reads_to_remember.borrow_mut().take() {
            remembered_reads::remember(key, rows);
        }
    }

    /// `parsed`, reported after authentication's errors: a request that is both
    /// unauthenticated and malformed is told it is unauthenticated.
    pub async fn after_authentication<T>(&self, parsed: ApiResult<T>) -> ApiResult<T> {
        if parsed.is_err() {
            self.user().await?;
        }
        parsed
    }

    /// Runs `authentication` and, when this isolate knows whom the key authenticated as
    /// last, counts the request against that user's rate limit at the same time: the
    /// count is a Durable Object round trip that would otherwise wait for D1's.
    async fn beside_early_count<T>(&self, authentication: impl Future<Output = T>, guess: Option<&UserRow>) -> (T, Option<EarlyCount>) {
        let recalled = self.recalled_count.borrow_mut().take();
        if recalled.is_some() {
            return (authentication.await, recalled);
        }
        match guess.filter(|_| self.rate_limit.borrow().is_none()) {
            Some(user) => {
                let (out, early) = futures_util::future::join(authentication, self.count_early(user)).await;
                (out, Some(early))
            }
            None => (authentication.await, None),
        }
    }

    /// Counts the request against `user`'s rate limit before the credentials are checked;
    /// [`Self::accept`] keeps the count only for the user they authenticate.
    async fn count_early(&self, user: &UserRow) -> EarlyCount {
        let bucket = Bucket::User { realm_id: user.realm_id, user_id: user.id };
        EarlyCount { realm_id: user.realm_id, user_id: user.id, decision: rate_limits::check(&self.env, &bucket, true).await }
    }

    /// Remembers the organization, and counts the request against the user's rate limit
    /// (or, when authentication failed, against the client's address). A count made
    /// before the credentials were checked stands only for the user they authenticate;
    /// any other is taken back, so a key that stopped authenticating uses up nobody's limit.
    async fn accept(&self, realm: Option<RealmRow>, authenticated: ApiResult<UserRow>, early: Option<EarlyCount>) -> ApiResult<UserRow> {
        if let Some(realm) = realm {
            self.remember_realm(realm);
        }
        match authenticated {
            Ok(user) => {
                if self.rate_limit.borrow().is_none() {
                    let decision = match early {
                        Some(early) if early.user_id == user.id && early.realm_id == user.realm_id => early.decision?,
                        other => {
                            self.refund(other).await;
                            rate_limits::check(&self.env, &Bucket::User { realm_id: user.realm_id, user_id: user.id }, true).await?
                        }
                    };
                    rate_limits::refuse_over_limit(decision.as_ref())?;
                    *self.rate_limit.borrow_mut() = decision;
                }
                Ok(user)
            }
            Err(err) => {
                self.refund(early).await;
                if err.status == 401 {
                    self.count_unauthenticated().await?;
                }
                Err(err)
            }
        }
    }

    /// Takes back an early count that turned out not to be this request's user's. A
    /// refund that fails leaves one request too many in that window; the request's own
    /// answer does not depend on it.
    async fn refund(&self, early: Option<EarlyCount>) {
        if let Some(EarlyCount { realm_id, user_id, decision: Ok(decision) }) = early {
            if let Err(err) = rate_limits::refund(&self.env, &Bucket::User { realm_id, user_id }, decision.as_ref()).await {
                worker::console_error!("rate-limit count of user {user_id} not refunded: {}", err.msg);
            }
        }
    }

    /// Counts an unauthenticated request against the client's IP address.
    pub async fn count_unauthenticated(&self) -> ApiResult<()> {
        rate_limits::enforce(&self.env, &Bucket::Ip(&self.client_ip())).await?;
        Ok(())
    }

    /// The user's rate limit as this request left it, if it was counted.
    pub fn rate_limit(&self) -> Option<RateLimitDecision> {
        self.rate_limit.borrow().clone()
    }

    /// The client's address as Cloudflare reports it.
    pub fn client_ip(&self) -> String {
        self.header("CF-Connecting-IP").unwrap_or_else(|| "unknown".into())
    }

    /// The authenticated user, who must be an organization administrator or owner.
    pub async fn admin(&self) -> ApiResult<UserRow> {
        let user = self.user().await?;
        crate::auth::require_admin(&user)?;
        Ok(user)
    }

    /// `host[:port]` of the organization, as the client addressed it.
    pub fn realm_host(&self) -> &str {
        self.base_url.split_once("://").map_or(self.base_url.as_str(), |(_, host)| host)
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers.get(name).ok().flatten()
    }

    /// The sending client's name, as Zulip derives it from the User-Agent
    /// (`ZulipPython/0.9.0 (...)` -> `ZulipPython`).
    pub fn client_name(&self) -> String {
        if let Ok(Some(name)) = self.params.str("client") {
            return name;
        }
        let agent = self.header("User-Agent").unwrap_or_default();
        let name = agent.split(['/', ' ']).next().unwrap_or("").trim();
        if name.is_empty() {
            "API".to_string()
        } else {
            name.to_string()
        }
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

/// The distinct field names of a multipart body (workers-rs has no iterator over them).
fn form_field_names(form: worker::FormData) -> (worker::FormData, Vec<String>) {
    use wasm_bindgen::{JsCast, JsValue};
    let mut names = Vec::new();
    let raw: web_sys::FormData = JsValue::from(form).unchecked_into();
    let iter = js_sys::try_iter(&raw.keys()).ok().flatten();
    if let Some(iter) = iter {
        for key in iter.flatten() {
            if let Some(name) = key.as_string() {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    (worker::FormData::from(JsValue::from(raw)), names)
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
