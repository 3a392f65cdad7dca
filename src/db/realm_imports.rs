//! Importing an organization from a Zulip export archive (`actions::realm_import`).
//!
//! Every table is written from a JSON list of the archive's rows (`?2`, read with
//! `json_each`), in the archive's field names and ids. Each row first gets this server's
//! id in `realm_import_ids` (the next free ids of its table, in one statement), then the
//! insert reads that id and resolves every reference through the same map. Both are
//! idempotent (`OR IGNORE`): a chunk sent again finds its rows mapped and inserted.

use serde::Deserialize;
use worker::{D1Database, Result};

use super::subscriptions::GROUP_SETTING_COLUMNS;
use super::user_groups::PERMISSION_COLUMNS;
use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

/// What an archive id names; each kind is numbered from its own table.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    User,
    ChannelFolder,
    Channel,
    Recipient,
    DirectMessageGroup,
    Subscription,
    UserGroup,
    ProfileField,
    Emoji,
    Attachment,
    UserTopic,
    Message,
    Reaction,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::User => "user",
            Kind::ChannelFolder => "channel_folder",
            Kind::Channel => "channel",
            Kind::Recipient => "recipient",
            Kind::DirectMessageGroup => "dm_group",
            Kind::Subscription => "subscription",
            Kind::UserGroup => "user_group",
            Kind::ProfileField => "profile_field",
            Kind::Emoji => "emoji",
            Kind::Attachment => "attachment",
            Kind::UserTopic => "user_topic",
            Kind::Message => "message",
            Kind::Reaction => "reaction",
        }
    }

    fn table(self) -> &'static str {
        match self {
            Kind::User => "users",
            Kind::ChannelFolder => "channel_folders",
            Kind::Channel => "channels",
            Kind::Recipient => "recipients",
            Kind::DirectMessageGroup => "direct_message_groups",
            Kind::Subscription => "subscriptions",
            Kind::UserGroup => "user_groups",
            Kind::ProfileField => "custom_profile_fields",
            Kind::Emoji => "realm_emoji",
            Kind::Attachment => "attachments",
            Kind::UserTopic => "user_topics",
            Kind::Message => "messages",
            Kind::Reaction => "reactions",
        }
    }
}

/// A field of the row being read.
fn f(field: &str) -> String {
    format!("json_extract(j.value, '$.{field}')")
}

/// This server's id for the archive's id `expr` of `kind` (null when unmapped).
fn mapped(kind: Kind, expr: &str) -> String {
    format!("(SELECT new_id FROM realm_import_ids WHERE realm_id = ?1 AND kind = '{}' AND old_id = {expr})", kind.name())
}

/// The join that gives each row its mapped id as `i.new_id`.
fn own_id(kind: Kind) -> String {
    format!("FROM json_each(?2) j JOIN realm_import_ids i ON i.realm_id = ?1 AND i.kind = '{}' AND i.old_id = {}", kind.name(), f("id"))
}

/// Gives each row of `rows_json` not yet mapped the next free id of its table.
pub fn allocate_stmt(realm_id: i64, kind: Kind, rows_json: &str) -> Result<Statement> {
    let sql = format!(
        "INSERT OR IGNORE INTO realm_import_ids (realm_id, kind, old_id, new_id) \
         SELECT ?1, '{}', {}, (SELECT COALESCE(MAX(id), 0) FROM {}) + j.key + 1 FROM json_each(?2) j",
        kind.name(),
        f("id"),
        kind.table()
    );
    statement!(&sql, realm_id, rows_json)
}

/// Maps the archive's system groups to the new organization's groups of the same name.
pub fn map_system_groups_stmt(realm_id: i64, rows_json: &str) -> Result<Statement> {
    let sql = format!(
        "INSERT OR IGNORE INTO realm_import_ids (realm_id, kind, old_id, new_id) \
         SELECT ?1, '{}', {}, g.id FROM json_each(?2) j \
         JOIN user_groups g ON g.realm_id = ?1 AND g.is_system_group = 1 AND g.name = {}",
        Kind::UserGroup.name(),
        f("id"),
        f("name")
    );
    statement!(&sql, realm_id, rows_json)
}

/// Inserts the rows of `kind` (see the module); `?1` the organization, `?2` the rows.
pub fn insert_stmt(realm_id: i64, kind: Kind, rows_json: &str) -> Result<Statement> {
    let sql = match kind {
        Kind::User => users_sql(),
        Kind::ChannelFolder => channel_folders_sql(),
        Kind::Channel => channels_sql(),
        Kind::Recipient => recipients_sql(),
        Kind::DirectMessageGroup => direct_message_groups_sql(),
        Kind::Subscription => subscriptions_sql(),
        Kind::UserGroup => user_groups_sql(),
        Kind::ProfileField => profile_fields_sql(),
        Kind::Emoji => emoji_sql(),
        Kind::Attachment => attachments_sql(),
        Kind::UserTopic => user_topics_sql(),
        Kind::Message => messages_sql(),
        Kind::Reaction => reactions_sql(),
    };
    statement!(&sql, realm_id, rows_json)
}

