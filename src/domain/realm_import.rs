//! Importing a Zulip export archive (`domain::realm_export` writes the format): checking
//! the archive before anything is written (valid JSON, every reference to an id the
//! archive holds, no upload path leaving its folder), and turning its tables into the
//! rows `db::realm_imports` writes, in an order where every reference is mapped first.

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Map, Value};

use crate::db::realm_imports::{Kind, Link};
use crate::domain::profile_fields::USER as USER_FIELD;
use crate::domain::realm_export::safe_member_path;
use crate::domain::realm_icon::RealmImage;
use crate::domain::user_settings;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::RealmId;
use crate::model::{message_flags, TopicsPolicy};

/// Every refusal names what is wrong with the archive.
pub fn invalid_archive(detail: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(format!("Invalid archive: {detail}"))
}

pub fn import_not_found() -> ApiError {
    ApiError::bad_request("No organization import in progress")
}

/// One table's rows, as the database layer writes them.
pub enum Rows {
    /// Rows with an id of their own, mapped then inserted.
    Own(Kind, Vec<Value>),
    /// The archive's system groups, mapped to the new organization's.
    SystemGroups(Vec<Value>),
    Links(Link, Vec<Value>),
}

/// A checked `realm.json` with `attachment.json`.
pub struct RealmArchive {
    pub old_realm_id: i64,
    pub name: String,
    pub description: String,
    pub date_created: i64,
    /// Days messages are kept (Zulip's null and -1: forever).
    pub message_retention_days: i64,
    /// The archive's channels for new-channel, new-user and update announcements, and for
    /// moderation requests.
    pub announcement_channels: [Option<i64>; 4],
    /// `icon_version`, `logo_version`, `night_logo_version` (1 where absent).
    pub image_versions: [i64; 3],
    /// The organization's defaults for new users (`zerver_realmuserdefault`) as `realms`
    /// keeps them: those other than the catalogue's.
    pub user_settings_defaults: String,
    tables: Map<String, Value>,
    /// The `zerver_realm` row (its group settings are set once the groups are in).
    pub realm_row: Value,
    /// `zerver_userprofile` with the mirror dummies and system bots (`all_users`).
    users: Vec<Value>,
    /// `zerver_recipient` with the system bots' (`all_recipients`).
    recipients: Vec<Value>,
    attachments: Vec<Value>,
}

fn parse_object(text: &str, file: &str) -> ApiResult<Map<String, Value>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(invalid_archive(format!("{file} is not a JSON object"))),
        Err(err) => Err(invalid_archive(format!("{file} is not valid JSON ({err})"))),
    }
}

fn rows<'a>(tables: &'a Map<String, Value>, name: &str) -> ApiResult<&'a [Value]> {
    match tables.get(name) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(rows)) if rows.iter().all(Value::is_object) => Ok(rows),
        Some(_) => Err(invalid_archive(format!("{name} is not a list of rows"))),
    }
}

fn int(row: &Value, field: &str) -> Option<i64> {
    row.get(field).and_then(Value::as_i64)
}

fn ids(table: &str, rows: &[Value]) -> ApiResult<BTreeSet<i64>> {
    let mut ids = BTreeSet::new();
    for row in rows {
        let id = int(row, "id").ok_or_else(|| invalid_archive(format!("a row of {table} has no id")))?;
        if !ids.insert(id) {
            return Err(invalid_archive(format!("{table} holds id {id} twice")));
        }
    }
    Ok(ids)
}

/// Refuses a row whose `field` names an id outside `known` (absent or null only when
/// `optional`).
fn check_ref(table: &str, row: &Value, field: &str, known: &BTreeSet<i64>, optional: bool) -> ApiResult<()> {
    match row.get(field) {
        None | Some(Value::Null) if optional => Ok(()),
        Some(v) if v.as_i64().is_some_and(|id| known.contains(&id)) => Ok(()),
        other => Err(invalid_archive(format!(
            "{table} refers to {field} {}, which is not in the archive",
            other.map_or("null".to_string(), Value::to_string)
        ))),
    }
}

fn check_refs(table: &str, rows: &[Value], checks: &[(&str, &BTreeSet<i64>, bool)]) -> ApiResult<()> {
    for row in rows {
        for (field, known, optional) in checks {
            check_ref(table, row, field, known, *optional)?;
        }
    }
    Ok(())
}

/// Refuses two rows with the same `field` (compared without case, as this server's
/// unique indexes do; a missing `delivery_email` is the row's `email`).
fn check_unique(table: &str, rows: &[Value], field: &str) -> ApiResult<()> {
    let mut seen = BTreeSet::new();
    for row in rows {
        let value =
            row.get(field).and_then(Value::as_str).or_else(|| row.get("email").and_then(Value::as_str)).unwrap_or("").to_lowercase();
        if !seen.insert(value.clone()) {
            return Err(invalid_archive(format!("{table} holds {field} '{value}' twice")));
        }
    }
    Ok(())
}

/// The first present of Zulip's names for a table (they were renamed over time).
fn table_name<'a>(tables: &Map<String, Value>, names: &[&'a str]) -> &'a str {
    names.iter().find(|n| tables.contains_key(**n)).copied().unwrap_or(names[0])
}

