-- Whether the organization shows who read a message (Zulip's `enable_read_receipts`).
ALTER TABLE realms ADD COLUMN enable_read_receipts INTEGER NOT NULL DEFAULT 1;
