//! Missed-message email notifications, as Zulip sends them
//! (`zerver/lib/notification_data.py`, `zerver/lib/email_notifications.py`):
//! - who: the push rules of `domain::push::push_trigger` with the email settings in place
//!   of the push ones (`enable_offline_email_notifications` for direct messages and
//!   mentions, `enable_followed_topic_email_notifications`, the subscription's
//!   `email_notifications` else `enable_stream_email_notifications`, the wildcard and
//!   muting rules), and only while the person is away (no active presence in the last
//!   `OFFLINE_THRESHOLD_SECS`): Zulip does not mail someone who is using Zulip;
//! - when: after the recipient's `email_notifications_batching_period_seconds`; a message
//!   read by then is not mailed;
//! - what: one email per conversation (channel topic or direct-message conversation) with
//!   each message's sender and content, a link to the conversation (`#narrow/...`), and an
//!   unsubscribe link that works without signing in.

use crate::db::missed_message_emails::MissedRow;
use crate::db::push_devices::PushCandidateRow;
use crate::domain::email::{escape_html, OutgoingEmail};
use crate::domain::push::{push_trigger, PushCandidate, PushTrigger};
use crate::domain::user_settings;

/// Why a recipient is mailed a message (the `reason` column).
pub fn email_reason(row: &PushCandidateRow, followed_by_this_send: bool, now: i64) -> Option<&'static str> {
    let mut c = PushCandidate::from_row(row, followed_by_this_send, now);
    let setting = |name: &str| user_settings::flag_in(&row.settings, name);
    // The email settings take the push settings' places; the row's `push_notifications`
    // column holds the subscription's `email_notifications`.
    c.enable_offline_push_notifications = setting("enable_offline_email_notifications");
    c.enable_online_push_notifications = false;
    c.enable_stream_push_notifications = setting("enable_stream_email_notifications");
    c.enable_followed_topic_push_notifications = setting("enable_followed_topic_email_notifications");
    Some(match push_trigger(&c)? {
        PushTrigger::DirectMessage => "direct_message",
        PushTrigger::Mention => "mention",
        PushTrigger::TopicWildcardMentionInFollowedTopic
        | PushTrigger::StreamWildcardMentionInFollowedTopic
        | PushTrigger::TopicWildcardMention
        | PushTrigger::StreamWildcardMention => "wildcard_mention",
        PushTrigger::FollowedTopic => "followed_topic",
        PushTrigger::ChannelPush => "channel",
    })
}

/// The recipient's batching period in seconds (Zulip's default: 120).
pub fn batching_period(settings_json: &str) -> i64 {
    serde_json::from_str::<serde_json::Value>(settings_json)
        .ok()
        .and_then(|v| v.get("email_notifications_batching_period_seconds").and_then(|p| p.as_i64()))
        .unwrap_or(120)
}

/// Which conversation a row belongs to: a channel topic, a group direct message, or a
/// one-to-one conversation (whose recipient is the reader: the sender tells it apart).
pub fn conversation_key(row: &MissedRow) -> (i64, String) {
    match (row.channel_id, row.recipient_type) {
        (Some(id), _) => (id, row.topic.to_lowercase()),
        (None, 3) => (-1, format!("group:{}", row.recipient_id)),
        (None, _) => (-1, format!("user:{}", row.sender_id)),
    }
}

/// Zulip's `#narrow/...` link of a conversation.
pub fn narrow_url(base_url: &str, row: &MissedRow, dm_members: &[(i64, String)], recipient_user_id: i64) -> String {
    use crate::markdown::links::encode_hash_component as enc;
    match row.channel_id {
        Some(id) => {
            let name = row.channel_name.clone().unwrap_or_default();
            format!("{base_url}/#narrow/channel/{id}-{}/topic/{}", enc(&name.replace(' ', "-")), enc(&row.topic))
        }
        None => {
            let others: Vec<&(i64, String)> = dm_members.iter().filter(|(id, _)| *id != recipient_user_id).collect();
            match others.as_slice() {
                [(id, name)] => format!("{base_url}/#narrow/dm/{id}-{}", enc(&name.replace(' ', "-"))),
                [] => format!("{base_url}/#narrow/dm/{recipient_user_id}-dm"),
                many => {
                    let mut ids: Vec<String> = many.iter().map(|(id, _)| id.to_string()).collect();
                    ids.push(recipient_user_id.to_string());
                    ids.sort();
                    format!("{base_url}/#narrow/dm/{}-group", ids.join(","))
                }
            }
        }
    }
}

