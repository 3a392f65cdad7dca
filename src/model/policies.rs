//! The policies stored as text in D1 and sent as text on the wire: an organization's and
//! a channel's topics policy, and who sees a message's edit history.

/// An enum whose variants are stored and sent as fixed strings: `as_str()` and
/// `from_code()` map them, and serde reads and writes the bare string.
macro_rules! str_code_enum {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $code:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(into = "String", try_from = "String")]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// The text the database and the API use.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $code,)+
                }
            }

            pub fn from_code(code: &str) -> Option<$name> {
                match code {
                    $($code => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl From<$name> for String {
            fn from(value: $name) -> String {
                value.as_str().to_string()
            }
        }

        impl TryFrom<String> for $name {
            type Error = String;
            fn try_from(code: String) -> Result<Self, String> {
                Self::from_code(&code).ok_or_else(|| format!("unknown {} {code}", stringify!($name)))
            }
        }
    };
}

str_code_enum! {
    /// Whether messages may go to the empty topic ("general chat"): an organization's
    /// `topics_policy`, or a channel's, which may `inherit` the organization's.
    pub enum TopicsPolicy {
        Inherit = "inherit",
        AllowEmptyTopic = "allow_empty_topic",
        DisableEmptyTopic = "disable_empty_topic",
        EmptyTopicOnly = "empty_topic_only",
    }
}

impl TopicsPolicy {
    const ZULIP_CHANNEL_NUMBERS: [(TopicsPolicy, i64); 4] = [
        (TopicsPolicy::Inherit, 1),
        (TopicsPolicy::AllowEmptyTopic, 2),
        (TopicsPolicy::DisableEmptyTopic, 3),
        (TopicsPolicy::EmptyTopicOnly, 4),
    ];

    /// A channel's policy as Zulip's database and export number it (`StreamTopicsPolicyEnum`).
    pub fn zulip_channel_number(self) -> i64 {
        Self::ZULIP_CHANNEL_NUMBERS.iter().find(|(p, _)| *p == self).map_or(1, |(_, n)| *n)
    }

    pub fn from_zulip_channel_number(number: i64) -> Option<TopicsPolicy> {
        Self::ZULIP_CHANNEL_NUMBERS.iter().find(|(_, n)| *n == number).map(|(p, _)| *p)
    }
}

str_code_enum! {
    /// `message_edit_history_visibility_policy`: every entry, only moves (without content
    /// fields), or none.
    pub enum EditHistoryPolicy {
        All = "all",
        Moves = "moves",
        None = "none",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_read_and_write_zulips_strings() {
        assert_eq!(TopicsPolicy::from_code("disable_empty_topic"), Some(TopicsPolicy::DisableEmptyTopic));
        assert_eq!(TopicsPolicy::from_code("mandatory"), None);
        assert_eq!(TopicsPolicy::DisableEmptyTopic.zulip_channel_number(), 3);
        assert_eq!(TopicsPolicy::from_zulip_channel_number(4), Some(TopicsPolicy::EmptyTopicOnly));
        assert_eq!(TopicsPolicy::from_zulip_channel_number(9), None);
        assert_eq!(serde_json::to_value(TopicsPolicy::Inherit).unwrap(), "inherit");
        assert_eq!(serde_json::from_value::<EditHistoryPolicy>(serde_json::json!("moves")).unwrap(), EditHistoryPolicy::Moves);
        assert!(serde_json::from_value::<EditHistoryPolicy>(serde_json::json!("some")).is_err());
    }
}
