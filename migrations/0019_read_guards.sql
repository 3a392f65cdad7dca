-- One row that a write batch updates to prove that the reads it was planned from still
-- answer what they answered (src/db/read_guards.rs). The update sets `current` to that
-- comparison; when it is false the CHECK fails, and D1 writes nothing of the batch.

CREATE TABLE read_guards (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    -- 1 after every committed batch: a failed comparison never commits.
    current INTEGER NOT NULL CONSTRAINT reads_still_current CHECK (current = 1)
);

INSERT INTO read_guards (id, current) VALUES (1, 1);