/// Users with their real address as `email` too (`delivery_email`; Zulip's `email` may be
/// the placeholder of an address not visible to everyone, which this server makes itself).
fn users_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO users (id, realm_id, email, delivery_email, full_name, role, is_active, is_bot, bot_type, \
         bot_owner_id, password_hash, timezone, date_joined, email_address_visibility, is_imported_stub, avatar_version, settings) \
         SELECT i.new_id, ?1, COALESCE({delivery}, {email}), COALESCE({delivery}, {email}), {name}, COALESCE({role}, 400), COALESCE({active}, 1), \
         COALESCE({bot}, 0), {bot_type}, {owner}, NULL, COALESCE({tz}, ''), CAST({joined} AS INTEGER), COALESCE({vis}, 1), \
         COALESCE({dummy}, 0), MAX(COALESCE({avatar_version}, 1), 1), COALESCE({settings}, '{{}}') {from}",
        email = f("email"),
        delivery = f("delivery_email"),
        name = f("full_name"),
        role = f("role"),
        active = f("is_active"),
        bot = f("is_bot"),
        bot_type = f("bot_type"),
        owner = mapped(Kind::User, &f("bot_owner")),
        tz = f("timezone"),
        joined = f("date_joined"),
        vis = f("email_address_visibility"),
        dummy = f("is_mirror_dummy"),
        avatar_version = f("avatar_version"),
        settings = f("imported_settings"),
        from = own_id(Kind::User),
    )
}

/// Channel folders (Zulip's `order` is their position).
fn channel_folders_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO channel_folders (id, realm_id, name, description, rendered_description, creator_id, date_created, \
         is_archived, sort_order) SELECT i.new_id, ?1, {}, COALESCE({}, ''), COALESCE({}, ''), {}, CAST(COALESCE({}, 0) AS INTEGER), \
         COALESCE({}, 0), COALESCE({}, 0) {}",
        f("name"),
        f("description"),
        f("rendered_description"),
        mapped(Kind::User, &f("creator")),
        f("date_created"),
        f("is_archived"),
        f("order"),
        own_id(Kind::ChannelFolder),
    )
}

/// Channels, in their folder; each group setting names this server's group (null, the
/// default, when the archive has none or names a group it does not hold).
fn channels_sql() -> String {
    let settings: Vec<String> = GROUP_SETTING_COLUMNS.iter().map(|s| mapped(Kind::UserGroup, &f(s))).collect();
    format!(
        "INSERT OR IGNORE INTO channels (id, realm_id, name, description, invite_only, history_public_to_subscribers, \
         is_web_public, is_archived, creator_id, date_created, message_retention_days, folder_id, topics_policy, {}) \
         SELECT i.new_id, ?1, {}, COALESCE({}, ''), COALESCE({}, 0), COALESCE({}, 1), COALESCE({}, 0), COALESCE({}, 0), {}, \
         CAST(COALESCE({}, 0) AS INTEGER), {}, {}, {}, {} {}",
        GROUP_SETTING_COLUMNS.join(", "),
        f("name"),
        f("description"),
        f("invite_only"),
        f("history_public_to_subscribers"),
        f("is_web_public"),
        f("deactivated"),
        mapped(Kind::User, &f("creator")),
        f("date_created"),
        f("message_retention_days"),
        mapped(Kind::ChannelFolder, &f("folder")),
        f("topics_policy"),
        settings.join(", "),
        own_id(Kind::Channel),
    )
}

fn recipients_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO recipients (id, realm_id, type, type_id) \
         SELECT i.new_id, ?1, {ty}, CASE {ty} WHEN 1 THEN {user} WHEN 2 THEN {channel} ELSE {group} END {from}",
        ty = f("type"),
        user = mapped(Kind::User, &f("type_id")),
        channel = mapped(Kind::Channel, &f("type_id")),
        group = mapped(Kind::DirectMessageGroup, &f("type_id")),
        from = own_id(Kind::Recipient),
    )
}

/// Direct-message groups: `members` lists the archive's user ids; the member key is made
/// of this server's ids, ascending.
fn direct_message_groups_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO direct_message_groups (id, realm_id, member_key, group_size) \
         SELECT i.new_id, ?1, (SELECT group_concat(id, ',') FROM (SELECT m.new_id AS id FROM json_each(j.value, '$.members') x \
         JOIN realm_import_ids m ON m.realm_id = ?1 AND m.kind = 'user' AND m.old_id = x.value ORDER BY m.new_id)), \
         json_array_length(j.value, '$.members') {}",
        own_id(Kind::DirectMessageGroup),
    )
}

/// Channel subscriptions: `channel` is the archive's channel id.
fn subscriptions_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO subscriptions (id, realm_id, user_id, channel_id, active, color, is_muted, pin_to_top, \
         desktop_notifications, audible_notifications, push_notifications, email_notifications, wildcard_mentions_notify) \
         SELECT i.new_id, ?1, {}, {}, COALESCE({}, 1), COALESCE({}, '#c2c2c2'), COALESCE({}, 0), COALESCE({}, 0), {}, {}, {}, {}, {} {}",
        mapped(Kind::User, &f("user_profile")),
        mapped(Kind::Channel, &f("channel")),
        f("active"),
        f("color"),
        f("is_muted"),
        f("pin_to_top"),
        f("desktop_notifications"),
        f("audible_notifications"),
        f("push_notifications"),
        f("email_notifications"),
        f("wildcard_mentions_notify"),
        own_id(Kind::Subscription),
    )
}

/// User groups: named ones, and (`is_anonymous`) the anonymous groups settings name.
fn user_groups_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO user_groups (id, realm_id, name, description, is_system_group, creator_id, date_created, deactivated, \
         is_anonymous) \
         SELECT i.new_id, ?1, {}, COALESCE({}, ''), 0, {}, CAST({} AS INTEGER), COALESCE({}, 0), COALESCE({}, 0) {}",
        f("name"),
        f("description"),
        mapped(Kind::User, &f("creator")),
        f("date_created"),
        f("deactivated"),
        f("is_anonymous"),
        own_id(Kind::UserGroup),
    )
}

