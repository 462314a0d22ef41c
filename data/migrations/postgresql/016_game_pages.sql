-- PostgreSQL's words for migration 016 (each game's web page): the game's id is BIGINT here.
CREATE TABLE game_pages (
    game_id    BIGINT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    token      TEXT   NOT NULL UNIQUE,
    created_at TEXT   NOT NULL
);
-- a page's live updates ask for the game's last roll (rolls_by_game leads with the nation)
CREATE INDEX rolls_by_game_id ON rolls (game_id, id);
