//! The User object of the API, as one caller sees another user.

use serde_json::{json, Value};
use worker::D1Database;

use crate::db::batch::Batch;
use crate::db::profile_fields::{self, ProfileValueRow};
use crate::db::realms::{self, RealmRow};
use crate::db::users::{self, NamedUser, SignInRow, UserRow, Viewer};
use crate::domain::profile_fields::profile_data;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::model::Role;
use crate::params::parse_int;
use crate::secrets::sha256_hex;

/// Zulip's `email_address_visibility` values.
pub const VISIBLE_TO_EVERYONE: i64 = 1;
const VISIBLE_TO_MEMBERS: i64 = 2;
const VISIBLE_TO_ADMINS: i64 = 3;
const VISIBLE_TO_MODERATORS: i64 = 5;
pub const VISIBLE_TO_NOBODY: i64 = 4;

/// Whether `viewer` may see `user`'s real email address.
pub fn can_see_delivery_email(viewer: &UserRow, user: &UserRow) -> bool {
    sees_delivery_email(&Viewer { id: viewer.id, role: viewer.role }, user, user.email_address_visibility)
}

/// Whether `viewer` may see `user`'s real email address under `visibility` (a
/// `email_address_visibility` value): always their own, and a bot's.
pub fn sees_delivery_email(viewer: &Viewer, user: &UserRow, visibility: i64) -> bool {
    if viewer.id == user.id || user.is_bot() {
        return true;
    }
    match visibility {
        VISIBLE_TO_EVERYONE => true,
        VISIBLE_TO_MEMBERS => viewer.role.is_at_least(Role::Member),
        VISIBLE_TO_ADMINS => viewer.role.is_at_least(Role::Administrator),
        VISIBLE_TO_MODERATORS => viewer.role.is_at_least(Role::Moderator),
        _ => false,
    }
}

/// The viewers who gain sight of `user`'s real address and those who lose it, when its
/// visibility changes from `old` to `new`.
pub fn email_sight_changes(viewers: &[Viewer], user: &UserRow, old: i64, new: i64) -> (Vec<i64>, Vec<i64>) {
    let (mut gain, mut lose) = (Vec::new(), Vec::new());
    for viewer in viewers {
        match (sees_delivery_email(viewer, user, old), sees_delivery_email(viewer, user, new)) {
            (false, true) => gain.push(viewer.id),
            (true, false) => lose.push(viewer.id),
            _ => {}
        }
    }
    (gain, lose)
}

/// The viewer of an event that reaches many people alike (a message's, a reaction's, a
/// typing notice's): sees what everyone in the organization may see and no more, so that
/// an event shows nobody an address they may not see.
pub fn anyone() -> UserRow {
    UserRow { id: 0, role: Role::Guest, ..UserRow::default() }
}

/// The address of `user` that everyone in the organization may see (see [`anyone`]).
pub fn public_email(user: &UserRow, realm_host: &str) -> String {
    api_email(&anyone(), user, realm_host)
}

/// The address a viewer who may not see `user`'s real one is given: `user<id>@<realm host>`.
pub fn placeholder_email(user: &UserRow, realm_host: &str) -> String {
    format!("user{}@{}", user.id, realm_host)
}

/// The address clients use for `user`: the real one where visible, otherwise Zulip's
/// placeholder `user<id>@<realm host>`.
pub fn api_email(viewer: &UserRow, user: &UserRow, realm_host: &str) -> String {
    if can_see_delivery_email(viewer, user) {
        user.email.clone()
    } else {
        placeholder_email(user, realm_host)
    }
}

/// Zulip's server setting `MAX_AVATAR_FILE_SIZE_MIB` (default 5).
pub const MAX_AVATAR_FILE_SIZE_MIB: i64 = 5;

/// The R2 key of an uploaded avatar; it is served at [`IMAGES_PREFIX`] + the key.
///
/// [`IMAGES_PREFIX`]: crate::domain::realm_emoji::IMAGES_PREFIX
pub fn avatar_storage_key(realm_id: i64, file_name: &str) -> String {
    format!("{realm_id}/avatars/{file_name}")
}