fn profile_fields_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO custom_profile_fields (id, realm_id, name, hint, field_type, field_data, sort_order, \
         display_in_profile_summary, required, editable_by_user) \
         SELECT i.new_id, ?1, {}, COALESCE({}, ''), {}, COALESCE({}, ''), COALESCE({}, 0), COALESCE({}, 0), COALESCE({}, 0), \
         COALESCE({}, 1) {}",
        f("name"),
        f("hint"),
        f("field_type"),
        f("field_data"),
        f("order"),
        f("display_in_profile_summary"),
        f("required"),
        f("editable_by_user"),
        own_id(Kind::ProfileField),
    )
}

/// Custom emoji: `content_type` is worked out from the file name before.
fn emoji_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO realm_emoji (id, realm_id, name, author_id, file_name, content_type, still_file_name, deactivated) \
         SELECT i.new_id, ?1, {}, {}, {}, {}, {}, COALESCE({}, 0) {}",
        f("name"),
        mapped(Kind::User, &f("author")),
        f("file_name"),
        f("content_type"),
        f("still_file_name"),
        f("deactivated"),
        own_id(Kind::Emoji),
    )
}

/// Attachments: `path_id` is this server's path, worked out before.
fn attachments_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO attachments (id, realm_id, owner_id, path_id, file_name, size, content_type, create_time) \
         SELECT i.new_id, ?1, {}, {}, {}, COALESCE({}, 0), COALESCE({}, 'application/octet-stream'), CAST(COALESCE({}, 0) AS INTEGER) {}",
        mapped(Kind::User, &f("owner")),
        f("path_id"),
        f("file_name"),
        f("size"),
        f("content_type"),
        f("create_time"),
        own_id(Kind::Attachment),
    )
}

fn user_topics_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO user_topics (id, realm_id, user_id, channel_id, topic, visibility_policy, last_updated) \
         SELECT i.new_id, ?1, {}, {}, {}, {}, CAST(COALESCE({}, 0) AS INTEGER) {}",
        mapped(Kind::User, &f("user_profile")),
        mapped(Kind::Channel, &f("stream")),
        f("topic_name"),
        f("visibility_policy"),
        f("last_updated"),
        own_id(Kind::UserTopic),
    )
}

/// Messages (the full-text index follows through its triggers): `sending_client` is the
/// client's name, the contents already rewritten to this server's ids.
fn messages_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO messages (id, realm_id, sender_id, recipient_id, channel_id, topic, content, rendered_content, \
         date_sent, client, is_me_message, last_edit_timestamp, last_moved_timestamp, edit_history, has_attachment, has_image, \
         has_link, kind) \
         SELECT i.new_id, ?1, {sender}, {recipient}, \
         (SELECT r.type_id FROM recipients r WHERE r.id = {recipient} AND r.type = 2), COALESCE({subject}, ''), {content}, \
         {rendered}, CAST({sent} AS INTEGER), COALESCE({client}, ''), COALESCE({me}, 0), CAST({edit} AS INTEGER), \
         CAST({moved} AS INTEGER), {history}, COALESCE({att}, 0), COALESCE({img}, 0), COALESCE({link}, 0), COALESCE({kind}, 1) {from}",
        sender = mapped(Kind::User, &f("sender")),
        recipient = mapped(Kind::Recipient, &f("recipient")),
        subject = f("subject"),
        content = f("content"),
        rendered = f("rendered_content"),
        sent = f("date_sent"),
        client = f("sending_client"),
        me = f("is_me_message"),
        edit = f("last_edit_time"),
        moved = f("last_moved_time"),
        history = f("edit_history"),
        att = f("has_attachment"),
        img = f("has_image"),
        link = f("has_link"),
        kind = f("type"),
        from = own_id(Kind::Message),
    )
}

/// Reactions: `emoji_code` of a custom emoji already names this server's emoji.
fn reactions_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO reactions (id, message_id, user_id, emoji_name, emoji_code, reaction_type) \
         SELECT i.new_id, {}, {}, {}, {}, COALESCE({}, 'unicode_emoji') {}",
        mapped(Kind::Message, &f("message")),
        mapped(Kind::User, &f("user_profile")),
        f("emoji_name"),
        f("emoji_code"),
        f("reaction_type"),
        own_id(Kind::Reaction),
    )
}

/// Zulip's custom profile field type "users" (`domain::profile_fields::USER`).
const USERS_FIELD_TYPE: i64 = 6;

/// Rows without an id of their own: each names its table, columns and the archive's
/// fields they come from (mapped through their kinds).
#[derive(Clone, Copy)]
pub enum Link {
    /// `{user_profile, dm_group}`
    DirectMessageGroupMember,
    /// `{user_group, user_profile}`
    UserGroupMember,
    /// `{supergroup, subgroup}`
    Subgroup,
    /// `{user_profile, field, value, rendered_value}`
    ProfileFieldValue,
    /// `{stream}`
    DefaultChannel,
    /// `{user_profile, message, flags}`: the flags in this server's bits.
    UserMessage,
    /// `{attachment, message}`
    AttachmentMessage,
    /// `{pattern, url_template, order}` (Zulip's zerver_realmfilter)
    Linkifier,
    /// `{domain, allow_subdomains}`
    RealmDomain,
    /// `{name, pygments_language, url_template}`
    Playground,
    /// `{user_profile, word}`
    AlertWord,
    /// `{user_profile, muted_user, date_muted}`
    MutedUser,
    /// `{user_profile, base_url, interface, token}`: an outgoing-webhook bot's service.
    BotService,
    /// `{user_profile, status_text, emoji_name, emoji_code, reaction_type, timestamp}`: a
    /// custom emoji's code is the archive's emoji id.
    UserStatus,
    /// `{id, can_*_group...}` of the named groups: their group settings, once every group is in.
    GroupSettings,
    /// `{bot_profile, key, value}`
    BotStorage,
    /// `{user_profile, title, content, date_created}`
    SavedSnippet,
    /// `{user, fragment, is_pinned, name}`
    NavigationView,
    /// `{user_profile, last_active_time, last_connected_time, last_update_id}`
    Presence,
    /// `{sender, channel | to_users, subject, content, rendered_content, scheduled_timestamp,
    /// read_by_sender, client, failed, failure_message}`: a pending scheduled message.
    ScheduledMessage,
}

