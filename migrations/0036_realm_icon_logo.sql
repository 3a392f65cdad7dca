-- The organization's icon and its day and night logos (`POST`/`DELETE /realm/icon` and
-- `/realm/logo`). Each uploaded image lives in R2 under `<realm_id>/realm/<file>`; the file
-- name is random, so its public URL cannot be guessed, and a new image gets a new name.
-- NULL means the default: Gravatar's identicon for the icon (Zulip's icon_source 'G'),
-- the server's default logo for the logos (logo_source 'D'); a name means 'U'.
-- Each version goes up at every change (uploaded or back to the default), as Zulip's
-- icon_version / logo_version / night_logo_version, and is the `?version=` of the URL.
ALTER TABLE realms ADD COLUMN icon_file TEXT;
ALTER TABLE realms ADD COLUMN icon_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE realms ADD COLUMN logo_file TEXT;
ALTER TABLE realms ADD COLUMN logo_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE realms ADD COLUMN night_logo_file TEXT;
ALTER TABLE realms ADD COLUMN night_logo_version INTEGER NOT NULL DEFAULT 1;
