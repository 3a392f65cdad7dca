//! `realms`: organizations.

use super::statement::{statement, Statement};
use serde::Deserialize;
use worker::{D1Database, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct RealmRow {
    pub id: i64,
    pub string_id: String,
    pub name: String,
    pub description: String,
    pub deactivated: i64,
    pub date_created: i64,
    /// Bumped by every change to the row or the linkifiers (`crate::platform::realm_cache`).
    pub settings_version: i64,
    /// What the push relay knows the organization by (migration 0021).
    pub uuid: String,
    /// The uploaded icon's file name, none for Gravatar's identicon, and its version
    /// (migration 0036; `domain::realm_icon`).
    pub icon_file: Option<String>,
    pub icon_version: i64,
    /// The uploaded day and night logos, none for the default logo, and their versions.
    pub logo_file: Option<String>,
    pub logo_version: i64,
    pub night_logo_file: Option<String>,
    pub night_logo_version: i64,
}

/// The columns of [`RealmRow`].
pub const SELECT: &str = "SELECT id, string_id, name, description, deactivated, date_created, settings_version, uuid, \
                          icon_file, icon_version, logo_file, logo_version, night_logo_file, night_logo_version FROM realms";

pub fn by_string_id_stmt(string_id: &str) -> Result<Statement> {
    statement!(&format!("{SELECT} WHERE string_id = ?1"), string_id)
}

pub async fn by_string_id(db: &D1Database, string_id: &str) -> Result<Option<RealmRow>> {
    super::first(db, by_string_id_stmt(string_id)?).await
}

/// The organization's row, under the id the directory gave it (unique across databases).
pub fn insert_stmt(realm_id: i64, string_id: &str, name: &str, now: i64) -> Result<Statement> {
    statement!(
        "INSERT INTO realms (id, string_id, name, date_created) VALUES (?4, ?1, ?2, ?3) ON CONFLICT DO NOTHING",
        string_id,
        name,
        now,
        realm_id
    )
}

/// Points the organization's three announcement channels at its channel `channel_name`
/// (as Zulip does for a new organization's first channel).
pub fn set_announcement_channels_stmt(string_id: &str, channel_name: &str) -> Result<Statement> {
    statement!(
        "UPDATE realms SET new_stream_announcements_stream_id = c.id, signup_announcements_stream_id = c.id, \
         zulip_update_announcements_stream_id = c.id FROM channels c \
         WHERE realms.string_id = ?1 AND c.realm_id = realms.id AND c.name = ?2",
        string_id,
        channel_name
    )
}

/// Deactivates (1) or reactivates (0) an organization; answers its id, none if unknown.
pub fn set_deactivated_stmt(string_id: &str, deactivated: bool) -> Result<Statement> {
    statement!(
        "UPDATE realms SET deactivated = ?2 WHERE string_id = ?1 \
         AND (?2 = 1 OR id NOT IN (SELECT realm_id FROM realm_imports)) RETURNING id",
        string_id,
        deactivated as i64
    )
}

pub async fn by_id(db: &D1Database, realm_id: i64) -> Result<Option<RealmRow>> {
    super::first(db, statement!(&format!("{SELECT} WHERE id = ?1"), realm_id)?).await
}

/// What the push relay is told of an organization (Zulip's realm data for the bouncer).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct RelayRealmRow {
    pub id: i64,
    pub string_id: String,
    pub name: String,
    pub deactivated: i64,
    pub date_created: i64,
    pub uuid: String,
    pub uuid_owner_secret: String,
}

/// Every organization of one database, for the push relay.
pub async fn all_for_relay(db: &D1Database) -> Result<Vec<RelayRealmRow>> {
    super::all(
        db,
        Statement::new(
            "SELECT id, string_id, name, deactivated, date_created, uuid, uuid_owner_secret FROM realms ORDER BY id",
            Vec::new(),
        ),
    )
    .await
}

/// The organization's image files as they are before a change: read in the change's batch,
/// so the file a change replaces is exactly the one it finds.
#[derive(Debug, Clone, Deserialize)]
pub struct RealmImagesRow {
    pub icon_file: Option<String>,
    pub logo_file: Option<String>,
    pub night_logo_file: Option<String>,
}

pub fn images_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT icon_file, logo_file, night_logo_file FROM realms WHERE id = ?1", realm_id)
}

/// Sets the uploaded icon (`Some`) or Gravatar's (`None`) and bumps `icon_version`.
pub fn set_icon_file_stmt(realm_id: i64, file: Option<&str>) -> Result<Statement> {
    statement!("UPDATE realms SET icon_file = ?2, icon_version = icon_version + 1 WHERE id = ?1", realm_id, file)
}

/// Sets the uploaded day logo (`Some`) or the default (`None`) and bumps `logo_version`.
pub fn set_logo_file_stmt(realm_id: i64, file: Option<&str>) -> Result<Statement> {
    statement!("UPDATE realms SET logo_file = ?2, logo_version = logo_version + 1 WHERE id = ?1", realm_id, file)
}

/// Sets the uploaded night logo (`Some`) or the default (`None`) and bumps `night_logo_version`.
pub fn set_night_logo_file_stmt(realm_id: i64, file: Option<&str>) -> Result<Statement> {
    statement!("UPDATE realms SET night_logo_file = ?2, night_logo_version = night_logo_version + 1 WHERE id = ?1", realm_id, file)
}

/// The organization's row, read after a change in the same batch.
pub fn by_id_stmt(realm_id: i64) -> Result<Statement> {
    statement!(&format!("{SELECT} WHERE id = ?1"), realm_id)
}
