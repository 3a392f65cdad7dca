//! Channels as one user sees them (with that user's subscription), subscriber lists, and
//! the writes of subscribing and unsubscribing.

use super::statement::{statement, Statement};
use super::user_groups::SettingGroupRef;
use serde::Deserialize;
use serde_json::json;
use worker::Result;

use crate::model::ids::{ChannelId, RealmId, UserId};
use crate::model::recipients::RecipientType;
use crate::model::TopicsPolicy;

/// A channel with its counts and, if any, the viewer's subscription row.
#[derive(Debug, Clone, Deserialize)]
pub struct ChannelViewRow {
    pub id: i64,
    pub name: String,
    pub description: String,
    pub invite_only: i64,
    pub history_public_to_subscribers: i64,
    pub is_web_public: i64,
    pub is_archived: i64,
    pub creator_id: Option<i64>,
    pub date_created: i64,
    pub topics_policy: TopicsPolicy,
    /// The channel folder, if any.
    pub folder_id: Option<i64>,
    /// Its own retention period (migration 0037): days, -1 forever, `None` the organization's.
    #[serde(default)]
    pub message_retention_days: Option<i64>,
    pub recipient_id: i64,
    pub subscriber_count: i64,
    pub first_message_id: Option<i64>,
    /// The viewer's subscription: null when never subscribed; 0 after unsubscribing.
    pub sub_active: Option<i64>,
    pub color: Option<String>,
    pub is_muted: Option<i64>,
    pub pin_to_top: Option<i64>,
    pub desktop_notifications: Option<i64>,
    pub audible_notifications: Option<i64>,
    pub push_notifications: Option<i64>,
    pub email_notifications: Option<i64>,
    pub wildcard_mentions_notify: Option<i64>,
    /// The stored permission settings (`domain::channel_permissions::STORED`); `None`: the
    /// default group.
    #[serde(default)]
    pub can_send_message_group: Option<i64>,
    #[serde(default)]
    pub can_administer_channel_group: Option<i64>,
    #[serde(default)]
    pub can_add_subscribers_group: Option<i64>,
    #[serde(default)]
    pub can_remove_subscribers_group: Option<i64>,
    #[serde(default)]
    pub can_subscribe_group: Option<i64>,
    #[serde(default)]
    pub can_move_messages_within_channel_group: Option<i64>,
    #[serde(default)]
    pub can_move_messages_out_of_channel_group: Option<i64>,
    #[serde(default)]
    pub can_resolve_topics_group: Option<i64>,
    #[serde(default)]
    pub can_delete_any_message_group: Option<i64>,
    #[serde(default)]
    pub can_delete_own_message_group: Option<i64>,
    /// The viewer's way into a private channel through its groups (Zulip's metadata access
    /// through groups): [`ADMINISTERS_THROUGH_GROUP`] and [`JOINS_THROUGH_GROUP`] bits; 0
    /// for a public channel.
    #[serde(default)]
    pub group_access: i64,
    /// The anonymous groups among the permission settings, as
    /// `user_groups::anonymous_groups_sql` answers them.
    #[serde(default)]
    pub anonymous_groups: Option<String>,
}

/// In the channel's `can_administer_channel_group`.
pub const ADMINISTERS_THROUGH_GROUP: i64 = 1;
/// In its `can_add_subscribers_group` or `can_subscribe_group`.
pub const JOINS_THROUGH_GROUP: i64 = 2;

impl ChannelViewRow {
    /// A stored permission setting by its name; `None` for the default (or an unknown name).
    pub fn group_setting(&self, name: &str) -> Option<i64> {
        *self.group_setting_slot(name)?
    }

    /// Sets a stored permission setting by its name (an unknown name changes nothing).
    pub fn set_group_setting(&mut self, name: &str, group_id: i64) {
        if let Some(slot) = self.group_setting_slot_mut(name) {
            *slot = Some(group_id);
        }
    }

    fn group_setting_slot(&self, name: &str) -> Option<&Option<i64>> {
        Some(match name {
            "can_send_message_group" => &self.can_send_message_group,
            "can_administer_channel_group" => &self.can_administer_channel_group,
            "can_add_subscribers_group" => &self.can_add_subscribers_group,
            "can_remove_subscribers_group" => &self.can_remove_subscribers_group,
            "can_subscribe_group" => &self.can_subscribe_group,
            "can_move_messages_within_channel_group" => &self.can_move_messages_within_channel_group,
            "can_move_messages_out_of_channel_group" => &self.can_move_messages_out_of_channel_group,
            "can_resolve_topics_group" => &self.can_resolve_topics_group,
            "can_delete_any_message_group" => &self.can_delete_any_message_group,
            "can_delete_own_message_group" => &self.can_delete_own_message_group,
            _ => return None,
        })
    }

