//! Channel and subscription objects of `POST /register` (`subscriptions`, `unsubscribed`,
//! `never_subscribed`, `streams`).

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::db::register_state::ChannelStateRow;
use crate::db::subscription_settings::SubscriptionRow;

/// System group ids by name, for the channel permission settings (Zulip's defaults: this
/// server has no per-channel permission settings).
pub struct SystemGroups<'a>(pub &'a HashMap<String, i64>);

impl SystemGroups<'_> {
    pub fn id(&self, name: &str) -> i64 {
        self.0.get(name).copied().unwrap_or(0)
    }
}

/// Channel description HTML: paragraphs of escaped text.
pub fn rendered_description(description: &str) -> String {
    if description.trim().is_empty() {
        return String::new();
    }
    let escaped = description.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    format!("<p>{escaped}</p>")
}

/// The fields every channel object shares.
pub fn channel_fields(c: &ChannelStateRow, groups: &SystemGroups<'_>, subscriber_count: usize) -> Map<String, Value> {
    let fields = json!({
        "stream_id": c.id,
        "name": c.name,
        "description": c.description,
        "rendered_description": rendered_description(&c.description),
        "date_created": c.date_created,
        "creator_id": c.creator_id,
        "invite_only": c.invite_only != 0,
        "is_web_public": c.is_web_public != 0,
        "is_archived": c.is_archived != 0,
        "is_announcement_only": false,
        "stream_post_policy": 1,
        "message_retention_days": null,
        "history_public_to_subscribers": c.history_public_to_subscribers != 0,
        "first_message_id": c.first_message_id,
        "folder_id": null,
        "topics_policy": c.topics_policy,
        "is_recently_active": true,
        "stream_weekly_traffic": null,
        "subscriber_count": subscriber_count,
        "can_add_subscribers_group": groups.id("role:nobody"),
        "can_remove_subscribers_group": groups.id("role:administrators"),
        "can_administer_channel_group": groups.id("role:nobody"),
        "can_delete_any_message_group": groups.id("role:nobody"),
        "can_delete_own_message_group": groups.id("role:nobody"),
        "can_move_messages_out_of_channel_group": groups.id("role:nobody"),
        "can_move_messages_within_channel_group": groups.id("role:nobody"),
        "can_send_message_group": groups.id("role:everyone"),
        "can_subscribe_group": groups.id("role:nobody"),
        "can_resolve_topics_group": groups.id("role:nobody"),
    });
    match fields {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

/// A notification setting: null follows the user's global setting, which clients without
/// `notification_settings_null` receive in its place.
fn notification(value: Option<i64>, global: bool, null_ok: bool) -> Value {
    match value {
        Some(v) => json!(v != 0),
        None if null_ok => Value::Null,
        None => json!(global),
    }
}

/// Global notification defaults (user_settings) that stand in for null channel settings.
pub struct GlobalNotifications {
    pub desktop: bool,
    pub audible: bool,
    pub push: bool,
    pub email: bool,
    pub wildcard_mentions_notify: bool,
}

/// The subscription object: the channel plus the user's settings for it.
pub fn subscription_dict(
    c: &ChannelStateRow,
    s: &SubscriptionRow,
    groups: &SystemGroups<'_>,
    subscribers: Option<&[i64]>,
    subscriber_count: usize,
    global: &GlobalNotifications,
    notification_settings_null: bool,
) -> Value {
    let mut fields = channel_fields(c, groups, subscriber_count);
    let extra = json!({
        "color": s.color,
        "is_muted": s.is_muted != 0,
        "in_home_view": s.is_muted == 0,
        "pin_to_top": s.pin_to_top != 0,
        "desktop_notifications": notification(s.desktop_notifications, global.desktop, notification_settings_null),
        "audible_notifications": notification(s.audible_notifications, global.audible, notification_settings_null),
        "push_notifications": notification(s.push_notifications, global.push, notification_settings_null),
        "email_notifications": notification(s.email_notifications, global.email, notification_settings_null),
        "wildcard_mentions_notify": notification(s.wildcard_mentions_notify, global.wildcard_mentions_notify, notification_settings_null),
    });
    if let Value::Object(extra) = extra {
        fields.extend(extra);
    }
    if let Some(subscribers) = subscribers {
        fields.insert("subscribers".into(), json!(subscribers));
    }
    Value::Object(fields)
}

/// A channel the user is not subscribed to (`never_subscribed`, `streams`).
pub fn channel_dict(c: &ChannelStateRow, groups: &SystemGroups<'_>, subscribers: Option<&[i64]>, subscriber_count: usize) -> Value {
    let mut fields = channel_fields(c, groups, subscriber_count);
    if let Some(subscribers) = subscribers {
        fields.insert("subscribers".into(), json!(subscribers));
    }
    Value::Object(fields)
}
