-- Uploaded avatars (Zulip's avatar_source 'U'). The image lives in R2 under
-- `<realm_id>/avatars/<avatar_file>`; NULL means the avatar comes from Gravatar
-- (avatar_source 'G'). The file name is random, so its public URL cannot be guessed.
ALTER TABLE users ADD COLUMN avatar_file TEXT;
