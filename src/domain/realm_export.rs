//! Data exports of an organization in Zulip's export format: the rules of `POST
//! /export/realm` (rate limit, types), the `RealmExport` object, which rows an export type
//! may hold, and the `.tar.gz` archive itself.
//!
//! The archive holds one folder `zulip-export-<token>/` with `realm.json` (the tables as
//! `zerver_<table>` lists), `messages-000001.json` and on (`zerver_message` and
//! `zerver_usermessage`, 1000 messages a file), `attachment.json`, and `uploads/`,
//! `avatars/`, `emoji/`, `realm_icons/`, each with its `records.json` beside the files. Field names are
//! Zulip's; timestamps are UNIX seconds as floats, as Zulip writes them.

use std::collections::BTreeSet;
use std::mem::take;

use serde_json::{json, Map, Value};

use crate::db::realm_export_data::{RealmTables, Row};
use crate::db::realm_exports::{self, RealmExportRow};
use crate::domain::channels::COLORS;
use crate::domain::realm_export_groups::group_tables;
use crate::domain::user_settings::{self, EMAIL_ADDRESS_VISIBILITY};
use crate::domain::users::{VISIBLE_TO_EVERYONE, VISIBLE_TO_NOBODY};
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::model::{Role, TopicsPolicy};
use crate::secrets::sha256_hex;

/// `export_type`: public data only.
pub const EXPORT_PUBLIC: i64 = 1;
/// `export_type`: public data, plus the private data of members who consented.
pub const EXPORT_FULL_WITH_CONSENT: i64 = 2;
/// Exports an organization may request within [`RATE_LIMIT_WINDOW_SECS`] (Zulip's).
pub const EXPORT_LIMIT: i64 = 5;
pub const RATE_LIMIT_WINDOW_SECS: i64 = 7 * 24 * 3600;
/// Larger organizations need a manual export (Zulip's automatic-export limit).
pub const MAX_MESSAGE_HISTORY: i64 = 250_000;
/// Messages per `messages-NNNNNN.json` file (Zulip's chunk size).
pub const MESSAGES_PER_FILE: i64 = 1000;
/// Where export archives are served, under the organization's URL (as Zulip's local
/// storage does): `/user_avatars/exports/<realm_id>/<token>/<file>`.
pub const DOWNLOAD_PREFIX: &str = "/user_avatars/";

/// Zulip accepts the two export types and nothing else.
pub fn check_export_type(raw: Option<i64>) -> ApiResult<i64> {
    match raw.unwrap_or(EXPORT_PUBLIC) {
        t @ (EXPORT_PUBLIC | EXPORT_FULL_WITH_CONSENT) => Ok(t),
        _ => Err(ApiError::bad_request("Invalid export_type")),
    }
}

pub fn rate_limited() -> ApiError {
    ApiError::bad_request("Exceeded rate limit.")
}

pub fn too_large(support: &str) -> ApiError {
    ApiError::bad_request(format!(
        "The export you requested is too large for automatic processing. Please request a manual export by contacting {support}."
    ))
}

/// Zulip refuses an export after which no owner could sign in: one with private data needs
/// a consenting owner; a public one an owner whose real email address it may hold (not
/// visible to nobody). `owners` as `db::realm_export_data::owners` reads them.
pub fn check_usable(export_type: i64, owners: &[Row], support: &str) -> ApiResult<()> {
    let owner_rows = || owners.iter().filter(|u| id_of(u, "role") == Some(Role::Owner.code()));
    if export_type == EXPORT_FULL_WITH_CONSENT {
        let consenting = consenting_users(owners);
        if !owner_rows().any(|u| id_of(u, "id").is_some_and(|id| consenting.contains(&id))) {
            return Err(ApiError::bad_request(format!(
                "Make sure at least one Organization Owner is consenting to the export or contact {support} for help."
            )));
        }
    } else if !owner_rows().any(|u| id_of(u, "email_address_visibility") != Some(VISIBLE_TO_NOBODY)) {
        return Err(ApiError::bad_request(format!(
            "Make sure at least one Organization Owner allows other Administrators to see their email address or contact {support} for help"
        )));
    }
    Ok(())
}

pub fn invalid_export_id() -> ApiError {
    ApiError::bad_request("Invalid data export ID")
}

pub fn already_deleted() -> ApiError {
    ApiError::bad_request("Export already deleted")
}

/// Only a finished export can be deleted (Zulip's three refusals).
pub fn check_deletable(row: &RealmExportRow) -> ApiResult<()> {
    match row.status {
        realm_exports::DELETED => Err(already_deleted()),
        realm_exports::FAILED => Err(ApiError::bad_request("Export failed, nothing to delete")),
        realm_exports::REQUESTED | realm_exports::STARTED => Err(ApiError::bad_request("Export still in progress")),
        _ => Ok(()),
    }
}

/// The R2 key of an export's archive: unguessable, like Zulip's.
pub fn storage_key(realm_id: i64, token: &str) -> String {
    format!("exports/{realm_id}/{token}/zulip-export-{token}.tar.gz")
}