    fn group_setting_slot_mut(&mut self, name: &str) -> Option<&mut Option<i64>> {
        Some(match name {
            "can_send_message_group" => &mut self.can_send_message_group,
            "can_administer_channel_group" => &mut self.can_administer_channel_group,
            "can_add_subscribers_group" => &mut self.can_add_subscribers_group,
            "can_remove_subscribers_group" => &mut self.can_remove_subscribers_group,
            "can_subscribe_group" => &mut self.can_subscribe_group,
            "can_move_messages_within_channel_group" => &mut self.can_move_messages_within_channel_group,
            "can_move_messages_out_of_channel_group" => &mut self.can_move_messages_out_of_channel_group,
            "can_resolve_topics_group" => &mut self.can_resolve_topics_group,
            "can_delete_any_message_group" => &mut self.can_delete_any_message_group,
            "can_delete_own_message_group" => &mut self.can_delete_own_message_group,
            _ => return None,
        })
    }
    pub fn subscribed(&self) -> bool {
        self.sub_active == Some(1)
    }
    pub fn is_private(&self) -> bool {
        self.invite_only != 0
    }
    /// In the private channel's `can_administer_channel_group`.
    pub fn administers_through_group(&self) -> bool {
        self.group_access & ADMINISTERS_THROUGH_GROUP != 0
    }
    /// In the private channel's `can_add_subscribers_group` or `can_subscribe_group`.
    pub fn joins_through_group(&self) -> bool {
        self.group_access & JOINS_THROUGH_GROUP != 0
    }
}

/// `rc.type = 2` is [`RecipientType::Channel`] (a constant string cannot interpolate it; a
/// unit test holds them together).
const VIEW_COLUMNS: &str = "SELECT c.id, c.name, c.description, c.invite_only, c.history_public_to_subscribers, \
    c.is_web_public, c.is_archived, c.creator_id, c.date_created, c.topics_policy, c.folder_id, c.message_retention_days, \
    rc.id AS recipient_id, \
    (SELECT COUNT(*) FROM subscriptions s2 JOIN users u2 ON u2.id = s2.user_id AND u2.is_active = 1 \
     WHERE s2.channel_id = c.id AND s2.active = 1) AS subscriber_count, \
    (SELECT MIN(m.id) FROM messages m WHERE m.recipient_id = rc.id) AS first_message_id, \
    s.active AS sub_active, s.color, s.is_muted, s.pin_to_top, s.desktop_notifications, s.audible_notifications, \
    s.push_notifications, s.email_notifications, s.wildcard_mentions_notify, \
    c.can_send_message_group, c.can_administer_channel_group, c.can_add_subscribers_group, c.can_remove_subscribers_group, \
    c.can_subscribe_group, c.can_move_messages_within_channel_group, c.can_move_messages_out_of_channel_group, \
    c.can_resolve_topics_group, \
    c.can_delete_any_message_group, c.can_delete_own_message_group, \
    CASE WHEN c.invite_only = 1 THEN \
      COALESCE(c.can_administer_channel_group IN (SELECT id FROM mine), 0) \
      + 2 * (COALESCE(c.can_add_subscribers_group IN (SELECT id FROM mine), 0) \
             OR COALESCE(c.can_subscribe_group IN (SELECT id FROM mine), 0)) \
    ELSE 0 END AS group_access";

const VIEW_FROM: &str = "FROM channels c JOIN recipients rc ON rc.realm_id = c.realm_id AND rc.type = 2 AND rc.type_id = c.id \
    LEFT JOIN subscriptions s ON s.channel_id = c.id AND s.user_id = ?2";

/// The stored permission-setting columns of `channels` (`c`).
pub const GROUP_SETTING_COLUMNS: [&str; 10] = [
    "can_send_message_group",
    "can_administer_channel_group",
    "can_add_subscribers_group",
    "can_remove_subscribers_group",
    "can_subscribe_group",
    "can_move_messages_within_channel_group",
    "can_move_messages_out_of_channel_group",
    "can_resolve_topics_group",
    "can_delete_any_message_group",
    "can_delete_own_message_group",
];

/// The channel view's query, before its `WHERE`: `?1` the organization, `?2` the viewer,
/// whose groups (`mine`) decide [`ChannelViewRow::group_access`].
fn view_select() -> String {
    let columns: Vec<String> = GROUP_SETTING_COLUMNS.iter().map(|column| format!("c.{column}")).collect();
    format!(
        "{} {VIEW_COLUMNS}, {} AS anonymous_groups {VIEW_FROM}",
        super::user_groups::groups_of_user_cte("?2"),
        super::user_groups::anonymous_groups_sql(&columns)
    )
}

