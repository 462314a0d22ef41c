"""Stat history (`engine.history`): a `history` table of what each side's numbers became, action by action,
with the marks a chart shows (battles, conquests…). An undone action's rows are undone with it.

Games played before this migration get their history here, by replaying each game's live log one action at a
time: their charts start at their first turn, as a new game's do."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from itertools import groupby

import orjson

import engine  # noqa: F401  (registers the rule sets)
from data.store import record_history
from engine.events import event_from_dict, replay

SCHEMA = """
CREATE TABLE history (
    id        INTEGER PRIMARY KEY,
    game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    action_id INTEGER REFERENCES actions (id),  -- NULL: brought by an import
    turn      INTEGER NOT NULL,
    at        TEXT    NOT NULL,                 -- ISO-8601 UTC
    side      TEXT    NOT NULL,                 -- a nation, player, character, system or region
    stat      TEXT    NOT NULL,                 -- '' for a mark
    value     TEXT,                             -- JSON: a number or a word; NULL for a mark
    mark      TEXT,                             -- 'battle won', 'conquest'…; NULL for a value
    undone    INTEGER NOT NULL DEFAULT 0
)"""


def migrate(con: sqlite3.Connection) -> None:
    """Runs inside the migration's transaction."""
    con.execute(SCHEMA)
    con.execute("CREATE INDEX history_of_game ON history (game_id, id)")
    for (game_id,) in con.execute("SELECT id FROM games ORDER BY id").fetchall():
        rows = con.execute(
            "SELECT a.id, a.at, e.data FROM events e JOIN actions a ON a.id = e.action_id"
            " WHERE e.game_id = ? AND e.undone = 0 ORDER BY e.id", (game_id,)).fetchall()
        state, point = None, None
        for (action_id, at), group in groupby(rows, key=lambda row: (row[0], row[1])):
            events = [event_from_dict(orjson.loads(row[2])) for row in group]
            state = replay(events, state)
            point = record_history(con, game_id, action_id, state, events, point, datetime.fromisoformat(at))