/// Channel subscriptions, direct-message group members and the groups with their members:
/// Zulip keeps a direct-message group's members as subscriptions to its recipient.
fn subscriptions(t: &Map<String, Value>, recipients: &[Value]) -> ApiResult<(Vec<Value>, Vec<Value>, Vec<Value>)> {
    let dm_table = table_name(t, &["zerver_directmessagegroup", "zerver_huddle"]);
    let recipients: HashMap<i64, (i64, i64)> =
        recipients.iter().filter_map(|r| Some((int(r, "id")?, (int(r, "type")?, int(r, "type_id")?)))).collect();
    let (mut channel_subs, mut dm_members) = (Vec::new(), Vec::new());
    let mut members_of: HashMap<i64, Vec<i64>> = HashMap::new();
    for s in rows(t, "zerver_subscription")? {
        let (Some(&(kind, type_id)), Some(user)) = (int(s, "recipient").and_then(|r| recipients.get(&r)), int(s, "user_profile")) else {
            continue;
        };
        match kind {
            2 => {
                let mut sub = s.clone();
                sub["channel"] = json!(type_id);
                channel_subs.push(sub);
            }
            3 => {
                members_of.entry(type_id).or_default().push(user);
                dm_members.push(json!({ "dm_group": type_id, "user_profile": user }));
            }
            _ => {}
        }
    }
    let dm_groups: Vec<Value> = rows(t, dm_table)?
        .iter()
        .map(|g| json!({ "id": int(g, "id"), "members": members_of.get(&int(g, "id").unwrap_or(0)).cloned().unwrap_or_default() }))
        .collect();
    Ok((channel_subs, dm_members, dm_groups))
}

/// The system groups, the other groups (named and anonymous) and the memberships of the
/// latter.
fn user_groups(t: &Map<String, Value>) -> ApiResult<(Vec<Value>, Vec<Value>, Vec<Value>)> {
    let group_table = table_name(t, &["zerver_namedusergroup", "zerver_usergroup"]);
    let (system, mut named): (Vec<Value>, Vec<Value>) =
        rows(t, group_table)?.iter().cloned().partition(|g| g.get("is_system_group").and_then(Value::as_bool).unwrap_or(false));
    if group_table != "zerver_usergroup" {
        // Zulip 9+: the groups of zerver_usergroup without a name are anonymous groups
        // (a setting's set of users and groups), kept under a key made from their id.
        let named_ids: BTreeSet<i64> = rows(t, group_table)?.iter().filter_map(|g| int(g, "id")).collect();
        for id in rows(t, "zerver_usergroup")?.iter().filter_map(|g| int(g, "id")).filter(|id| !named_ids.contains(id)) {
            named.push(json!({ "id": id, "name": format!("@anonymous:import-{id}"), "is_anonymous": 1 }));
        }
    }
    let named_ids: BTreeSet<i64> = named.iter().filter_map(|g| int(g, "id")).collect();
    let memberships: Vec<Value> = rows(t, "zerver_usergroupmembership")?
        .iter()
        .filter(|m| int(m, "user_group").is_some_and(|g| named_ids.contains(&g)))
        .cloned()
        .collect();
    Ok((system, named, memberships))
}

/// The rows that belong to one user each name a user of the archive (and a scheduled
/// message a recipient of it).
fn check_users_own_rows(tables: &Map<String, Value>, users: &BTreeSet<i64>, recipients: &BTreeSet<i64>) -> ApiResult<()> {
    let scheduled = rows(tables, "zerver_scheduledmessage")?;
    check_refs("zerver_scheduledmessage", scheduled, &[("sender", users, false), ("recipient", recipients, false)])?;
    let own = [
        ("zerver_alertword", "user_profile"),
        ("zerver_userstatus", "user_profile"),
        ("zerver_service", "user_profile"),
        ("zerver_savedsnippet", "user_profile"),
        ("zerver_navigationview", "user"),
        ("zerver_botstoragedata", "bot_profile"),
        ("zerver_userpresence", "user_profile"),
    ];
    for (table, user) in own {
        check_refs(table, rows(tables, table)?, &[(user, users, false)])?;
    }
    let muted = rows(tables, "zerver_muteduser")?;
    check_refs("zerver_muteduser", muted, &[("user_profile", users, false), ("muted_user", users, false)])
}

