//! Handlers: each authenticates, parses its parameters, calls one action and answers.
//! Routes are declared in `routes.rs`. A handler never imports another: what several read
//! alike is in [`params`].

pub mod alert_words;
pub mod bot_storage;
pub mod bots;
pub mod channel_folders;
pub mod channels;
pub mod dev;
pub mod dev_bench;
pub mod drafts;
pub mod events;
pub mod health;
pub mod invites;
pub mod jwt_login;
pub mod linkifiers;
pub mod login;
pub mod message_edit;
pub mod message_flags;
pub mod messages;
pub mod muted_users;
pub mod navigation_views;
pub mod params;
pub mod presence;
pub mod profile_fields;
pub mod push;
pub mod reactions;
pub mod read_state;
pub mod realm;
pub mod realm_domains;
pub mod realm_emoji;
pub mod realm_playgrounds;
pub mod saved_snippets;
pub mod scheduled_messages;
pub mod server;
pub mod server_admin;
pub mod sessions;
pub mod signup;
pub mod subscription_properties;
pub mod tus;
pub mod typing;
pub mod uploads;
pub mod user_groups;
pub mod user_settings;
pub mod user_status;
pub mod users;
pub mod webhooks;
