//! `GET/POST /realm/domains`, `PATCH/DELETE /realm/domains/{domain}`: the domains an
//! organization with `emails_restricted_to_domains` lets join.

use serde_json::{json, Value};

use crate::actions::realm_domains::{check_add_realm_domain, check_change_realm_domain, check_remove_realm_domain};
use crate::auth::Administrator;
use crate::context::RequestContext;
use crate::domain::invites::realm_domain_dict;
use crate::error::ApiResult;
use crate::response::Reply;

/// # `GET /realm/domains`
/// Any user: `domains`, each `domain` and `allow_subdomains`.
pub async fn list_realm_domains(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user().await?;
    let rows = crate::db::invites::realm_domains(&ctx.db, me.realm_id).await?;
    let domains: Vec<Value> = rows.iter().map(realm_domain_dict).collect();
    Ok(Reply::json(json!({ "domains": domains })))
}

/// # `POST /realm/domains`
/// Administrators: `domain` (required), `allow_subdomains` (default false).
pub async fn add_realm_domain(ctx: &RequestContext) -> ApiResult<Reply> {
    let me = ctx.user_as::<Administrator>().await?;
    let domain = ctx.params.required_str("domain")?;
    let allow = ctx.params.bool_or("allow_subdomains", false)?;
    check_add_realm_domain(&ctx.db, &ctx.env, &me, &domain, allow).await?;
    Ok(Reply::ok())
}

/// # `PATCH /realm/domains/{domain}`
/// Administrators: `allow_subdomains` (required).
pub async fn update_realm_domain(ctx: &RequestContext, domain: &str) -> ApiResult<Reply> {
    let me = ctx.user_as::<Administrator>().await?;
    let allow = ctx.params.required_bool("allow_subdomains")?;
    check_change_realm_domain(&ctx.db, &ctx.env, &me, domain, allow).await?;
    Ok(Reply::ok())
}

/// # `DELETE /realm/domains/{domain}`
/// Administrators.
pub async fn remove_realm_domain(ctx: &RequestContext, domain: &str) -> ApiResult<Reply> {
    let me = ctx.user_as::<Administrator>().await?;
    check_remove_realm_domain(&ctx.db, &ctx.env, &me, domain).await?;
    Ok(Reply::ok())
}
