//! Access checks (`access_*`: fetch and check, one error for missing and invisible) and the
//! builders of API objects from rows, and the enums of the codes the database and the API
//! share (roles, recipient types, visibility policies, message flags, narrow operators).

/// An enum whose variants are stored in D1 and sent on the wire as fixed integer codes:
/// `code()` and `from_code()` map them, and serde reads and writes the bare integer, so a
/// row or event field can hold the enum without changing the wire.
macro_rules! int_code_enum {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $code:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(into = "i64", try_from = "i64")]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The integer the database and the API use.
            pub const fn code(self) -> i64 {
                match self {
                    $($name::$variant => $code,)+
                }
            }

            pub fn from_code(code: i64) -> Option<$name> {
                match code {
                    $($code => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl From<$name> for i64 {
            fn from(value: $name) -> i64 {
                value.code()
            }
        }

        impl TryFrom<i64> for $name {
            type Error = String;
            fn try_from(code: i64) -> Result<Self, String> {
                Self::from_code(code).ok_or_else(|| format!("unknown {} code {code}", stringify!($name)))
            }
        }
    };
}

pub mod alert_words;
pub mod channel_folders;
pub mod channels;
pub mod drafts;
pub mod edit_rendering;
pub mod email;
pub mod ids;
pub mod invites;
pub mod linkifiers;
pub mod message_edit;
pub mod message_flags;
pub mod messages;
pub mod missed_message_emails;
pub mod muted_users;
pub mod narrow;
pub mod navigation_views;
pub mod organizations;
pub mod passwords;
pub mod presence;
pub mod profile_fields;
pub mod push;
pub mod reactions;
pub mod realm_emoji;
pub mod realm_playgrounds;
pub mod realm_settings;
pub mod recipients;
pub mod register_state;
pub mod rendering;
pub mod saved_snippets;
pub mod scheduled_messages;
pub mod sessions;
pub mod strings;
pub mod subscription_properties;
pub mod topics;
pub mod tus;
pub mod uploads;
pub mod user_groups;
pub mod user_settings;
pub mod user_status;
pub mod users;