/// Zulip's `avatar_source`: `U` for an uploaded avatar, `G` for Gravatar's.
pub fn avatar_source(user: &UserRow) -> &'static str {
    if user.avatar_file.is_some() {
        "U"
    } else {
        "G"
    }
}

/// The user's avatar: the uploaded image (served by this server, relative to the
/// organization's URL), else Gravatar's default keyed by the SHA-256 of the email.
pub fn avatar_url(user: &UserRow) -> String {
    avatar_url_sized(user, false)
}

/// `avatar_url_medium`. Uploaded avatars are stored as uploaded (this server does not
/// resize images), so the medium URL is the same image; Gravatar's asks for 500 pixels.
pub fn avatar_url_medium(user: &UserRow) -> String {
    avatar_url_sized(user, true)
}

fn avatar_url_sized(user: &UserRow, medium: bool) -> String {
    let version = user.avatar_version;
    if let Some(file) = &user.avatar_file {
        let prefix = crate::domain::realm_emoji::IMAGES_PREFIX;
        return format!("{prefix}{}?version={version}", avatar_storage_key(user.realm_id, file));
    }
    let hash = sha256_hex(user.delivery_email.trim().to_lowercase().as_bytes());
    let size = if medium { "&s=500" } else { "" };
    format!("https://secure.gravatar.com/avatar/{hash}?d=identicon{size}&version={version}")
}

/// The fields of a `realm_user` update that tell a user's avatar.
pub fn avatar_person(user: &UserRow) -> Value {
    json!({
        "user_id": user.id,
        "avatar_source": avatar_source(user),
        "avatar_url": avatar_url(user),
        "avatar_url_medium": avatar_url_medium(user),
        "avatar_version": user.avatar_version,
    })
}

/// Whether a client with `client_gravatar` computes this avatar itself: a Gravatar one, of
/// an email the viewer sees.
pub fn client_computes_avatar(viewer: &UserRow, user: &UserRow) -> bool {
    user.avatar_file.is_none() && can_see_delivery_email(viewer, user)
}

/// ISO 8601 in UTC with an offset, as Zulip writes `date_joined`.
pub fn iso8601(timestamp: i64) -> String {
    let days = timestamp.div_euclid(86_400);
    let secs = timestamp.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}+00:00", secs / 3600, secs % 3600 / 60, secs % 60)
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

pub struct UserDictOptions<'a> {
    pub realm_host: &'a str,
    /// The client computes gravatar URLs itself: `avatar_url` is null where it could.
    pub client_gravatar: bool,
}

/// The User object (spec: "User") of `user` as `viewer` may see it.
pub fn user_dict(viewer: &UserRow, user: &UserRow, opts: &UserDictOptions<'_>) -> Value {
    user_dict_seen(user, can_see_delivery_email(viewer, user), opts)
}

/// The User object of `user` for a viewer who sees its real address, or who does not.
pub fn user_dict_seen(user: &UserRow, sees_email: bool, opts: &UserDictOptions<'_>) -> Value {
    let client_computes_avatar = user.avatar_file.is_none() && sees_email;
    let avatar = if opts.client_gravatar && client_computes_avatar { Value::Null } else { json!(avatar_url(user)) };
    json!({
        "user_id": user.id,
        "delivery_email": if sees_email { json!(user.delivery_email) } else { Value::Null },
        "email": if sees_email { user.email.clone() } else { placeholder_email(user, opts.realm_host) },
        "full_name": user.full_name,
        "date_joined": iso8601(user.date_joined),
        "is_active": user.is_active(),
        "is_owner": user.is_realm_owner(),
        "is_admin": user.is_realm_admin(),
        "is_guest": user.is_guest(),
        "is_bot": user.is_bot(),
        "bot_type": user.bot_type,
        "bot_owner_id": user.bot_owner_id,
        "role": user.role,
        "timezone": user.timezone,
        "avatar_url": avatar,
        "avatar_version": user.avatar_version,
        "is_imported_stub": user.is_imported_stub != 0,
    })
}