/// Inserts link rows; a row whose references are not mapped is left out.
pub fn insert_links_stmt(realm_id: i64, link: Link, rows_json: &str) -> Result<Statement> {
    let join = join_mapped;
    let sql = match link {
        Link::DirectMessageGroupMember => format!(
            "INSERT OR IGNORE INTO direct_message_group_members (group_id, user_id) SELECT g.new_id, u.new_id FROM json_each(?2) j {} {}",
            join("g", Kind::DirectMessageGroup, "dm_group"),
            join("u", Kind::User, "user_profile")
        ),
        Link::UserGroupMember => format!(
            "INSERT OR IGNORE INTO user_group_members (group_id, user_id) SELECT g.new_id, u.new_id FROM json_each(?2) j {} {}",
            join("g", Kind::UserGroup, "user_group"),
            join("u", Kind::User, "user_profile")
        ),
        Link::Subgroup => format!(
            "INSERT OR IGNORE INTO user_group_subgroups (supergroup_id, subgroup_id) SELECT a.new_id, b.new_id FROM json_each(?2) j {} {}",
            join("a", Kind::UserGroup, "supergroup"),
            join("b", Kind::UserGroup, "subgroup")
        ),
        Link::ProfileFieldValue => profile_values_sql(),
        Link::DefaultChannel => format!(
            "INSERT OR IGNORE INTO default_channels (realm_id, channel_id) SELECT ?1, c.new_id FROM json_each(?2) j {}",
            join("c", Kind::Channel, "stream")
        ),
        Link::UserMessage => format!(
            "INSERT OR IGNORE INTO user_messages (user_id, message_id, flags) SELECT u.new_id, m.new_id, COALESCE({}, 0) \
             FROM json_each(?2) j {} {}",
            f("flags"),
            join("u", Kind::User, "user_profile"),
            join("m", Kind::Message, "message")
        ),
        Link::AttachmentMessage => format!(
            "INSERT OR IGNORE INTO attachment_messages (attachment_id, message_id) SELECT a.new_id, m.new_id FROM json_each(?2) j {} {}",
            join("a", Kind::Attachment, "attachment"),
            join("m", Kind::Message, "message")
        ),
        Link::Linkifier => realm_rows_sql(
            "linkifiers (realm_id, pattern, url_template, sort_order)",
            &format!("{}, {}, COALESCE({}, 0)", f("pattern"), f("url_template"), f("order")),
            &["pattern", "url_template"],
        ),
        Link::RealmDomain => realm_rows_sql(
            "realm_domains (realm_id, domain, allow_subdomains)",
            &format!("lower({}), COALESCE({}, 0)", f("domain"), f("allow_subdomains")),
            &["domain"],
        ),
        Link::Playground => realm_rows_sql(
            "realm_playgrounds (realm_id, name, pygments_language, url_template)",
            &format!("{}, {}, {}", f("name"), f("pygments_language"), f("url_template")),
            &["name", "pygments_language", "url_template"],
        ),
        Link::AlertWord => format!(
            "INSERT OR IGNORE INTO alert_words (realm_id, user_id, word) SELECT ?1, u.new_id, {} FROM json_each(?2) j {} \
             WHERE {} IS NOT NULL",
            f("word"),
            join("u", Kind::User, "user_profile"),
            f("word")
        ),
        Link::MutedUser => format!(
            "INSERT OR IGNORE INTO muted_users (user_id, muted_user_id, date_muted) \
             SELECT u.new_id, m.new_id, CAST(COALESCE({}, 0) AS INTEGER) FROM json_each(?2) j {} {}",
            f("date_muted"),
            join("u", Kind::User, "user_profile"),
            join("m", Kind::User, "muted_user")
        ),
        Link::BotService => bot_services_sql(),
        Link::UserStatus => user_status_sql(),
        Link::GroupSettings => group_settings_sql(),
        Link::BotStorage => bot_storage_sql(),
        Link::SavedSnippet => saved_snippets_sql(),
        Link::NavigationView => navigation_views_sql(),
        Link::Presence => presence_sql(),
        Link::ScheduledMessage => scheduled_messages_sql(),
    };
    statement!(&sql, realm_id, rows_json)
}

/// `JOIN`s this server's id for the archive's id in the row's `field`, as `alias`.
fn join_mapped(alias: &str, kind: Kind, field: &str) -> String {
    format!("JOIN realm_import_ids {alias} ON {alias}.realm_id = ?1 AND {alias}.kind = '{}' AND {alias}.old_id = {}", kind.name(), f(field))
}

/// Rows of the organization's own (`?1`) into `table (realm_id, columns…)`, those with
/// every `required` field.
fn realm_rows_sql(table: &str, values: &str, required: &[&str]) -> String {
    let present: Vec<String> = required.iter().map(|field| format!("{} IS NOT NULL", f(field))).collect();
    format!("INSERT OR IGNORE INTO {table} SELECT ?1, {values} FROM json_each(?2) j WHERE {}", present.join(" AND "))
}

