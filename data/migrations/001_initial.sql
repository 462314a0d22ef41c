-- The first schema: games and their snapshot (nations, units, bonuses, deadlines), and the log
-- (actions, events, rolls) that the snapshot must always equal the replay of.

CREATE TABLE games (
    id               INTEGER PRIMARY KEY,
    channel          TEXT    NOT NULL,            -- where it is played: "console", "discord:<guild>:<channel>"
    guild_id         INTEGER,                     -- Discord server, for shard ownership
    ruleset          TEXT    NOT NULL DEFAULT 'nations',
    gm               TEXT    NOT NULL,
    turn             INTEGER NOT NULL,
    turn_hours       REAL    NOT NULL,
    turn_started_at  TEXT    NOT NULL,            -- ISO-8601 UTC
    turn_ends_at     TEXT    NOT NULL,
    paused           INTEGER NOT NULL DEFAULT 0,
    paused_remaining REAL,
    ended            INTEGER NOT NULL DEFAULT 0,
    next_unit_id     INTEGER NOT NULL DEFAULT 1,
    forced_dice      TEXT    NOT NULL DEFAULT '[]',
    house            TEXT    NOT NULL,            -- JSON: this game's house settings
    created_at       TEXT    NOT NULL
);
CREATE UNIQUE INDEX games_one_live_per_channel ON games (channel) WHERE ended = 0;

CREATE TABLE nations (
    game_id         INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,
    name            TEXT    NOT NULL,
    player          TEXT,
    economy         INTEGER NOT NULL CHECK (economy >= 0),
    stability       INTEGER NOT NULL CHECK (stability >= 0),
    military        INTEGER NOT NULL CHECK (military >= 0),
    propaganda      INTEGER NOT NULL CHECK (propaganda >= 0),
    land            INTEGER NOT NULL CHECK (land >= 0),
    strength        TEXT    NOT NULL,
    weakness        TEXT    NOT NULL,
    foreign_patches INTEGER NOT NULL DEFAULT 0,
    eliminated      INTEGER NOT NULL DEFAULT 0,
    preset_slot     INTEGER,
    actions_used    TEXT    NOT NULL DEFAULT '[]',
    extra_actions   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, name),
    CHECK (economy + military <= land)
);

CREATE TABLE units (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    id      INTEGER NOT NULL,
    nation  TEXT    NOT NULL,
    type    TEXT    NOT NULL,
    rank    TEXT    NOT NULL,
    hp      INTEGER NOT NULL,
    battle  INTEGER,
    PRIMARY KEY (game_id, id)
);

CREATE TABLE bonuses (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    nation     TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    value      INTEGER NOT NULL,
    expires_at TEXT    NOT NULL,
    PRIMARY KEY (game_id, nation, kind)
);

-- Every deadline of a live game (turn ends, bonus expiries, battle choices): the scheduler's truth.
CREATE TABLE deadlines (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    at      TEXT    NOT NULL,
    what    TEXT    NOT NULL,
    nation  TEXT,
    ref     TEXT
);
CREATE INDEX deadlines_by_time ON deadlines (at);

-- One row per command (or clock catch-up): the log entry its events and rolls belong to.
CREATE TABLE actions (
    id      INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    actor   TEXT    NOT NULL,
    command TEXT    NOT NULL,
    at      TEXT    NOT NULL,
    undone  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX actions_by_game ON actions (game_id, id);

CREATE TABLE events (
    id        INTEGER PRIMARY KEY,
    game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    action_id INTEGER NOT NULL REFERENCES actions (id),
    kind      TEXT    NOT NULL,
    data      TEXT    NOT NULL,                   -- JSON of the event
    undone    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX events_by_game ON events (game_id, id);

CREATE TABLE rolls (
    id         INTEGER PRIMARY KEY,
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    action_id  INTEGER REFERENCES actions (id),
    turn       INTEGER NOT NULL,
    nation     TEXT,
    purpose    TEXT    NOT NULL,
    die        INTEGER NOT NULL,
    modifiers  TEXT    NOT NULL,                  -- JSON {name: value}
    total      INTEGER NOT NULL,
    target     INTEGER,
    comparison TEXT,
    success    INTEGER,
    forced     INTEGER NOT NULL,                  -- 1: the die was entered by a GM
    at         TEXT    NOT NULL,
    battle     INTEGER,
    unit       INTEGER,
    undone     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX rolls_by_game ON rolls (game_id, nation, id);