/// The `RealmExport` object of the API and of `realm_export` events.
pub fn export_dict(row: &RealmExportRow) -> Value {
    let export_url = match (row.status, &row.export_path) {
        (realm_exports::SUCCEEDED, Some(path)) => Value::from(format!("{}{DOWNLOAD_PREFIX}{path}", row.base_url)),
        _ => Value::Null,
    };
    let seconds = |t: Option<i64>| t.map_or(Value::Null, |t| Value::from(t as f64));
    json!({
        "id": row.id,
        "acting_user_id": row.acting_user_id,
        "export_time": row.date_requested as f64,
        "deleted_timestamp": seconds(row.date_deleted),
        "failed_timestamp": seconds(row.date_failed),
        "export_url": export_url,
        "pending": matches!(row.status, realm_exports::REQUESTED | realm_exports::STARTED),
        "export_type": row.export_type,
    })
}

/// Fields Zulip writes as booleans (SQLite answers 0/1).
const BOOLEAN_FIELDS: &[&str] = &[
    "deactivated",
    "invite_required",
    "emails_restricted_to_domains",
    "disallow_disposable_email_addresses",
    "allow_message_editing",
    "enable_read_receipts",
    "is_active",
    "is_bot",
    "is_mirror_dummy",
    "automatically_follow_topics_where_mentioned",
    "invite_only",
    "history_public_to_subscribers",
    "is_web_public",
    "active",
    "is_muted",
    "pin_to_top",
    "desktop_notifications",
    "audible_notifications",
    "push_notifications",
    "email_notifications",
    "wildcard_mentions_notify",
    "is_system_group",
    "display_in_profile_summary",
    "required",
    "editable_by_user",
    "allow_subdomains",
    "is_archived",
    "is_me_message",
    "is_pinned",
    "read_by_sender",
    "failed",
    "has_attachment",
    "has_image",
    "has_link",
];

/// Fields Zulip writes as UNIX seconds with a fraction.
const DATE_FIELDS: &[&str] = &[
    "date_created",
    "date_joined",
    "date_sent",
    "last_edit_time",
    "last_moved_time",
    "create_time",
    "last_updated",
    "date_muted",
    "timestamp",
    "last_active_time",
    "last_connected_time",
    "scheduled_timestamp",
    "request_timestamp",
];

/// One row as Zulip writes it: booleans as booleans, dates as floats.
pub fn zulip_row(mut row: Row) -> Value {
    for (name, value) in row.iter_mut() {
        if BOOLEAN_FIELDS.contains(&name.as_str()) {
            if let Some(n) = value.as_i64() {
                *value = Value::Bool(n != 0);
            }
        } else if DATE_FIELDS.contains(&name.as_str()) {
            if let Some(n) = value.as_i64() {
                *value = Value::from(n as f64);
            }
        }
    }
    Value::Object(row)
}

fn id_of(row: &Row, field: &str) -> Option<i64> {
    row.get(field).and_then(Value::as_i64)
}

/// The users whose private data a consent export holds, as Zulip counts them: people who
/// allow it (`allow_private_data_export`), bots that allow it or whose owner is such a
/// person, and imported stubs (Zulip's mirror dummies), whose data was public already.
fn consenting_users(users: &[Row]) -> BTreeSet<i64> {
    let is_bot = |u: &Row| id_of(u, "is_bot") == Some(1);
    let people: BTreeSet<i64> = users.iter().filter(|u| !is_bot(u) && consented(u)).filter_map(|u| id_of(u, "id")).collect();
    users
        .iter()
        .filter(|u| {
            let owner_consents = id_of(u, "bot_owner").is_some_and(|o| people.contains(&o));
            id_of(u, "is_mirror_dummy") == Some(1) || (is_bot(u) && (consented(u) || owner_consents))
        })
        .filter_map(|u| id_of(u, "id"))
        .chain(people.iter().copied())
        .collect()
}

/// Whether a user allows exporting their private data (a user setting).
fn consented(user: &Row) -> bool {
    let settings: Map<String, Value> =
        user.get("settings").and_then(Value::as_str).and_then(|s| serde_json::from_str(s).ok()).unwrap_or_default();
    settings.get("allow_private_data_export").and_then(Value::as_bool).unwrap_or(false)
}

/// What one export holds, decided from the organization's tables.
pub struct Selection {
    pub export_type: i64,
    /// The channels it holds: every public one (web-public included); private channels
    /// only through their messages to consenting members.
    pub channel_ids: Vec<i64>,
    /// The channels `realm.json` lists (with their recipients and subscriptions): with
    /// private data every channel, so the private channels' messages it holds have theirs.
    pub listed_channel_ids: Vec<i64>,
    pub consenting_user_ids: BTreeSet<i64>,
}

impl Selection {
    pub fn new(export_type: i64, tables: &RealmTables) -> Self {
        let channel_ids: Vec<i64> = tables
            .channels
            .iter()
            .filter(|c| c.get("invite_only").and_then(Value::as_i64) == Some(0))
            .filter_map(|c| id_of(c, "id"))
            .collect();
        let consenting_user_ids = if export_type == EXPORT_FULL_WITH_CONSENT { consenting_users(&tables.users) } else { BTreeSet::new() };
        let listed_channel_ids = if export_type == EXPORT_FULL_WITH_CONSENT {
            tables.channels.iter().filter_map(|c| id_of(c, "id")).collect()
        } else {
            channel_ids.clone()
        };
        Selection { export_type, channel_ids, listed_channel_ids, consenting_user_ids }
    }

