-- War: each battle of a game, its pending choice's deadline (also a row in deadlines) and its report.

CREATE TABLE battles (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    id       INTEGER NOT NULL,
    attacker TEXT    NOT NULL,
    defender TEXT    NOT NULL,
    stage    TEXT    NOT NULL,                    -- commit, pairing, duel, over
    result   TEXT,
    deadline TEXT,                                -- ISO-8601 UTC: when the pending choice defaults
    data     TEXT    NOT NULL,                    -- JSON: the whole battle (units, orders, duels, rounds)
    PRIMARY KEY (game_id, id)
);

ALTER TABLE games ADD COLUMN next_battle_id INTEGER NOT NULL DEFAULT 1;