/// Every channel of the organization as `user_id` sees it, by name.
pub fn all_for_user_stmt(realm_id: RealmId, user_id: UserId) -> Result<Statement> {
    statement!(&format!("{} WHERE c.realm_id = ?1 ORDER BY c.name COLLATE NOCASE", view_select()), realm_id, user_id)
}

/// Every channel of the organization as `user_id` sees it, by id (`POST /register`).
pub fn all_for_user_by_id_stmt(realm_id: RealmId, user_id: UserId) -> Result<Statement> {
    statement!(&format!("{} WHERE c.realm_id = ?1 ORDER BY c.id", view_select()), realm_id, user_id)
}

/// One channel by id as `user_id` sees it.
pub fn by_id_for_user_stmt(realm_id: RealmId, user_id: UserId, channel_id: ChannelId) -> Result<Statement> {
    statement!(&format!("{} WHERE c.realm_id = ?1 AND c.id = ?3", view_select()), realm_id, user_id, channel_id)
}

/// Channels in a JSON array of ids as `user_id` sees them.
pub fn by_ids_for_user_stmt(realm_id: RealmId, user_id: UserId, ids_json: &str) -> Result<Statement> {
    statement!(
        &format!("{} WHERE c.realm_id = ?1 AND c.id IN (SELECT value FROM json_each(?3))", view_select()),
        realm_id,
        user_id,
        ids_json
    )
}

/// One channel by name (case-insensitive) as `user_id` sees it.
pub fn by_name_for_user_stmt(realm_id: RealmId, user_id: UserId, name: &str) -> Result<Statement> {
    statement!(&format!("{} WHERE c.realm_id = ?1 AND c.name = ?3 COLLATE NOCASE", view_select()), realm_id, user_id, name)
}

/// Channels named in a JSON array of names (case-insensitive) as `user_id` sees them.
pub fn by_names_for_user_stmt(realm_id: RealmId, user_id: UserId, names_json: &str) -> Result<Statement> {
    statement!(
        &format!("{} WHERE c.realm_id = ?1 AND lower(c.name) IN (SELECT lower(value) FROM json_each(?3))", view_select()),
        realm_id,
        user_id,
        names_json
    )
}

#[derive(Debug, Clone, Deserialize)]
pub struct SubscriberRow {
    pub channel_id: i64,
    pub user_id: i64,
}

/// Active subscribers (active users) of every channel of the realm.
pub fn all_subscribers_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        "SELECT s.channel_id, s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id AND u.is_active = 1 \
         WHERE s.realm_id = ?1 AND s.active = 1 ORDER BY s.channel_id, s.user_id",
        realm_id
    )
}

/// The number of active subscriptions of the channel of message `message_id` (`n`).
pub fn subscriber_count_stmt(message_id: i64) -> Result<Statement> {
    statement!(
        "SELECT COUNT(*) AS n FROM subscriptions WHERE channel_id = (SELECT channel_id FROM messages WHERE id = ?1) AND active = 1",
        message_id
    )
}

/// Active subscribers (active users) of the channels in a JSON array of ids.
pub fn subscribers_stmt(realm_id: i64, channel_ids_json: &str) -> Result<Statement> {
    statement!(
        "SELECT s.channel_id, s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id AND u.is_active = 1 \
         WHERE s.realm_id = ?1 AND s.active = 1 AND s.channel_id IN (SELECT value FROM json_each(?2)) \
         ORDER BY s.channel_id, s.user_id",
        realm_id,
        channel_ids_json
    )
}

/// [`subscribers_stmt`] for channels named (any case) in `names_json`, so that it needs no
/// channel ids: read beside the channels, or after a write that creates them.
pub fn subscribers_by_names_stmt(realm_id: i64, names_json: &str) -> Result<Statement> {
    statement!(
        "SELECT s.channel_id, s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id AND u.is_active = 1 \
         JOIN channels c ON c.id = s.channel_id \
         WHERE s.realm_id = ?1 AND s.active = 1 AND c.realm_id = ?1 AND lower(c.name) IN (SELECT lower(value) FROM json_each(?2)) \
         ORDER BY s.channel_id, s.user_id",
        realm_id,
        names_json
    )
}