/// Adds `profile_data` (custom profile field values) to a User object. Bots have none.
pub fn with_profile_data(mut dict: Value, user: &UserRow, data: Value) -> Value {
    if !user.is_bot() {
        if let Value::Object(map) = &mut dict {
            map.insert("profile_data".into(), data);
        }
    }
    dict
}

/// The User object of `user` for `viewer`, with `profile_data` when asked for (`values`
/// are the profile values of the users shown).
pub fn user_object(viewer: &UserRow, user: &UserRow, opts: &UserDictOptions<'_>, values: Option<&[ProfileValueRow]>) -> Value {
    let dict = user_dict(viewer, user, opts);
    match values {
        Some(values) => with_profile_data(dict, user, profile_data(values.iter().filter(|v| v.user_id == user.id))),
        None => dict,
    }
}

/// The profile values of one user (or of everyone) when they are asked for; no round trip
/// otherwise.
async fn profile_values_if(
    db: &D1Database,
    realm_id: RealmId,
    user_id: Option<UserId>,
    include: bool,
) -> ApiResult<Option<Vec<ProfileValueRow>>> {
    Ok(if include { Some(profile_fields::values(db, realm_id, user_id).await?) } else { None })
}

/// `user`'s User object for `viewer`, its profile data read when asked for: at most one
/// round trip.
pub async fn user_object_of(
    db: &D1Database,
    viewer: &UserRow,
    user: &UserRow,
    opts: &UserDictOptions<'_>,
    include_profile: bool,
) -> ApiResult<Value> {
    let values = profile_values_if(db, RealmId(viewer.realm_id), Some(UserId(user.id)), include_profile).await?;
    Ok(user_object(viewer, user, opts, values.as_deref()))
}

/// Every user of the organization (bots and deactivated users included) as `viewer` sees
/// them, read with their profile values when asked for.
pub async fn members_of(db: &D1Database, viewer: &UserRow, opts: &UserDictOptions<'_>, include_profile: bool) -> ApiResult<Vec<Value>> {
    let mut batch = Batch::new();
    let values = include_profile
        .then(|| profile_fields::values_stmt(RealmId(viewer.realm_id), None))
        .transpose()?
        .map(|stmt| batch.add::<ProfileValueRow>(stmt));
    let users = batch.add::<UserRow>(users::all_in_realm_stmt(viewer.realm_id)?);
    let results = batch.run(db).await?;
    let values = values.map(|slot| results.rows(slot)).transpose()?;
    Ok(results.rows(users)?.iter().map(|user| user_object(viewer, user, opts, values.as_deref())).collect())
}

/// How a path names a user: an id, else an email.
pub fn named_user(id_or_email: &str) -> NamedUser<'_> {
    match parse_int(id_or_email) {
        Some(id) => NamedUser::Id(id),
        None => NamedUser::Email(id_or_email),
    }
}

/// The user a path names, as read; "No such user" when there is none.
pub fn access_user(user: Option<UserRow>) -> ApiResult<UserRow> {
    user.ok_or_else(ApiError::no_such_user)
}

/// The User object of the user a path names, for `viewer`, read with its profile data when
/// asked for. One round trip.
pub async fn named_user_object(
    db: &D1Database,
    viewer: &UserRow,
    id_or_email: &str,
    opts: &UserDictOptions<'_>,
    include_profile: bool,
) -> ApiResult<Value> {
    let who = named_user(id_or_email);
    let mut batch = Batch::new();
    let user = batch.add::<UserRow>(users::named_stmt(viewer.realm_id, who)?);
    let values = include_profile
        .then(|| profile_fields::values_of_named_stmt(viewer.realm_id, who))
        .transpose()?
        .map(|stmt| batch.add::<ProfileValueRow>(stmt));
    let results = batch.run(db).await?;
    let user = access_user(results.first(user)?)?;
    let values = values.map(|slot| results.rows(slot)).transpose()?;
    Ok(user_object(viewer, &user, opts, values.as_deref()))
}

