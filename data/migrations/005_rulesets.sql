-- Rule sets. A game of any rule set lives in `games`; Nations keeps its snapshot in its own tables
-- (nations, units, bonuses, battles), a rule set without tables keeps it as one JSON document in
-- `games.snapshot`. The roll ledger takes dice with named faces (God Dice: `faces`, a JSON list)
-- beside the numbered die with modifiers, so a faces row has no die, modifiers or total; `forced`
-- counts the roll's GM-entered dice (they are always its first ones).

ALTER TABLE games ADD COLUMN snapshot TEXT;

CREATE TABLE rolls_v5 (
    id         INTEGER PRIMARY KEY,
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    action_id  INTEGER REFERENCES actions (id),
    turn       INTEGER NOT NULL,
    nation     TEXT,                              -- the nation (Nations) or the player (God Dice)
    purpose    TEXT    NOT NULL,
    die        INTEGER,
    modifiers  TEXT,                              -- JSON {name: value}
    total      INTEGER,
    target     INTEGER,
    comparison TEXT,
    success    INTEGER,
    forced     INTEGER NOT NULL,                  -- how many of its dice a GM entered
    at         TEXT    NOT NULL,
    battle     INTEGER,
    unit       INTEGER,
    undone     INTEGER NOT NULL DEFAULT 0,
    faces      TEXT                               -- JSON ["B", "R", …]: dice with named faces
);
INSERT INTO rolls_v5 (id, game_id, action_id, turn, nation, purpose, die, modifiers, total, target, comparison,
                      success, forced, at, battle, unit, undone)
    SELECT id, game_id, action_id, turn, nation, purpose, die, modifiers, total, target, comparison,
           success, forced, at, battle, unit, undone FROM rolls;
DROP TABLE rolls;
ALTER TABLE rolls_v5 RENAME TO rolls;
CREATE INDEX rolls_by_game ON rolls (game_id, nation, id);
