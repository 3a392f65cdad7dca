-- Who may create public and private channels and user groups, and give a channel a topics
-- policy of its own (Zulip's can_create_public_channel_group,
-- can_create_private_channel_group, can_create_groups, can_set_topics_policy_group).
-- NULL keeps Zulip's default: members, members, members, moderators.
ALTER TABLE realms ADD COLUMN can_create_public_channel_group INTEGER REFERENCES user_groups(id);
ALTER TABLE realms ADD COLUMN can_create_private_channel_group INTEGER REFERENCES user_groups(id);
ALTER TABLE realms ADD COLUMN can_create_groups INTEGER REFERENCES user_groups(id);
ALTER TABLE realms ADD COLUMN can_set_topics_policy_group INTEGER REFERENCES user_groups(id);
