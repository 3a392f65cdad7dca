//! `users`: humans and bots of an organization.

use super::statement::{statement, Statement};
use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::batch::{Batch, BatchResults, Slot};
use crate::model::ids::{RealmId, UserId};
use crate::model::recipients::RecipientType;
use crate::model::Role;

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct UserRow {
    pub id: i64,
    pub realm_id: i64,
    pub email: String,
    pub delivery_email: String,
    pub full_name: String,
    pub role: Role,
    pub is_active: i64,
    pub is_bot: i64,
    pub bot_type: Option<i64>,
    pub bot_owner_id: Option<i64>,
    pub can_create_users: i64,
    pub timezone: String,
    pub date_joined: i64,
    pub avatar_version: i64,
    /// The uploaded avatar's file name in R2; `None`: the Gravatar one.
    #[serde(default)]
    pub avatar_file: Option<String>,
    pub email_address_visibility: i64,
    pub is_imported_stub: i64,
    /// The user settings changed from their defaults (JSON object; `domain::user_settings`).
    #[serde(default = "no_settings")]
    pub settings: String,
    #[serde(default = "follow_policy_default")]
    pub automatically_follow_topics_policy: i64,
    #[serde(default = "unmute_policy_default")]
    pub automatically_unmute_topics_in_muted_streams_policy: i64,
    #[serde(default = "one")]
    pub automatically_follow_topics_where_mentioned: i64,
}

// Defaults of the columns for the few queries that select a user without [`COLUMNS`].
fn no_settings() -> String {
    "{}".into()
}
fn follow_policy_default() -> i64 {
    3
}
fn unmute_policy_default() -> i64 {
    2
}
fn one() -> i64 {
    1
}

impl UserRow {
    pub fn is_realm_owner(&self) -> bool {
        self.role == Role::Owner
    }
    pub fn is_realm_admin(&self) -> bool {
        self.role.is_at_least(Role::Administrator)
    }
    pub fn is_moderator_or_above(&self) -> bool {
        self.role.is_at_least(Role::Moderator)
    }
    pub fn is_guest(&self) -> bool {
        self.role == Role::Guest
    }
    pub fn is_active(&self) -> bool {
        self.is_active != 0
    }
    pub fn is_bot(&self) -> bool {
        self.is_bot != 0
    }
    /// An imported account of someone whose data the export did not carry (Zulip's mirror
    /// dummy), deactivated until they sign up again.
    pub fn awaits_sign_up(&self) -> bool {
        self.is_imported_stub != 0 && !self.is_active()
    }
}

/// The columns of [`UserRow`], prefixed by the `u` alias every query gives `users`.
pub const COLUMNS: &str = "u.id, u.realm_id, u.email, u.delivery_email, u.full_name, u.role, u.is_active, \
    u.is_bot, u.bot_type, u.bot_owner_id, u.can_create_users, u.timezone, u.date_joined, \
    u.avatar_version, u.avatar_file, u.email_address_visibility, u.is_imported_stub, u.settings, u.automatically_follow_topics_policy, \
    u.automatically_unmute_topics_in_muted_streams_policy, u.automatically_follow_topics_where_mentioned";

/// The user holding an API key in the organization named `realm_string_id`.
pub fn by_api_key_stmt(realm_string_id: &str, key_hash: &str) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {COLUMNS} FROM api_keys k JOIN users u ON u.id = k.user_id \
             JOIN realms r ON r.id = u.realm_id AND r.id = k.realm_id \
             WHERE k.key_hash = ?1 AND r.string_id = ?2"
        ),
        key_hash,
        realm_string_id
    )
}

pub async fn by_id(db: &D1Database, realm_id: RealmId, user_id: UserId) -> Result<Option<UserRow>> {
    super::first(db, by_id_stmt(realm_id, user_id)?).await
}

/// A user of the organization by id, for a batch.
pub fn by_id_stmt(realm_id: RealmId, user_id: UserId) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM users u WHERE {BY_ID}"), realm_id, user_id)
}

