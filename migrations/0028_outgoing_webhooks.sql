-- Outgoing-webhook bots (`bot_type` 3): the service each one calls (Zulip's `Service`), and
-- the deliveries waiting for it (src/db/bot_services.rs, src/db/outgoing_webhook_deliveries.rs).

CREATE TABLE bot_services (
    realm_id INTEGER NOT NULL,
    -- The bot (users.id); one service per bot, as Zulip's web app creates them.
    bot_id INTEGER PRIMARY KEY,
    -- Where the server POSTs (`payload_url`, `services[].base_url`).
    base_url TEXT NOT NULL,
    -- 1: Zulip's JSON format; 2: Slack-compatible form fields.
    interface INTEGER NOT NULL,
    -- Sent with every request so the service can tell it comes from this bot. Random,
    -- shown to the bot's owner and administrators (`services[].token`).
    token TEXT NOT NULL
);
CREATE INDEX bot_services_realm ON bot_services(realm_id);

-- A message that triggered an outgoing webhook, waiting for the organization's
-- `MessageScheduler` alarm to POST it (deleted once answered or given up).
CREATE TABLE outgoing_webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    realm_id INTEGER NOT NULL,
    bot_id INTEGER NOT NULL,
    -- `mention` or `direct_message`.
    trigger TEXT NOT NULL,
    -- The message dict sent as the payload's `message`, as it was when sent (JSON).
    message TEXT NOT NULL,
    -- Failed attempts so far (timeouts and connection errors are retried).
    attempts INTEGER NOT NULL DEFAULT 0,
    -- Unix time of the next attempt.
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT
);
CREATE INDEX outgoing_webhook_deliveries_due ON outgoing_webhook_deliveries(realm_id, next_attempt_at);
