-- /remind me: a player's reminders by direct message, per game (no row: off, the channel's mentions only).
-- `failed`: a DM was refused (closed DMs); their reminders come to the channel as mentions until they run
-- /remind me again. `sent`: the keys of the reminders already sent that still stand (a JSON list), so that
-- each is sent once.

CREATE TABLE dm_reminders (
    game_id        INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player         TEXT    NOT NULL,            -- the player's Discord user id
    before_minutes INTEGER NOT NULL,            -- how long before a deadline its reminder comes
    failed         INTEGER NOT NULL DEFAULT 0,
    sent           TEXT    NOT NULL DEFAULT '[]',
    PRIMARY KEY (game_id, player)
);
