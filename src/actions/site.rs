//! Where an action runs: the organization's database binding and addresses, the server's
//! settings, and the request's runtime context when there is one (work that follows a
//! request, such as a message's follow-up, then runs after its response).

use std::rc::Rc;

use worker::{D1Database, Env};

use crate::context::RequestContext;
use crate::error::ApiResult;
use crate::settings::Settings;

#[derive(Clone)]
pub struct Site {
    pub env: Env,
    pub settings: Rc<Settings>,
    /// The organization's database binding (`DB`, `DB_2`, ...).
    pub database: String,
    /// `host[:port]` of the organization.
    pub realm_host: String,
    /// `scheme://host[:port]`, which links in messages and emails start with.
    pub realm_url: String,
    after_response: Option<Rc<worker::Context>>,
}

impl Site {
    /// The site a request addressed.
    pub fn of_request(ctx: &RequestContext) -> Site {
        Site {
            env: ctx.env.clone(),
            settings: ctx.settings.clone(),
            database: ctx.database.clone(),
            realm_host: ctx.realm_host.clone(),
            realm_url: ctx.base_url.clone(),
            after_response: ctx.worker.clone(),
        }
    }

    /// The site of an organization's host, outside a request (served over HTTPS but in
    /// development).
    pub fn of_host(env: &Env, database: &str, realm_host: &str) -> Site {
        let settings = Settings::from_env(env);
        let scheme = if settings.development { "http" } else { "https" };
        Site {
            env: env.clone(),
            settings,
            database: database.to_string(),
            realm_host: realm_host.to_string(),
            realm_url: format!("{scheme}://{realm_host}"),
            after_response: None,
        }
    }

    /// The organization's database.
    pub fn db(&self) -> ApiResult<D1Database> {
        crate::platform::directory::database(&self.env, &self.database)
    }

    /// A request's runtime context, for work that runs after its response.
    pub fn after_response(&self) -> Option<Rc<worker::Context>> {
        self.after_response.clone()
    }
}
