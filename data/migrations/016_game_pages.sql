-- Each game's web page (issue 22): one unguessable token a game, the path of its capability URL
-- (PUBLIC_URL/g/<token>). Made when a link is first given; rotated by /gm page rotate (the old token is gone).
CREATE TABLE game_pages (
    game_id    INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    token      TEXT    NOT NULL UNIQUE,
    created_at TEXT    NOT NULL              -- ISO-8601 UTC: when this token was made
);
-- a page's live updates ask for the game's last roll (rolls_by_game leads with the nation)
CREATE INDEX rolls_by_game_id ON rolls (game_id, id);
