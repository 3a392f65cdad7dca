-- A channel's permission settings (Zulip's can_*_group), each the id of a user group of
-- the organization. NULL keeps the setting's default system group (domain::channel_permissions),
-- so existing channels behave as before.
ALTER TABLE channels ADD COLUMN can_send_message_group INTEGER REFERENCES user_groups(id);
ALTER TABLE channels ADD COLUMN can_administer_channel_group INTEGER REFERENCES user_groups(id);
ALTER TABLE channels ADD COLUMN can_add_subscribers_group INTEGER REFERENCES user_groups(id);
ALTER TABLE channels ADD COLUMN can_remove_subscribers_group INTEGER REFERENCES user_groups(id);
ALTER TABLE channels ADD COLUMN can_subscribe_group INTEGER REFERENCES user_groups(id);
ALTER TABLE channels ADD COLUMN can_move_messages_within_channel_group INTEGER REFERENCES user_groups(id);
ALTER TABLE channels ADD COLUMN can_resolve_topics_group INTEGER REFERENCES user_groups(id);
ALTER TABLE channels ADD COLUMN can_delete_any_message_group INTEGER REFERENCES user_groups(id);
ALTER TABLE channels ADD COLUMN can_delete_own_message_group INTEGER REFERENCES user_groups(id);
