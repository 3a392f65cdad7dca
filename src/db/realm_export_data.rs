//! Reading a whole organization for its data export (`actions::realm_export`): each table's
//! rows under Zulip's export field names (`realm`, `sender`, `user_profile`, ...), as JSON
//! objects; `domain::realm_export` picks what an export type may hold and writes them out.
//! Through the worker's own queries: `wrangler d1 export` cannot dump the FTS5 table.

use serde::Deserialize;
use serde_json::{Map, Value};
use worker::{D1Database, Result};

use super::batch::Batch;
use super::realm_settings::resolved_group_settings_sql;
use super::subscriptions::GROUP_SETTING_COLUMNS;
use super::user_groups::{by_role_sql, GROUP_BASE_COLUMNS, PERMISSION_COLUMNS};
use crate::db::statement::statement;
use crate::model::ids::{MessageId, RealmId};

pub type Row = Map<String, Value>;

/// The organization's tables other than messages, read in one round trip.
#[derive(Default)]
pub struct RealmTables {
    pub realm: Vec<Row>,
    pub users: Vec<Row>,
    pub channels: Vec<Row>,
    pub recipients: Vec<Row>,
    pub subscriptions: Vec<Row>,
    pub direct_message_groups: Vec<Row>,
    pub direct_message_group_members: Vec<Row>,
    pub user_groups: Vec<Row>,
    pub user_group_members: Vec<Row>,
    pub user_group_subgroups: Vec<Row>,
    pub profile_fields: Vec<Row>,
    pub profile_field_values: Vec<Row>,
    pub realm_emoji: Vec<Row>,
    pub default_channels: Vec<Row>,
    pub linkifiers: Vec<Row>,
    pub realm_domains: Vec<Row>,
    pub user_topics: Vec<Row>,
    pub attachments: Vec<Row>,
    pub channel_folders: Vec<Row>,
    pub playgrounds: Vec<Row>,
    pub alert_words: Vec<Row>,
    pub muted_users: Vec<Row>,
    pub user_statuses: Vec<Row>,
    pub bot_services: Vec<Row>,
    pub saved_snippets: Vec<Row>,
    pub navigation_views: Vec<Row>,
    pub bot_storage: Vec<Row>,
    pub presence: Vec<Row>,
    pub scheduled_messages: Vec<Row>,
}