/// One email about one conversation's messages.
pub fn conversation_email(
    to: &str,
    realm_name: &str,
    rows: &[&MissedRow],
    conversation: &str,
    narrow: &str,
    unsubscribe: &str,
) -> OutgoingEmail {
    let first = rows[0];
    let subject = match first.channel_id {
        Some(_) => format!("#{} > {} [{realm_name}]", first.channel_name.clone().unwrap_or_default(), first.topic),
        None => format!("{conversation} [{realm_name}]"),
    };
    let mut text = String::new();
    let mut html = String::from("<html><body>");
    for row in rows {
        text.push_str(&format!("{}:\n{}\n\n", row.sender_name, row.content));
        html.push_str(&format!("<div><p><b>{}</b>:</p>{}</div>", escape_html(&row.sender_name), row.rendered_content));
    }
    text.push_str(&format!("Reply in Zulip: {narrow}\n\nYou are receiving this because you were away. Unsubscribe: {unsubscribe}\n"));
    html.push_str(&format!(
        "<p><a href=\"{}\">Reply in Zulip</a></p><p><small>You are receiving this because you were away. \
         <a href=\"{}\">Unsubscribe from missed-message emails</a></small></p></body></html>",
        escape_html(narrow),
        escape_html(unsubscribe)
    ));
    OutgoingEmail { to: to.to_string(), subject, text, html }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message_flags::MENTIONED;
    use crate::model::VisibilityPolicy;

    fn row(direct: bool, flags: i64, settings: &str, channel_email: Option<i64>, last_active: Option<i64>) -> PushCandidateRow {
        PushCandidateRow {
            user_id: 5,
            flags,
            settings: settings.into(),
            direct: direct as i64,
            channel_muted: Some(0),
            push_notifications: channel_email,
            wildcard_mentions_notify: None,
            visibility_policy: VisibilityPolicy::Inherit,
            sender_muted: 0,
            last_active_time: last_active,
        }
    }

    #[test]
    fn direct_messages_and_mentions_are_mailed_to_the_away() {
        assert_eq!(email_reason(&row(true, 0, "{}", None, None), false, 1000), Some("direct_message"));
        assert_eq!(email_reason(&row(false, MENTIONED, "{}", Some(0), None), false, 1000), Some("mention"));
        assert_eq!(email_reason(&row(true, 0, "{}", None, Some(990)), false, 1000), None, "active: not mailed");
        let off = r#"{"enable_offline_email_notifications": false}"#;
        assert_eq!(email_reason(&row(true, 0, off, None, None), false, 1000), None);
    }

    #[test]
    fn channel_messages_follow_the_channel_and_global_email_settings() {
        assert_eq!(email_reason(&row(false, 0, "{}", None, None), false, 1000), None, "off by default");
        assert_eq!(email_reason(&row(false, 0, "{}", Some(1), None), false, 1000), Some("channel"));
        let on = r#"{"enable_stream_email_notifications": true}"#;
        assert_eq!(email_reason(&row(false, 0, on, None, None), false, 1000), Some("channel"));
        assert_eq!(email_reason(&row(false, 0, on, Some(0), None), false, 1000), None, "the channel's setting wins");
    }

    #[test]
    fn batching_period_defaults_to_two_minutes() {
        assert_eq!(batching_period("{}"), 120);
        assert_eq!(batching_period(r#"{"email_notifications_batching_period_seconds": 60}"#), 60);
    }
}