/// A channel to create.
pub struct NewChannel<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub invite_only: bool,
    pub history_public_to_subscribers: bool,
    /// The folder the channel is filed in (checked to exist by the caller).
    pub folder_id: Option<i64>,
    pub creator_id: i64,
    /// Its own retention period in days (-1 forever); `None`: the organization's.
    pub message_retention_days: Option<i64>,
    /// Whether messages may go to the empty topic here (`inherit`: the organization's rule).
    pub topics_policy: TopicsPolicy,
    /// Permission settings set at creation: (column, group); the others keep their default.
    pub groups: &'a [(&'static str, SettingGroupRef)],
}

/// Creates a channel (and its recipient) unless one of that name exists.
pub fn create_channel_stmts(realm_id: i64, channel: &NewChannel<'_>, now: i64) -> Result<Vec<Statement>> {
    let NewChannel {
        name,
        description,
        invite_only,
        history_public_to_subscribers,
        folder_id,
        creator_id,
        message_retention_days,
        topics_policy,
        groups,
    } = *channel;
    // The group columns are setting names of `domain::channel_permissions`, never the client's.
    let columns: String = groups.iter().map(|(column, _)| format!(", {column}")).collect();
    let values: String = groups.iter().map(|(_, group)| format!(", {}", group.sql(realm_id))).collect();
    let args = vec![
        json!(realm_id),
        json!(name),
        json!(description),
        json!(invite_only as i64),
        json!(history_public_to_subscribers as i64),
        json!(folder_id),
        json!(creator_id),
        json!(now),
        json!(message_retention_days),
        json!(topics_policy),
    ];
    let insert = Statement::new(
        format!(
            "INSERT OR IGNORE INTO channels (realm_id, name, description, invite_only, history_public_to_subscribers, \
             folder_id, creator_id, date_created, message_retention_days, topics_policy{columns}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10{values})"
        ),
        args,
    );
    Ok(vec![
        insert,
        statement!(
            "INSERT OR IGNORE INTO recipients (realm_id, type, type_id) \
             SELECT realm_id, ?3, id FROM channels WHERE realm_id = ?1 AND name = ?2 COLLATE NOCASE",
            realm_id,
            name,
            RecipientType::Channel
        )?,
    ])
}

/// Subscribes a user to the channel named `name` (re-activating an old subscription and
/// keeping its settings).
pub fn subscribe_by_name_stmt(realm_id: RealmId, user_id: UserId, name: &str, color: &str) -> Result<Statement> {
    statement!(
        "INSERT INTO subscriptions (realm_id, user_id, channel_id, color) \
         SELECT ?1, ?2, c.id, ?4 FROM channels c WHERE c.realm_id = ?1 AND c.name = ?3 COLLATE NOCASE \
         ON CONFLICT (user_id, channel_id) DO UPDATE SET active = 1",
        realm_id,
        user_id,
        name,
        color
    )
}

pub fn unsubscribe_stmt(realm_id: RealmId, user_id: UserId, channel_id: ChannelId) -> Result<Statement> {
    statement!(
        "UPDATE subscriptions SET active = 0 WHERE realm_id = ?1 AND user_id = ?2 AND channel_id = ?3",
        realm_id,
        user_id,
        channel_id
    )
}

#[derive(Debug, Clone, Deserialize)]
pub struct SystemGroupRow {
    pub id: i64,
    pub name: String,
}

/// A user who sees a private channel only through its groups.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
pub struct SeenThroughGroupRow {
    pub user_id: i64,
    pub channel_id: i64,
}

/// Every (user, private channel) of the organization where the user, an active moderator
/// or member not subscribed to it, sees the channel only because they are in its
/// `can_administer_channel_group`, `can_add_subscribers_group` or `can_subscribe_group`
/// (administrators see every channel, guests never through groups). Read before and after
/// a change of groups' members to tell who gained or lost the channel.
pub fn seen_through_groups_stmt(realm_id: i64) -> Result<Statement> {
    statement!(
        &format!(
            "WITH RECURSIVE mine(user_id, id) AS ( \
               SELECT u.id, g.id FROM users u JOIN user_groups g ON g.realm_id = u.realm_id \
               WHERE u.realm_id = ?1 AND u.is_active = 1 AND u.role IN ({moderator}, {member}) AND ({role} \
                 OR EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = g.id AND m.user_id = u.id)) \
               UNION \
               SELECT mine.user_id, s.supergroup_id FROM user_group_subgroups s JOIN mine ON s.subgroup_id = mine.id \
             ) \
             SELECT DISTINCT m.user_id, c.id AS channel_id FROM mine m \
             JOIN channels c ON c.realm_id = ?1 AND c.invite_only = 1 \
               AND m.id IN (c.can_administer_channel_group, c.can_add_subscribers_group, c.can_subscribe_group) \
             WHERE NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.channel_id = c.id AND s.user_id = m.user_id AND s.active = 1) \
             ORDER BY 1, 2",
            moderator = crate::model::Role::Moderator.code(),
            member = crate::model::Role::Member.code(),
            role = super::user_groups::by_role_sql("g", "u")
        ),
        realm_id
    )
}