/// A "users" field's value lists user ids: this server's, in the archive's order.
fn profile_values_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO custom_profile_field_values (user_id, field_id, value, rendered_value) \
         SELECT u.new_id, p.new_id, CASE (SELECT field_type FROM custom_profile_fields WHERE id = p.new_id) \
         WHEN {user_field} THEN (SELECT json_group_array(id) FROM (SELECT m.new_id AS id FROM json_each({value}) x \
         JOIN realm_import_ids m ON m.realm_id = ?1 AND m.kind = 'user' AND m.old_id = x.value ORDER BY x.key)) \
         ELSE {value} END, {} FROM json_each(?2) j {} {}",
        f("rendered_value"),
        join_mapped("u", Kind::User, "user_profile"),
        join_mapped("p", Kind::ProfileField, "field"),
        user_field = USERS_FIELD_TYPE,
        value = f("value"),
    )
}

/// A status naming a custom emoji names it by the archive's emoji id.
fn user_status_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO user_status (user_id, realm_id, status_text, emoji_name, emoji_code, reaction_type, updated_at) \
         SELECT u.new_id, ?1, COALESCE({text}, ''), COALESCE({name}, ''), \
         CASE {kind} WHEN 'realm_emoji' THEN COALESCE(CAST({emoji} AS TEXT), '') ELSE COALESCE({code}, '') END, \
         COALESCE({kind}, 'unicode_emoji'), CAST(COALESCE({time}, 0) AS INTEGER) FROM json_each(?2) j {join}",
        text = f("status_text"),
        name = f("emoji_name"),
        kind = f("reaction_type"),
        emoji = mapped(Kind::Emoji, &format!("CAST({} AS INTEGER)", f("emoji_code"))),
        code = f("emoji_code"),
        time = f("timestamp"),
        join = join_mapped("u", Kind::User, "user_profile"),
    )
}

fn bot_services_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO bot_services (realm_id, bot_id, base_url, interface, token) \
         SELECT ?1, u.new_id, {url}, COALESCE({}, 1), {token} FROM json_each(?2) j {} WHERE {url} IS NOT NULL AND {token} IS NOT NULL",
        f("interface"),
        join_mapped("u", Kind::User, "user_profile"),
        url = f("base_url"),
        token = f("token"),
    )
}

fn bot_storage_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO bot_storage (bot_id, key, value) SELECT u.new_id, {key}, {value} FROM json_each(?2) j {} \
         WHERE {key} IS NOT NULL AND {value} IS NOT NULL",
        join_mapped("u", Kind::User, "bot_profile"),
        key = f("key"),
        value = f("value"),
    )
}

fn navigation_views_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO navigation_views (realm_id, user_id, fragment, is_pinned, name) \
         SELECT ?1, u.new_id, {fragment}, COALESCE({}, 0), {} FROM json_each(?2) j {} WHERE {fragment} IS NOT NULL",
        f("is_pinned"),
        f("name"),
        join_mapped("u", Kind::User, "user"),
        fragment = f("fragment"),
    )
}

/// Presence keeps the archive's sequence of changes (its position where it has none).
fn presence_sql() -> String {
    format!(
        "INSERT OR IGNORE INTO presence (user_id, realm_id, last_active_time, last_connected_time, last_update_id) \
         SELECT u.new_id, ?1, CAST(COALESCE({active}, 0) AS INTEGER), CAST(COALESCE({}, {active}, 0) AS INTEGER), \
         COALESCE({}, j.key + 1) FROM json_each(?2) j {}",
        f("last_connected_time"),
        f("last_update_id"),
        join_mapped("u", Kind::User, "user_profile"),
        active = f("last_active_time"),
    )
}

/// A scheduled message keeps its channel or its people (this server's ids, in order); one
/// whose channel was not imported is left out.
fn scheduled_messages_sql() -> String {
    format!(
        "INSERT INTO scheduled_messages (realm_id, sender_id, channel_id, to_user_ids, topic, content, rendered_content, \
         scheduled_timestamp, read_by_sender, client, failed, failure_message, delivery_type, reminder_target_message_id, \
         request_timestamp) \
         SELECT ?1, s.new_id, {channel}, CASE WHEN {to} IS NULL THEN NULL ELSE (SELECT json_group_array(id) FROM \
         (SELECT m.new_id AS id FROM json_each({to}) x JOIN realm_import_ids m ON m.realm_id = ?1 AND m.kind = 'user' \
         AND m.old_id = x.value ORDER BY m.new_id)) END, COALESCE({}, ''), {content}, COALESCE({}, ''), CAST({time} AS INTEGER), \
         COALESCE({}, 0), COALESCE({}, ''), COALESCE({}, 0), {}, CASE WHEN {kind} = 2 THEN 2 ELSE 1 END, \
         CASE WHEN {kind} = 2 THEN CAST({} AS INTEGER) END, CAST({} AS INTEGER) FROM json_each(?2) j {} \
         WHERE {content} IS NOT NULL AND {time} IS NOT NULL AND ({channel_field} IS NULL OR {channel} IS NOT NULL) \
         AND ({channel_field} IS NOT NULL OR {to} IS NOT NULL)",
        f("subject"),
        f("rendered_content"),
        f("read_by_sender"),
        f("client"),
        f("failed"),
        f("failure_message"),
        f("reminder_target_message_id"),
        f("request_timestamp"),
        join_mapped("s", Kind::User, "sender"),
        kind = f("delivery_type"),
        channel = mapped(Kind::Channel, &f("channel")),
        channel_field = f("channel"),
        to = f("to_users"),
        content = f("content"),
        time = f("scheduled_timestamp"),
    )
}

fn saved_snippets_sql() -> String {
    format!(
        "INSERT INTO saved_snippets (realm_id, user_id, title, content, date_created) \
         SELECT ?1, u.new_id, {title}, {content}, CAST(COALESCE({}, 0) AS INTEGER) FROM json_each(?2) j {} \
         WHERE {title} IS NOT NULL AND {content} IS NOT NULL",
        f("date_created"),
        join_mapped("u", Kind::User, "user_profile"),
        title = f("title"),
        content = f("content"),
    )
}

