//! The codes every layer shares: stored in D1, sent on the wire, and named by the rules
//! (id newtypes, roles, recipient types, topic visibility policies, message flag bits,
//! narrow terms, system group names, the text-coded policies). A leaf below `db`: it
//! imports nothing of the crate but `error`.

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

pub mod email;
pub mod ids;
pub mod message_flags;
pub mod narrow;
pub mod policies;
pub mod recipients;
pub mod roles;
pub mod system_groups;
pub mod topics;

pub use policies::{EditHistoryPolicy, TopicsPolicy};
pub use recipients::RecipientType;
pub use roles::Role;
pub use topics::VisibilityPolicy;