/// Checks `realm.json` and `attachment.json` whole; nothing is written before.
pub fn check_archive(realm_json: &str, attachment_json: &str) -> ApiResult<RealmArchive> {
    let tables = parse_object(realm_json, "realm.json")?;
    let attachment_file = parse_object(attachment_json, "attachment.json")?;
    let realm = rows(&tables, "zerver_realm")?.first().ok_or_else(|| invalid_archive("realm.json has no zerver_realm row"))?;
    let old_realm_id = int(realm, "id").ok_or_else(|| invalid_archive("zerver_realm has no id"))?;
    let date_created = realm.get("date_created").and_then(Value::as_f64).unwrap_or(0.0);
    let (user_rows, recipient_rows) = (all_users(&tables, date_created)?, all_recipients(&tables)?);
    let users = ids("zerver_userprofile", &user_rows)?;
    let channels = ids("zerver_stream", rows(&tables, "zerver_stream")?)?;
    let folders = ids("zerver_channelfolder", rows(&tables, "zerver_channelfolder")?)?;
    let dm_table = table_name(&tables, &["zerver_directmessagegroup", "zerver_huddle"]);
    let dm_groups = ids(dm_table, rows(&tables, dm_table)?)?;
    let recipients = ids("zerver_recipient", &recipient_rows)?;
    let group_table = table_name(&tables, &["zerver_namedusergroup", "zerver_usergroup"]);
    let mut groups = ids(group_table, rows(&tables, group_table)?)?;
    if group_table != "zerver_usergroup" {
        // Zulip 9+: every group is in zerver_usergroup (memberships name those), the named
        // ones also in zerver_namedusergroup; the rest are settings' anonymous groups.
        groups.extend(ids("zerver_usergroup", rows(&tables, "zerver_usergroup")?)?);
    }
    let fields = ids("zerver_customprofilefield", rows(&tables, "zerver_customprofilefield")?)?;
    let attachments = rows(&attachment_file, "zerver_attachment")?.to_vec();
    ids("zerver_attachment", &attachments)?;
    ids("zerver_realmemoji", rows(&tables, "zerver_realmemoji")?)?;

    check_refs("zerver_userprofile", &user_rows, &[("bot_owner", &users, true)])?;
    for u in &user_rows {
        if !u.get("email").is_some_and(Value::is_string) || !u.get("full_name").is_some_and(Value::is_string) {
            return Err(invalid_archive("a row of zerver_userprofile has no email or full_name"));
        }
    }
    check_unique("zerver_userprofile", &user_rows, "delivery_email")?;
    check_unique("zerver_stream", rows(&tables, "zerver_stream")?, "name")?;
    check_refs("zerver_channelfolder", rows(&tables, "zerver_channelfolder")?, &[("creator", &users, true)])?;
    check_refs("zerver_stream", rows(&tables, "zerver_stream")?, &[("creator", &users, true), ("folder", &folders, true)])?;
    for r in &recipient_rows {
        let known = match int(r, "type") {
            Some(1) => &users,
            Some(2) => &channels,
            Some(3) => &dm_groups,
            _ => return Err(invalid_archive("zerver_recipient holds an unknown recipient type")),
        };
        check_ref("zerver_recipient", r, "type_id", known, false)?;
    }
    let subs = rows(&tables, "zerver_subscription")?;
    check_refs("zerver_subscription", subs, &[("user_profile", &users, false), ("recipient", &recipients, false)])?;
    check_refs(group_table, rows(&tables, group_table)?, &[("creator", &users, true)])?;
    let memberships = rows(&tables, "zerver_usergroupmembership")?;
    check_refs("zerver_usergroupmembership", memberships, &[("user_group", &groups, false), ("user_profile", &users, false)])?;
    let subgroups = rows(&tables, "zerver_groupgroupmembership")?;
    check_refs("zerver_groupgroupmembership", subgroups, &[("supergroup", &groups, false), ("subgroup", &groups, false)])?;
    let values = rows(&tables, "zerver_customprofilefieldvalue")?;
    check_refs("zerver_customprofilefieldvalue", values, &[("field", &fields, false), ("user_profile", &users, false)])?;
    check_user_lists(rows(&tables, "zerver_customprofilefield")?, values, &users)?;
    check_refs("zerver_realmemoji", rows(&tables, "zerver_realmemoji")?, &[("author", &users, true)])?;
    check_refs("zerver_usertopic", rows(&tables, "zerver_usertopic")?, &[("user_profile", &users, false), ("stream", &channels, false)])?;
    check_refs("zerver_defaultstream", rows(&tables, "zerver_defaultstream")?, &[("stream", &channels, false)])?;
    check_users_own_rows(&tables, &users, &recipients)?;
    check_refs("zerver_attachment", &attachments, &[("owner", &users, false)])?;
    check_files(&tables, &attachments)?;

    Ok(RealmArchive {
        old_realm_id,
        name: realm.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
        description: realm.get("description").and_then(Value::as_str).unwrap_or("").to_string(),
        date_created: date_created as i64,
        message_retention_days: realm.get("message_retention_days").and_then(Value::as_i64).filter(|d| *d > 0).unwrap_or(-1),
        image_versions: ["icon_version", "logo_version", "night_logo_version"].map(|f| int(realm, f).filter(|v| *v > 0).unwrap_or(1)),
        announcement_channels: ANNOUNCEMENT_CHANNEL_FIELDS.map(|f| int(realm, f)),
        realm_row: realm.clone(),
        user_settings_defaults: rows(&tables, "zerver_realmuserdefault")?
            .first()
            .map_or_else(|| "{}".to_string(), |row| changed_settings(row, user_settings::organization_default_settings())),
        tables,
        users: user_rows,
        recipients: recipient_rows,
        attachments,
    })
}

/// The `zerver_realm` fields naming the channels the notification bot posts to, in the
/// order of [`RealmArchive::announcement_channels`].
const ANNOUNCEMENT_CHANNEL_FIELDS: [&str; 4] =
    ["new_stream_announcements_stream", "signup_announcements_stream", "zulip_update_announcements_stream", "moderation_request_channel"];

/// Zulip's names of its system bots, which its exports list in
/// `zerver_userprofile_crossrealm`.
const SYSTEM_BOTS: [(&str, &str); 3] = [
    ("notification-bot@zulip.com", "Notification Bot"),
    ("welcome-bot@zulip.com", "Welcome Bot"),
    ("emailgateway@zulip.com", "Email Gateway"),
];

/// The archive's users: `zerver_userprofile`, the mirror dummies Zulip keeps in
/// `zerver_userprofile_mirrordummy`, and the exporting server's system bots
/// (`zerver_userprofile_crossrealm`, only `{id, email, recipient_id}`), which sent the
/// welcome and notification messages: they become bots of the new organization.
fn all_users(tables: &Map<String, Value>, date_created: f64) -> ApiResult<Vec<Value>> {
    let mut users = rows(tables, "zerver_userprofile")?.to_vec();
    users.extend(rows(tables, "zerver_userprofile_mirrordummy")?.iter().cloned());
    for bot in rows(tables, "zerver_userprofile_crossrealm")? {
        let email = bot.get("email").and_then(Value::as_str).unwrap_or("");
        let name = SYSTEM_BOTS.iter().find(|(e, _)| *e == email).map_or(email.split('@').next().unwrap_or(email), |(_, n)| n);
        users.push(json!({ "id": bot.get("id"), "email": email, "delivery_email": email, "full_name": name, "is_bot": true,
            "bot_type": 1, "is_active": true, "role": 400, "date_joined": date_created }));
    }
    Ok(users)
}

/// The archive's recipients, with the system bots' personal recipients (Zulip names them
/// only in `zerver_userprofile_crossrealm`), which direct messages to those bots use.
fn all_recipients(tables: &Map<String, Value>) -> ApiResult<Vec<Value>> {
    let mut recipients = rows(tables, "zerver_recipient")?.to_vec();
    let known: BTreeSet<i64> = recipients.iter().filter_map(|r| int(r, "id")).collect();
    for bot in rows(tables, "zerver_userprofile_crossrealm")? {
        if let (Some(id), Some(user)) = (int(bot, "recipient_id"), int(bot, "id")) {
            if !known.contains(&id) {
                recipients.push(json!({ "id": id, "type": 1, "type_id": user }));
            }
        }
    }
    Ok(recipients)
}

