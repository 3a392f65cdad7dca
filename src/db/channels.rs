//! `channels`: the writes of a channel's own settings (name, description, access,
//! archiving) and the reads their checks need. Channels as one user sees them are in
//! [`super::subscriptions`].

use super::user_groups::SettingGroupRef;
use serde::Deserialize;
use worker::Result;

use crate::db::statement::statement;
use crate::db::statement::Statement;
use crate::model::ids::{ChannelId, MessageId, RealmId, UserId};
use crate::model::{Role, TopicsPolicy};

#[derive(Debug, Clone, Deserialize)]
pub struct ChannelIdRow {
    pub id: i64,
}

/// An active user of the organization and their role.
#[derive(Debug, Clone, Deserialize)]
pub struct MemberRow {
    pub id: i64,
    pub role: Role,
}

/// The organization's active users (bots too) with their roles.
pub fn active_members_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT id, role FROM users WHERE realm_id = ?1 AND is_active = 1 ORDER BY id", realm_id)
}

/// Another channel of the organization named `name` (any case; archived ones too, as their
/// names stay taken).
pub fn other_named_stmt(realm_id: RealmId, channel_id: ChannelId, name: &str) -> Result<Statement> {
    statement!("SELECT id FROM channels WHERE realm_id = ?1 AND id != ?2 AND name = ?3 COLLATE NOCASE", realm_id, channel_id, name)
}

pub fn rename_stmt(realm_id: RealmId, channel_id: ChannelId, name: &str) -> Result<Statement> {
    statement!("UPDATE channels SET name = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, channel_id, name)
}

pub fn set_description_stmt(realm_id: RealmId, channel_id: ChannelId, description: &str) -> Result<Statement> {
    statement!("UPDATE channels SET description = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, channel_id, description)
}

/// A channel's access settings: private (`invite_only`), history, web-public.
pub fn set_access_stmt(
    realm_id: RealmId,
    channel_id: ChannelId,
    invite_only: bool,
    history_public_to_subscribers: bool,
    is_web_public: bool,
) -> Result<Statement> {
    statement!(
        "UPDATE channels SET invite_only = ?3, history_public_to_subscribers = ?4, is_web_public = ?5 \
         WHERE realm_id = ?1 AND id = ?2",
        realm_id,
        channel_id,
        invite_only as i64,
        history_public_to_subscribers as i64,
        is_web_public as i64
    )
}

/// A channel's `topics_policy`.
pub fn set_topics_policy_stmt(realm_id: RealmId, channel_id: ChannelId, policy: TopicsPolicy) -> Result<Statement> {
    statement!("UPDATE channels SET topics_policy = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, channel_id, policy.as_str())
}

pub fn set_archived_stmt(realm_id: RealmId, channel_id: ChannelId, archived: bool) -> Result<Statement> {
    statement!("UPDATE channels SET is_archived = ?3 WHERE realm_id = ?1 AND id = ?2", realm_id, channel_id, archived as i64)
}

/// The newest `limit` messages of a topic (any case) of the channel with recipient
/// `recipient_id` that `user_id` can see: every one when the channel's history is open to
/// them (`all_history`), otherwise those they received.
pub fn topic_message_ids_stmt(
    realm_id: RealmId,
    recipient_id: i64,
    topic: &str,
    user_id: UserId,
    all_history: bool,
    limit: i64,
) -> Result<Statement> {
    statement!(
        "SELECT m.id FROM messages m WHERE m.realm_id = ?1 AND m.recipient_id = ?2 AND m.topic = ?3 COLLATE NOCASE \
         AND (?5 = 1 OR EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = ?4)) \
         ORDER BY m.id DESC LIMIT ?6",
        realm_id,
        recipient_id,
        topic,
        user_id,
        all_history as i64,
        limit
    )
}

/// Sets a permission setting (`column`: a name of `domain::channel_permissions::STORED`,
/// never the client's) to a user group.
pub fn set_group_setting_stmt(realm_id: RealmId, channel_id: ChannelId, column: &str, group: &SettingGroupRef) -> Result<Statement> {
    statement!(&format!("UPDATE channels SET {column} = {} WHERE realm_id = ?1 AND id = ?2", group.sql(realm_id.0)), realm_id, channel_id)
}

/// Whether user `?4` is in the group of the permission setting `column` (as in
/// [`set_group_setting_stmt`]) of channel `?2`, or with `?2` = -1 of the channel named `?3`
/// (any case): a member directly, through a subgroup, or by role for a system group. A
/// setting left at its default answers `when_default` (`is_member`, like
/// [`super::user_groups::IsMemberRow`]).
pub fn in_group_setting_stmt(
    realm_id: RealmId,
    channel_id: ChannelId,
    channel_name: &str,
    column: &str,
    user_id: UserId,
    when_default: bool,
) -> Result<Statement> {
    let channel = "c.realm_id = ?1 AND (c.id = ?2 OR (?2 = -1 AND c.name = ?3 COLLATE NOCASE))";
    statement!(group_setting_sql(channel, column), realm_id, channel_id, channel_name, user_id, when_default as i64)
}

/// [`in_group_setting_stmt`] for the channel of message `?2` (`?3` unused); a direct
/// message has no channel and answers 0.
pub fn in_message_channel_group_stmt(
    realm_id: RealmId,
    message_id: MessageId,
    column: &str,
    user_id: UserId,
    when_default: bool,
) -> Result<Statement> {
    let channel = "c.realm_id = ?1 AND c.id = (SELECT m.channel_id FROM messages m WHERE m.id = ?2 AND m.realm_id = ?1) AND ?3 = ''";
    statement!(group_setting_sql(channel, column), realm_id, message_id, "", user_id, when_default as i64)
}

/// The membership query over the channel `channel` selects (a condition on `channels c`).
fn group_setting_sql(channel: &str, column: &str) -> String {
    format!(
        "WITH RECURSIVE setting(group_id) AS ( \
             SELECT c.{column} FROM channels c WHERE {channel} \
         ), reachable(id) AS ( \
             SELECT group_id FROM setting WHERE group_id IS NOT NULL \
             UNION \
             SELECT s.subgroup_id FROM user_group_subgroups s JOIN reachable r ON s.supergroup_id = r.id \
         ) \
         SELECT CASE WHEN EXISTS (SELECT 1 FROM setting WHERE group_id IS NULL) THEN ?5 ELSE EXISTS ( \
             SELECT 1 FROM reachable r JOIN user_groups g ON g.id = r.id \
             JOIN users u ON u.id = ?4 AND u.realm_id = ?1 AND u.is_active = 1 \
             WHERE {role} \
                OR EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = g.id AND m.user_id = u.id) \
         ) END AS is_member",
        role = super::user_groups::by_role_sql("g", "u")
    )
}
