//! The organization's message settings as Zulip's `POST /register` shows them, and the
//! evaluation of its group-valued permission settings.

use serde_json::{json, Map, Value};

use crate::db::realm_settings::RealmSettingsRow;
use crate::domain::group_setting_values::AnonymousGroups;
use crate::error::{ApiError, ApiResult};

/// Zulip's retention period meaning "keep forever".
pub const RETENTION_FOREVER: i64 = -1;

/// A `message_retention_days` value as Zulip parses it: a positive number of days,
/// `"unlimited"` ([`RETENTION_FOREVER`]), or, where `realm_default` is allowed (a channel),
/// `"realm_default"` (`None`: the organization's period).
pub fn parse_retention_days(raw: &Value, realm_default: bool) -> ApiResult<Option<i64>> {
    match raw {
        Value::String(s) if s == "unlimited" => Ok(Some(RETENTION_FOREVER)),
        Value::String(s) if s == "realm_default" && realm_default => Ok(None),
        Value::Number(n) if n.as_i64().is_some_and(|d| d > 0) => Ok(n.as_i64()),
        Value::String(s) => Err(ApiError::bad_request(format!("Bad value for 'message_retention_days': {s}"))),
        other => Err(ApiError::bad_request(format!("Bad value for 'message_retention_days': {other}"))),
    }
}

/// The `realm_*` keys (and the two server limits `max_message_length`,
/// `max_topic_length`) of the register response for these settings. Group-valued settings
/// are group ids, as Zulip answers them when the setting is a single named group.
pub fn register_fields(s: &RealmSettingsRow) -> Map<String, Value> {
    let fields = json!({
        "realm_allow_message_editing": s.allow_message_editing != 0,
        "realm_message_content_edit_limit_seconds": s.message_content_edit_limit_seconds,
        "realm_message_content_delete_limit_seconds": s.message_content_delete_limit_seconds,
        "realm_move_messages_within_stream_limit_seconds": s.move_messages_within_stream_limit_seconds,
        "realm_move_messages_between_streams_limit_seconds": s.move_messages_between_streams_limit_seconds,
        "realm_can_resolve_topics_group": s.can_resolve_topics_group,
        "realm_can_move_messages_between_channels_group": s.can_move_messages_between_channels_group,
        "realm_can_move_messages_between_topics_group": s.can_move_messages_between_topics_group,
        "realm_can_mention_many_users_group": s.can_mention_many_users_group,
        "realm_can_add_custom_emoji_group": s.can_add_custom_emoji_group,
        "realm_can_invite_users_group": s.can_invite_users_group,
        "realm_create_multiuse_invite_group": s.create_multiuse_invite_group,
        "realm_can_delete_any_message_group": s.can_delete_any_message_group,
        "realm_can_delete_own_message_group": s.can_delete_own_message_group,
        "realm_can_create_public_channel_group": s.can_create_public_channel_group,
        "realm_can_create_private_channel_group": s.can_create_private_channel_group,
        "realm_can_create_groups": s.can_create_groups,
        "realm_can_set_topics_policy_group": s.can_set_topics_policy_group,
        "realm_can_add_subscribers_group": s.can_add_subscribers_group,
        "realm_can_manage_all_groups": s.can_manage_all_groups,
        "realm_invite_required": s.invite_required != 0,
        "realm_emails_restricted_to_domains": s.emails_restricted_to_domains != 0,
        "realm_disallow_disposable_email_addresses": s.disallow_disposable_email_addresses != 0,
        "realm_empty_topic_display_name": s.empty_topic_display_name,
        "realm_topics_policy": s.topics_policy,
        "realm_mandatory_topics": s.topics_policy == crate::model::TopicsPolicy::DisableEmptyTopic,
        "realm_message_edit_history_visibility_policy": s.message_edit_history_visibility_policy,
        "realm_allow_edit_history": s.message_edit_history_visibility_policy != crate::model::EditHistoryPolicy::None,
        "realm_default_language": s.default_language,
        "realm_waiting_period_threshold": s.waiting_period_threshold,
        "realm_message_retention_days": s.message_retention_days,
        "realm_new_stream_announcements_stream_id": s.new_stream_announcements_stream_id.unwrap_or(-1),
        "realm_signup_announcements_stream_id": s.signup_announcements_stream_id.unwrap_or(-1),
        "realm_zulip_update_announcements_stream_id": s.zulip_update_announcements_stream_id.unwrap_or(-1),
        "realm_moderation_request_channel_id": s.moderation_request_channel_id.unwrap_or(-1),
        "realm_enable_read_receipts": s.enable_read_receipts != 0,
        "max_message_length": s.max_message_length,
        "max_topic_length": s.max_topic_length,
    });
    let Value::Object(mut map) = fields else { unreachable!() };
    let anonymous = AnonymousGroups::from_json(s.anonymous_groups.as_deref());
    for column in crate::db::realm_settings::group_setting_columns() {
        if let Some(id) = map.get(&format!("realm_{column}")).and_then(Value::as_i64) {
            map.insert(format!("realm_{column}"), anonymous.json_of(id));
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_fields_name_every_setting() {
        let s = RealmSettingsRow {
            move_messages_within_stream_limit_seconds: Some(604800),
            can_resolve_topics_group: 6,
            can_move_messages_between_channels_group: 5,
            can_move_messages_between_topics_group: 6,
            can_mention_many_users_group: 2,
            can_add_custom_emoji_group: 2,
            ..RealmSettingsRow::for_tests(1)
        };
        let f = register_fields(&s);
        assert_eq!(f["realm_allow_message_editing"], true);
        assert_eq!(f["realm_message_content_edit_limit_seconds"], 600);
        assert!(f["realm_move_messages_between_streams_limit_seconds"].is_null(), "null: no limit");
        assert_eq!(f["realm_can_mention_many_users_group"], 2);
        assert_eq!(f["realm_empty_topic_display_name"], "general chat");
        assert_eq!(f["realm_mandatory_topics"], false);
        assert_eq!(f["max_message_length"], 10000);
        assert_eq!(f["max_topic_length"], 60);
        assert_eq!(f["realm_message_retention_days"], -1);
    }

    #[test]
    fn retention_days_are_positive_unlimited_or_for_a_channel_the_organizations() {
        assert_eq!(parse_retention_days(&json!(30), false).unwrap(), Some(30));
        assert_eq!(parse_retention_days(&json!("unlimited"), false).unwrap(), Some(RETENTION_FOREVER));
        assert_eq!(parse_retention_days(&json!("realm_default"), true).unwrap(), None);
        let refused = |raw: Value, realm_default| parse_retention_days(&raw, realm_default).unwrap_err().msg;
        assert_eq!(refused(json!("realm_default"), false), "Bad value for 'message_retention_days': realm_default");
        assert_eq!(refused(json!(0), true), "Bad value for 'message_retention_days': 0");
        assert_eq!(refused(json!(-5), true), "Bad value for 'message_retention_days': -5");
    }
}