/// The owner of the bot of organization `?1` whose id is `?2`.
pub fn bot_owner_stmt(realm_id: RealmId, bot_id: UserId) -> Result<Statement> {
    statement!(
        &format!("SELECT {COLUMNS} FROM users u WHERE u.realm_id = ?1 AND u.id = (SELECT b.bot_owner_id FROM users b WHERE b.realm_id = ?1 AND b.id = ?2)"),
        realm_id,
        bot_id
    )
}

/// The user of organization `?1` whose id is `?2`.
const BY_ID: &str = "u.realm_id = ?1 AND u.id = ?2";

/// A user by login email: the API email or the real address, case-insensitively.
macro_rules! login_email_is_2 {
    () => {
        "(u.delivery_email = ?2 COLLATE NOCASE OR u.email = ?2 COLLATE NOCASE) ORDER BY u.id LIMIT 1"
    };
}

/// The user of organization `?1` whose delivery email or email is `?2` (any case).
const BY_EMAIL: &str = concat!("u.realm_id = ?1 AND ", login_email_is_2!());

/// The same, the organization named by its `string_id` (a sign-in knows only its name).
const BY_EMAIL_IN_NAMED_REALM: &str = concat!("u.realm_id = (SELECT r.id FROM realms r WHERE r.string_id = ?1) AND ", login_email_is_2!());

pub fn by_email_stmt(realm_id: i64, email: &str) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM users u WHERE {BY_EMAIL}"), realm_id, email)
}

/// A user as a request path names them: by id, or by email (any case).
#[derive(Debug, Clone, Copy)]
pub enum NamedUser<'a> {
    Id(i64),
    Email(&'a str),
}

impl NamedUser<'_> {
    /// `sql` with `{user}` replaced by the condition on `users u` that selects the user,
    /// bound to `?1` (the organization) and `?2` (the id or the email).
    fn stmt(&self, realm_id: i64, sql: &str) -> Result<Statement> {
        match *self {
            NamedUser::Id(id) => statement!(&sql.replace("{user}", BY_ID), realm_id, id),
            NamedUser::Email(email) => statement!(&sql.replace("{user}", BY_EMAIL), realm_id, email),
        }
    }
}

/// The user a path names.
pub fn named_stmt(realm_id: i64, who: NamedUser<'_>) -> Result<Statement> {
    match who {
        NamedUser::Id(id) => by_id_stmt(RealmId(realm_id), UserId(id)),
        NamedUser::Email(email) => by_email_stmt(realm_id, email),
    }
}

/// A statement about the user a path names: `sql` reads `{user_id}` for their id.
pub fn about_named_stmt(realm_id: i64, who: NamedUser<'_>, sql: &str) -> Result<Statement> {
    who.stmt(realm_id, &sql.replace("{user_id}", "(SELECT u.id FROM users u WHERE {user})"))
}

/// What signing in as a user checks and issues: the password hash and the key version.
#[derive(Debug, Deserialize)]
pub struct SignInRow {
    pub id: i64,
    pub password_hash: Option<String>,
    pub api_key_version: i64,
}

/// The user signing in with this login email to the organization named `realm_string_id`.
pub fn signing_in_stmt(realm_string_id: &str, email: &str) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM users u WHERE {BY_EMAIL_IN_NAMED_REALM}"), realm_string_id, email)
}

/// The [`SignInRow`] of the user [`signing_in_stmt`] finds.
pub fn sign_in_row_stmt(realm_string_id: &str, email: &str) -> Result<Statement> {
    statement!(
        &format!("SELECT u.id, u.password_hash, u.api_key_version FROM users u WHERE {BY_EMAIL_IN_NAMED_REALM}"),
        realm_string_id,
        email
    )
}

pub async fn by_email(db: &D1Database, realm_id: i64, email: &str) -> Result<Option<UserRow>> {
    super::first(db, by_email_stmt(realm_id, email)?).await
}

