//! Handlers: each authenticates, parses its parameters, calls one action and answers.
//! Routes are declared in `routes.rs`.

pub mod bot_storage;
pub mod bots;
pub mod channel_folders;
pub mod channels;
pub mod dev;
pub mod dev_bench;
pub mod events;
pub mod jwt_login;
pub mod login;
pub mod message_edit;
pub mod message_flags;
pub mod messages;
pub mod navigation_views;
pub mod profile_fields;
pub mod reactions;
pub mod realm;
pub mod realm_playgrounds;
pub mod saved_snippets;
pub mod server;
pub mod subscription_properties;
pub mod typing;
pub mod user_groups;
pub mod users;
