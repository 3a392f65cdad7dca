//! Zulip's system group names: one group per role (each containing the more privileged
//! ones), plus `role:internet` and `role:nobody`.

pub const OWNERS: &str = "role:owners";
pub const ADMINISTRATORS: &str = "role:administrators";
pub const MODERATORS: &str = "role:moderators";
pub const FULL_MEMBERS: &str = "role:fullmembers";
pub const MEMBERS: &str = "role:members";
pub const EVERYONE: &str = "role:everyone";
pub const INTERNET: &str = "role:internet";
pub const NOBODY: &str = "role:nobody";
