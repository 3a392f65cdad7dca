//! Personal message flags: their names on the wire and their bits in
//! `user_messages.flags`.

use serde::Serialize;

use crate::error::{ApiError, ApiResult};

pub const READ: i64 = 1;
pub const STARRED: i64 = 2;
pub const COLLAPSED: i64 = 4;
pub const MENTIONED: i64 = 8;
pub const STREAM_WILDCARD_MENTIONED: i64 = 16;
pub const TOPIC_WILDCARD_MENTIONED: i64 = 32;
pub const HAS_ALERT_WORD: i64 = 64;
/// The user was not a recipient; the row exists because the user interacted with the message
/// (starred it, reacted) in a channel whose history the user can see.
pub const HISTORICAL: i64 = 128;
/// A direct message; internal, never listed on the wire.
pub const IS_PRIVATE: i64 = 256;
/// Any kind of mention of the user (`is:mentioned`, `mentioned` in `message_details`).
pub const ANY_MENTION: i64 = MENTIONED | STREAM_WILDCARD_MENTIONED | TOPIC_WILDCARD_MENTIONED;
/// What a missing `user_messages` row means: the user sees the message in a channel's
/// history without having received it.
pub const NO_ROW: i64 = READ | HISTORICAL;

/// Each flag's bit here beside its bit in Zulip's `flags_mask` (export archives).
const ZULIP_BITS: [(i64, i64); 9] = [
    (READ, 1),
    (STARRED, 1 << 1),
    (COLLAPSED, 1 << 2),
    (MENTIONED, 1 << 3),
    (STREAM_WILDCARD_MENTIONED, 1 << 4),
    (HAS_ALERT_WORD, 1 << 9),
    (HISTORICAL, 1 << 10),
    (IS_PRIVATE, 1 << 11),
    (TOPIC_WILDCARD_MENTIONED, 1 << 13),
];

/// Zulip's `flags_mask` of these flags.
pub fn to_zulip_mask(flags: i64) -> i64 {
    ZULIP_BITS.iter().filter(|(ours, _)| flags & ours != 0).map(|(_, zulip)| zulip).sum()
}

/// These flags from Zulip's `flags_mask` (bits this server has no flag for are dropped).
pub fn from_zulip_mask(mask: i64) -> i64 {
    ZULIP_BITS.iter().filter(|(_, zulip)| mask & zulip != 0).map(|(ours, _)| ours).sum()
}

/// A flag as the API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageFlag {
    Read,
    Starred,
    Collapsed,
    Mentioned,
    StreamWildcardMentioned,
    TopicWildcardMentioned,
    HasAlertWord,
    Historical,
    /// Derived: either wildcard mention.
    WildcardMentioned,
}

impl MessageFlag {
    /// In the order Zulip lists a message's flags.
    pub const ALL: &'static [MessageFlag] = &[
        MessageFlag::Read,
        MessageFlag::Starred,
        MessageFlag::Collapsed,
        MessageFlag::Mentioned,
        MessageFlag::StreamWildcardMentioned,
        MessageFlag::TopicWildcardMentioned,
        MessageFlag::HasAlertWord,
        MessageFlag::Historical,
        MessageFlag::WildcardMentioned,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            MessageFlag::Read => "read",
            MessageFlag::Starred => "starred",
            MessageFlag::Collapsed => "collapsed",
            MessageFlag::Mentioned => "mentioned",
            MessageFlag::StreamWildcardMentioned => "stream_wildcard_mentioned",
            MessageFlag::TopicWildcardMentioned => "topic_wildcard_mentioned",
            MessageFlag::HasAlertWord => "has_alert_word",
            MessageFlag::Historical => "historical",
            MessageFlag::WildcardMentioned => "wildcard_mentioned",
        }
    }

    pub fn from_name(name: &str) -> Option<MessageFlag> {
        MessageFlag::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// The bits that set the flag (a derived flag is set by any of its bits).
    pub const fn bits(self) -> i64 {
        match self {
            MessageFlag::Read => READ,
            MessageFlag::Starred => STARRED,
            MessageFlag::Collapsed => COLLAPSED,
            MessageFlag::Mentioned => MENTIONED,
            MessageFlag::StreamWildcardMentioned => STREAM_WILDCARD_MENTIONED,
            MessageFlag::TopicWildcardMentioned => TOPIC_WILDCARD_MENTIONED,
            MessageFlag::HasAlertWord => HAS_ALERT_WORD,
            MessageFlag::Historical => HISTORICAL,
            MessageFlag::WildcardMentioned => STREAM_WILDCARD_MENTIONED | TOPIC_WILDCARD_MENTIONED,
        }
    }

    /// Clients may change only these; the server sets the others.
    pub const fn is_editable(self) -> bool {
        matches!(self, MessageFlag::Read | MessageFlag::Starred | MessageFlag::Collapsed)
    }

    /// The flag a client asks to change, with Zulip's errors for a server-set or unknown one.
    pub fn parse_editable(name: &str) -> ApiResult<MessageFlag> {
        match MessageFlag::from_name(name) {
            Some(flag) if flag.is_editable() => Ok(flag),
            Some(_) => Err(ApiError::bad_request(format!("Flag not editable: '{name}'"))),
            None => Err(ApiError::bad_request(format!("Invalid flag: '{name}'"))),
        }
    }
}

/// The API's `flags` list of a user for a message: `None` (no row) reads as Zulip's
/// `["read", "historical"]`.
pub fn flag_names(flags: Option<i64>) -> Vec<String> {
    let bits = flags.unwrap_or(NO_ROW);
    MessageFlag::ALL.iter().filter(|f| bits & f.bits() != 0).map(|f| f.name().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_map_to_zulips_names_and_bits() {
        assert_eq!(MessageFlag::from_name("starred"), Some(MessageFlag::Starred));
        assert_eq!(MessageFlag::from_name("is_private"), None);
        assert_eq!(serde_json::to_value(MessageFlag::HasAlertWord).unwrap(), "has_alert_word");
        for flag in MessageFlag::ALL {
            assert_eq!(serde_json::to_value(flag).unwrap(), flag.name());
        }
        assert_eq!(ANY_MENTION, 56);
        assert_eq!(MessageFlag::Historical.bits(), 128);
    }

    #[test]
    fn only_read_starred_and_collapsed_are_editable() {
        assert_eq!(MessageFlag::parse_editable("collapsed").unwrap(), MessageFlag::Collapsed);
        assert_eq!(MessageFlag::parse_editable("mentioned").unwrap_err().msg, "Flag not editable: 'mentioned'");
        assert_eq!(MessageFlag::parse_editable("wildcard_mentioned").unwrap_err().msg, "Flag not editable: 'wildcard_mentioned'");
        assert_eq!(MessageFlag::parse_editable("is_private").unwrap_err().msg, "Invalid flag: 'is_private'");
    }

    #[test]
    fn flag_names_lists_set_flags_in_zulips_order() {
        assert_eq!(flag_names(None), vec!["read", "historical"]);
        assert_eq!(flag_names(Some(STARRED | READ)), vec!["read", "starred"]);
        assert_eq!(flag_names(Some(IS_PRIVATE)), Vec::<String>::new());
        assert_eq!(flag_names(Some(TOPIC_WILDCARD_MENTIONED)), vec!["topic_wildcard_mentioned", "wildcard_mentioned"]);
        assert_eq!(flag_names(Some(READ | STREAM_WILDCARD_MENTIONED)), vec!["read", "stream_wildcard_mentioned", "wildcard_mentioned"]);
    }
}
