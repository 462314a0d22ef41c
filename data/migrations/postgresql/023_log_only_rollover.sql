-- PostgreSQL's words for migration 023 (the log-only rollover): the clock fields are BYTEA here.
ALTER TABLE games ADD COLUMN clock BYTEA;
ALTER TABLE games ADD COLUMN log_ahead INTEGER NOT NULL DEFAULT 0;