    pub fn with_private_data(&self) -> bool {
        self.export_type == EXPORT_FULL_WITH_CONSENT
    }

    pub fn channel_ids_json(&self) -> String {
        Value::from(self.channel_ids.clone()).to_string()
    }

    /// The consenting users, a JSON list (empty in a public export).
    pub fn consenting_ids_json(&self) -> String {
        Value::from(self.consenting_user_ids.iter().copied().collect::<Vec<i64>>()).to_string()
    }
}

/// `messages-NNNNNN.json`'s name.
pub fn messages_file_name(number: usize) -> String {
    format!("messages-{number:06}.json")
}

/// The `zerver_client` id of the client `name`, added to `clients` when new.
fn client_id(clients: &mut Vec<String>, name: &str) -> usize {
    match clients.iter().position(|c| c == name) {
        Some(i) => i + 1,
        None => {
            clients.push(name.to_string());
            clients.len()
        }
    }
}

/// The client a status (or a scheduled message that names none) is exported as set from
/// (this server keeps none).
const STATUS_CLIENT: &str = "website";

/// One `messages-NNNNNN.json`: the messages with their client ids (collected in
/// `clients` for `zerver_client`) and the user-message rows, each given an id.
pub fn messages_file(messages: Vec<Row>, user_messages: Vec<Row>, clients: &mut Vec<String>, next_user_message_id: &mut i64) -> Value {
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|mut m| {
            let name = m.get("sending_client").and_then(Value::as_str).unwrap_or("").to_string();
            m.insert("sending_client".into(), Value::from(client_id(clients, &name)));
            zulip_row(m)
        })
        .collect();
    let user_messages: Vec<Value> = user_messages
        .into_iter()
        .map(|mut um| {
            *next_user_message_id += 1;
            um.insert("id".into(), Value::from(*next_user_message_id));
            if let Some(flags) = um.get("flags_mask").and_then(Value::as_i64) {
                um.insert("flags_mask".into(), Value::from(crate::model::message_flags::to_zulip_mask(flags)));
            }
            Value::Object(um)
        })
        .collect();
    json!({ "zerver_message": messages, "zerver_usermessage": user_messages })
}

/// `realm.json`: every table but messages, limited to what the selection holds. Private
/// channels, their subscriptions and direct-message groups stay out of a public export;
/// users' private data (their settings, subscriptions' settings, and [`personal_tables`])
/// is the consenting users' only ([`exported_users`]). The user groups and the
/// group-valued settings are `domain::realm_export_groups`'.
pub fn realm_file(mut tables: RealmTables, selection: &Selection, reactions: Vec<Row>, clients: &[String], email_domain: &str) -> Value {
    let listed: BTreeSet<i64> = selection.listed_channel_ids.iter().copied().collect();
    let public_channel = |row: &Row, field: &str| id_of(row, field).is_some_and(|id| listed.contains(&id));
    let channel_recipients: BTreeSet<i64> =
        tables.channels.iter().filter(|c| public_channel(c, "id")).filter_map(|c| id_of(c, "recipient")).collect();
    let private = selection.with_private_data();
    let consenting = &selection.consenting_user_ids;
    let mut clients = clients.to_vec();
    let personal = personal_tables(&mut tables, &listed, consenting, &mut clients);
    let kept_recipient = |r: &Row| match id_of(r, "type") {
        Some(2) => id_of(r, "id").is_some_and(|id| channel_recipients.contains(&id)),
        Some(3) => private,
        _ => true,
    };
    let rows = |rows: Vec<Row>| -> Vec<Value> { rows.into_iter().map(zulip_row).collect() };

    let mut subscriptions: Vec<Row> =
        tables.subscriptions.into_iter().filter(|s| id_of(s, "recipient").is_some_and(|r| channel_recipients.contains(&r))).collect();
    let mut groups = Vec::new();
    if private {
        add_group_subscriptions(&mut subscriptions, tables.direct_message_group_members);
        groups = tables.direct_message_groups;
    }
    let user_defaults = tables.realm.first_mut().and_then(|r| r.remove("user_settings_defaults"));
    let mut user_defaults = user_settings::organization_defaults(user_defaults.as_ref().and_then(Value::as_str).unwrap_or("{}"));
    user_defaults.retain(|name, _| user_settings::organization_default_settings().any(|s| s.name == name));
    let (users, dummies) = exported_users(take(&mut tables.users), selection, &user_defaults, email_domain);
    for s in subscriptions.iter_mut().filter(|s| id_of(s, "user_profile").is_some_and(|u| !consenting.contains(&u))) {
        scrub_subscription(s);
    }
    let mut realm_user_default = user_defaults;
    realm_user_default.insert("id".into(), json!(1));
    realm_user_default.insert("realm".into(), json!(tables.realm.first().and_then(|r| id_of(r, "id"))));
    let clients: Vec<Value> = clients.iter().enumerate().map(|(i, name)| json!({ "id": i + 1, "name": name })).collect();
    let mut channels: Vec<Row> = tables.channels.into_iter().filter(|c| public_channel(c, "id")).collect();
    let user_groups =
        group_tables(tables.user_groups, tables.user_group_members, tables.user_group_subgroups, &mut tables.realm, &mut channels);
    let mut file = json!({
        "zerver_realm": rows(tables.realm.into_iter().map(realm_row).collect()),
        "zerver_userprofile": users,
        "zerver_userprofile_crossrealm": [],
        "zerver_userprofile_mirrordummy": dummies,
        "zerver_realmuserdefault": [realm_user_default],
        "zerver_stream": rows(channels.into_iter().map(channel_row).collect()),
        "zerver_channelfolder": rows(tables.channel_folders),
        "zerver_recipient": rows(tables.recipients.into_iter().filter(kept_recipient).collect()),
        "zerver_subscription": rows(subscriptions),
        // Zulip's table name, kept through its rename to DirectMessageGroup.
        "zerver_huddle": rows(groups),
        "zerver_usergroup": user_groups.user_groups,
        "zerver_namedusergroup": user_groups.named_groups,
        "zerver_usergroupmembership": numbered(user_groups.memberships),
        "zerver_groupgroupmembership": numbered(user_groups.subgroups),
        "zerver_customprofilefield": rows(tables.profile_fields),
        "zerver_customprofilefieldvalue": numbered(tables.profile_field_values),
        "zerver_realmemoji": rows(tables.realm_emoji.into_iter().map(|mut e| { e.remove("author_email"); e }).collect()),
        "zerver_defaultstream": numbered(tables.default_channels.into_iter().filter(|d| public_channel(d, "stream")).collect()),
        "zerver_realmfilter": rows(tables.linkifiers),
        "zerver_realmdomain": numbered(tables.realm_domains),
        "zerver_reaction": rows(reactions),
        "zerver_realmplayground": rows(tables.playgrounds),
        "zerver_client": clients,
        // Which tool wrote the archive (Zulip's importer requires it).
        "import_source": "zulip",
    });
    for (table, rows) in personal {
        file[table] = Value::Array(rows);
    }
    for table in EMPTY_TABLES {
        file[table] = json!([]);
    }
    file
}

