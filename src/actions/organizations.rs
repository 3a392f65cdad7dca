//! Creating an organization with its owner: the server operator's way to a working
//! organization in production (the development seed makes its own from the same
//! statements, `db::organizations`).

use worker::Env;

use crate::actions::users::is_valid_email;
use crate::db::organizations::{self, FirstChannel, FirstUser};
use crate::db::{self, realms, users};
use crate::domain::organizations::{check_realm_name, check_subdomain};
use crate::domain::users::check_full_name;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::model::Role;
use crate::platform::directory;
use crate::secrets;

/// What the operator asks for.
pub struct NewOrganization<'a> {
    pub string_id: &'a str,
    pub name: &'a str,
    pub owner_email: &'a str,
    pub owner_full_name: &'a str,
}

/// What the operator hands to the owner.
pub struct CreatedOrganization {
    pub realm_id: i64,
    pub owner_id: i64,
    /// A random first password: shown once, stored only as its hash.
    pub owner_password: String,
}

/// The channel every new organization starts with, its owner subscribed.
const FIRST_CHANNEL: &str = "general";
const FIRST_CHANNEL_DESCRIPTION: &str = "Everyone is added to this channel by default.";

/// Checks the names, places the organization in a database (the directory records it),
/// then creates the organization, its system groups, its owner and its first channel there
/// in one atomic batch.
pub async fn check_create_organization(env: &Env, new: &NewOrganization<'_>) -> ApiResult<CreatedOrganization> {
    check_subdomain(new.string_id)?;
    let name = check_realm_name(new.name)?;
    let full_name = check_full_name(new.owner_full_name)?;
    if !is_valid_email(new.owner_email) {
        return Err(ApiError::bad_request(format!("Invalid email '{}'", new.owner_email)));
    }
    // A subdomain the directory knows keeps its database; one whose organization is
    // missing there (a creation that failed half-way) may be created again.
    let placement = directory::place(env, new.string_id, None).await?;
    let db = &directory::database(env, &placement.database)?;
    if realms::by_string_id(db, new.string_id).await?.is_some() {
        return Err(subdomain_in_use());
    }
    let owner_password = secrets::random_alphanumeric(24);
    let password_hash = secrets::hash_password(&owner_password).await?;
    let owner = FirstUser {
        email: new.owner_email,
        full_name: &full_name,
        role: Role::Owner,
        password_hash: &password_hash,
        can_create_users: true,
    };
    let general = FirstChannel {
        name: FIRST_CHANNEL,
        description: FIRST_CHANNEL_DESCRIPTION,
        invite_only: false,
        color: "#76ce90",
        subscribers: &[new.owner_email],
    };
    let mut batch = organizations::create_stmts(placement.realm_id, new.string_id, &name, &[owner], &[general], db::now())?;
    // Zulip announces new channels and new people in the first channel.
    batch.push(realms::set_announcement_channels_stmt(new.string_id, FIRST_CHANNEL)?);
    db::run_batch(db, batch).await?;

    // The statements are idempotent: if another request created the same subdomain in
    // between, the owner row is not ours (its password hash differs).
    let realm = realms::by_string_id(db, new.string_id).await?.ok_or_else(|| ApiError::internal("created organization is missing"))?;
    let owner = users::by_email(db, realm.id, new.owner_email).await?.ok_or_else(subdomain_in_use)?;
    if users::password_hash(db, RealmId(realm.id), UserId(owner.id)).await?.as_deref() != Some(password_hash.as_str()) {
        return Err(subdomain_in_use());
    }
    Ok(CreatedOrganization { realm_id: realm.id, owner_id: owner.id, owner_password })
}

/// Deactivates or reactivates the organization `string_id`. A deactivated organization
/// keeps its data; every request to it, logins included, answers `REALM_DEACTIVATED`
/// (clients take that as "signed out for good"). Unknown: "No such organization".
pub async fn do_set_organization_deactivated(env: &Env, string_id: &str, deactivated: bool) -> ApiResult<()> {
    let db = &directory::database(env, &directory::resolve(env, string_id).await?)?;
    #[derive(serde::Deserialize)]
    struct Updated {
        #[allow(dead_code)]
        id: i64,
    }
    let updated: Option<Updated> = db::first(db, realms::set_deactivated_stmt(string_id, deactivated)?).await?;
    updated.map(|_| ()).ok_or_else(|| ApiError::bad_request("No such organization"))
}

fn subdomain_in_use() -> ApiError {
    ApiError::bad_request("Subdomain already in use. Please choose a different one.")
}
