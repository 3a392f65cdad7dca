//! The domains an organization restricts sign-up to (Zulip's `zerver/actions/realm_domains.py`),
//! each change told to everyone with a `realm_domains` event.

use serde_json::json;
use worker::{D1Database, Env};

use crate::db::invites;
use crate::db::users::UserRow;
use crate::domain::invites::check_domain;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{Event, RealmDomainsEvent};

pub async fn check_add_realm_domain(db: &D1Database, env: &Env, admin: &UserRow, raw: &str, allow_subdomains: bool) -> ApiResult<()> {
    let domain = check_domain(raw)?;
    if !invites::add_realm_domain(db, admin.realm_id, &domain, allow_subdomains).await? {
        return Err(ApiError::bad_request(format!("The domain {domain} is already a part of your organization.")));
    }
    let event = RealmDomainsEvent::Add { realm_domain: json!({ "domain": domain, "allow_subdomains": allow_subdomains }) };
    crate::actions::notify_realm(env, admin.realm_id, &Event::RealmDomains(event)).await;
    Ok(())
}

pub async fn check_change_realm_domain(db: &D1Database, env: &Env, admin: &UserRow, raw: &str, allow_subdomains: bool) -> ApiResult<()> {
    let domain = raw.trim().to_ascii_lowercase();
    if !invites::remove_realm_domain(db, admin.realm_id, &domain).await? {
        return Err(ApiError::bad_request(format!("No entry found for domain {domain}.")));
    }
    invites::add_realm_domain(db, admin.realm_id, &domain, allow_subdomains).await?;
    let event = RealmDomainsEvent::Change { realm_domain: json!({ "domain": domain, "allow_subdomains": allow_subdomains }) };
    crate::actions::notify_realm(env, admin.realm_id, &Event::RealmDomains(event)).await;
    Ok(())
}

pub async fn check_remove_realm_domain(db: &D1Database, env: &Env, admin: &UserRow, raw: &str) -> ApiResult<()> {
    let domain = raw.trim().to_ascii_lowercase();
    if !invites::remove_realm_domain(db, admin.realm_id, &domain).await? {
        return Err(ApiError::bad_request(format!("No entry found for domain {domain}.")));
    }
    crate::actions::notify_realm(env, admin.realm_id, &Event::RealmDomains(RealmDomainsEvent::Remove { domain })).await;
    Ok(())
}
