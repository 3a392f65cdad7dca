//! Talking to the push relay as a Zulip server talks to Zulip's push bouncer: every request
//! authenticates as this server (`ZULIP_ORG_ID` and the secret `ZULIP_ORG_KEY`, HTTP Basic),
//! and names an organization by its UUID (`realms.uuid`). The relay refuses a server it
//! does not know (`INVALID_ZULIP_SERVER`) and an organization it has not been told of
//! (`MISSING_REMOTE_REALM`); either answer makes this server register itself
//! (`remotes/server/register`) or upload its organizations (`remotes/server/analytics`,
//! every organization of every database, as Zulip uploads them) and try once more. So the
//! relay learns of a new organization at its first notification or device, and of a
//! renamed or deactivated one when an owner changes it ([`sync_organizations`]).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use worker::{Env, Fetch, Headers, Method, Request, RequestInit};

use crate::db::{realm_directory, realms};
use crate::error::{ApiError, ApiResult};
use crate::settings::{PushRelay, Settings, ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION};

/// Attempts per relay request (network errors and 5xx answers are retried).
const RELAY_ATTEMPTS: usize = 3;
/// Pause before the second attempt; the third waits twice as long.
const RETRY_PAUSE_MS: u64 = 200;

/// The relay's answer: HTTP status and JSON body.
pub struct RelayAnswer {
    pub status: u16,
    pub body: Value,
}

impl RelayAnswer {
    fn code(&self) -> Option<&str> {
        self.body.get("code").and_then(Value::as_str)
    }
}

/// How a request's body is encoded: the push endpoints take JSON, the server's own
/// registration and uploads take a form, as Zulip sends them.
enum Body<'a> {
    Json(&'a Value),
    Form(&'a [(&'a str, String)]),
}

async fn post_once(relay: &PushRelay, path: &str, body: &Body<'_>) -> worker::Result<RelayAnswer> {
    let headers = Headers::new();
    headers.set("Authorization", &format!("Basic {}", STANDARD.encode(format!("{}:{}", relay.org_id, relay.org_key))))?;
    headers.set("User-Agent", &format!("ZulipServer/{ZULIP_VERSION}"))?;
    let text = match body {
        Body::Json(value) => {
            headers.set("Content-Type", "application/json")?;
            value.to_string()
        }
        Body::Form(fields) => {
            headers.set("Content-Type", "application/x-www-form-urlencoded")?;
            form_urlencoded::Serializer::new(String::new()).extend_pairs(fields.iter().map(|(k, v)| (*k, v.as_str()))).finish()
        }
    };
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_headers(headers).with_body(Some(text.into()));
    let req = Request::new_with_init(&format!("{}/api/v1/{}", relay.url, path), &init)?;
    let mut resp = Fetch::Request(req).send().await?;
    let status = resp.status_code();
    let body = resp.json::<Value>().await.unwrap_or(Value::Null);
    Ok(RelayAnswer { status, body })
}

/// POSTs to the relay, retrying network errors and 5xx answers after a short, growing pause.
async fn post_with_retries(relay: &PushRelay, path: &str, body: &Body<'_>) -> ApiResult<RelayAnswer> {
    for attempt in 1..=RELAY_ATTEMPTS {
        if attempt > 1 {
            worker::Delay::from(std::time::Duration::from_millis(RETRY_PAUSE_MS * (attempt as u64 - 1))).await;
        }
        match post_once(relay, path, body).await {
            Ok(answer) if answer.status < 500 => return Ok(answer),
            Ok(answer) => worker::console_warn!("push relay {path}: HTTP {} (attempt {attempt})", answer.status),
            Err(err) => worker::console_warn!("push relay {path}: {err} (attempt {attempt})"),
        }
    }
    Err(ApiError::push_relay_unavailable())
}

/// POSTs `body` (JSON) to the relay's `path`; when the relay does not know this server or
/// the organization, registers what it lacks and tries once more.
pub async fn relay_post(env: &Env, relay: &PushRelay, path: &str, body: &Value) -> ApiResult<RelayAnswer> {
    let answer = post_with_retries(relay, path, &Body::Json(body)).await?;
    let retry = match answer.code() {
        Some("INVALID_ZULIP_SERVER") => {
            register_server(env, relay).await?;
            sync_organizations(env, relay).await?;
            true
        }
        Some("MISSING_REMOTE_REALM") => {
            sync_organizations(env, relay).await?;
            true
        }
        _ => false,
    };
    if retry {
        return post_with_retries(relay, path, &Body::Json(body)).await;
    }
    Ok(answer)
}