/// The named groups' group settings, once every group is in.
fn group_settings_sql() -> String {
    let sets: Vec<String> = PERMISSION_COLUMNS
        .iter()
        .map(|s| format!("{s} = COALESCE({}, {s})", mapped(Kind::UserGroup, &format!("json_extract(x.value, '$.{s}')"))))
        .collect();
    format!(
        "UPDATE user_groups SET {} FROM (SELECT i.new_id AS id, j.value AS value {}) x \
         WHERE user_groups.id = x.id AND user_groups.realm_id = ?1",
        sets.join(", "),
        own_id(Kind::UserGroup)
    )
}

/// Channel messages of `message_ids_json` (archive ids) that no archived row gives to a
/// subscriber: each active subscriber gets them as read (a public export holds no
/// personal rows), so they show in every view as in the exported organization.
pub fn subscriber_messages_stmt(realm_id: i64, message_ids_json: &str, read_flag: i64) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO user_messages (user_id, message_id, flags) \
         SELECT s.user_id, m.id, ?3 FROM json_each(?2) j \
         JOIN realm_import_ids i ON i.realm_id = ?1 AND i.kind = 'message' AND i.old_id = j.value \
         JOIN messages m ON m.id = i.new_id JOIN subscriptions s ON s.channel_id = m.channel_id AND s.active = 1",
        realm_id,
        message_ids_json,
        read_flag
    )
}

/// The import under way of an organization.
#[derive(Deserialize, Clone)]
pub struct ImportRow {
    pub realm_id: i64,
    pub old_realm_id: i64,
}

pub fn start_stmt(realm_id: RealmId, old_realm_id: i64, now: i64) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO realm_imports (realm_id, old_realm_id, date_started) VALUES (?1, ?2, ?3)",
        realm_id,
        old_realm_id,
        now
    )
}

/// The archive's description, creation date, retention period (days, -1 forever) and
/// defaults for new users (a JSON object) for the organization.
pub fn realm_details_stmt(
    realm_id: i64,
    description: &str,
    date_created: i64,
    message_retention_days: i64,
    user_settings_defaults: &str,
) -> Result<Statement> {
    statement!(
        "UPDATE realms SET description = ?2, date_created = ?3, message_retention_days = ?4, user_settings_defaults = ?5 WHERE id = ?1",
        realm_id,
        description,
        date_created,
        message_retention_days,
        user_settings_defaults
    )
}

/// The organization's announcement channels, from the archive's channel ids (`old_ids`: new
/// channels, new users, Zulip's updates, moderation requests; `None` for nowhere), mapped
/// to the imported channels.
pub fn announcement_channels_stmt(realm_id: i64, old_ids: [Option<i64>; 4]) -> Result<Statement> {
    let mapped = |n: usize| format!("(SELECT new_id FROM realm_import_ids WHERE realm_id = ?1 AND kind = 'channel' AND old_id = ?{n})");
    let sql = format!(
        "UPDATE realms SET new_stream_announcements_stream_id = {}, signup_announcements_stream_id = {}, \
         zulip_update_announcements_stream_id = {}, moderation_request_channel_id = {} WHERE id = ?1",
        mapped(2),
        mapped(3),
        mapped(4),
        mapped(5)
    );
    let [new_channels, signups, updates, moderation] = old_ids;
    statement!(&sql, realm_id, new_channels, signups, updates, moderation)
}

/// The organization's group settings, named as Zulip names them (and as `realms` does).
pub const REALM_GROUP_SETTINGS: [&str; 15] = [
    "can_resolve_topics_group",
    "can_move_messages_between_channels_group",
    "can_move_messages_between_topics_group",
    "can_mention_many_users_group",
    "can_delete_any_message_group",
    "can_delete_own_message_group",
    "can_add_custom_emoji_group",
    "can_invite_users_group",
    "create_multiuse_invite_group",
    "can_create_public_channel_group",
    "can_create_private_channel_group",
    "can_create_groups",
    "can_set_topics_policy_group",
    "can_add_subscribers_group",
    "can_manage_all_groups",
];

/// Points the organization's group settings at this server's groups for the archive's
/// (`?2`, the `zerver_realm` row); a setting whose group is not imported keeps its default.
pub fn realm_group_settings_stmt(realm_id: i64, realm_json: &str) -> Result<Statement> {
    let sets: Vec<String> = REALM_GROUP_SETTINGS
        .iter()
        .map(|s| format!("{s} = COALESCE({}, {s})", mapped(Kind::UserGroup, &format!("json_extract(?2, '$.{s}')"))))
        .collect();
    statement!(&format!("UPDATE realms SET {} WHERE id = ?1", sets.join(", ")), realm_id, realm_json)
}

/// The organization's settings kept as they are, named as Zulip names them (and as
/// `realms` does): those that cannot be null, then those where null means "no limit".
pub const REALM_SETTINGS: [&str; 7] = [
    "allow_message_editing",
    "enable_read_receipts",
    "invite_required",
    "emails_restricted_to_domains",
    "disallow_disposable_email_addresses",
    "default_language",
    "waiting_period_threshold",
];
pub const REALM_LIMIT_SETTINGS: [&str; 4] = [
    "message_content_edit_limit_seconds",
    "message_content_delete_limit_seconds",
    "move_messages_within_stream_limit_seconds",
    "move_messages_between_streams_limit_seconds",
];