/// The users' own data: the consenting users' topics' visibility in the listed channels,
/// alert words, muted users, statuses (naming the client they were set from, which this
/// server does not keep: added to `clients`), saved snippets, views, and their bots'
/// services (`name`: the bot's short name) and storage; everyone's presence, which Zulip
/// counts as public.
fn personal_tables(
    tables: &mut RealmTables,
    listed: &BTreeSet<i64>,
    consenting: &BTreeSet<i64>,
    clients: &mut Vec<String>,
) -> Vec<(&'static str, Vec<Value>)> {
    let of_consenting = |rows: Vec<Row>, field: &str| -> Vec<Row> {
        rows.into_iter().filter(|row| id_of(row, field).is_some_and(|u| consenting.contains(&u))).collect()
    };
    let in_listed = |row: &Row| id_of(row, "stream").is_some_and(|c| listed.contains(&c));
    let own = |rows: Vec<Row>| -> Vec<Value> { of_consenting(rows, "user_profile").into_iter().map(zulip_row).collect() };
    let user_topics = of_consenting(take(&mut tables.user_topics), "user_profile").into_iter().filter(in_listed).map(zulip_row).collect();
    let status_client = client_id(clients, STATUS_CLIENT);
    let statuses = of_consenting(take(&mut tables.user_statuses), "user_profile")
        .into_iter()
        .map(|mut s| {
            s.insert("client".into(), json!(status_client));
            s
        })
        .collect();
    vec![
        ("zerver_usertopic", user_topics),
        ("zerver_alertword", own(take(&mut tables.alert_words))),
        ("zerver_muteduser", numbered(of_consenting(take(&mut tables.muted_users), "user_profile"))),
        ("zerver_userstatus", numbered(statuses)),
        ("zerver_savedsnippet", own(take(&mut tables.saved_snippets))),
        ("zerver_navigationview", of_consenting(take(&mut tables.navigation_views), "user").into_iter().map(zulip_row).collect()),
        ("zerver_service", own(take(&mut tables.bot_services))),
        ("zerver_botstoragedata", numbered(of_consenting(take(&mut tables.bot_storage), "bot_profile"))),
        ("zerver_userpresence", numbered(take(&mut tables.presence))),
        ("zerver_scheduledmessage", scheduled_messages(tables, consenting, clients)),
    ]
}

