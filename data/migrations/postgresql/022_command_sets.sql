-- PostgreSQL's words for migration 022 (the slash commands registered with Discord, by where): the same table.
CREATE TABLE command_sets (
    scope      TEXT PRIMARY KEY,
    digest     TEXT NOT NULL,
    synced_at  TEXT NOT NULL
);