/// The values of "users" profile fields (a JSON list of user ids) name users of the archive.
fn check_user_lists(fields: &[Value], values: &[Value], users: &BTreeSet<i64>) -> ApiResult<()> {
    let user_fields: BTreeSet<i64> =
        fields.iter().filter(|f| int(f, "field_type") == Some(USER_FIELD)).filter_map(|f| int(f, "id")).collect();
    for v in values.iter().filter(|v| int(v, "field").is_some_and(|f| user_fields.contains(&f))) {
        let text = v.get("value").and_then(Value::as_str).unwrap_or("");
        let ids: Vec<i64> = serde_json::from_str(text).map_err(|_| {
            invalid_archive(format!("zerver_customprofilefieldvalue holds '{text}' for a users field, not a list of user ids"))
        })?;
        if let Some(id) = ids.iter().find(|id| !users.contains(id)) {
            return Err(invalid_archive(format!("zerver_customprofilefieldvalue refers to user {id}, which is not in the archive")));
        }
    }
    Ok(())
}

/// Upload paths stay inside the uploads folder; emoji file names are plain names.
fn check_files(tables: &Map<String, Value>, attachments: &[Value]) -> ApiResult<()> {
    for a in attachments {
        let path = a.get("path_id").and_then(Value::as_str).unwrap_or("");
        if !safe_upload_path(path) {
            return Err(invalid_archive(format!("the upload path '{path}' leaves the uploads folder")));
        }
    }
    for e in rows(tables, "zerver_realmemoji")? {
        let file = e.get("file_name").and_then(Value::as_str).unwrap_or("");
        if file.contains('/') || !safe_member_path(file) {
            return Err(invalid_archive(format!("the emoji file name '{file}' leaves the emoji folder")));
        }
    }
    Ok(())
}

/// An upload path of the archive: `<realm id>/<more segments>`, none of them `..`.
pub fn safe_upload_path(path: &str) -> bool {
    safe_member_path(path) && path.contains('/')
}

/// An upload's path on this server: the archive's path under the new organization's id.
pub fn new_upload_path(old_path: &str, realm_id: i64) -> String {
    let rest = old_path.split_once('/').map_or(old_path, |(_, rest)| rest);
    format!("{realm_id}/{rest}")
}

/// Which of the organization's images a file of `realm_icons/` is, by its name
/// (`icon.original`, `logo.png`, `night_logo.png`, ...).
pub fn realm_image_of(path: &str) -> Option<RealmImage> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.split('.').next().unwrap_or(name) {
        "icon" => Some(RealmImage::Icon),
        "logo" => Some(RealmImage::Logo { night: false }),
        "night_logo" => Some(RealmImage::Logo { night: true }),
        _ => None,
    }
}

/// An imported image's content type and the file name it is stored under: the type its
/// bytes hold (an image type this server serves, or the archive is refused) and a name
/// made from the bytes, so a file sent twice lands on the same object.
pub fn imported_image(what: &str, bytes: &[u8]) -> ApiResult<(&'static str, String)> {
    let (content_type, extension) = crate::domain::realm_emoji::image_type_of(bytes)
        .ok_or_else(|| invalid_archive(format!("{what} is not an image this server can show")))?;
    let hash = crate::secrets::sha256_hex(bytes);
    Ok((content_type, format!("imported-{}.{extension}", &hash[..32])))
}

impl RealmArchive {
    /// The rows to write, every table after those it refers to.
    pub fn into_rows(self, realm_id: i64) -> ApiResult<Vec<Rows>> {
        let t = &self.tables;
        let (channel_subs, dm_members, dm_groups) = subscriptions(t, &self.recipients)?;
        let (system, named, memberships) = user_groups(t)?;
        let emoji: Vec<Value> = rows(t, "zerver_realmemoji")?
            .iter()
            .map(|e| {
                let mut e = e.clone();
                let file = e.get("file_name").and_then(Value::as_str).unwrap_or("").to_string();
                e["content_type"] = json!(crate::domain::uploads::content_type_for("", &file));
                e
            })
            .collect();
        let attachments: Vec<Value> = self.attachments.iter().map(|a| with_new_upload_path(a, realm_id)).collect();
        let users: Vec<Value> = self
            .users
            .iter()
            .map(|u| {
                let mut u = u.clone();
                u["imported_settings"] = json!(imported_settings(&u));
                u
            })
            .collect();
        let group_settings: Vec<Value> = named.iter().filter(|g| g.get("is_anonymous").is_none()).cloned().collect();
        Ok(vec![
            Rows::Own(Kind::User, users),
            // Groups before channels: channels' settings name them.
            Rows::SystemGroups(system),
            Rows::Own(Kind::UserGroup, named),
            Rows::Own(Kind::ChannelFolder, rows(t, "zerver_channelfolder")?.to_vec()),
            Rows::Own(Kind::Channel, rows(t, "zerver_stream")?.iter().map(channel_row).collect()),
            Rows::Own(Kind::DirectMessageGroup, dm_groups.clone()),
            Rows::Own(Kind::Recipient, self.recipients.clone()),
            Rows::Links(Link::DirectMessageGroupMember, dm_members),
            Rows::Own(Kind::Subscription, channel_subs),
            Rows::Links(Link::UserGroupMember, memberships),
            Rows::Links(Link::Subgroup, rows(t, "zerver_groupgroupmembership")?.to_vec()),
            Rows::Links(Link::GroupSettings, group_settings),
            Rows::Own(Kind::ProfileField, rows(t, "zerver_customprofilefield")?.to_vec()),
            Rows::Links(Link::ProfileFieldValue, rows(t, "zerver_customprofilefieldvalue")?.to_vec()),
            Rows::Own(Kind::Emoji, emoji),
            Rows::Links(Link::Linkifier, rows(t, "zerver_realmfilter")?.to_vec()),
            Rows::Links(Link::RealmDomain, rows(t, "zerver_realmdomain")?.to_vec()),
            Rows::Links(Link::Playground, rows(t, "zerver_realmplayground")?.to_vec()),
            Rows::Links(Link::AlertWord, rows(t, "zerver_alertword")?.to_vec()),
            Rows::Links(Link::MutedUser, rows(t, "zerver_muteduser")?.to_vec()),
            Rows::Links(Link::UserStatus, rows(t, "zerver_userstatus")?.to_vec()),
            Rows::Links(Link::BotService, rows(t, "zerver_service")?.iter().map(with_new_token).collect()),
            Rows::Links(Link::BotStorage, rows(t, "zerver_botstoragedata")?.to_vec()),
            Rows::Links(Link::SavedSnippet, rows(t, "zerver_savedsnippet")?.to_vec()),
            Rows::Links(Link::NavigationView, rows(t, "zerver_navigationview")?.to_vec()),
            Rows::Links(Link::Presence, rows(t, "zerver_userpresence")?.to_vec()),
            Rows::Links(Link::ScheduledMessage, scheduled_messages(t, &self.recipients, &dm_groups)?),
            Rows::Own(Kind::Attachment, attachments),
            Rows::Own(Kind::UserTopic, rows(t, "zerver_usertopic")?.to_vec()),
            Rows::Links(Link::DefaultChannel, rows(t, "zerver_defaultstream")?.to_vec()),
        ])
    }
}

