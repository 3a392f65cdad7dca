// What the client asks /register for (the boot module sends it before the app loads).
export const REGISTER_PARAMS = {
  apply_markdown: true,
  client_gravatar: false,
  slim_presence: true,
  include_subscribers: false,
  client_capabilities: {
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: false,
    stream_typing_notifications: true,
    user_settings_object: true,
    empty_topic_name: true,
  },
  fetch_event_types: [
    "message", "update_message_flags", "realm", "realm_user", "realm_user_groups", "realm_emoji",
    "subscription", "stream", "user_topic", "recent_private_conversations", "presence",
    "user_settings", "typing", "reaction", "delete_message", "update_message",
    "default_streams", "realm_domains",
  ],
};
