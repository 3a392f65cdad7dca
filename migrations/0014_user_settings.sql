-- User settings (PATCH /settings). Zulip has some sixty of them and adds more with each
-- release; each is read as a whole object (register) or a few at a time (push rules), never
-- searched, so they live in one JSON object beside the user rather than sixty columns.
-- Only the settings the user changed are stored: an absent key is the default of
-- src/domain/user_settings.rs, so a default can change without rewriting rows. The
-- settings that already have columns (timezone, the automatic topic-follow policies) stay
-- there.
ALTER TABLE users ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'; -- JSON object: setting name -> value