/// The consenting users' pending scheduled messages and reminders as Zulip keeps them
/// (`delivery_type` 1 and 2, a reminder with the message it is about): to a recipient (the
/// channel's, the one other person's, the sender's own, or the direct-message group's of
/// everyone in it; one scheduled before groups were created at scheduling, whose group has
/// no recipient, is left out) from a client, with when it was made (`request_timestamp`;
/// null for one made before this server kept it).
fn scheduled_messages(tables: &mut RealmTables, consenting: &BTreeSet<i64>, clients: &mut Vec<String>) -> Vec<Value> {
    let recipient_of = |kind: i64, type_id: i64| {
        tables
            .recipients
            .iter()
            .find(|r| id_of(r, "type") == Some(kind) && id_of(r, "type_id") == Some(type_id))
            .and_then(|r| id_of(r, "id"))
    };
    let mut groups: std::collections::BTreeMap<i64, BTreeSet<i64>> = Default::default();
    for member in &tables.direct_message_group_members {
        if let (Some(recipient), Some(user)) = (id_of(member, "recipient"), id_of(member, "user_profile")) {
            groups.entry(recipient).or_default().insert(user);
        }
    }
    let mut out = Vec::new();
    for mut row in take(&mut tables.scheduled_messages).into_iter().filter(|m| id_of(m, "sender").is_some_and(|s| consenting.contains(&s)))
    {
        let sender = id_of(&row, "sender").unwrap_or(0);
        let recipient = match id_of(&row, "stream") {
            Some(channel) => recipient_of(2, channel),
            None => {
                let to: Vec<i64> =
                    row.get("to_user_ids").and_then(Value::as_str).and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default();
                let everyone: BTreeSet<i64> = to.iter().copied().chain([sender]).collect();
                match everyone.len() {
                    1 | 2 => recipient_of(1, everyone.iter().copied().find(|u| *u != sender).unwrap_or(sender)),
                    _ => groups.iter().find(|(_, members)| **members == everyone).map(|(recipient, _)| *recipient),
                }
            }
        };
        let Some(recipient) = recipient else { continue };
        let client = row.remove("client").and_then(|c| c.as_str().map(str::to_string)).filter(|c| !c.is_empty());
        let client = client.unwrap_or_else(|| STATUS_CLIENT.to_string());
        row.remove("to_user_ids");
        row.insert("recipient".into(), json!(recipient));
        row.insert("sending_client".into(), json!(client_id(clients, &client)));
        for (field, value) in [("delivered", json!(false)), ("has_attachment", json!(false))] {
            row.insert(field.into(), value);
        }
        row.insert("delivered_message".into(), Value::Null);
        out.push(zulip_row(row));
    }
    out
}

/// Tables this server has no data for but Zulip's importer reads unconditionally.
const EMPTY_TABLES: [&str; 3] = ["zerver_realmauthenticationmethod", "zerver_useractivity", "zerver_useractivityinterval"];

/// The users as Zulip's export writes them (`zerver_userprofile`, and the mirror dummies
/// in `zerver_userprofile_mirrordummy`), `email` the placeholder where the address is not
/// visible to everyone. Those whose private data the export does not hold
/// (everyone, in a public one) get the organization's default settings (their own email
/// visibility apart), and an address visible to nobody is replaced by a placeholder at
/// `email_domain`. In an export with consent, those of them still active become mirror
/// dummies (accounts deactivated until their owner signs up again), as does, in a public
/// one, anyone whose address was replaced.
fn exported_users(users: Vec<Row>, selection: &Selection, defaults: &Map<String, Value>, email_domain: &str) -> (Vec<Value>, Vec<Value>) {
    let (mut people, mut dummies) = (Vec::new(), Vec::new());
    for user in users {
        let id = id_of(&user, "id").unwrap_or(0);
        let mut row = user_row(user);
        if row["is_bot"] == false && row["email_address_visibility"] != VISIBLE_TO_EVERYONE {
            // Zulip keeps the placeholder as the account's `email` (this server makes it
            // when answering).
            row["email"] = json!(format!("user{id}@{email_domain}"));
        }
        // The notification bot stands for Zulip's system bots, which are not the
        // organization's users there.
        let system_bot = row["is_bot"] == true && row["bot_owner"].is_null();
        if !selection.consenting_user_ids.contains(&id) && !system_bot {
            for (name, value) in defaults.iter().filter(|(name, _)| *name != EMAIL_ADDRESS_VISIBILITY) {
                row[name] = value.clone();
            }
            if selection.with_private_data() && row["is_active"] == true {
                row["is_mirror_dummy"] = json!(true);
                row["is_active"] = json!(false);
            }
            if row["email_address_visibility"] == VISIBLE_TO_NOBODY {
                let token = &sha256_hex(format!("exported-user:{id}:{}", row["date_joined"]).as_bytes())[..32];
                row["delivery_email"] = json!(format!("exported-user-{token}@{email_domain}"));
                if !selection.with_private_data() {
                    row["is_mirror_dummy"] = json!(true);
                    row["is_active"] = json!(false);
                }
            }
        }
        if row["is_mirror_dummy"] == true {
            dummies.push(row);
        } else {
            people.push(row);
        }
    }
    (people, dummies)
}

/// A subscription of someone whose private data the export does not hold, as Zulip writes
/// one: who and where only, its settings at their defaults and a colour of the palette
/// that says nothing of the one they chose.
fn scrub_subscription(subscription: &mut Row) {
    let user = id_of(subscription, "user_profile").unwrap_or(0);
    let recipient = id_of(subscription, "recipient").unwrap_or(0);
    let color = COLORS[(user.wrapping_mul(31).wrapping_add(recipient)).unsigned_abs() as usize % COLORS.len()];
    subscription.insert("color".into(), json!(color));
    for setting in ["is_muted", "pin_to_top"] {
        subscription.insert(setting.into(), json!(0));
    }
    for setting in
        ["desktop_notifications", "audible_notifications", "push_notifications", "email_notifications", "wildcard_mentions_notify"]
    {
        subscription.insert(setting.into(), Value::Null);
    }
}