/// The queries of the tables read as they are stored (those with columns from the server's
/// lists are [`listed_tables`]).
const TABLES: [(&str, &str); 25] = [
    ("users", "SELECT id, realm_id AS realm, email, delivery_email, full_name, role, is_active, is_bot, bot_type, bot_owner_id AS bot_owner, timezone, date_joined, avatar_version, avatar_file, email_address_visibility, is_imported_stub AS is_mirror_dummy, automatically_follow_topics_policy, automatically_unmute_topics_in_muted_streams_policy, automatically_follow_topics_where_mentioned, settings FROM users WHERE realm_id = ?1 ORDER BY id"),
    ("recipients", "SELECT id, type, type_id FROM recipients WHERE realm_id = ?1 ORDER BY id"),
    ("subscriptions", "SELECT s.id, s.user_id AS user_profile, r.id AS recipient, s.active, s.color, s.is_muted, s.pin_to_top, s.desktop_notifications, s.audible_notifications, s.push_notifications, s.email_notifications, s.wildcard_mentions_notify FROM subscriptions s JOIN recipients r ON r.realm_id = s.realm_id AND r.type = 2 AND r.type_id = s.channel_id WHERE s.realm_id = ?1 ORDER BY s.id"),
    ("direct_message_groups", "SELECT g.id, g.member_key AS huddle_hash, g.group_size, r.id AS recipient FROM direct_message_groups g LEFT JOIN recipients r ON r.realm_id = g.realm_id AND r.type = 3 AND r.type_id = g.id WHERE g.realm_id = ?1 ORDER BY g.id"),
    ("direct_message_group_members", "SELECT m.user_id AS user_profile, r.id AS recipient FROM direct_message_group_members m JOIN direct_message_groups g ON g.id = m.group_id JOIN recipients r ON r.realm_id = g.realm_id AND r.type = 3 AND r.type_id = g.id WHERE g.realm_id = ?1 ORDER BY g.id, m.user_id"),
    ("user_group_subgroups", "SELECT s.supergroup_id AS supergroup, s.subgroup_id AS subgroup FROM user_group_subgroups s JOIN user_groups g ON g.id = s.supergroup_id WHERE g.realm_id = ?1 ORDER BY s.supergroup_id, s.subgroup_id"),
    ("profile_fields", "SELECT id, realm_id AS realm, name, hint, field_type, field_data, sort_order AS \"order\", display_in_profile_summary, required, editable_by_user FROM custom_profile_fields WHERE realm_id = ?1 ORDER BY id"),
    ("profile_field_values", "SELECT v.user_id AS user_profile, v.field_id AS field, v.value, v.rendered_value FROM custom_profile_field_values v JOIN custom_profile_fields f ON f.id = v.field_id WHERE f.realm_id = ?1 ORDER BY v.field_id, v.user_id"),
    ("realm_emoji", "SELECT e.id, e.realm_id AS realm, e.name, e.author_id AS author, e.file_name, e.still_file_name, e.deactivated, u.email AS author_email FROM realm_emoji e LEFT JOIN users u ON u.id = e.author_id WHERE e.realm_id = ?1 ORDER BY e.id"),
    ("default_channels", "SELECT realm_id AS realm, channel_id AS stream FROM default_channels WHERE realm_id = ?1 ORDER BY channel_id"),
    ("linkifiers", "SELECT id, realm_id AS realm, pattern, url_template, sort_order AS \"order\" FROM linkifiers WHERE realm_id = ?1 ORDER BY id"),
    ("realm_domains", "SELECT realm_id AS realm, domain, allow_subdomains FROM realm_domains WHERE realm_id = ?1 ORDER BY domain"),
    ("user_topics", "SELECT t.id, t.user_id AS user_profile, r.id AS recipient, t.channel_id AS stream, t.topic AS topic_name, t.visibility_policy, t.last_updated FROM user_topics t JOIN recipients r ON r.realm_id = t.realm_id AND r.type = 2 AND r.type_id = t.channel_id WHERE t.realm_id = ?1 ORDER BY t.id"),
    ("attachments", "SELECT a.id, a.realm_id AS realm, a.owner_id AS owner, a.path_id, a.file_name, a.size, a.content_type, a.create_time, u.email AS owner_email, (SELECT json_group_array(l.message_id) FROM attachment_messages l WHERE l.attachment_id = a.id) AS messages FROM attachments a JOIN users u ON u.id = a.owner_id WHERE a.realm_id = ?1 ORDER BY a.id"),
    ("channel_folders", "SELECT id, realm_id AS realm, name, description, rendered_description, creator_id AS creator, date_created, is_archived, sort_order AS \"order\" FROM channel_folders WHERE realm_id = ?1 ORDER BY id"),
    ("playgrounds", "SELECT id, realm_id AS realm, name, pygments_language, url_template FROM realm_playgrounds WHERE realm_id = ?1 ORDER BY id"),
    ("alert_words", "SELECT id, realm_id AS realm, user_id AS user_profile, word FROM alert_words WHERE realm_id = ?1 ORDER BY id"),
    ("muted_users", "SELECT m.user_id AS user_profile, m.muted_user_id AS muted_user, m.date_muted FROM muted_users m JOIN users u ON u.id = m.user_id WHERE u.realm_id = ?1 ORDER BY m.user_id, m.muted_user_id"),
    ("bot_services", "SELECT s.bot_id AS id, s.bot_id AS user_profile, replace(substr(u.email, 1, instr(u.email, '@') - 1), '-bot', '') AS name, s.base_url, s.token, s.interface FROM bot_services s JOIN users u ON u.id = s.bot_id WHERE s.realm_id = ?1 ORDER BY s.bot_id"),
    ("user_statuses", "SELECT user_id AS user_profile, status_text, emoji_name, emoji_code, reaction_type, updated_at AS timestamp FROM user_status WHERE realm_id = ?1 ORDER BY user_id"),
    ("saved_snippets", "SELECT id, realm_id AS realm, user_id AS user_profile, title, content, date_created FROM saved_snippets WHERE realm_id = ?1 ORDER BY id"),
    ("navigation_views", "SELECT id, user_id AS user, fragment, is_pinned, name FROM navigation_views WHERE realm_id = ?1 ORDER BY id"),
    ("bot_storage", "SELECT s.bot_id AS bot_profile, s.key, s.value FROM bot_storage s JOIN users u ON u.id = s.bot_id WHERE u.realm_id = ?1 ORDER BY s.bot_id, s.key"),
    ("presence", "SELECT user_id AS user_profile, realm_id AS realm, last_active_time, last_connected_time, last_update_id FROM presence WHERE realm_id = ?1 ORDER BY user_id"),
    ("scheduled_messages", "SELECT id, sender_id AS sender, channel_id AS stream, to_user_ids, topic AS subject, content, rendered_content, client, scheduled_timestamp, read_by_sender, failed, failure_message, delivery_type, reminder_target_message_id, request_timestamp, realm_id AS realm FROM scheduled_messages WHERE realm_id = ?1 AND delivered = 0 AND deleted = 0 ORDER BY id"),
];

