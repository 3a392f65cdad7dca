//! The rules of the API, pure where they can be: access checks (`access_*`: fetch and
//! check, one error for missing and invisible), the rules each endpoint applies, and the
//! builders of API objects from rows.
//!
//! Domain may read through `db` (a loader here reads the rows its rule needs, in one batch)
//! and use `model`'s shared codes, but never calls `actions` or `api`, and never writes:
//! state changes and their events are `actions/`.

pub mod alert_words;
pub mod channel_folders;
pub mod channel_permissions;
pub mod channel_settings;
pub mod channels;
pub mod drafts;
pub mod edit_rendering;
pub mod email;
pub mod email_unsubscribe;
pub mod group_setting_values;
pub mod invites;
pub mod linkifiers;
pub mod login_notices;
pub mod markdown_syntax;
pub mod message_edit;
pub mod message_reports;
pub mod message_send;
pub mod messages;
pub mod missed_message_emails;
pub mod muted_users;
pub mod narrow_matches;
pub mod navigation_views;
pub mod organizations;
pub mod outgoing_webhooks;
pub mod passwords;
pub mod presence;
pub mod profile_fields;
pub mod push;
pub mod reactions;
pub mod read_receipts;
pub mod realm_emoji;
pub mod realm_export;
pub mod realm_export_groups;
pub mod realm_icon;
pub mod realm_import;
pub mod realm_playgrounds;
pub mod realm_settings;
pub mod register_state;
pub mod reminders;
pub mod rendering;
pub mod saved_snippets;
pub mod scheduled_messages;
pub mod search;
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
pub mod webhooks;
