//! The topic rules shared by every `topic` parameter of the message endpoints (spec,
//! conventions 7): `(no topic)` and the organization's empty-topic display name read as the
//! empty topic; topics longer than `max_topic_length` are truncated like Zulip does.

use crate::db::realm_settings::RealmSettingsRow;
use crate::error::{ApiError, ApiResult};
use crate::model::topics::NO_TOPIC;
use crate::model::TopicsPolicy;

/// Trims, maps `(no topic)` and the display name to "", rejects unprintable characters and
/// truncates to the limit (ending in `...`).
pub fn normalize_topic(raw: &str, settings: &RealmSettingsRow) -> ApiResult<String> {
    let topic = raw.trim();
    if topic == NO_TOPIC || topic == settings.empty_topic_display_name {
        return Ok(String::new());
    }
    if let Some(pos) = topic.chars().position(|c| c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}') {
        return Err(ApiError::bad_request(format!("Invalid character in topic, at position {}!", pos + 1)));
    }
    Ok(truncate(topic, settings.max_topic_length.max(4) as usize, "..."))
}

/// Zulip's `truncate_content`: keeps `max` characters including the marker.
pub fn truncate(text: &str, max: usize, marker: &str) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let keep = max.saturating_sub(marker.chars().count());
    let mut out: String = text.chars().take(keep).collect();
    out.push_str(marker);
    out
}

/// The channel's effective policy for the empty topic: its own, or the organization's when
/// it inherits.
pub fn effective_topics_policy(channel_policy: TopicsPolicy, settings: &RealmSettingsRow) -> TopicsPolicy {
    if channel_policy == TopicsPolicy::Inherit {
        settings.topics_policy
    } else {
        channel_policy
    }
}

/// Whether a channel message may go to `topic` under the policy.
pub fn check_topic_allowed(topic: &str, policy: TopicsPolicy) -> ApiResult<()> {
    if topic.is_empty() && policy == TopicsPolicy::DisableEmptyTopic {
        return Err(ApiError::bad_request("Sending messages to the general chat is not allowed in this channel."));
    }
    if !topic.is_empty() && policy == TopicsPolicy::EmptyTopicOnly {
        return Err(ApiError::bad_request("Only the general chat topic is allowed in this channel."));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_the_limit_with_marker() {
        assert_eq!(truncate("abcdef", 5, "..."), "ab...");
        assert_eq!(truncate("abcde", 5, "..."), "abcde");
    }

    #[test]
    fn empty_topic_rules() {
        assert!(check_topic_allowed("", TopicsPolicy::AllowEmptyTopic).is_ok());
        assert!(check_topic_allowed("", TopicsPolicy::DisableEmptyTopic).is_err());
        assert!(check_topic_allowed("x", TopicsPolicy::EmptyTopicOnly).is_err());
    }
}