pub fn system_groups_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT id, name FROM user_groups WHERE realm_id = ?1 AND is_system_group = 1", realm_id)
}

#[derive(Debug, Clone, Deserialize)]
pub struct ActiveUserRow {
    pub id: i64,
}

/// Ids of the organization's active users (recipients of organization-wide events).
pub fn active_user_ids_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT id FROM users WHERE realm_id = ?1 AND is_active = 1", realm_id)
}

/// Files a channel in a folder (`None`: in none).
pub fn set_folder_stmt(realm_id: RealmId, channel_id: ChannelId, folder_id: Option<i64>) -> Result<Statement> {
    statement!("UPDATE channels SET folder_id = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, channel_id, folder_id)
}

/// Which of the users named by id or email (lowercase) are already subscribed to which of
/// the channels named (any case).
pub fn already_subscribed_stmt(realm_id: i64, ids: &[i64], emails: &[String], names_json: &str) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT s.channel_id, s.user_id FROM subscriptions s JOIN channels c ON c.id = s.channel_id JOIN users u ON u.id = s.user_id \
             WHERE c.realm_id = ?1 AND s.active = 1 AND {} AND lower(c.name) IN (SELECT lower(value) FROM json_each(?4))",
            super::users::NAMED_BY_IDS_OR_EMAILS
        ),
        realm_id,
        serde_json::to_string(ids)?,
        serde_json::to_string(emails)?,
        names_json
    )
}

/// The channel a message is sent to, by id or (`?2` -1) by name: the condition over
/// `channels c`, binding `?1` realm id, `?2` channel id, `?3` name.
pub const CHANNEL_BY_ID_OR_NAME: &str = "c.realm_id = ?1 AND (c.id = ?2 OR (?2 = -1 AND c.name = ?3 COLLATE NOCASE))";

/// The channel (as [`CHANNEL_BY_ID_OR_NAME`] names it) and topic a message is sent to: the
/// first four parameters (`?1`-`?4`) of every statement that reads them before the channel's
/// id is known.
pub struct SendTopic<'a> {
    pub realm_id: i64,
    /// -1 when the channel is named.
    pub channel_id: i64,
    pub channel_name: &'a str,
    pub topic: &'a str,
}

/// Active subscribers (active users) of the channel a message is sent to, with whether
/// they muted it, whether they are bots, their `automatically_follow_topics_where_mentioned`
/// setting, their visibility policy for `topic` (0 when none), whether they have a push
/// device and whether they muted the sender `sender_id`.
pub fn send_subscribers_stmt(to: &SendTopic<'_>, sender_id: i64) -> Result<Statement> {
    statement!(
        &format!(
            "SELECT s.user_id, s.is_muted, u.is_bot, u.automatically_follow_topics_where_mentioned AS follows_when_mentioned, \
             COALESCE((SELECT ut.visibility_policy FROM user_topics ut WHERE ut.user_id = s.user_id AND ut.channel_id = c.id \
             AND ut.topic = ?4 COLLATE NOCASE LIMIT 1), 0) AS visibility_policy, \
             EXISTS (SELECT 1 FROM push_devices pd WHERE pd.user_id = s.user_id) AS has_push_device, \
             EXISTS (SELECT 1 FROM muted_users mu WHERE mu.user_id = s.user_id AND mu.muted_user_id = ?5) AS muted_sender \
             FROM subscriptions s JOIN channels c ON c.id = s.channel_id JOIN users u ON u.id = s.user_id AND u.is_active = 1 \
             WHERE s.active = 1 AND {CHANNEL_BY_ID_OR_NAME}"
        ),
        to.realm_id,
        to.channel_id,
        to.channel_name,
        to.topic,
        sender_id
    )
}

/// Whether a channel's history is public to its subscribers (`h`).
pub fn history_public_stmt(channel_id: i64) -> Result<Statement> {
    statement!("SELECT history_public_to_subscribers AS h FROM channels WHERE id = ?1", channel_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_channel_view_joins_the_channel_recipient_type() {
        assert!(VIEW_FROM.contains(&format!("rc.type = {} ", RecipientType::Channel.code())));
    }
}