/// The domain of the placeholder addresses an export writes: the organization's host,
/// without its port (`base_url` is the address the export was requested at).
pub fn email_domain(base_url: &str) -> String {
    let host = base_url.split("://").last().unwrap_or(base_url);
    let host = host.split('/').next().unwrap_or(host);
    host.split(':').next().unwrap_or(host).to_string()
}

/// Zulip keeps direct-message groups' members as subscriptions to their recipient.
fn add_group_subscriptions(subscriptions: &mut Vec<Row>, members: Vec<Row>) {
    let mut next_id = subscriptions.iter().filter_map(|s| id_of(s, "id")).max().unwrap_or(0);
    for mut member in members {
        next_id += 1;
        member.insert("id".into(), Value::from(next_id));
        member.insert("active".into(), Value::Bool(true));
        subscriptions.push(member);
    }
}

/// Rows without an id of their own, numbered from 1.
fn numbered(rows: Vec<Row>) -> Vec<Value> {
    rows.into_iter()
        .enumerate()
        .map(|(i, mut r)| {
            r.insert("id".into(), Value::from(i as i64 + 1));
            zulip_row(r)
        })
        .collect()
}

/// The organization's images: Zulip's name for each, the column naming this server's file,
/// and Zulip's source when nothing is uploaded (Gravatar's identicon, the default logo).
pub const REALM_IMAGES: [(&str, &str, &str); 3] =
    [("icon", "icon_file", "G"), ("logo", "logo_file", "D"), ("night_logo", "night_logo_file", "D")];

/// The organization as exported: each image `U` where one is uploaded (its files are in
/// `realm_icons/`), else its default, with its version; this server's file names stay out.
fn realm_row(mut realm: Row) -> Row {
    for (image, column, default) in REALM_IMAGES {
        let uploaded = realm.remove(column).is_some_and(|f| f.is_string());
        realm.insert(format!("{image}_source"), Value::from(if uploaded { "U" } else { default }));
    }
    realm
}

/// The organization's uploaded images: Zulip's name of each and this server's file.
pub fn uploaded_realm_images(realm: &Row) -> Vec<(&'static str, String)> {
    REALM_IMAGES.iter().filter_map(|(image, column, _)| Some((*image, realm.get(*column)?.as_str()?.to_string()))).collect()
}

/// The archive paths of an uploaded image, as Zulip's export writes them from its local
/// storage: the image as uploaded (`.original`) and the one served (`.png`). This server
/// stores and serves images as uploaded, so both hold the same bytes; Zulip's importer
/// makes its own thumbnails from the `.original`.
pub fn image_paths(base: &str) -> [(String, bool); 2] {
    [(format!("{base}.original"), true), (format!("{base}.png"), false)]
}

/// Where an uploaded avatar sits in `avatars/`: `<realm_id>/<hash>`, like Zulip's
/// `user_avatar_path_from_ids` (its importer computes its own path, so the hash only needs
/// to be stable).
pub fn avatar_base_path(realm_id: RealmId, user_id: UserId, avatar_version: i64) -> String {
    let hash = crate::secrets::sha256_hex(format!("{user_id}:{avatar_version}").as_bytes());
    format!("{realm_id}/{}", &hash[..40])
}

/// The stored facts of one exported image file.
pub struct ImageFile<'a> {
    pub path: &'a str,
    pub original: bool,
    pub content_type: &'a str,
    pub size: usize,
    /// When it was stored, UNIX seconds.
    pub last_modified: f64,
}

/// `avatars/records.json`'s entry of one avatar file of `user`. On the `.original`,
/// `importer_should_thumbnail` asks Zulip's importer to make the small avatar from it (the
/// `.png` here is the image as uploaded, not resized).
pub fn avatar_record(user: &Row, file: &ImageFile) -> Value {
    let mut record = json!({
        "realm_id": user.get("realm"),
        "user_profile_id": user.get("id"),
        "user_profile_email": user.get("email"),
        "path": file.path,
        "s3_path": file.path,
        "size": file.size,
        "last_modified": file.last_modified,
        "content_type": file.content_type,
    });
    if file.original {
        record["importer_should_thumbnail"] = Value::Bool(true);
    }
    record
}

/// `realm_icons/records.json`'s entry of one file of the organization's images.
pub fn realm_image_record(realm_id: i64, file: &ImageFile) -> Value {
    json!({
        "realm_id": realm_id,
        "path": file.path,
        "s3_path": file.path,
        "size": file.size,
        "last_modified": file.last_modified,
        "content_type": file.content_type,
    })
}

/// A channel as Zulip exports one: its topics policy by Zulip's number.
fn channel_row(mut channel: Row) -> Row {
    let policy = channel.get("topics_policy").and_then(Value::as_str).and_then(TopicsPolicy::from_code);
    channel.insert("topics_policy".into(), json!(policy.unwrap_or(TopicsPolicy::Inherit).zulip_channel_number()));
    channel
}

