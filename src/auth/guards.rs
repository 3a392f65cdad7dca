//! The roles a handler asks for: `ctx.user_as::<Administrator>()` authenticates, then
//! admits only that role, so the check cannot be forgotten between the two. Each guard
//! derefs to the user's row.

use std::ops::Deref;

use crate::db::users::UserRow;
use crate::error::{ApiError, ApiResult};

/// A role a handler requires of its authenticated user.
pub trait Guard: Sized {
    /// The user in this role, or the error Zulip answers to anyone else.
    fn admit(user: UserRow) -> ApiResult<Self>;
}

macro_rules! guard {
    ($(#[$meta:meta])* $name:ident, $check:path) => {
        $(#[$meta])*
        pub struct $name(UserRow);

        impl Guard for $name {
            fn admit(user: UserRow) -> ApiResult<Self> {
                $check(&user)?;
                Ok($name(user))
            }
        }

        impl Deref for $name {
            type Target = UserRow;
            fn deref(&self) -> &UserRow {
                &self.0
            }
        }

        impl $name {
            pub fn into_user(self) -> UserRow {
                self.0
            }
        }
    };
}

guard!(
    /// An organization administrator or owner.
    Administrator,
    require_admin
);
guard!(
    /// A member or above: not a guest (Zulip's `require_member_or_admin`).
    Member,
    require_member
);
guard!(
    /// A bot (bot storage, feature level 494).
    Bot,
    require_bot
);

/// Organization administrators and owners only.
pub fn require_admin(user: &UserRow) -> ApiResult<()> {
    if user.is_realm_admin() {
        Ok(())
    } else {
        Err(ApiError::must_be_admin())
    }
}

/// Members and above: guests may not (Zulip's `require_member_or_admin`).
pub fn require_member(user: &UserRow) -> ApiResult<()> {
    if user.is_guest() {
        return Err(ApiError::not_allowed_for_guests());
    }
    Ok(())
}

/// Bots only (bot storage, feature level 494).
pub fn require_bot(user: &UserRow) -> ApiResult<()> {
    if user.is_bot() {
        Ok(())
    } else {
        Err(ApiError::bot_required())
    }
}