/// Registers this server with the relay (Zulip's `manage.py register_server`): its id and
/// key, the host its organizations live under, and whom to contact.
async fn register_server(env: &Env, relay: &PushRelay) -> ApiResult<()> {
    let settings = Settings::from_env(env);
    let fields = [
        ("zulip_org_id", relay.org_id.clone()),
        ("zulip_org_key", relay.org_key.clone()),
        ("hostname", settings.root_domain.clone()),
        ("contact_email", settings.administrator_email()),
    ];
    let answer = post_with_retries(relay, "remotes/server/register", &Body::Form(&fields)).await?;
    if answer.status != 200 {
        return Err(refused("server/register", &answer));
    }
    Ok(())
}

/// Tells the relay of every organization of this server (new, renamed or deactivated
/// ones included), as Zulip's periodic upload does; no usage counts are sent.
pub async fn sync_organizations(env: &Env, relay: &PushRelay) -> ApiResult<()> {
    let settings = Settings::from_env(env);
    let directory = crate::platform::directory::database(env, crate::platform::directory::DIRECTORY_DATABASE)?;
    let mut bindings = realm_directory::databases(&directory).await?;
    for listed in crate::platform::directory::listed_databases(env) {
        if !bindings.contains(&listed) {
            bindings.push(listed);
        }
    }
    let mut organizations = Vec::new();
    for binding in bindings {
        let db = crate::platform::directory::database(env, &binding)?;
        organizations.extend(realms::all_for_relay(&db).await?.into_iter().map(|r| organization_dict(&settings, r)));
    }
    let fields = [
        ("realm_counts", "[]".to_string()),
        ("installation_counts", "[]".to_string()),
        ("realmauditlog_rows", "[]".to_string()),
        ("realms", Value::from(organizations).to_string()),
        ("version", json!(ZULIP_VERSION).to_string()),
        ("merge_base", json!(ZULIP_MERGE_BASE).to_string()),
        ("api_feature_level", ZULIP_FEATURE_LEVEL.to_string()),
    ];
    let answer = post_with_retries(relay, "remotes/server/analytics", &Body::Form(&fields)).await?;
    if answer.status != 200 {
        return Err(refused("server/analytics", &answer));
    }
    Ok(())
}

/// After the response, when push is on: tells the relay of the organizations as they are
/// now (one was created, renamed, deactivated or reactivated). A failure is logged; the
/// relay asks again at the next notification (`MISSING_REMOTE_REALM`).
pub fn announce_organizations(ctx: &crate::context::RequestContext) {
    let Some(relay) = ctx.settings.push_relay.clone() else { return };
    let env = ctx.env.clone();
    ctx.defer(async move {
        // A relay that does not know this server yet refuses the upload: register, then again.
        let synced = match sync_organizations(&env, &relay).await {
            Ok(()) => Ok(()),
            Err(_) => match register_server(&env, &relay).await {
                Ok(()) => sync_organizations(&env, &relay).await,
                Err(err) => Err(err),
            },
        };
        if let Err(err) = synced {
            worker::console_error!("push relay not told of the organizations: {}", err.msg);
        }
    });
}

/// One organization as Zulip describes it to the bouncer.
fn organization_dict(settings: &Settings, realm: realms::RelayRealmRow) -> Value {
    let host = settings.organization_host(&realm.string_id);
    json!({
        "id": realm.id,
        "uuid": realm.uuid,
        "uuid_owner_secret": realm.uuid_owner_secret,
        "host": host,
        "url": format!("{}://{host}", if crate::settings::is_local_host(&host) { "http" } else { "https" }),
        "name": realm.name,
        "org_type": 0,
        "date_created": realm.date_created as f64,
        "deactivated": realm.deactivated != 0,
        "is_system_bot_realm": false,
        "authentication_methods": {"Email": true, "Dev": settings.development, "JWT": false},
    })
}

fn refused(what: &str, answer: &RelayAnswer) -> ApiError {
    ApiError::internal(format!("push relay refused {what}: HTTP {} {}", answer.status, answer.body))
}