/// The queries of the tables whose columns come from the server's lists: the organization
/// with its group settings (each a group id, a null one read as its default), the channels
/// with theirs (null: the default), every group, anonymous ones included, with its
/// permission settings as the API reads them (null: "the group's creator"), and the groups'
/// members, those of the role groups by role.
fn listed_tables() -> [(&'static str, String); 4] {
    let channel_settings: Vec<String> = GROUP_SETTING_COLUMNS.iter().map(|c| format!("c.{c}")).collect();
    let group_settings: Vec<String> = PERMISSION_COLUMNS.iter().map(|c| format!("b.{c}")).collect();
    [
        ("realm", format!("SELECT id, string_id, name, description, deactivated, date_created, invite_required, emails_restricted_to_domains, disallow_disposable_email_addresses, allow_message_editing, enable_read_receipts, message_content_edit_limit_seconds, message_content_delete_limit_seconds, move_messages_within_stream_limit_seconds, move_messages_between_streams_limit_seconds, default_language, waiting_period_threshold, message_retention_days, new_stream_announcements_stream_id AS new_stream_announcements_stream, signup_announcements_stream_id AS signup_announcements_stream, zulip_update_announcements_stream_id AS zulip_update_announcements_stream, moderation_request_channel_id AS moderation_request_channel, uuid, icon_file, icon_version, logo_file, logo_version, night_logo_file, night_logo_version, user_settings_defaults, {} FROM realms r WHERE id = ?1", resolved_group_settings_sql("r").join(", "))),
        ("channels", format!("SELECT c.id, c.realm_id AS realm, c.name, c.description, c.invite_only, c.history_public_to_subscribers, c.is_web_public, c.is_archived AS deactivated, c.creator_id AS creator, c.date_created, c.topics_policy, c.folder_id AS folder, c.message_retention_days, r.id AS recipient, {} FROM channels c LEFT JOIN recipients r ON r.realm_id = c.realm_id AND r.type = 2 AND r.type_id = c.id WHERE c.realm_id = ?1 ORDER BY c.id", channel_settings.join(", "))),
        ("user_groups", format!("SELECT b.id, b.realm_id AS realm, b.name, b.description, b.is_system_group, b.system_role, b.creator_id AS creator, b.date_created, b.deactivated, b.is_anonymous, {} FROM (SELECT {GROUP_BASE_COLUMNS} FROM user_groups g WHERE g.realm_id = ?1) b ORDER BY b.id", group_settings.join(", "))),
        ("user_group_members", format!("SELECT m.group_id AS user_group, m.user_id AS user_profile FROM user_group_members m JOIN user_groups g ON g.id = m.group_id WHERE g.realm_id = ?1 UNION SELECT g.id, u.id FROM user_groups g JOIN users u ON u.realm_id = g.realm_id WHERE g.realm_id = ?1 AND {} ORDER BY 1, 2", by_role_sql("g", "u"))),
    ]
}

/// Every table of the organization but its messages, in one batch.
pub async fn realm_tables(db: &D1Database, realm_id: i64) -> Result<RealmTables> {
    let mut batch = Batch::new();
    let queries: Vec<(&str, String)> = TABLES.iter().map(|(name, sql)| (*name, sql.to_string())).chain(listed_tables()).collect();
    let slots: Vec<_> = queries.iter().map(|(_, sql)| Ok(batch.add::<Row>(statement!(sql, realm_id)?))).collect::<Result<_>>()?;
    let results = batch.run(db).await?;
    let mut tables = RealmTables::default();
    for ((name, _), slot) in queries.iter().zip(slots) {
        let rows = results.rows(slot)?;
        let target = match *name {
            "realm" => &mut tables.realm,
            "users" => &mut tables.users,
            "channels" => &mut tables.channels,
            "recipients" => &mut tables.recipients,
            "subscriptions" => &mut tables.subscriptions,
            "direct_message_groups" => &mut tables.direct_message_groups,
            "direct_message_group_members" => &mut tables.direct_message_group_members,
            "user_groups" => &mut tables.user_groups,
            "user_group_members" => &mut tables.user_group_members,
            "user_group_subgroups" => &mut tables.user_group_subgroups,
            "profile_fields" => &mut tables.profile_fields,
            "profile_field_values" => &mut tables.profile_field_values,
            "realm_emoji" => &mut tables.realm_emoji,
            "default_channels" => &mut tables.default_channels,
            "linkifiers" => &mut tables.linkifiers,
            "realm_domains" => &mut tables.realm_domains,
            "user_topics" => &mut tables.user_topics,
            "channel_folders" => &mut tables.channel_folders,
            "playgrounds" => &mut tables.playgrounds,
            "alert_words" => &mut tables.alert_words,
            "muted_users" => &mut tables.muted_users,
            "user_statuses" => &mut tables.user_statuses,
            "bot_services" => &mut tables.bot_services,
            "saved_snippets" => &mut tables.saved_snippets,
            "navigation_views" => &mut tables.navigation_views,
            "bot_storage" => &mut tables.bot_storage,
            "presence" => &mut tables.presence,
            "scheduled_messages" => &mut tables.scheduled_messages,
            _ => &mut tables.attachments,
        };
        *target = rows;
    }
    Ok(tables)
}

/// The messages an export takes: those of the channels in the JSON list `?3`, and those any
/// user of the JSON list `?4` (the consenting ones) received (private channels and direct
/// messages).
const EXPORTED: &str = "m.realm_id = ?1 AND (m.channel_id IN (SELECT value FROM json_each(?3)) OR (?4 <> '[]' AND EXISTS (\
     SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id IN (SELECT value FROM json_each(?4)))))";

/// A page of the messages an export takes ([`EXPORTED`]), after `after_id`, oldest first.
pub async fn message_page(
    db: &D1Database,
    realm_id: RealmId,
    after_id: MessageId,
    channel_ids_json: &str,
    consenting_ids_json: &str,
    limit: i64,
) -> Result<Vec<Row>> {
    super::all(
        db,
        statement!(
            &format!(
                "SELECT m.id, m.sender_id AS sender, m.recipient_id AS recipient, m.realm_id AS realm, m.topic AS subject, \
         m.content, m.rendered_content, m.date_sent, m.client AS sending_client, m.is_me_message, \
         m.last_edit_timestamp AS last_edit_time, m.last_moved_timestamp AS last_moved_time, m.edit_history, \
         m.has_attachment, m.has_image, m.has_link, m.kind AS type \
         FROM messages m WHERE {EXPORTED} AND m.id > ?2 ORDER BY m.id LIMIT ?5"
            ),
            realm_id,
            after_id,
            channel_ids_json,
            consenting_ids_json,
            limit
        )?,
    )
    .await
}

#[derive(Deserialize)]
struct Id {
    id: i64,
}

/// Which of the messages in `message_ids_json` an export that wrote the messages up to
/// `through_id` took.
pub async fn exported_among(
    db: &D1Database,
    realm_id: RealmId,
    through_id: MessageId,
    channel_ids_json: &str,
    consenting_ids_json: &str,
    message_ids_json: &str,
) -> Result<Vec<i64>> {
    let rows: Vec<Id> = super::all(
        db,
        statement!(
            &format!("SELECT m.id FROM messages m WHERE {EXPORTED} AND m.id <= ?2 AND m.id IN (SELECT value FROM json_each(?5))"),
            realm_id,
            through_id,
            channel_ids_json,
            consenting_ids_json,
            message_ids_json
        )?,
    )
    .await?;
    Ok(rows.into_iter().map(|r| r.id).collect())
}

/// The reactions to the messages an export that wrote the messages up to `through_id` took.
pub async fn exported_reactions(
    db: &D1Database,
    realm_id: RealmId,
    through_id: MessageId,
    channel_ids_json: &str,
    consenting_ids_json: &str,
) -> Result<Vec<Row>> {
    super::all(
        db,
        statement!(
            &format!(
                "SELECT r.id, r.message_id AS message, r.user_id AS user_profile, r.emoji_name, r.emoji_code, r.reaction_type \
                 FROM reactions r WHERE r.message_id IN (SELECT m.id FROM messages m WHERE {EXPORTED} AND m.id <= ?2) ORDER BY r.id"
            ),
            realm_id,
            through_id,
            channel_ids_json,
            consenting_ids_json
        )?,
    )
    .await
}

/// The rows of `user_messages` of the users in `consenting_ids_json` for the messages in
/// `message_ids_json` (flags as Zulip's `flags_mask`): read state and stars are private data.
pub async fn consented_user_messages(
    db: &D1Database,
    realm_id: i64,
    message_ids_json: &str,
    consenting_ids_json: &str,
) -> Result<Vec<Row>> {
    super::all(
        db,
        statement!(
            "SELECT um.message_id AS message, um.user_id AS user_profile, um.flags AS flags_mask \
         FROM user_messages um JOIN users u ON u.id = um.user_id \
         WHERE um.message_id IN (SELECT value FROM json_each(?2)) AND u.realm_id = ?1 \
         AND um.user_id IN (SELECT value FROM json_each(?3)) ORDER BY um.message_id, um.user_id",
            realm_id,
            message_ids_json,
            consenting_ids_json
        )?,
    )
    .await
}

#[derive(Deserialize)]
struct Count {
    n: i64,
}

/// How many messages the organization holds (the automatic export's size limit).
pub async fn message_count(db: &D1Database, realm_id: i64) -> Result<i64> {
    let row: Option<Count> = super::first(db, statement!("SELECT COUNT(*) AS n FROM messages WHERE realm_id = ?1", realm_id)?).await?;
    Ok(row.map_or(0, |r| r.n))
}

/// The organization's owners, and the owners of those that are bots, as [`realm_tables`]
/// reads users: whether an export leaves an owner who can sign in.
pub async fn owners(db: &D1Database, realm_id: i64) -> Result<Vec<Row>> {
    super::all(
        db,
        statement!(
            "SELECT id, role, is_bot, bot_owner_id AS bot_owner, is_imported_stub AS is_mirror_dummy, email_address_visibility, settings \
             FROM users WHERE realm_id = ?1 AND (role = 100 OR id IN \
             (SELECT bot_owner_id FROM users WHERE realm_id = ?1 AND role = 100 AND is_bot = 1))",
            realm_id
        )?,
    )
    .await
}

#[derive(Deserialize)]
pub struct ConsentRow {
    pub user_id: i64,
    pub consented: i64,
}

/// Each active human member's `allow_private_data_export` setting (absent: false).
pub async fn consents(db: &D1Database, realm_id: i64) -> Result<Vec<ConsentRow>> {
    super::all(
        db,
        statement!(
            "SELECT id AS user_id, COALESCE(json_extract(settings, '$.allow_private_data_export'), 0) AS consented \
         FROM users WHERE realm_id = ?1 AND is_active = 1 AND is_bot = 0 ORDER BY id",
            realm_id
        )?,
    )
    .await
}
