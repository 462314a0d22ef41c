-- PostgreSQL's words for migration 020 (secret rolls): the same column.
ALTER TABLE rolls ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;
