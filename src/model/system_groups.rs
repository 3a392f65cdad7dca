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

/// The organization's group-valued settings this server does not store, each with the
/// system group whose rule it follows (Zulip's default): `/register` answers them and an
/// export writes them as that group.
pub const FIXED_REALM_SETTINGS: [(&str, &str); 9] = [
    ("can_access_all_users_group", EVERYONE),
    ("can_create_bots_group", MEMBERS),
    ("can_create_write_only_bots_group", MEMBERS),
    ("can_create_web_public_channel_group", OWNERS),
    ("can_manage_billing_group", ADMINISTRATORS),
    ("can_set_delete_message_policy_group", MODERATORS),
    ("can_summarize_topics_group", EVERYONE),
    ("direct_message_initiator_group", EVERYONE),
    ("direct_message_permission_group", EVERYONE),
];
