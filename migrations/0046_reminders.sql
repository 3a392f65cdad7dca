-- Reminders (Zulip's ScheduledMessage.REMIND): a direct message to its owner, sent by the
-- notification bot at the chosen time, quoting the message it reminds of. They share the
-- scheduled messages' table, its delivery and its guard; `delivery_type` tells them apart
-- (1 send later, 2 remind, Zulip's codes).
ALTER TABLE scheduled_messages ADD COLUMN delivery_type INTEGER NOT NULL DEFAULT 1 CHECK (delivery_type IN (1, 2));
ALTER TABLE scheduled_messages ADD COLUMN reminder_target_message_id INTEGER;
