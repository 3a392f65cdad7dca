-- A user group's permission settings (Zulip's `can_*_group` of a named group): each holds
-- a user_groups id. NULL keeps Zulip's default: `role:nobody` for joining and removing
-- members, `role:everyone` for leaving and mentioning, and the group's creator alone for
-- adding members and managing the group (src/db/user_groups.rs resolves them). System
-- groups always answer `role:nobody`.
ALTER TABLE user_groups ADD COLUMN can_add_members_group INTEGER REFERENCES user_groups(id);
ALTER TABLE user_groups ADD COLUMN can_join_group INTEGER REFERENCES user_groups(id);
ALTER TABLE user_groups ADD COLUMN can_leave_group INTEGER REFERENCES user_groups(id);
ALTER TABLE user_groups ADD COLUMN can_manage_group INTEGER REFERENCES user_groups(id);
ALTER TABLE user_groups ADD COLUMN can_mention_group INTEGER REFERENCES user_groups(id);
ALTER TABLE user_groups ADD COLUMN can_remove_members_group INTEGER REFERENCES user_groups(id);
