-- Who may move messages out of a channel (Zulip's can_move_messages_out_of_channel_group),
-- beside the organization's can_move_messages_between_channels_group. NULL keeps the
-- default, role:nobody.
ALTER TABLE channels ADD COLUMN can_move_messages_out_of_channel_group INTEGER REFERENCES user_groups(id);
