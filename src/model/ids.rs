//! Id newtypes: a user id, a message id, a channel id, a group id and an organization id are all
//! integers, and passing one where another is meant compiles silently. Statement builders,
//! actions and rules whose arguments could be mixed up take these instead. Serde reads and
//! writes the bare integer and a statement binds it, so rows, SQL and the wire are unchanged.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id_type!(
    /// `users.id`.
    UserId
);
id_type!(
    /// `messages.id`.
    MessageId
);
id_type!(
    /// `channels.id` (the API's `stream_id`).
    ChannelId
);
id_type!(
    /// `realms.id`.
    RealmId
);
id_type!(
    /// `user_groups.id`.
    GroupId
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_bare_integers_on_the_wire() {
        assert_eq!(serde_json::to_value(MessageId(42)).unwrap(), json!(42));
        assert_eq!(serde_json::from_value::<Vec<UserId>>(json!([1, 2])).unwrap(), vec![UserId(1), UserId(2)]);
        assert_eq!(serde_json::to_value(Some(ChannelId(7))).unwrap(), json!(7));
        assert_eq!(RealmId(3).to_string(), "3");
    }
}