/// A user's id.
#[derive(Debug, Deserialize)]
pub struct UserIdRow {
    pub id: i64,
}

/// The organization's active administrators and owners ([`UserIdRow`]).
pub fn active_admin_ids_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT id FROM users WHERE realm_id = ?1 AND is_active = 1 AND role <= ?2 ORDER BY id", realm_id, Role::Administrator)
}

/// Who looks at a user: enough to know what of them they may see.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Viewer {
    pub id: i64,
    pub role: Role,
}

/// The organization's active users as [`Viewer`]s.
pub async fn active_viewers(db: &D1Database, realm_id: i64) -> Result<Vec<Viewer>> {
    super::all(db, statement!("SELECT id, role FROM users WHERE realm_id = ?1 AND is_active = 1", realm_id)?).await
}

#[derive(Debug, Deserialize)]
pub struct Credentials {
    pub password_hash: Option<String>,
}

pub async fn password_hash(db: &D1Database, realm_id: RealmId, user_id: UserId) -> Result<Option<String>> {
    let row: Option<Credentials> =
        super::first(db, statement!("SELECT password_hash FROM users WHERE realm_id = ?1 AND id = ?2", realm_id, user_id)?).await?;
    Ok(row.and_then(|r| r.password_hash))
}

/// Every user of the organization, bots and deactivated users included, in id order.
pub async fn all_in_realm(db: &D1Database, realm_id: i64) -> Result<Vec<UserRow>> {
    super::all(db, all_in_realm_stmt(realm_id)?).await
}

pub fn all_in_realm_stmt(realm_id: i64) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM users u WHERE u.realm_id = ?1 ORDER BY u.id"), realm_id)
}

/// What a new account is made of.
pub struct NewUser<'a> {
    pub realm_id: i64,
    pub email: &'a str,
    pub full_name: &'a str,
    pub role: Role,
    pub password_hash: Option<&'a str>,
    pub can_create_users: bool,
    pub bot_type: Option<i64>,
    pub bot_owner_id: Option<i64>,
    pub timezone: &'a str,
}

/// Inserts the user and its direct-message recipient, and reads the new row back in the
/// same batch.
pub async fn insert(db: &D1Database, user: &NewUser<'_>, now: i64) -> Result<InsertedUser> {
    let mut batch = Batch::new();
    let inserting = add_insert(&mut batch, user, None, now)?;
    inserting.take(&batch.run(db).await?)
}

/// The id the next new user of this database gets, unless another insert takes it first
/// (`None` in a database without users).
pub fn next_id_stmt() -> Result<Statement> {
    Ok(Statement::new("SELECT MAX(id) + 1 AS id FROM users", Vec::new()))
}

#[derive(Deserialize)]
pub struct NextId {
    pub id: Option<i64>,
}

/// Adds the user's insert (as `id` when given: a taken id fails the batch), its
/// direct-message recipient and the new row's read-back to `batch`; the recipient is in
/// the same batch, so a user never exists without it.
pub fn add_insert(batch: &mut Batch, user: &NewUser<'_>, id: Option<i64>, now: i64) -> Result<InsertingUser> {
    batch.add::<serde_json::Value>(statement!(
        "INSERT INTO users (id, realm_id, email, delivery_email, full_name, role, password_hash, can_create_users, \
         is_bot, bot_type, bot_owner_id, timezone, date_joined) \
         VALUES (?12, ?1, ?2, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        user.realm_id,
        user.email,
        user.full_name,
        user.role,
        user.password_hash,
        user.can_create_users as i64,
        user.bot_type.is_some() as i64,
        user.bot_type,
        user.bot_owner_id,
        user.timezone,
        now,
        id
    )?);
    batch.add::<serde_json::Value>(statement!(
        "INSERT INTO recipients (realm_id, type, type_id) VALUES (?1, ?2, last_insert_rowid())",
        user.realm_id,
        RecipientType::Personal
    )?);
    batch.add::<serde_json::Value>(apply_organization_defaults_stmt(user.realm_id, user.email)?);
    Ok(InsertingUser {
        created: batch.add(statement!(
            &format!("SELECT {COLUMNS} FROM users u WHERE u.realm_id = ?1 AND u.email = ?2"),
            user.realm_id,
            user.email
        )?),
        key_version: batch.add(statement!(
            "SELECT id, api_key_version FROM users WHERE realm_id = ?1 AND email = ?2",
            user.realm_id,
            user.email
        )?),
    })
}

