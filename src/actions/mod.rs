//! State changes: the D1 writes of each operation (batched) and, once they are committed,
//! the events they cause. `do_*` takes trusted input; `check_*` validates, then acts.
//!
//! Every action takes its arguments in one order:
//! 1. `db: &D1Database`, then `env: &Env` when it sends events or reaches another binding;
//!    an action that must outlive the response or read the request itself (push
//!    scheduling, message edits and deletions, typing) takes `ctx: &RequestContext`
//!    instead of both;
//! 2. the acting user (`me`, `admin`, `editor`, …), or the `realm_id` when no user acts;
//! 3. what the request asks for (target, values), the request struct last.

pub mod alert_words;
pub mod avatars;
pub mod background_failures;
pub mod bot_storage;
pub mod bots;
pub mod channel_access;
pub mod channel_folders;
pub mod channel_notices;
pub mod channel_settings;
pub mod channels;
pub mod default_channels;
pub mod drafts;
pub mod email;
pub mod full_members;
pub mod group_setting_values;
pub mod invites;
pub mod linkifiers;
pub mod login_notices;
pub mod message_delete;
pub mod message_edit;
pub mod message_flags;
pub mod message_notifications;
pub mod message_reports;
pub mod message_retention;
pub mod message_send;
pub mod missed_message_emails;
pub mod muted_users;
pub mod navigation_views;
pub mod organizations;
pub mod outgoing_webhooks;
pub mod passwords;
pub mod presence;
pub mod profile_fields;
pub mod push;
pub mod push_relay;
pub mod reactions;
pub mod read_state;
pub mod realm_domains;
pub mod realm_emoji;
pub mod realm_export;
pub mod realm_icon;
pub mod realm_import;
pub mod realm_playgrounds;
pub mod realm_settings;
pub mod reminders;
pub mod saved_snippets;
pub mod scheduled_messages;
pub mod sessions;
pub mod signup;
pub mod site;
pub mod subscription_properties;
pub mod tus;
pub mod typing;
pub mod uploads;
pub mod user_groups;
pub mod user_settings;
pub mod user_status;
pub mod user_topics;
pub mod users;
pub mod webhooks;

use worker::Env;

use crate::events::{self, Event, EventUser};

/// Sends an event to every queue of the organization. Call after the write committed.
pub async fn notify_realm(env: &Env, realm_id: i64, event: &Event) {
    events::send_realm_event(env, realm_id, event).await;
}

/// Sends an event to the listed users.
pub async fn notify_users(env: &Env, realm_id: i64, user_ids: &[i64], event: &Event) {
    let users: Vec<EventUser> = user_ids.iter().map(|id| EventUser::plain(*id)).collect();
    events::send_event(env, realm_id, event, &users).await;
}
