//! Access checks (`access_*`: fetch and check, one error for missing and invisible) and the
//! builders of API objects from rows.

pub mod alert_words;
pub mod channel_folders;
pub mod channels;
pub mod drafts;
pub mod edit_rendering;
pub mod linkifiers;
pub mod message_edit;
pub mod messages;
pub mod narrow;
pub mod navigation_views;
pub mod organizations;
pub mod presence;
pub mod profile_fields;
pub mod push;
pub mod reactions;
pub mod realm_emoji;
pub mod realm_playgrounds;
pub mod realm_settings;
pub mod register_state;
pub mod rendering;
pub mod saved_snippets;
pub mod scheduled_messages;
pub mod strings;
pub mod subscription_properties;
pub mod topics;
pub mod tus;
pub mod uploads;
pub mod user_groups;
pub mod user_settings;
pub mod user_status;
pub mod users;