/// Sets the organization's settings the archive's `zerver_realm` row (`?2`) gives; one it
/// lacks keeps this server's default.
pub fn realm_settings_stmt(realm_id: i64, realm_json: &str) -> Result<Statement> {
    let value = |s: &str| format!("json_extract(?2, '$.{s}')");
    let mut sets: Vec<String> = REALM_SETTINGS.iter().map(|s| format!("{s} = COALESCE({}, {s})", value(s))).collect();
    sets.extend(
        REALM_LIMIT_SETTINGS.iter().map(|s| format!("{s} = CASE WHEN json_type(?2, '$.{s}') IS NULL THEN {s} ELSE {} END", value(s))),
    );
    statement!(&format!("UPDATE realms SET {} WHERE id = ?1", sets.join(", ")), realm_id, realm_json)
}

/// The archive's versions of the organization's icon, logo and night logo.
pub fn realm_image_versions_stmt(realm_id: i64, [icon, logo, night_logo]: [i64; 3]) -> Result<Statement> {
    statement!(
        "UPDATE realms SET icon_version = ?2, logo_version = ?3, night_logo_version = ?4 WHERE id = ?1",
        realm_id,
        icon,
        logo,
        night_logo
    )
}

/// This server's id of the archive's `old_id` of `kind`, if the import mapped it.
pub async fn mapped_id(db: &D1Database, realm_id: RealmId, kind: Kind, old_id: i64) -> Result<Option<i64>> {
    #[derive(Deserialize)]
    struct NewId {
        new_id: i64,
    }
    let row: Option<NewId> = super::first(
        db,
        statement!("SELECT new_id FROM realm_import_ids WHERE realm_id = ?1 AND kind = ?2 AND old_id = ?3", realm_id, kind.name(), old_id)?,
    )
    .await?;
    Ok(row.map(|r| r.new_id))
}

/// An imported user's uploaded avatar (its version is the archive's).
pub fn set_avatar_stmt(realm_id: RealmId, user_id: UserId, file_name: &str) -> Result<Statement> {
    statement!("UPDATE users SET avatar_file = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, user_id, file_name)
}

/// The imported organization's uploaded icon, logo or night logo (each version is the
/// archive's).
pub fn set_icon_stmt(realm_id: i64, file_name: &str) -> Result<Statement> {
    statement!("UPDATE realms SET icon_file = ?2 WHERE id = ?1", realm_id, file_name)
}

pub fn set_logo_stmt(realm_id: i64, file_name: &str) -> Result<Statement> {
    statement!("UPDATE realms SET logo_file = ?2 WHERE id = ?1", realm_id, file_name)
}

pub fn set_night_logo_stmt(realm_id: i64, file_name: &str) -> Result<Statement> {
    statement!("UPDATE realms SET night_logo_file = ?2 WHERE id = ?1", realm_id, file_name)
}

/// The import under way of the organization `string_id`, if any.
pub fn by_string_id_stmt(string_id: &str) -> Result<Statement> {
    statement!(
        "SELECT i.realm_id, i.old_realm_id FROM realm_imports i JOIN realms r ON r.id = i.realm_id WHERE r.string_id = ?1",
        string_id
    )
}

pub async fn by_string_id(db: &D1Database, string_id: &str) -> Result<Option<ImportRow>> {
    super::first(db, by_string_id_stmt(string_id)?).await
}

/// One mapped id.
#[derive(Deserialize)]
pub struct MappedId {
    pub kind: String,
    pub old_id: i64,
    pub new_id: i64,
}

/// The mapped ids of the kinds a message chunk refers to (every kind but messages and
/// reactions).
pub fn reference_ids_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        "SELECT kind, old_id, new_id FROM realm_import_ids WHERE realm_id = ?1 AND kind IN ('user', 'recipient', 'channel', \
         'user_group', 'emoji', 'attachment')",
        realm_id
    )
}

/// A channel's recipient, as [`channel_recipients_stmt`] answers it (this server's ids).
#[derive(Deserialize)]
pub struct ChannelRecipientRow {
    pub recipient_id: i64,
    pub channel_id: i64,
}

/// The organization's channel recipients: what a subscription's recipient names.
pub fn channel_recipients_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        "SELECT id AS recipient_id, type_id AS channel_id FROM recipients WHERE realm_id = ?1 AND type = ?2",
        realm_id,
        crate::model::RecipientType::Channel.code()
    )
}

/// An imported attachment, by its path on this server.
#[derive(Deserialize)]
pub struct AttachmentRow {
    pub id: i64,
    pub content_type: String,
}

pub async fn attachment_by_path(db: &D1Database, realm_id: i64, path_id: &str) -> Result<Option<AttachmentRow>> {
    super::first(db, statement!("SELECT id, content_type FROM attachments WHERE realm_id = ?1 AND path_id = ?2", realm_id, path_id)?).await
}

/// The import's note that attachment `attachment_id`'s file is stored (kept with the id
/// maps, and removed with them when the import finishes).
pub fn file_stored_stmt(realm_id: RealmId, attachment_id: i64) -> Result<Statement> {
    statement!(
        "INSERT OR IGNORE INTO realm_import_ids (realm_id, kind, old_id, new_id) VALUES (?1, 'stored_file', ?2, ?2)",
        realm_id,
        attachment_id
    )
}

/// The attachments whose file has not been stored, as [`MissingFilesRow`]: how many, and
/// the path of the first.
pub fn missing_files_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        "SELECT COUNT(*) AS count, MIN(a.path_id) AS first_path FROM attachments a WHERE a.realm_id = ?1 AND NOT EXISTS \
         (SELECT 1 FROM realm_import_ids i WHERE i.realm_id = ?1 AND i.kind = 'stored_file' AND i.old_id = a.id)",
        realm_id
    )
}

#[derive(Deserialize)]
pub struct MissingFilesRow {
    pub count: i64,
    pub first_path: Option<String>,
}

#[derive(Deserialize)]
pub struct EmojiRow {
    pub content_type: String,
}