/// A human user an administrator acts on (Zulip's access_user_by_id for_admin): bots are
/// "No such user" unless allowed (they are managed through /bots). One round trip.
pub async fn access_user_for_admin(db: &D1Database, realm_id: i64, user_id: &str, allow_bots: bool) -> ApiResult<UserRow> {
    let id = parse_int(user_id).ok_or_else(ApiError::no_such_user)?;
    let user = users::by_id(db, RealmId(realm_id), UserId(id)).await?.ok_or_else(ApiError::no_such_user)?;
    if user.is_bot() && !allow_bots {
        return Err(ApiError::no_such_user());
    }
    Ok(user)
}

/// A user signing in: the row, and what signing in checks and issues.
pub struct SigningIn {
    pub user: UserRow,
    pub password_hash: Option<String>,
    pub api_key_version: i64,
}

/// The organization named `realm_string_id` and its user with this login email, each if
/// it exists, with the user's sign-in data: one round trip, as a sign-in knows the
/// organization only by name.
pub async fn realm_and_signing_in(db: &D1Database, realm_string_id: &str, email: &str) -> ApiResult<(Option<RealmRow>, Option<SigningIn>)> {
    let mut batch = Batch::new();
    let realm = batch.add::<RealmRow>(realms::by_string_id_stmt(realm_string_id)?);
    let user = batch.add::<UserRow>(users::signing_in_stmt(realm_string_id, email)?);
    let sign_in = batch.add::<SignInRow>(users::sign_in_row_stmt(realm_string_id, email)?);
    let results = batch.run(db).await?;
    let signing_in = match (results.first(user)?, results.first(sign_in)?) {
        (Some(user), Some(row)) if row.id == user.id => {
            Some(SigningIn { user, password_hash: row.password_hash, api_key_version: row.api_key_version })
        }
        _ => None,
    };
    Ok((results.first(realm)?, signing_in))
}

/// `candidate` if `password` is theirs.
pub async fn password_owner(candidate: Option<SigningIn>, password: &str) -> ApiResult<Option<SigningIn>> {
    let Some(candidate) = candidate else { return Ok(None) };
    let Some(stored) = candidate.password_hash.as_deref() else { return Ok(None) };
    Ok(crate::secrets::verify_password(password, stored).await?.then_some(candidate))
}

/// Zulip's full-name rules (check_full_name): trimmed, 1..=100 characters, none of the
/// characters that break mention syntax.
pub fn check_full_name(raw: &str) -> ApiResult<String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(ApiError::bad_request("Name too short!"));
    }
    if name.chars().count() > 100 {
        return Err(ApiError::bad_request("Name too long!"));
    }
    if name.chars().any(|c| ['*', '`', '\\', '>', '"', '@'].contains(&c) || c.is_control()) {
        return Err(ApiError::bad_request("Invalid characters in name!"));
    }
    Ok(name.to_string())
}

/// Email addresses as Zulip accepts them: one `@`, a non-empty local part, a dotted domain
/// without spaces.
pub fn is_valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else { return false };
    !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && email.len() <= 254
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_names_follow_zulip_rules() {
        assert_eq!(check_full_name("  Ada Lovelace ").unwrap(), "Ada Lovelace");
        assert_eq!(check_full_name(" ").unwrap_err().msg, "Name too short!");
        assert_eq!(check_full_name(&"a".repeat(101)).unwrap_err().msg, "Name too long!");
        assert_eq!(check_full_name("a@b").unwrap_err().msg, "Invalid characters in name!");
    }

    #[test]
    fn iso8601_formats_known_dates() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00+00:00");
        assert_eq!(iso8601(951_782_400), "2000-02-29T00:00:00+00:00");
        assert_eq!(iso8601(1_700_000_000), "2023-11-14T22:13:20+00:00");
    }
}