/// The pending scheduled messages and reminders as this server keeps them: to a `channel`, or to
/// `to_users` (the other person, the sender alone, or the group's others), from the
/// `client` named in `zerver_client`.
fn scheduled_messages(t: &Map<String, Value>, recipients: &[Value], dm_groups: &[Value]) -> ApiResult<Vec<Value>> {
    let clients: HashMap<i64, &str> =
        rows(t, "zerver_client")?.iter().filter_map(|c| Some((int(c, "id")?, c.get("name")?.as_str()?))).collect();
    let recipients: HashMap<i64, (i64, i64)> =
        recipients.iter().filter_map(|r| Some((int(r, "id")?, (int(r, "type")?, int(r, "type_id")?)))).collect();
    let members: HashMap<i64, Vec<i64>> =
        dm_groups.iter().filter_map(|g| Some((int(g, "id")?, serde_json::from_value(g.get("members")?.clone()).ok()?))).collect();
    let mut out = Vec::new();
    for m in rows(t, "zerver_scheduledmessage")?.iter().filter(|m| m.get("delivered") != Some(&Value::Bool(true))) {
        let (Some(sender), Some(&(kind, type_id))) = (int(m, "sender"), int(m, "recipient").and_then(|r| recipients.get(&r))) else {
            continue;
        };
        let mut row = m.clone();
        match kind {
            2 => row["channel"] = json!(type_id),
            1 => row["to_users"] = json!([type_id]),
            _ => {
                let mut others: Vec<i64> = members.get(&type_id).into_iter().flatten().copied().filter(|u| *u != sender).collect();
                others.sort_unstable();
                row["to_users"] = json!(others);
            }
        }
        row["client"] = json!(int(m, "sending_client").and_then(|c| clients.get(&c)).copied().unwrap_or("Zulip import"));
        out.push(row);
    }
    Ok(out)
}

/// A bot's service with a token of its own, as Zulip's importer gives one: the archive's
/// may be known to whoever read the archive.
fn with_new_token(service: &Value) -> Value {
    let mut service = service.clone();
    service["token"] = json!(crate::secrets::random_alphanumeric(32));
    service
}

/// A channel with its topics policy as this server stores it (Zulip numbers them; an
/// archive from before topics policies has none: the organization's).
fn channel_row(channel: &Value) -> Value {
    let policy = int(channel, "topics_policy").and_then(TopicsPolicy::from_zulip_channel_number);
    let mut channel = channel.clone();
    channel["topics_policy"] = json!(policy.unwrap_or(TopicsPolicy::Inherit).as_str());
    channel
}

/// A Zulip user row's personal settings as this server keeps them (`users.settings`).
fn imported_settings(user: &Value) -> String {
    changed_settings(user, user_settings::SETTINGS.iter().filter(|s| s.storage == user_settings::Storage::Json))
}

/// Of `settings`, those the row gives a value this server accepts other than the default,
/// as a JSON object.
fn changed_settings<'a>(user: &Value, settings: impl Iterator<Item = &'a user_settings::Setting>) -> String {
    let mut out = Map::new();
    for setting in settings {
        let raw = match user.get(setting.name) {
            Some(Value::String(text)) => text.clone(),
            Some(v @ (Value::Bool(_) | Value::Number(_))) => v.to_string(),
            _ => continue,
        };
        let Ok(value) = user_settings::parse_value(setting, &raw, |_| true) else { continue };
        if serde_json::from_str::<Value>(setting.default).ok().as_ref() != Some(&value) {
            out.insert(setting.name.to_string(), value);
        }
    }
    Value::Object(out).to_string()
}

/// Rows split so each list's JSON stays under `max_bytes` (one bound value of a statement).
pub fn split_rows(rows: &[Value], max_bytes: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<&Value> = Vec::new();
    let mut size = 2;
    for row in rows {
        let len = row.to_string().len() + 1;
        if !current.is_empty() && size + len > max_bytes {
            out.push(Value::from(current.iter().map(|v| (*v).clone()).collect::<Vec<_>>()).to_string());
            current.clear();
            size = 2;
        }
        current.push(row);
        size += len;
    }
    if !current.is_empty() {
        out.push(Value::from(current.into_iter().cloned().collect::<Vec<_>>()).to_string());
    }
    out
}

/// The ids already mapped, by kind name (`db::realm_imports::Kind::name`).
pub type IdMaps = HashMap<String, HashMap<i64, i64>>;

/// A checked chunk of the organization's large tables, sent after its start: channel
/// subscriptions (the rows of `zerver_subscription` whose recipient is a channel, each with
/// its archive `channel`) and attachments (with their paths on this server).
pub struct TableChunk {
    pub subscriptions: Vec<Value>,
    pub attachments: Vec<Value>,
}

