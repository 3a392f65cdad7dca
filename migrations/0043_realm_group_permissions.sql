-- Who may subscribe other people to channels (Zulip's organization-level
-- can_add_subscribers_group, beside each channel's own). NULL keeps the default: members.
ALTER TABLE realms ADD COLUMN can_add_subscribers_group INTEGER REFERENCES user_groups(id);
-- Who manages every user group (Zulip's can_manage_all_groups). NULL keeps the default:
-- owners.
ALTER TABLE realms ADD COLUMN can_manage_all_groups INTEGER REFERENCES user_groups(id);
