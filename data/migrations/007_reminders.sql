-- The Discord front-end's next turn reminder of each Nations game (NULL: none pending), beside the
-- engine's next due time: the clock arms one timer for the earliest of either over every live game.
ALTER TABLE games ADD COLUMN remind_at TEXT;
CREATE INDEX games_remind ON games (remind_at) WHERE ended = 0;
