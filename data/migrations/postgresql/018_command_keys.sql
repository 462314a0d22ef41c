-- PostgreSQL's words for migration 018 (idempotency keys): the ids are BIGINT here, and a table has no rowid.
CREATE TABLE command_keys (
    key        TEXT   PRIMARY KEY,
    game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    action_id  BIGINT,
    outcome    TEXT   NOT NULL,
    created_at TEXT   NOT NULL
);
CREATE INDEX command_keys_created ON command_keys (created_at);