/// Checks a chunk (`zerver_subscription`, `zerver_attachment`) against what the import
/// holds (`channel_of_recipient`: this server's recipient id -> channel id). The
/// subscriptions of direct-message groups make the groups, so they go with `realm.json`.
pub fn check_table_chunk(text: &str, maps: &IdMaps, channel_of_recipient: &HashMap<i64, i64>, realm_id: i64) -> ApiResult<TableChunk> {
    let chunk = parse_object(text, "the tables chunk")?;
    let (user, recipient) = (known(maps, Kind::User), known(maps, Kind::Recipient));
    let old_channel: HashMap<i64, i64> =
        maps.get(Kind::Channel.name()).map(|m| m.iter().map(|(old, new)| (*new, *old)).collect()).unwrap_or_default();
    let subscription_rows = rows(&chunk, "zerver_subscription")?;
    ids("zerver_subscription", subscription_rows)?;
    let mut subscriptions = Vec::new();
    for s in subscription_rows {
        user(int(s, "user_profile")).ok_or_else(|| missing("zerver_subscription", "user_profile", s))?;
        let new_recipient = recipient(int(s, "recipient")).ok_or_else(|| missing("zerver_subscription", "recipient", s))?;
        let channel = channel_of_recipient
            .get(&new_recipient)
            .and_then(|c| old_channel.get(c))
            .ok_or_else(|| invalid_archive("zerver_subscription rows of direct messages go with realm.json, not in a later chunk"))?;
        let mut s = s.clone();
        s["channel"] = json!(channel);
        subscriptions.push(s);
    }
    let attachment_rows = rows(&chunk, "zerver_attachment")?;
    ids("zerver_attachment", attachment_rows)?;
    check_files(&Map::new(), attachment_rows)?;
    let mut attachments = Vec::new();
    for a in attachment_rows {
        user(int(a, "owner")).ok_or_else(|| missing("zerver_attachment", "owner", a))?;
        attachments.push(with_new_upload_path(a, realm_id));
    }
    Ok(TableChunk { subscriptions, attachments })
}

/// An attachment row with its upload's path on this server.
fn with_new_upload_path(a: &Value, realm_id: i64) -> Value {
    let mut a = a.clone();
    let path = a.get("path_id").and_then(Value::as_str).unwrap_or("").to_string();
    a["path_id"] = json!(new_upload_path(&path, realm_id));
    a
}

/// One checked chunk of messages with their personal rows, reactions and upload links.
pub struct MessageChunk {
    pub message_ids: Vec<i64>,
    pub messages: Vec<Value>,
    pub user_messages: Vec<Value>,
    pub reactions: Vec<Value>,
    pub attachment_links: Vec<Value>,
}

fn known<'a>(maps: &'a IdMaps, kind: Kind) -> impl Fn(Option<i64>) -> Option<i64> + 'a {
    move |id| maps.get(kind.name()).and_then(|m| m.get(&id?)).copied()
}

fn missing(table: &str, field: &str, row: &Value) -> ApiError {
    invalid_archive(format!("{table} refers to {field} {}, which is not in the archive", row.get(field).unwrap_or(&Value::Null)))
}

/// Checks a chunk (`zerver_message`, `zerver_usermessage`, `zerver_reaction`,
/// `attachment_messages`) against what the import holds, and rewrites the contents to
/// this server's ids.
pub fn check_message_chunk(text: &str, maps: &IdMaps, old_realm_id: i64, realm_id: RealmId) -> ApiResult<MessageChunk> {
    let chunk = parse_object(text, "the messages chunk")?;
    let messages = rows(&chunk, "zerver_message")?;
    let message_ids: BTreeSet<i64> = ids("zerver_message", messages)?;
    let (user, recipient, emoji, attachment) =
        (known(maps, Kind::User), known(maps, Kind::Recipient), known(maps, Kind::Emoji), known(maps, Kind::Attachment));
    let in_chunk = |row: &Value, field: &str| int(row, field).is_some_and(|id| message_ids.contains(&id));
    let mut out = Vec::new();
    for m in messages {
        user(int(m, "sender")).ok_or_else(|| missing("zerver_message", "sender", m))?;
        recipient(int(m, "recipient")).ok_or_else(|| missing("zerver_message", "recipient", m))?;
        out.push(rewrite_message(m, maps, old_realm_id, realm_id)?);
    }
    let mut user_messages = Vec::new();
    for um in rows(&chunk, "zerver_usermessage")? {
        user(int(um, "user_profile")).ok_or_else(|| missing("zerver_usermessage", "user_profile", um))?;
        if !in_chunk(um, "message") {
            return Err(missing("zerver_usermessage", "message", um));
        }
        let mask = int(um, "flags_mask").or_else(|| int(um, "flags")).unwrap_or(0);
        user_messages
            .push(json!({ "user_profile": um["user_profile"], "message": um["message"], "flags": message_flags::from_zulip_mask(mask) }));
    }
    let mut reactions = Vec::new();
    for r in rows(&chunk, "zerver_reaction")? {
        user(int(r, "user_profile")).ok_or_else(|| missing("zerver_reaction", "user_profile", r))?;
        if !in_chunk(r, "message") {
            return Err(missing("zerver_reaction", "message", r));
        }
        let mut r = r.clone();
        if r.get("reaction_type").and_then(Value::as_str) == Some("realm_emoji") {
            let code = r.get("emoji_code").and_then(Value::as_str).and_then(|c| c.parse().ok());
            let new = emoji(code).ok_or_else(|| missing("zerver_reaction", "emoji_code", &r))?;
            r["emoji_code"] = json!(new.to_string());
        }
        reactions.push(r);
    }
    let mut attachment_links = Vec::new();
    for l in rows(&chunk, "attachment_messages")? {
        attachment(int(l, "attachment")).ok_or_else(|| missing("attachment_messages", "attachment", l))?;
        if !in_chunk(l, "message") {
            return Err(missing("attachment_messages", "message", l));
        }
        attachment_links.push(l.clone());
    }
    Ok(MessageChunk { message_ids: message_ids.into_iter().collect(), messages: out, user_messages, reactions, attachment_links })
}

