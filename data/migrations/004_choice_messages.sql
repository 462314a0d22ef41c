-- The Discord message offering each battle's pending choice, so the bot can take its controls off
-- once the choice is made or defaulted (also after a restart).

CREATE TABLE choice_messages (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    battle     INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    PRIMARY KEY (game_id, battle)
);
