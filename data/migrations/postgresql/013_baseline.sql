-- PostgreSQL: the schema of SQLite's migrations 001 to 013, as one script. A PostgreSQL database starts at
-- schema 13 (no PostgreSQL database is older); from 014 on, every numbered migration runs on both backends
-- (with a file of the same number here where PostgreSQL needs its own words). Types follow SQLite's: flags
-- are integers (0/1), times are ISO-8601 UTC text, JSON is text; Discord ids are BIGINT.
CREATE TABLE games (
    id                BIGSERIAL PRIMARY KEY,
    channel           TEXT    NOT NULL,             -- where it is played: "console", "discord:<guild>:<channel>"
    guild_id          BIGINT,                       -- the Discord server
    ruleset           TEXT    NOT NULL DEFAULT 'nations',
    gm                TEXT    NOT NULL,
    ended             INTEGER NOT NULL DEFAULT 0,
    created_at        TEXT    NOT NULL,
    status_message_id BIGINT,
    reminded_turn     INTEGER NOT NULL DEFAULT 0,
    snapshot          TEXT,
    next_due          TEXT,
    remind_at         TEXT,
    last_digest_at    TEXT
);
CREATE UNIQUE INDEX games_one_live_per_channel ON games (channel) WHERE ended = 0;
CREATE INDEX games_due ON games (next_due) WHERE ended = 0;
CREATE INDEX games_remind ON games (remind_at) WHERE ended = 0;

CREATE TABLE actions (
    id      BIGSERIAL PRIMARY KEY,
    game_id BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    actor   TEXT    NOT NULL,
    command TEXT    NOT NULL,
    at      TEXT    NOT NULL,
    undone  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX actions_by_game ON actions (game_id, id);

CREATE TABLE events (
    id        BIGSERIAL PRIMARY KEY,
    game_id   BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    action_id BIGINT  NOT NULL REFERENCES actions (id),
    kind      TEXT    NOT NULL,
    data      TEXT    NOT NULL,
    undone    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX events_by_game ON events (game_id, id);
CREATE INDEX events_by_action ON events (action_id);

CREATE TABLE choice_messages (
    game_id    BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    battle     INTEGER NOT NULL,
    message_id BIGINT  NOT NULL,
    PRIMARY KEY (game_id, battle)
);

CREATE TABLE rolls (
    id         BIGSERIAL PRIMARY KEY,
    game_id    BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    action_id  BIGINT  REFERENCES actions (id),
    turn       INTEGER NOT NULL,
    nation     TEXT,
    purpose    TEXT    NOT NULL,
    die        BIGINT,
    modifiers  TEXT,
    total      BIGINT,
    target     BIGINT,
    comparison TEXT,
    success    INTEGER,
    forced     INTEGER NOT NULL,
    at         TEXT    NOT NULL,
    battle     INTEGER,
    unit       INTEGER,
    undone     INTEGER NOT NULL DEFAULT 0,
    faces      TEXT,
    sides      INTEGER,
    free       TEXT
);
CREATE INDEX rolls_by_game ON rolls (game_id, nation, id);
CREATE INDEX rolls_by_action ON rolls (action_id);

CREATE TABLE dm_reminders (
    game_id        BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player         TEXT    NOT NULL,
    before_minutes INTEGER NOT NULL,
    failed         INTEGER NOT NULL DEFAULT 0,
    sent           TEXT    NOT NULL DEFAULT '[]',
    seq            BIGSERIAL,                       -- the order players opted in (SQLite: its rowid)
    PRIMARY KEY (game_id, player)
);

CREATE TABLE history (
    id        BIGSERIAL PRIMARY KEY,
    game_id   BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    action_id BIGINT  REFERENCES actions (id),
    turn      INTEGER NOT NULL,
    at        TEXT    NOT NULL,
    side      TEXT    NOT NULL,
    stat      TEXT    NOT NULL,
    value     TEXT,
    mark      TEXT,
    undone    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX history_of_game ON history (game_id, id);
CREATE INDEX history_by_action ON history (action_id);

CREATE TABLE report_messages (
    action_id  BIGINT PRIMARY KEY REFERENCES actions (id) ON DELETE CASCADE,
    channel_id BIGINT,
    message_id BIGINT NOT NULL
);
