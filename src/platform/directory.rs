//! The directory: which D1 database holds each organization.
//!
//! Organizations are spread over several D1 databases (bindings `DB`, `DB_2`, ...; every one
//! has the full schema from the same `migrations/`). An organization's rows all live in one
//! database, so every query of a request stays inside one database and keeps its batches
//! atomic; nothing joins across organizations.
//!
//! Where the directory lives: the `realm_directory` table of the first database (`DB`).
//! - A table, not a Worker variable: creating an organization must record its placement
//!   at once, and a deployment cannot rewrite its own variables.
//! - The first database, because every deployment has it (a deployment with only `DB`
//!   places everything there and is the one-database server it always was).
//! - The directory also hands out realm ids (its `AUTOINCREMENT`), so they stay unique
//!   across databases: they name the Durable Objects (`RealmHub`, shards,
//!   `MessageScheduler`, rate limits) and the R2 upload paths.
//!
//! Every other id is unique server-wide too, as in Zulip (a user id of one organization is
//! never a user of another; API keys are derived from user ids): binding `DB_<n>` hands out
//! ids from `(n - 1) * 10^12` (`db::id_floors`, set before an organization is created
//! there), `DB` from 1. Bindings are therefore named `DB`, `DB_2`, `DB_3`, ...; ids stay
//! below 2^53, which JavaScript clients read exactly, for thousands of databases.
//!
//! Resolving costs no D1 round trip on the hot path: a placement never changes once made,
//! so each isolate keeps the placements it has read, and a cached one can never be stale.
//! Only the first request of an organization in an isolate reads the directory. A
//! subdomain the directory does not know is not cached (it may be created later); it
//! resolves to `DB`, where a request then finds no organization (`NONEXISTENT_SUBDOMAIN`).
//!
//! New organizations go to the database with the fewest organizations among those listed
//! in the Worker variable `D1_DATABASES` (bindings separated by spaces or commas, default
//! `DB`); removing a database from the list stops new placements there and moves nothing.

use std::cell::RefCell;
use std::collections::HashMap;

use worker::{D1Database, Env};

use crate::db::realm_directory;
use crate::error::{ApiError, ApiResult};

/// The binding of the first database, which holds the directory.
pub const DIRECTORY_DATABASE: &str = "DB";

/// Ids per database: `DB_<n>` starts at `(n - 1) * ID_RANGE`.
pub const ID_RANGE: i64 = 1_000_000_000_000;

/// Where an organization lives: its D1 binding and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub database: String,
    pub realm_id: i64,
}

thread_local! {
    /// Placements read in this isolate, by `string_id`; never stale (placements never change).
    static PLACEMENTS: RefCell<HashMap<String, Placement>> = RefCell::new(HashMap::new());
}

fn cached(string_id: &str) -> Option<Placement> {
    PLACEMENTS.with(|p| p.borrow().get(string_id).cloned())
}

fn remember(string_id: &str, placement: &Placement) {
    PLACEMENTS.with(|p| p.borrow_mut().insert(string_id.to_string(), placement.clone()));
}

/// The D1 database behind a binding.
pub fn database(env: &Env, binding: &str) -> ApiResult<D1Database> {
    env.d1(binding).map_err(|_| ApiError::internal(format!("no D1 binding {binding}")))
}

/// The binding of the database holding `string_id`: from the isolate's cache, else one read
/// of the directory. Unknown organizations resolve to the first database.
pub async fn resolve(env: &Env, string_id: &str) -> ApiResult<String> {
    if let Some(placement) = cached(string_id) {
        return Ok(placement.database);
    }
    let directory = database(env, DIRECTORY_DATABASE)?;
    match realm_directory::by_string_id(&directory, string_id).await? {
        Some(row) => {
            let placement = Placement { database: row.database, realm_id: row.realm_id };
            remember(string_id, &placement);
            Ok(placement.database)
        }
        None => Ok(DIRECTORY_DATABASE.to_string()),
    }
}

