-- Joining and coming back (issue 29): outgoing email, invitations, the organization's join
-- rules and password resets.

-- Every email the server sends (src/db/email_outbox.rs), written in the same D1 batch as
-- the state change that causes it, so a failed send never loses that change. Production
-- hands a row to the email provider (src/actions/email.rs) and retries it with backoff on
-- the organization's MessageScheduler alarm; development never sends and keeps every row
-- for `GET /api/v1/dev_emails`.
CREATE TABLE email_outbox (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    -- The recipient's address (one recipient per message).
    to_address TEXT NOT NULL,
    subject TEXT NOT NULL,
    -- The plain-text body and the HTML body of the same message.
    text_body TEXT NOT NULL,
    html_body TEXT NOT NULL,
    -- Unix seconds when it was queued.
    created_at INTEGER NOT NULL,
    -- Unix seconds when the provider accepted it (development: when it was kept); null
    -- while it waits.
    sent_at INTEGER,
    -- Failed hand-overs so far, and when the next is due (Unix seconds).
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    -- The provider's last error, for the operator (never shown to clients).
    last_error TEXT
);
CREATE INDEX email_outbox_pending ON email_outbox(realm_id, next_attempt_at) WHERE sent_at IS NULL;
CREATE INDEX email_outbox_recent ON email_outbox(realm_id, id);

-- Reusable invitation links (Zulip's MultiuseInvite): anyone with the link may join until
-- it is revoked or expires.
CREATE TABLE multiuse_invites (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    referred_by INTEGER NOT NULL REFERENCES users(id),
    -- The role of the accounts it creates (100 owner ... 600 guest).
    invited_as INTEGER NOT NULL,
    -- JSON arrays of channel ids and user group ids the new accounts join.
    stream_ids TEXT NOT NULL DEFAULT '[]',
    group_ids TEXT NOT NULL DEFAULT '[]',
    include_realm_default_subscriptions INTEGER NOT NULL DEFAULT 0,
    -- The link's key, in clear: `GET /invites` shows the link to who manages it.
    link_key TEXT NOT NULL UNIQUE,
    -- Unix seconds; expires_at null: never expires.
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    -- Unix seconds of its revocation; null while it works.
    revoked_at INTEGER
);
CREATE INDEX multiuse_invites_realm ON multiuse_invites(realm_id, id);

-- Single-use sign-up confirmations (Zulip's PreregistrationUser + Confirmation): an email
-- invitation (kind 'invite', shown by `GET /invites`), or the confirmation mailed to an
-- address that asked to join through a reusable link or an open organization ('signup').
CREATE TABLE invitations (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    kind TEXT NOT NULL CHECK (kind IN ('invite', 'signup')),
    -- The invited address, as given (compared case-insensitively).
    email TEXT NOT NULL,
    -- Who invited (null: an open organization's own sign-up).
    referred_by INTEGER REFERENCES users(id),
    -- The reusable link a 'signup' came through, if any.
    multiuse_invite_id INTEGER REFERENCES multiuse_invites(id),
    invited_as INTEGER NOT NULL,
    stream_ids TEXT NOT NULL DEFAULT '[]',
    group_ids TEXT NOT NULL DEFAULT '[]',
    include_realm_default_subscriptions INTEGER NOT NULL DEFAULT 0,
    -- Whether the referrer is told when the account is created.
    notify_referrer_on_join INTEGER NOT NULL DEFAULT 1,
    -- SHA-256 (hex) of the link's key; the key itself is only mailed.
    key_hash TEXT NOT NULL UNIQUE,
    -- Unix seconds it was created (or last resent); expires_at null: never expires.
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    -- Unix seconds of its revocation, and of the account it created (it works once).
    revoked_at INTEGER,
    used_at INTEGER,
    -- The account it created.
    user_id INTEGER REFERENCES users(id)
);
CREATE INDEX invitations_realm ON invitations(realm_id, kind, id);

-- Email domains an organization restricts sign-up to (Zulip's RealmDomain), when
-- `emails_restricted_to_domains` is on.
CREATE TABLE realm_domains (
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    -- Lower-case domain, e.g. `zulip.com`.
    domain TEXT NOT NULL,
    -- Whether its subdomains (`x.zulip.com`) are allowed too.
    allow_subdomains INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (realm_id, domain)
);

-- The organization's join rules, as Zulip's defaults.
ALTER TABLE realms ADD COLUMN invite_required INTEGER NOT NULL DEFAULT 1; -- joining needs an invitation
ALTER TABLE realms ADD COLUMN emails_restricted_to_domains INTEGER NOT NULL DEFAULT 0; -- only realm_domains may join
ALTER TABLE realms ADD COLUMN disallow_disposable_email_addresses INTEGER NOT NULL DEFAULT 1; -- refuse throwaway addresses
-- Group-valued permissions (null: Zulip's default system group, members / administrators).
ALTER TABLE realms ADD COLUMN can_invite_users_group INTEGER REFERENCES user_groups(id);
ALTER TABLE realms ADD COLUMN create_multiuse_invite_group INTEGER REFERENCES user_groups(id);

-- "Forgot password" links: single use, short-lived.
CREATE TABLE password_resets (
    -- SHA-256 (hex) of the mailed token.
    token_hash TEXT PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    -- Unix seconds it was used; a used link works no more.
    used_at INTEGER
);
CREATE INDEX password_resets_user ON password_resets(realm_id, user_id, created_at);

-- Missed-message emails waiting for their batching period (src/db/missed_message_emails.rs):
-- one row per recipient and message that Zulip's rules say to mail. The organization's
-- MessageScheduler alarm mails, per recipient, the messages still unread when it is due
-- (reading one first cancels it), one email per conversation, and deletes the rows.
CREATE TABLE missed_message_emails (
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    message_id INTEGER NOT NULL REFERENCES messages(id),
    -- Why: 'direct_message', 'mention', 'wildcard_mention', 'followed_topic', 'channel'.
    reason TEXT NOT NULL,
    -- Unix seconds from which it is mailed (sent + the user's batching period).
    scheduled_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, message_id)
);
CREATE INDEX missed_message_emails_due ON missed_message_emails(realm_id, scheduled_at);
