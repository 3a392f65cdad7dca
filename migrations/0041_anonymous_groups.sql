-- Anonymous groups (Zulip's group-setting values given as a set of users and groups):
-- user_groups rows that only a setting names. They are never listed, named in a mention or
-- accepted as a setting's group by id; their name is a server-made key, unique like every
-- group name, that lets one write batch create the group and point the setting at it.
ALTER TABLE user_groups ADD COLUMN is_anonymous INTEGER NOT NULL DEFAULT 0;