/// Places a new organization: in `database` if given, else in the listed database with the
/// fewest organizations. Answers the recorded placement, which is the earlier one when the
/// organization was placed before (so a retried or concurrent creation lands in one place).
pub async fn place(env: &Env, string_id: &str, database: Option<&str>) -> ApiResult<Placement> {
    let directory = self::database(env, DIRECTORY_DATABASE)?;
    let chosen = match database {
        Some(binding) => binding.to_string(),
        None => {
            let counts = realm_directory::counts(&directory).await?;
            let counts: Vec<(String, i64)> = counts.into_iter().map(|c| (c.database, c.organizations)).collect();
            least_loaded(&listed_databases(env), &counts)
        }
    };
    // A misconfigured list fails here, before anything is recorded.
    if first_id(&chosen).is_none() {
        return Err(ApiError::internal(format!("D1 binding {chosen} is not named DB or DB_<n>")));
    }
    self::database(env, &chosen)?;
    let row = realm_directory::place(&directory, string_id, &chosen)
        .await?
        .ok_or_else(|| ApiError::internal("directory did not record the organization"))?;
    if let Some(first_id) = first_id(&row.database).filter(|id| *id > 0) {
        set_id_floor(&self::database(env, &row.database)?, first_id).await?;
    }
    let placement = Placement { database: row.database, realm_id: row.realm_id };
    remember(string_id, &placement);
    Ok(placement)
}

/// The first id a database hands out: 0 (none set) for `DB`, `(n - 1) * ID_RANGE` for
/// `DB_<n>`; none for other names.
pub fn first_id(binding: &str) -> Option<i64> {
    if binding == DIRECTORY_DATABASE {
        return Some(0);
    }
    let n: i64 = binding.strip_prefix("DB_")?.parse().ok().filter(|n| (2..=9000).contains(n))?;
    Some((n - 1) * ID_RANGE)
}

/// Sets the database's id floor (idempotent; one batch, and one for the sequences). A
/// database that refuses writes to `sqlite_sequence` keeps overlapping `AUTOINCREMENT` ids
/// (groups, drafts, attachments, ...), which every query scopes by organization anyway.
async fn set_id_floor(db: &D1Database, first_id: i64) -> ApiResult<()> {
    crate::db::run_batch(db, crate::db::id_floors::floor_rows_stmts(first_id)?).await?;
    if let Err(err) = crate::db::run_batch(db, crate::db::id_floors::sequences_stmts(first_id)?).await {
        worker::console_error!("AUTOINCREMENT floors not set: {err}");
    }
    Ok(())
}

/// The bindings listed in `D1_DATABASES`, in order; `DB` alone when unset.
pub fn listed_databases(env: &Env) -> Vec<String> {
    parse_database_list(crate::settings::var(env, "D1_DATABASES").as_deref())
}

/// `"DB, DB_2"` -> `["DB", "DB_2"]`; empty or unset -> `["DB"]`.
pub fn parse_database_list(list: Option<&str>) -> Vec<String> {
    let bindings: Vec<String> = list.unwrap_or("").split([',', ' ']).map(str::trim).filter(|b| !b.is_empty()).map(str::to_string).collect();
    if bindings.is_empty() {
        vec![DIRECTORY_DATABASE.to_string()]
    } else {
        bindings
    }
}

/// The listed database with the fewest organizations; the earlier one on a tie.
pub fn least_loaded(listed: &[String], counts: &[(String, i64)]) -> String {
    let count_of = |binding: &str| counts.iter().find(|(b, _)| b == binding).map_or(0, |(_, n)| *n);
    listed.iter().min_by_key(|b| count_of(b)).cloned().unwrap_or_else(|| DIRECTORY_DATABASE.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_list_means_the_first_database_alone() {
        assert_eq!(parse_database_list(None), vec!["DB"]);
        assert_eq!(parse_database_list(Some(" ")), vec!["DB"]);
        assert_eq!(parse_database_list(Some("DB, DB_2")), vec!["DB", "DB_2"]);
        assert_eq!(parse_database_list(Some("DB DB_2")), vec!["DB", "DB_2"]);
    }

    #[test]
    fn each_database_hands_out_its_own_id_range() {
        assert_eq!(first_id("DB"), Some(0));
        assert_eq!(first_id("DB_2"), Some(ID_RANGE));
        assert_eq!(first_id("DB_3"), Some(2 * ID_RANGE));
        assert!(first_id("DB_9000").unwrap() < 1 << 53);
        for bad in ["DB_1", "DB_0", "DB_x", "OTHER", "DB_9001"] {
            assert_eq!(first_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn new_organizations_go_to_the_least_loaded_listed_database() {
        let listed = vec!["DB".to_string(), "DB_2".to_string()];
        assert_eq!(least_loaded(&listed, &[]), "DB");
        assert_eq!(least_loaded(&listed, &[("DB".into(), 2), ("DB_2".into(), 1)]), "DB_2");
        assert_eq!(least_loaded(&listed, &[("DB".into(), 1), ("DB_2".into(), 1)]), "DB");
        // A database no longer listed takes no new organizations, however empty.
        assert_eq!(least_loaded(&["DB_2".to_string()], &[("DB_2".into(), 5)]), "DB_2");
    }
}
