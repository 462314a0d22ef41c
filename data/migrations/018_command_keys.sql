-- Idempotency keys (issue 33): a command's key (Discord's interaction id, the console's line id) recorded in the
-- command's own transaction with what it did, so that a retry with the same key answers the first outcome instead
-- of applying again, and a commit whose answer was lost (the connection cut at COMMIT) is looked up, not guessed.
-- Kept a day (Discord's interactions expire in 15 minutes): the store deletes older ones as commands come.
CREATE TABLE command_keys (
    key        TEXT    PRIMARY KEY,
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    action_id  INTEGER,                      -- the command's own logged action (NULL: refused after a catch-up)
    outcome    TEXT    NOT NULL,             -- JSON: every action it logged, in order, and its refusal if any
    created_at TEXT    NOT NULL              -- ISO-8601 UTC
) WITHOUT ROWID;
CREATE INDEX command_keys_created ON command_keys (created_at);