/// A message with its contents naming this server's uploads, users, channels and groups;
/// rendered again only when the archive has no rendering.
fn rewrite_message(m: &Value, maps: &IdMaps, old_realm_id: i64, realm_id: RealmId) -> ApiResult<Value> {
    let mut m = m.clone();
    let content = m.get("content").and_then(Value::as_str).ok_or_else(|| missing("zerver_message", "content", &m))?.to_string();
    let old_uploads = format!("/user_uploads/{old_realm_id}/");
    let new_uploads = format!("/user_uploads/{realm_id}/");
    let rendered = match m.get("rendered_content").and_then(Value::as_str) {
        Some(html) => rewrite_ids(&html.replace(&old_uploads, &new_uploads), maps),
        None => crate::markdown::render(&content.replace(&old_uploads, &new_uploads), &Default::default()).html,
    };
    m["content"] = json!(content.replace(&old_uploads, &new_uploads));
    m["rendered_content"] = json!(rendered);
    if !m.get("sending_client").is_some_and(Value::is_string) {
        m["sending_client"] = json!("Zulip import");
    }
    if let Some(history) = m.get("edit_history").and_then(|h| rewrite_edit_history(h, maps, (&old_uploads, &new_uploads))) {
        // Zulip keeps no time of the last move: its API reads it from the history.
        if m.get("last_moved_time").is_none_or(Value::is_null) {
            m["last_moved_time"] = last_move(&history).map_or(Value::Null, Value::from);
        }
        m["edit_history"] = json!(history);
    }
    // Zulip stores no "/me" flag either: it is the content's prefix.
    if m.get("is_me_message").is_none_or(Value::is_null) {
        m["is_me_message"] = json!(content.starts_with("/me "));
    }
    Ok(m)
}

/// The time of the latest move (topic or channel) in an edit history (JSON text).
fn last_move(history: &str) -> Option<i64> {
    let entries: Vec<Value> = serde_json::from_str(history).ok()?;
    entries
        .iter()
        .filter(|e| e.get("prev_topic").is_some() || e.get("prev_stream").is_some())
        .filter_map(|e| e.get("timestamp").and_then(Value::as_f64))
        .map(|t| t as i64)
        .max()
}

/// A message's edit history (JSON text, as Zulip exports it, or a list) naming this
/// server's ids: each editor (`user_id`; one the archive does not hold becomes null, as
/// Zulip's unknown editors are), each move's channels (`prev_stream`, `stream`; a move
/// from or to a channel the archive does not hold loses both), and the uploads and
/// mentions of earlier versions. Answers the history as JSON text (`None`: none).
fn rewrite_edit_history(history: &Value, maps: &IdMaps, (old_uploads, new_uploads): (&str, &str)) -> Option<String> {
    let entries = match history {
        Value::String(text) => serde_json::from_str::<Value>(text).unwrap_or_else(|_| history.clone()),
        Value::Null => return None,
        other => other.clone(),
    };
    let Value::Array(mut entries) = entries else { return Some(entries.to_string()) };
    let (user, channel) = (known(maps, Kind::User), known(maps, Kind::Channel));
    for entry in entries.iter_mut().filter_map(Value::as_object_mut) {
        if let Some(old) = entry.get("user_id").filter(|v| !v.is_null()) {
            let new = user(old.as_i64()).map_or(Value::Null, Value::from);
            entry.insert("user_id".into(), new);
        }
        if entry.contains_key("prev_stream") || entry.contains_key("stream") {
            match (channel(entry.get("prev_stream").and_then(Value::as_i64)), channel(entry.get("stream").and_then(Value::as_i64))) {
                (Some(prev), Some(to)) => {
                    entry.insert("prev_stream".into(), Value::from(prev));
                    entry.insert("stream".into(), Value::from(to));
                }
                _ => {
                    entry.remove("prev_stream");
                    entry.remove("stream");
                }
            }
        }
        if let Some(Value::String(content)) = entry.get_mut("prev_content") {
            *content = content.replace(old_uploads, new_uploads);
        }
        if let Some(Value::String(html)) = entry.get_mut("prev_rendered_content") {
            *html = rewrite_ids(&html.replace(old_uploads, new_uploads), maps);
        }
    }
    Some(Value::Array(entries).to_string())
}