/// A user as Zulip exports one: the settings as fields of the row; no password or API key
/// (this server never selects them).
fn user_row(mut user: Row) -> Value {
    if let Some(Value::String(settings)) = user.remove("settings") {
        if let Ok(Value::Object(settings)) = serde_json::from_str::<Value>(&settings) {
            for (name, value) in settings {
                user.entry(name).or_insert(value);
            }
        }
    }
    user.entry("allow_private_data_export").or_insert(Value::Bool(false));
    // Django's permission fields, which Zulip's importer drops from every row.
    user.insert("groups".into(), json!([]));
    user.insert("user_permissions".into(), json!([]));
    // `U`: its files are in `avatars/`.
    let uploaded = user.remove("avatar_file").is_some_and(|f| f.is_string());
    user.insert("avatar_source".into(), Value::from(if uploaded { "U" } else { "G" }));
    zulip_row(user)
}

/// The attachments an export holds: those linked from an exported message, and with
/// private data every upload of a consenting member. Answers `attachment.json`.
pub fn attachment_file(attachments: &[Row], exported_messages: &BTreeSet<i64>, selection: &Selection) -> (Value, Vec<Row>) {
    let mut kept = Vec::new();
    let mut out = Vec::new();
    for a in attachments {
        let messages: Vec<i64> = a.get("messages").and_then(Value::as_str).and_then(|s| serde_json::from_str(s).ok()).unwrap_or_default();
        let messages: Vec<i64> = messages.into_iter().filter(|m| exported_messages.contains(m)).collect();
        let owner_consented = id_of(a, "owner").is_some_and(|o| selection.consenting_user_ids.contains(&o));
        if messages.is_empty() && !owner_consented {
            continue;
        }
        let mut row = a.clone();
        row.remove("owner_email");
        row.insert("messages".into(), Value::from(messages));
        row.insert("scheduled_messages".into(), json!([]));
        out.push(zulip_row(row));
        kept.push(a.clone());
    }
    (json!({ "zerver_attachment": out }), kept)
}

/// `uploads/records.json`'s entry of one upload.
pub fn upload_record(a: &Row) -> Value {
    json!({
        "path": a.get("path_id"),
        "s3_path": a.get("path_id"),
        "realm_id": a.get("realm"),
        "user_profile_id": a.get("owner"),
        "user_profile_email": a.get("owner_email"),
        "size": a.get("size"),
        "last_modified": a.get("create_time").and_then(Value::as_i64).map(|t| t as f64),
        "content_type": a.get("content_type"),
    })
}

/// `emoji/records.json`'s entry of one custom emoji image stored at `path`.
pub fn emoji_record(e: &Row, path: &str) -> Value {
    json!({
        "path": path,
        "s3_path": path,
        "file_name": e.get("file_name"),
        "realm_id": e.get("realm"),
        "user_profile_id": e.get("author"),
        "user_profile_email": e.get("author_email"),
        "deactivated": e.get("deactivated").and_then(Value::as_i64).is_some_and(|d| d != 0),
    })
}

/// Whether a path from the organization's data may name a file in the archive: relative,
/// with no `..`, `.` or empty segment, so nothing lands outside its folder.
pub fn safe_member_path(path: &str) -> bool {
    !path.is_empty() && !path.starts_with('/') && !path.contains('\\') && path.split('/').all(|s| !s.is_empty() && s != "." && s != "..")
}

/// A tar archive (POSIX ustar, GNU long names past ustar's limits) written a piece at a
/// time: each piece's bytes ([`Archive::take`]) follow the previous piece's in the tar
/// stream, and the last piece ends it ([`Archive::end`]). Small enough to keep a tar crate
/// (and its file-system code) out of the worker bundle.
pub struct Archive {
    bytes: Vec<u8>,
    folder: String,
    mtime: u64,
}

const BLOCK: usize = 512;

impl Archive {
    /// An archive whose members all sit in `folder/`.
    pub fn new(folder: &str, mtime: i64) -> Self {
        Archive { bytes: Vec::new(), folder: folder.to_string(), mtime: mtime.max(0) as u64 }
    }

    /// Adds a file at `path` (relative to the archive's folder).
    pub fn add(&mut self, path: &str, data: &[u8]) -> ApiResult<()> {
        if !safe_member_path(path) {
            return Err(ApiError::internal(format!("export: refused archive path {path}")));
        }
        let full = format!("{}/{path}", self.folder);
        let (prefix, name) = match ustar_split(&full) {
            Some(split) => split,
            None => {
                // GNU tar's long name: a `././@LongLink` member holding the path first.
                let mut long = full.clone().into_bytes();
                long.push(0);
                self.member(b'L', "", "././@LongLink", &long);
                ("", &full[full.len().saturating_sub(99)..])
            }
        };
        self.member(b'0', prefix, name, data);
        Ok(())
    }

    pub fn add_json(&mut self, path: &str, value: &Value) -> ApiResult<()> {
        let bytes = serde_json::to_vec(value).map_err(ApiError::internal)?;
        self.add(path, &bytes)
    }

