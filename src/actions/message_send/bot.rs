//! The notification bot's messages: planned without a user's sending rules.

use std::collections::HashMap;

use super::{PlannedChannel, SendPlan};
use crate::db::messages::RecipientRef;
use crate::db::realm_settings::RealmSettingsRow;
use crate::db::users::UserRow;
use crate::domain::rendering::mentioned_user_ids;
use crate::markdown;
use crate::model::message_flags;

/// A message of the organization's notification bot to a channel topic (Zulip's
/// `internal_send_stream_message`): none of a user's sending rules apply; every active
/// subscriber receives it, read for `read_for` (the user whose action it reports), with
/// the users its content mentions flagged.
pub struct BotMessage<'a> {
    pub bot: &'a UserRow,
    pub channel: PlannedChannel,
    pub topic: &'a str,
    pub content: &'a str,
    pub subscribers: &'a [i64],
    pub read_for: i64,
}

/// Plans a [`BotMessage`] (pure): the rendering of its content and each subscriber's flags.
pub fn plan_bot_message(
    message: BotMessage<'_>,
    settings: &RealmSettingsRow,
    resolved: &markdown::Resolved,
    group_members: &HashMap<i64, Vec<i64>>,
    now: i64,
) -> SendPlan {
    let rendered = markdown::render(message.content, resolved);
    let mentioned = mentioned_user_ids(&rendered, group_members);
    let rows = message
        .subscribers
        .iter()
        .map(|id| {
            let read = if *id == message.read_for { message_flags::READ } else { 0 };
            let mention = if mentioned.contains(id) { message_flags::MENTIONED } else { 0 };
            (*id, read | mention)
        })
        .collect();
    SendPlan {
        sender: message.bot.clone(),
        settings: settings.clone(),
        content: message.content.to_string(),
        rendered,
        recipient: RecipientRef::Id(message.channel.recipient_id),
        channel_row: Some(message.channel),
        topic: message.topic.to_string(),
        dm_user_ids: Vec::new(),
        rows,
        auto_policy: None,
        mention_follows: Vec::new(),
        named_users: Vec::new(),
        linkifiers: resolved.linkifiers.clone(),
        date_sent: now,
        // Its read has no devices: the follow-up looks them up, as Zulip notifies for these
        // messages like any other.
        may_notify_push: true,
        changes_its_reads: true,
        webhook_triggers: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    #[test]
    fn bot_messages_reach_every_subscriber_read_for_the_actor_only() {
        let bot =
            UserRow { id: 99, realm_id: 1, role: Role::Member, is_active: 1, is_bot: 1, full_name: "User 99".into(), ..UserRow::default() };
        let resolved = markdown::Resolved {
            users: vec![markdown::MentionableUser { id: 3, full_name: "User 3".into() }],
            ..markdown::Resolved::default()
        };
        let message = BotMessage {
            bot: &bot,
            channel: PlannedChannel { id: 5, name: "Denmark".into(), recipient_id: 50 },
            topic: "t",
            content: "@**User 3** moved this topic",
            subscribers: &[1, 2, 3],
            read_for: 1,
        };
        let settings = RealmSettingsRow { can_mention_many_users_group: 9, ..RealmSettingsRow::for_tests(1) };
        let planned = plan_bot_message(message, &settings, &resolved, &HashMap::new(), 1000);
        assert_eq!(planned.rows, vec![(1, message_flags::READ), (2, 0), (3, message_flags::MENTIONED)]);
        assert_eq!(planned.channel(), Some((5, "t")));
        assert_eq!(planned.auto_policy, None);
    }
}