/// The organization's defaults for new users' personal settings (`realms.user_settings_defaults`)
/// applied to a new human user: the JSON object copied, the settings with their own columns
/// taken from it where an administrator changed them, and the organization's language as
/// theirs (bots keep the catalogue defaults).
fn apply_organization_defaults_stmt(realm_id: i64, email: &str) -> Result<Statement> {
    const COLUMNS: [&str; 4] = [
        "automatically_follow_topics_policy",
        "automatically_unmute_topics_in_muted_streams_policy",
        "automatically_follow_topics_where_mentioned",
        "email_address_visibility",
    ];
    let defaults = "(SELECT r.user_settings_defaults FROM realms r WHERE r.id = ?1)";
    let columns: Vec<String> = COLUMNS.iter().map(|c| format!("{c} = COALESCE(json_extract({defaults}, '$.{c}'), {c})")).collect();
    let paths: Vec<String> = COLUMNS.iter().map(|c| format!("'$.{c}'")).collect();
    statement!(
        &format!(
            "UPDATE users SET settings = json_set(json_remove({defaults}, {}), '$.default_language', \
             (SELECT r.default_language FROM realms r WHERE r.id = ?1)), {} WHERE realm_id = ?1 AND email = ?2 AND is_bot = 0",
            paths.join(", "),
            columns.join(", ")
        ),
        realm_id,
        email
    )
}

/// Where [`add_insert`] put the new row's read-back.
pub struct InsertingUser {
    created: Slot<UserRow>,
    key_version: Slot<KeyVersion>,
}

impl InsertingUser {
    pub fn take(self, results: &BatchResults) -> Result<InsertedUser> {
        match (results.first(self.created)?, results.first(self.key_version)?) {
            (Some(user), Some(key)) if key.id == user.id => Ok(InsertedUser { user, api_key_version: key.api_key_version }),
            _ => Err(worker::Error::RustError("user insert left no row".into())),
        }
    }
}

/// A new account's row and the version its first API key derives from.
pub struct InsertedUser {
    pub user: UserRow,
    pub api_key_version: i64,
}

/// The API key version of a new account (the column's default).
pub const FIRST_API_KEY_VERSION: i64 = 0;

#[derive(Deserialize)]
struct KeyVersion {
    id: i64,
    api_key_version: i64,
}

/// How many active accounts and active human owners the organization has (the
/// last-user and last-owner rules).
#[derive(Debug, Deserialize)]
pub struct ActiveCounts {
    pub active_users: i64,
    pub human_owners: i64,
}

pub async fn active_counts(db: &D1Database, realm_id: i64) -> Result<ActiveCounts> {
    let row: Option<ActiveCounts> = super::first(
        db,
        statement!(
            "SELECT COUNT(*) AS active_users, COALESCE(SUM(role = ?2 AND is_bot = 0), 0) AS human_owners \
         FROM users WHERE realm_id = ?1 AND is_active = 1",
            realm_id,
            Role::Owner
        )?,
    )
    .await?;
    Ok(row.unwrap_or(ActiveCounts { active_users: 0, human_owners: 0 }))
}

/// Fails its batch (`db::read_guards`) unless `user` still awaits its owner's sign-up: two
/// sign-ups with different links activate it once.
pub fn still_awaits_sign_up_guard_stmt(user: &UserRow) -> Result<Statement> {
    statement!(
        "UPDATE read_guards SET current = (SELECT COUNT(*) FROM users WHERE realm_id = ?1 AND id = ?2 AND is_imported_stub = 1 \
         AND is_active = 0) WHERE id = 1",
        user.realm_id,
        user.id
    )
}