    fn member(&mut self, kind: u8, prefix: &str, name: &str, data: &[u8]) {
        let mut header = [0u8; BLOCK];
        header[..name.len().min(100)].copy_from_slice(&name.as_bytes()[..name.len().min(100)]);
        octal(&mut header[100..108], 0o644);
        octal(&mut header[108..116], 0);
        octal(&mut header[116..124], 0);
        octal(&mut header[124..136], data.len() as u64);
        octal(&mut header[136..148], self.mtime);
        header[156] = kind;
        header[257..263].copy_from_slice(b"ustar\0");
        header[263..265].copy_from_slice(b"00");
        header[345..345 + prefix.len()].copy_from_slice(prefix.as_bytes());
        // The checksum is the byte sum with its own field read as spaces.
        header[148..156].copy_from_slice(b"        ");
        let sum: u64 = header.iter().map(|b| u64::from(*b)).sum();
        octal(&mut header[148..155], sum);
        self.bytes.extend_from_slice(&header);
        self.bytes.extend_from_slice(data);
        self.bytes.resize(self.bytes.len().div_ceil(BLOCK) * BLOCK, 0);
    }

    /// The bytes of the members added since the last take.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The members added since the last take, as tar bytes.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }

    /// The members added since the last take, and the two zero blocks that end a tar stream.
    pub fn end(mut self) -> Vec<u8> {
        self.bytes.resize(self.bytes.len() + 2 * BLOCK, 0);
        self.bytes
    }
}

/// A numeric header field: zero-padded octal digits and a NUL.
fn octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let digits = format!("{value:0width$o}");
    field[..width].copy_from_slice(&digits.as_bytes()[digits.len() - width..]);
    field[width] = 0;
}

/// A path as ustar's `prefix` (up to 155 bytes) and `name` (up to 100), split at a `/`.
fn ustar_split(path: &str) -> Option<(&str, &str)> {
    if path.len() <= 100 {
        return Some(("", path));
    }
    path.match_indices('/')
        .map(|(i, _)| (&path[..i], &path[i + 1..]))
        .find(|(prefix, name)| prefix.len() <= 155 && name.len() <= 100 && !name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_paths_stay_inside_their_folder() {
        assert!(safe_member_path("uploads/2/ab/cdef/a.png"));
        for bad in ["", "/etc/passwd", "uploads/../../x", "uploads/./x", "uploads//x", "a\\b"] {
            assert!(!safe_member_path(bad), "{bad}");
        }
    }

    #[test]
    fn export_types_are_zulips_two() {
        assert_eq!(check_export_type(None).unwrap(), EXPORT_PUBLIC);
        assert_eq!(check_export_type(Some(2)).unwrap(), EXPORT_FULL_WITH_CONSENT);
        assert!(check_export_type(Some(3)).is_err());
    }

    /// What the tar crate (as GNU tar would) reads back: path -> bytes.
    fn read_back(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
        let mut archive = tar::Archive::new(bytes);
        let entries = archive.entries().unwrap();
        entries
            .map(|e| {
                let mut e = e.unwrap();
                let path = e.path().unwrap().to_string_lossy().to_string();
                let mut data = Vec::new();
                std::io::Read::read_to_end(&mut e, &mut data).unwrap();
                (path, data)
            })
            .collect()
    }

    #[test]
    fn pieces_taken_one_after_another_read_back_as_one_archive() {
        let mut archive = Archive::new("zulip-export-abc", 1_700_000_000);
        archive.add("messages-000001.json", b"[1]").unwrap();
        let mut bytes = archive.take();
        archive.add("uploads/a", &[1u8; 700]).unwrap();
        bytes.extend(archive.take());
        archive.add("realm.json", b"{}").unwrap();
        bytes.extend(archive.end());
        let names: Vec<String> = read_back(&bytes).into_iter().map(|(name, _)| name).collect();
        assert_eq!(names, ["zulip-export-abc/messages-000001.json", "zulip-export-abc/uploads/a", "zulip-export-abc/realm.json"]);
    }

    #[test]
    fn the_archive_reads_back_with_short_split_and_long_paths() {
        let mut archive = Archive::new("zulip-export-abc", 1_700_000_000);
        let split = format!("uploads/{}/{}", "d".repeat(90), "f".repeat(90));
        let long = format!("uploads/{}", "x".repeat(200));
        archive.add("realm.json", b"{}").unwrap();
        archive.add(&split, &[7u8; 513]).unwrap();
        archive.add(&long, b"").unwrap();
        let files = read_back(&archive.end());
        assert_eq!(files[0], ("zulip-export-abc/realm.json".to_string(), b"{}".to_vec()));
        assert_eq!(files[1], (format!("zulip-export-abc/{split}"), vec![7u8; 513]));
        assert_eq!(files[2], (format!("zulip-export-abc/{long}"), Vec::new()));
    }

    #[test]
    fn rows_get_zulips_booleans_and_float_dates() {
        let row: Row = serde_json::from_value(json!({ "is_active": 1, "date_joined": 5, "role": 400 })).unwrap();
        assert_eq!(zulip_row(row), json!({ "is_active": true, "date_joined": 5.0, "role": 400 }));
    }
}
