-- The organization's default channels (Zulip's DefaultStream): people who join are
-- subscribed to them (sign-up with include_realm_default_subscriptions, POST /users).
-- Only public, unarchived channels; archiving a channel takes it out.
CREATE TABLE default_channels (
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    channel_id INTEGER NOT NULL REFERENCES channels(id),
    PRIMARY KEY (realm_id, channel_id)
);