/// The ids in rendered HTML that name users, channels and groups (mentions and links).
fn rewrite_ids(html: &str, maps: &IdMaps) -> String {
    let mut out = html.to_string();
    for (attribute, kind) in [("data-user-id", Kind::User), ("data-stream-id", Kind::Channel), ("data-user-group-id", Kind::UserGroup)] {
        let Some(map) = maps.get(kind.name()) else { continue };
        let pattern = regex::Regex::new(&format!(r#"{attribute}="(\d+)""#)).expect("a valid pattern");
        out = pattern
            .replace_all(&out, |caps: &regex::Captures| {
                let old: i64 = caps[1].parse().unwrap_or(0);
                match map.get(&old) {
                    Some(new) => format!(r#"{attribute}="{new}""#),
                    None => caps[0].to_string(),
                }
            })
            .into_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn realm(extra: Value) -> String {
        let mut base = json!({
            "zerver_realm": [{ "id": 7, "name": "Old", "date_created": 100.0 }],
            "zerver_userprofile": [{ "id": 1, "email": "a@x.com", "full_name": "A" }],
            "zerver_stream": [{ "id": 3, "name": "general" }],
            "zerver_recipient": [{ "id": 10, "type": 1, "type_id": 1 }, { "id": 11, "type": 2, "type_id": 3 }],
            "zerver_subscription": [{ "id": 1, "user_profile": 1, "recipient": 11 }],
        });
        for (k, v) in extra.as_object().unwrap() {
            base[k] = v.clone();
        }
        base.to_string()
    }

    #[test]
    fn a_consistent_archive_is_accepted() {
        let archive = check_archive(&realm(json!({})), r#"{"zerver_attachment": []}"#).unwrap();
        assert_eq!(archive.old_realm_id, 7);
        assert_eq!(archive.date_created, 100);
    }

    #[test]
    fn a_reference_outside_the_archive_is_refused() {
        let bad = realm(json!({ "zerver_subscription": [{ "id": 1, "user_profile": 99, "recipient": 11 }] }));
        let err = check_archive(&bad, "{}").err().unwrap();
        assert!(err.msg.contains("user_profile 99"), "{}", err.msg);
    }

    #[test]
    fn an_upload_path_leaving_its_folder_is_refused() {
        let attachments = r#"{"zerver_attachment": [{"id": 1, "owner": 1, "path_id": "7/../../secret"}]}"#;
        assert!(check_archive(&realm(json!({})), attachments).is_err());
        assert_eq!(new_upload_path("7/ab/cd/file.txt", 42), "42/ab/cd/file.txt");
    }

    #[test]
    fn two_users_with_one_email_are_refused() {
        let twice = json!([{ "id": 1, "email": "a@x.com", "full_name": "A" }, { "id": 2, "email": "A@x.com", "full_name": "B" }]);
        let err = check_archive(&realm(json!({ "zerver_userprofile": twice })), "{}").err().unwrap();
        assert!(err.msg.contains("holds delivery_email 'a@x.com' twice"), "{}", err.msg);
    }

    #[test]
    fn broken_json_is_refused() {
        assert!(check_archive("{\"zerver_realm\": [", "{}").err().unwrap().msg.contains("not valid JSON"));
    }

    #[test]
    fn zulips_system_bots_and_mirror_dummies_are_users_of_the_archive() {
        let extra = json!({
            "zerver_userprofile_mirrordummy": [{ "id": 2, "email": "old@x.com", "full_name": "Old", "is_mirror_dummy": true }],
            "zerver_userprofile_crossrealm": [{ "id": 90, "email": "welcome-bot@zulip.com", "recipient_id": 91 }],
            "zerver_subscription": [{ "id": 1, "user_profile": 2, "recipient": 11 }],
        });
        let archive = check_archive(&realm(extra), "{}").unwrap();
        let bot = archive.users.iter().find(|u| u["id"] == 90).unwrap();
        assert_eq!((&bot["full_name"], &bot["is_bot"]), (&json!("Welcome Bot"), &json!(true)));
        assert!(archive.recipients.contains(&json!({ "id": 91, "type": 1, "type_id": 90 })));
        assert!(archive.users.iter().any(|u| u["id"] == 2));
    }

    #[test]
    fn memberships_of_anonymous_groups_are_not_refused() {
        let extra = json!({
            "zerver_usergroup": [{ "id": 20, "realm": 7 }, { "id": 29, "realm": 7 }],
            "zerver_namedusergroup": [{ "id": 20, "usergroup_ptr": 20, "name": "role:members", "is_system_group": true }],
            "zerver_usergroupmembership": [{ "id": 1, "user_group": 29, "user_profile": 1 }],
            "zerver_groupgroupmembership": [{ "id": 1, "supergroup": 29, "subgroup": 20 }],
        });
        assert!(check_archive(&realm(extra), "{}").is_ok());
    }

    #[test]
    fn rendered_mentions_name_the_new_ids() {
        let mut maps = IdMaps::new();
        maps.insert("user".into(), HashMap::from([(5, 50)]));
        assert_eq!(rewrite_ids(r#"<span data-user-id="5">@A</span>"#, &maps), r#"<span data-user-id="50">@A</span>"#);
    }

    #[test]
    fn edit_history_names_the_new_editor_and_channels() {
        let mut maps = IdMaps::new();
        maps.insert("user".into(), HashMap::from([(5, 50)]));
        maps.insert("channel".into(), HashMap::from([(3, 30), (4, 40)]));
        let history = json!(json!([
            { "user_id": 5, "timestamp": 1, "prev_stream": 3, "stream": 4 },
            { "user_id": 9, "timestamp": 2, "prev_stream": 8, "stream": 3, "prev_topic": "a", "topic": "b" },
        ])
        .to_string());
        let got: Value =
            serde_json::from_str(&rewrite_edit_history(&history, &maps, ("/user_uploads/1/", "/user_uploads/2/")).unwrap()).unwrap();
        assert_eq!(
            got,
            json!([
                { "user_id": 50, "timestamp": 1, "prev_stream": 30, "stream": 40 },
                { "user_id": null, "timestamp": 2, "prev_topic": "a", "topic": "b" },
            ])
        );
    }

    #[test]
    fn a_users_profile_value_must_name_users_of_the_archive() {
        let fields = json!({ "zerver_customprofilefield": [{ "id": 2, "name": "Mentor", "field_type": 6 }] });
        let mut extra = fields.clone();
        extra["zerver_customprofilefieldvalue"] = json!([{ "id": 1, "field": 2, "user_profile": 1, "value": "[1]" }]);
        assert!(check_archive(&realm(extra.clone()), "{}").is_ok());
        extra["zerver_customprofilefieldvalue"][0]["value"] = json!("[1, 77]");
        let err = check_archive(&realm(extra), "{}").err().unwrap();
        assert!(err.msg.contains("refers to user 77"), "{}", err.msg);
    }

    #[test]
    fn realm_icon_files_are_known_by_their_names() {
        assert_eq!(realm_image_of("7/icon.original"), Some(RealmImage::Icon));
        assert_eq!(realm_image_of("7/realm/night_logo.png"), Some(RealmImage::Logo { night: true }));
        assert_eq!(realm_image_of("7/logo.png"), Some(RealmImage::Logo { night: false }));
        assert_eq!(realm_image_of("7/favicon.png"), None);
    }

    #[test]
    fn zulip_flag_masks_translate_both_ways() {
        let ours = message_flags::READ | message_flags::STARRED | message_flags::HISTORICAL;
        assert_eq!(message_flags::from_zulip_mask(message_flags::to_zulip_mask(ours)), ours);
        assert_eq!(message_flags::to_zulip_mask(message_flags::HISTORICAL), 1 << 10);
    }
}
