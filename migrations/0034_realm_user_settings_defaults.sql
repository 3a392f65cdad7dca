-- The organization's defaults for the personal settings of people who join
-- (`PATCH /realm/user_settings_defaults`): like `users.settings`, a JSON object of only the
-- defaults an administrator changed; an absent key is the catalogue default of
-- src/domain/user_settings.rs. Copied into a new user's row when they join.
ALTER TABLE realms ADD COLUMN user_settings_defaults TEXT NOT NULL DEFAULT '{}'; -- JSON object: setting name -> value

-- The organization's language (new users' `default_language`, and Zulip's language for the
-- organization's emails) and how many days a member waits to become a full member
-- (`PATCH /realm`).
ALTER TABLE realms ADD COLUMN default_language TEXT NOT NULL DEFAULT 'en';
ALTER TABLE realms ADD COLUMN waiting_period_threshold INTEGER NOT NULL DEFAULT 0;
