//! What an isolate keeps about each organization between requests: its settings (the
//! `realms` row, group-valued settings resolved), its linkifiers and its users' alert
//! words. They change rarely and are read by most message requests.
//!
//! Never stale: a cached copy is used only under the version it was read at.
//! - `realms.settings_version` is bumped by triggers (migrations 0017 and 0018) on every
//!   update of the organization's row and every change to its linkifiers or alert words,
//!   in the same statement as the change: no action can forget it.
//! - Every authenticated request reads the current version in its authentication batch
//!   (the organization's row comes with the key's owner), so the check costs no round trip.
//! - The settings, linkifiers and alert words are read in one batch, with the version in the settings
//!   row itself, and stored under that version; a request whose version differs reads them
//!   again (in its own first batch where the endpoint allows).
//!
//! So a request that starts after a settings change committed sees the new version and
//! never the old values; requests without a known version (no authentication, deferred
//! work) always read them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use worker::D1Database;

use crate::db::alert_words::{self, UserWordRow};
use crate::db::batch::{Batch, BatchResults, Slot};
use crate::db::linkifiers::{self, LinkifierRow};
use crate::db::realm_settings::{self, RealmSettingsRow};
use crate::error::{ApiError, ApiResult};
use crate::markdown::Linkifier;

/// An organization's settings, linkifiers and alert words as of one version.
pub struct RealmState {
    pub version: i64,
    pub settings: RealmSettingsRow,
    pub linkifiers: Vec<Linkifier>,
    /// Every alert word of the organization with its user: (user id, word).
    pub alert_words: Vec<(i64, String)>,
}

thread_local! {
    static STATES: RefCell<HashMap<i64, Rc<RealmState>>> = RefCell::new(HashMap::new());
}

/// The cached state of `realm_id` if it was read at `version`.
pub fn cached(realm_id: i64, version: i64) -> Option<Rc<RealmState>> {
    STATES.with(|states| states.borrow().get(&realm_id).filter(|s| s.version == version).cloned())
}

fn remember(state: RealmState) -> Rc<RealmState> {
    let state = Rc::new(state);
    STATES.with(|states| states.borrow_mut().insert(state.settings.realm_id, state.clone()));
    state
}

/// The state, either known already or read by a batch the caller runs.
pub enum StateSlot {
    Cached(Rc<RealmState>),
    Loading { settings: Slot<RealmSettingsRow>, linkifiers: Slot<LinkifierRow>, alert_words: Slot<UserWordRow> },
}

/// The cached state when `version` is current, else its three statements added to `batch`.
pub fn cached_or_add(batch: &mut Batch, realm_id: i64, version: Option<i64>) -> worker::Result<StateSlot> {
    if let Some(state) = version.and_then(|v| cached(realm_id, v)) {
        return Ok(StateSlot::Cached(state));
    }
    Ok(StateSlot::Loading {
        settings: batch.add(realm_settings::by_realm_id_stmt(realm_id)?),
        linkifiers: batch.add(linkifiers::in_realm_stmt(realm_id)?),
        alert_words: batch.add(alert_words::in_realm_stmt(realm_id)?),
    })
}

impl StateSlot {
    /// The state, from the cache or from `results` (then cached under the version read).
    pub fn take(self, results: &BatchResults) -> ApiResult<Rc<RealmState>> {
        match self {
            StateSlot::Cached(state) => Ok(state),
            StateSlot::Loading { settings, linkifiers, alert_words } => {
                let settings = results.first(settings)?.ok_or_else(|| ApiError::internal("organization has no settings row"))?;
                let linkifiers = crate::domain::linkifiers::for_rendering(&results.rows(linkifiers)?);
                let alert_words = results.rows(alert_words)?.into_iter().map(|w| (w.user_id, w.word)).collect();
                Ok(remember(RealmState { version: settings.settings_version, settings, linkifiers, alert_words }))
            }
        }
    }
}

/// The cached state whatever its version, for a batch built before the current version is
/// known (`RequestContext::read_as_user`, which checks the version after the batch ran).
pub fn any_cached(realm_id: i64) -> Option<Rc<RealmState>> {
    STATES.with(|states| states.borrow().get(&realm_id).cloned())
}

/// The state of `realm_id`: cached when `version` is current, else one round trip.
pub async fn load(db: &D1Database, realm_id: i64, version: Option<i64>) -> ApiResult<Rc<RealmState>> {
    let mut batch = Batch::new();
    let slot = cached_or_add(&mut batch, realm_id, version)?;
    let results = batch.run(db).await?;
    slot.take(&results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(realm_id: i64, version: i64) -> RealmState {
        let settings = RealmSettingsRow {
            message_content_edit_limit_seconds: None,
            settings_version: version,
            ..RealmSettingsRow::for_tests(realm_id)
        };
        RealmState { version, settings, linkifiers: Vec::new(), alert_words: Vec::new() }
    }

    #[test]
    fn a_copy_is_served_only_at_the_version_it_was_read_at() {
        remember(state(7001, 4));
        assert_eq!(cached(7001, 4).map(|s| s.version), Some(4));
        assert!(cached(7001, 5).is_none(), "a newer version must be read again");
        assert!(cached(7001, 3).is_none());
        assert!(cached(7002, 4).is_none(), "another organization's copy");
        remember(state(7001, 5));
        assert!(cached(7001, 4).is_none(), "the older copy is replaced");
    }
}
