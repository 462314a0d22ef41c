-- PostgreSQL's words for migration 019 (a server's own settings: its GM role): the ids are BIGINT here.
CREATE TABLE guild_settings (
    guild_id   BIGINT PRIMARY KEY,
    gm_role_id BIGINT,
    updated_at TEXT   NOT NULL
);