/// Activates an imported account awaiting its owner's sign-up ([`UserRow::awaits_sign_up`])
/// with the name, role and password they signed up with; changes nothing once it is
/// active.
pub fn activate_imported_stmt(user: &UserRow, full_name: &str, role: Role, password_hash: &str, now: i64) -> Result<Statement> {
    statement!(
        "UPDATE users SET is_active = 1, is_imported_stub = 0, full_name = ?3, role = ?4, password_hash = ?5, date_joined = ?6 \
         WHERE realm_id = ?1 AND id = ?2 AND is_imported_stub = 1 AND is_active = 0",
        user.realm_id,
        user.id,
        full_name,
        role,
        password_hash,
        now
    )
}

pub async fn set_active(db: &D1Database, realm_id: RealmId, user_id: UserId, active: bool) -> Result<()> {
    super::run(db, statement!("UPDATE users SET is_active = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, user_id, active as i64)?)
        .await?;
    Ok(())
}

/// Deactivates a user and the active bots it owns (one statement, as Zulip deactivates a
/// deactivated user's bots with it); answers the ids it deactivated, in id order.
pub async fn deactivate_with_bots(db: &D1Database, realm_id: RealmId, user_id: UserId) -> Result<Vec<i64>> {
    #[derive(Deserialize)]
    struct Id {
        id: i64,
    }
    let rows: Vec<Id> = super::all(
        db,
        statement!(
            "UPDATE users SET is_active = 0 WHERE realm_id = ?1 AND is_active = 1 AND (id = ?2 OR (is_bot = 1 AND bot_owner_id = ?2)) \
         RETURNING id",
            realm_id,
            user_id
        )?,
    )
    .await?;
    let mut ids: Vec<i64> = rows.into_iter().map(|r| r.id).collect();
    ids.sort_unstable();
    Ok(ids)
}

pub fn set_role_stmt(realm_id: RealmId, user_id: UserId, role: Role) -> Result<Statement> {
    statement!("UPDATE users SET role = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, user_id, role)
}

/// Sets (or, with `None`, clears) the uploaded avatar and bumps `avatar_version`.
pub fn set_avatar_file_stmt(realm_id: RealmId, user_id: UserId, file: Option<&str>) -> Result<Statement> {
    statement!(
        "UPDATE users SET avatar_file = ?3, avatar_version = avatar_version + 1 WHERE realm_id = ?1 AND id = ?2",
        realm_id,
        user_id,
        file
    )
}

pub fn set_full_name_stmt(realm_id: RealmId, user_id: UserId, full_name: &str) -> Result<Statement> {
    statement!("UPDATE users SET full_name = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, user_id, full_name)
}

/// The active bots a user owns, oldest first.
pub fn bots_of_owner_stmt(realm_id: RealmId, owner_id: UserId) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT {COLUMNS} FROM users u WHERE u.realm_id = ?1 AND u.bot_owner_id = ?2 AND u.is_bot = 1 \
             AND u.is_active = 1 ORDER BY u.date_joined, u.id"
        ),
        realm_id,
        owner_id
    )
}

/// The organization's users among a JSON array of ids (any state).
pub fn by_ids_stmt(realm_id: i64, ids_json: &str) -> Result<Statement> {
    statement!(
        &format!("SELECT {COLUMNS} FROM users u WHERE u.realm_id = ?1 AND u.id IN (SELECT value FROM json_each(?2))"),
        realm_id,
        ids_json
    )
}

/// Applies a `PATCH /settings` change: `changes_json` (a JSON object) merged into the
/// stored settings, and the settings kept in columns when given.
pub fn update_settings_stmt(user_id: i64, changes_json: &str, columns: &SettingColumns) -> Result<Statement> {
    statement!(
        "UPDATE users SET settings = json_patch(settings, ?2), timezone = COALESCE(?3, timezone), \
         automatically_follow_topics_policy = COALESCE(?4, automatically_follow_topics_policy), \
         automatically_unmute_topics_in_muted_streams_policy = COALESCE(?5, automatically_unmute_topics_in_muted_streams_policy), \
         automatically_follow_topics_where_mentioned = COALESCE(?6, automatically_follow_topics_where_mentioned), \
         email_address_visibility = COALESCE(?7, email_address_visibility) WHERE id = ?1",
        user_id,
        changes_json,
        &columns.timezone,
        columns.automatically_follow_topics_policy,
        columns.automatically_unmute_topics_in_muted_streams_policy,
        columns.automatically_follow_topics_where_mentioned,
        columns.email_address_visibility
    )
}

/// New values of the settings stored in their own columns (none: unchanged).
#[derive(Debug, Default)]
pub struct SettingColumns {
    pub timezone: Option<String>,
    pub automatically_follow_topics_policy: Option<i64>,
    pub automatically_unmute_topics_in_muted_streams_policy: Option<i64>,
    pub automatically_follow_topics_where_mentioned: Option<i64>,
    pub email_address_visibility: Option<i64>,
}

/// Users `u` named by id (`?2`, a JSON list) or by email or delivery email (`?3`, a JSON
/// list, lowercase): the condition of [`by_ids_or_emails_stmt`], for statements about them.
pub const NAMED_BY_IDS_OR_EMAILS: &str = "(u.id IN (SELECT value FROM json_each(?2)) \
    OR lower(u.email) IN (SELECT value FROM json_each(?3)) OR lower(u.delivery_email) IN (SELECT value FROM json_each(?3)))";

/// The realm's users (only active ones when `active_only`) whose id is in `ids` or whose
/// email or delivery email is in `emails` (lowercase).
pub fn by_ids_or_emails_stmt(realm_id: i64, ids: &[i64], emails: &[String], active_only: bool) -> Result<Statement> {
    statement!(
        &format!("SELECT {COLUMNS} FROM users u WHERE u.realm_id = ?1 AND (?4 = 0 OR u.is_active = 1) AND {NAMED_BY_IDS_OR_EMAILS}"),
        realm_id,
        serde_json::to_string(ids)?,
        serde_json::to_string(emails)?,
        active_only as i64
    )
}

/// The users of [`by_ids_or_emails_stmt`] (any state) as a direct message from `sender_id`
/// to them reads them: `user_id`, whether they muted the sender (`muted_sender`) and
/// whether they have a push device (`has_push_device`).
pub fn direct_recipients_stmt(realm_id: RealmId, ids: &[i64], emails: &[String], sender_id: UserId) -> Result<Statement> {
    statement!(
        "SELECT u.id AS user_id, \
         EXISTS (SELECT 1 FROM muted_users mu WHERE mu.user_id = u.id AND mu.muted_user_id = ?4) AS muted_sender, \
         EXISTS (SELECT 1 FROM push_devices pd WHERE pd.user_id = u.id) AS has_push_device \
         FROM users u WHERE u.realm_id = ?1 AND (u.id IN (SELECT value FROM json_each(?2)) \
         OR lower(u.email) IN (SELECT value FROM json_each(?3)) OR lower(u.delivery_email) IN (SELECT value FROM json_each(?3)))",
        realm_id,
        serde_json::to_string(ids)?,
        serde_json::to_string(emails)?,
        sender_id
    )
}

/// The realm's user whose delivery email is `email` (exactly).
pub fn by_delivery_email_stmt(realm_id: i64, email: &str) -> Result<Statement> {
    statement!(&format!("SELECT {COLUMNS} FROM users u WHERE u.realm_id = ?1 AND u.delivery_email = ?2"), realm_id, email)
}

/// The owner of a message's sender (`bot_owner_id`, null for a person).
pub fn sender_bot_owner_stmt(message_id: i64) -> Result<Statement> {
    statement!("SELECT u.bot_owner_id FROM messages m JOIN users u ON u.id = m.sender_id WHERE m.id = ?1", message_id)
}