pub async fn emoji_by_file_name(db: &D1Database, realm_id: i64, file_name: &str) -> Result<Option<EmojiRow>> {
    super::first(db, statement!("SELECT content_type FROM realm_emoji WHERE realm_id = ?1 AND file_name = ?2", realm_id, file_name)?).await
}

/// The finished import points reminders at the imported messages, opens the organization
/// and forgets its id map.
pub fn finish_stmts(realm_id: i64) -> Result<Vec<Statement>> {
    Ok(vec![
        statement!("UPDATE realms SET deactivated = 0 WHERE id = ?1", realm_id)?,
        // Reminders came with realm.json, before the messages they are about: they point at
        // the archive's ids until now (null where that message did not come).
        statement!(
            "UPDATE scheduled_messages SET reminder_target_message_id = (SELECT new_id FROM realm_import_ids \
             WHERE realm_id = ?1 AND kind = 'message' AND old_id = scheduled_messages.reminder_target_message_id) \
             WHERE realm_id = ?1 AND delivery_type = 2",
            realm_id
        )?,
        statement!("DELETE FROM realm_import_ids WHERE realm_id = ?1", realm_id)?,
        statement!("DELETE FROM realm_imports WHERE realm_id = ?1", realm_id)?,
    ])
}

/// The R2 keys of an unfinished import's uploads.
#[derive(Deserialize)]
pub struct StoredFile {
    pub path_id: String,
}

pub async fn stored_uploads(db: &D1Database, realm_id: i64) -> Result<Vec<StoredFile>> {
    super::all(db, statement!("SELECT path_id FROM attachments WHERE realm_id = ?1", realm_id)?).await
}

#[derive(Deserialize)]
pub struct StoredEmoji {
    pub file_name: String,
}

pub async fn stored_emoji(db: &D1Database, realm_id: i64) -> Result<Vec<StoredEmoji>> {
    super::all(db, statement!("SELECT file_name FROM realm_emoji WHERE realm_id = ?1", realm_id)?).await
}

#[derive(Deserialize)]
pub struct StoredAvatar {
    pub avatar_file: String,
}

pub async fn stored_avatars(db: &D1Database, realm_id: i64) -> Result<Vec<StoredAvatar>> {
    super::all(db, statement!("SELECT avatar_file FROM users WHERE realm_id = ?1 AND avatar_file IS NOT NULL", realm_id)?).await
}

/// Everything an unfinished import wrote, the organization's row last (its references are
/// checked at the end of the batch).
const REMOVE: &[&str] = &[
    "DELETE FROM user_messages WHERE message_id IN (SELECT id FROM messages WHERE realm_id = ?1)",
    "DELETE FROM reactions WHERE message_id IN (SELECT id FROM messages WHERE realm_id = ?1)",
    "DELETE FROM attachment_messages WHERE attachment_id IN (SELECT id FROM attachments WHERE realm_id = ?1)",
    "DELETE FROM messages WHERE realm_id = ?1",
    "DELETE FROM attachments WHERE realm_id = ?1",
    "DELETE FROM realm_emoji WHERE realm_id = ?1",
    "DELETE FROM user_topics WHERE realm_id = ?1",
    "DELETE FROM custom_profile_field_values WHERE field_id IN (SELECT id FROM custom_profile_fields WHERE realm_id = ?1)",
    "DELETE FROM custom_profile_fields WHERE realm_id = ?1",
    "DELETE FROM user_group_members WHERE group_id IN (SELECT id FROM user_groups WHERE realm_id = ?1)",
    "DELETE FROM user_group_subgroups WHERE supergroup_id IN (SELECT id FROM user_groups WHERE realm_id = ?1)",
    "DELETE FROM default_channels WHERE realm_id = ?1",
    "DELETE FROM linkifiers WHERE realm_id = ?1",
    "DELETE FROM realm_domains WHERE realm_id = ?1",
    "DELETE FROM realm_playgrounds WHERE realm_id = ?1",
    "DELETE FROM alert_words WHERE realm_id = ?1",
    "DELETE FROM user_status WHERE realm_id = ?1",
    "DELETE FROM bot_services WHERE realm_id = ?1",
    "DELETE FROM bot_storage WHERE bot_id IN (SELECT id FROM users WHERE realm_id = ?1)",
    "DELETE FROM saved_snippets WHERE realm_id = ?1",
    "DELETE FROM navigation_views WHERE realm_id = ?1",
    "DELETE FROM presence WHERE realm_id = ?1",
    "DELETE FROM scheduled_messages WHERE realm_id = ?1",
    "DELETE FROM muted_users WHERE user_id IN (SELECT id FROM users WHERE realm_id = ?1)",
    "DELETE FROM subscriptions WHERE realm_id = ?1",
    "DELETE FROM direct_message_group_members WHERE group_id IN (SELECT id FROM direct_message_groups WHERE realm_id = ?1)",
    "DELETE FROM direct_message_groups WHERE realm_id = ?1",
    "DELETE FROM recipients WHERE realm_id = ?1",
    "DELETE FROM channels WHERE realm_id = ?1",
    "DELETE FROM channel_folders WHERE realm_id = ?1",
    "DELETE FROM users WHERE realm_id = ?1",
    "DELETE FROM user_groups WHERE realm_id = ?1",
    "DELETE FROM realm_import_ids WHERE realm_id = ?1",
    "DELETE FROM realm_imports WHERE realm_id = ?1",
    "DELETE FROM realms WHERE id = ?1",
];

pub fn remove_stmts(realm_id: i64) -> Result<Vec<Statement>> {
    let mut stmts = vec![Statement::new("PRAGMA defer_foreign_keys = ON", Vec::new())];
    for sql in REMOVE {
        stmts.push(statement!(*sql, realm_id)?);
    }
    Ok(stmts)
}
