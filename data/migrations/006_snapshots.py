"""Every game's snapshot becomes one JSON document on its `games` row (`snapshot`: its rule set's export
format without the rolls), and its next due time becomes a column (`next_due`) with an index: the clock's
index of what falls due when. A command then reads one row and writes one row; a restart reads the index.

Nations games written before this migration kept their snapshot in the tables nations, units, bonuses and
battles (and every game its deadlines in `deadlines`): each is read once here into its JSON document, and
those tables, with the `games` columns only they needed, are dropped.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

import engine  # noqa: F401  (registers the rule sets)
from engine.clock import next_deadline
from engine.nations.rules import HouseSettings
from engine.nations.snapshot import battle_from_dict
from engine.nations.state import Bonus, GameState, Nation, Unit
from engine.rulesets import ruleset

LEGACY_COLUMNS = ("turn", "turn_hours", "turn_started_at", "turn_ends_at", "paused", "paused_remaining",
                  "next_unit_id", "forced_dice", "house", "next_battle_id")


def _legacy_nations_state(con: sqlite3.Connection, game: sqlite3.Row) -> GameState:
    game_id = game["id"]
    state = GameState(
        gm=game["gm"], turn=game["turn"], turn_hours=game["turn_hours"],
        turn_started_at=datetime.fromisoformat(game["turn_started_at"]),
        turn_ends_at=datetime.fromisoformat(game["turn_ends_at"]),
        house=HouseSettings(**json.loads(game["house"])), ruleset="nations", paused=bool(game["paused"]),
        paused_remaining=game["paused_remaining"], ended=bool(game["ended"]),
        next_unit_id=game["next_unit_id"], forced_dice=json.loads(game["forced_dice"]),
        next_battle_id=game["next_battle_id"],
    )
    for r in con.execute("SELECT * FROM nations WHERE game_id = ? ORDER BY position", (game_id,)):
        state.nations[r["name"]] = Nation(
            name=r["name"], player=r["player"], economy=r["economy"], stability=r["stability"],
            military=r["military"], propaganda=r["propaganda"], land=r["land"], strength=r["strength"],
            weakness=r["weakness"], foreign_patches=r["foreign_patches"], eliminated=bool(r["eliminated"]),
            preset_slot=r["preset_slot"], actions_used=json.loads(r["actions_used"]),
            extra_actions=r["extra_actions"],
        )
    for r in con.execute("SELECT * FROM units WHERE game_id = ? ORDER BY id", (game_id,)):
        state.nations[r["nation"]].units[r["id"]] = Unit(r["id"], r["type"], r["rank"], r["hp"], r["battle"])
    for r in con.execute("SELECT * FROM bonuses WHERE game_id = ? ORDER BY rowid", (game_id,)):
        state.nations[r["nation"]].bonuses[r["kind"]] = Bonus(r["kind"], r["value"],
                                                              datetime.fromisoformat(r["expires_at"]))
    for r in con.execute("SELECT data FROM battles WHERE game_id = ? ORDER BY id", (game_id,)):
        battle = battle_from_dict(json.loads(r["data"]))
        state.battles[battle.id] = battle
    return state


def migrate(con: sqlite3.Connection) -> None:
    """Runs inside the migration's transaction."""
    con.row_factory = sqlite3.Row
    con.execute("ALTER TABLE games ADD COLUMN next_due TEXT")
    for game in con.execute("SELECT * FROM games").fetchall():
        if game["snapshot"] is None:
            state = _legacy_nations_state(con, game)
        else:
            state = ruleset(game["ruleset"]).state_from_dict(json.loads(game["snapshot"]))
        due = next_deadline(state)
        con.execute("UPDATE games SET snapshot = ?, next_due = ? WHERE id = ?",
                    (json.dumps(ruleset(state.ruleset).state_to_dict(state)), due.isoformat() if due else None,
                     game["id"]))
    for table in ("nations", "units", "bonuses", "battles", "deadlines"):
        con.execute(f"DROP TABLE {table}")
    for column in LEGACY_COLUMNS:
        con.execute(f"ALTER TABLE games DROP COLUMN {column}")
    con.execute("CREATE INDEX games_due ON games (next_due) WHERE ended = 0")
