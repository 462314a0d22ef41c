"""Every game's snapshot becomes one JSON document on its `games` row (`snapshot`: its rule set's export
format without the rolls), and its next due time becomes a column (`next_due`) with an index: the clock's
index of what falls due when. A command then reads one row and writes one row; a restart reads the index.

Nations games written before this migration kept their snapshot in the tables nations, units, bonuses and
battles (and every game its deadlines in `deadlines`): each is read once here into its JSON document, and
those tables, with the `games` columns only they needed, are dropped.

A migration is history: this one works on plain JSON, with its own frozen copy of what it needs as the
engine had it when this migration was written — the export formats of a Nations and a God Dice game (the
only rule sets then), their house settings with their defaults, and what falls due in each — so that an old
database migrates to the same documents whatever the engine becomes. (God Dice games already kept their
snapshot as a document: it is read and written again in that format, its defaults filled in.)
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from typing import Any

LEGACY_COLUMNS = ("turn", "turn_hours", "turn_started_at", "turn_ends_at", "paused", "paused_remaining",
                  "next_unit_id", "forced_dice", "house", "next_battle_id")

# Each rule set's house settings then, in their order, with their defaults
NATIONS_HOUSE: dict[str, Any] = {
    "turn_hours": 12.0, "actions_per_turn": 2, "bonus_hours": 36.0, "recruit_meets_difficulty": True,
    "land_cut_tie": "military", "military_cost_on_success": True, "new_nation_total": 20,
    "new_nation_stability": 10, "new_nation_propaganda": 10, "new_nation_land": 20, "preset_unit_rank": "green",
    "choice_deadline_hours": 0.0, "full_hp_after_battle": True, "reminder_hours": 1.0,
    "end_turn_when_all_done": False, "spoils_multiplier": 3,
}
GODDICE_HOUSE: dict[str, Any] = {"reminder_hours": 12.0}
# Which of a Nations game's deadlines due at the same moment comes first
NATIONS_ORDER = {"battle choice": 0, "turn end": 1, "bonus expiry": 2, "choice reminder": 3}


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _house(defaults: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    """A game's house settings: each setting it has, the default of each it has not (an unknown one is refused)."""
    unknown = set(raw) - set(defaults)
    if unknown:
        raise TypeError(f"unknown house settings: {', '.join(sorted(map(str, unknown)))}")
    return {key: raw.get(key, default) for key, default in defaults.items()}


# --- Nations --------------------------------------------------------------------------------------------------


def _battle(raw: dict[str, Any]) -> dict[str, Any]:
    """A battle as the export's `battles` item, from its stored (or exported) form."""
    orders = {int(o["unit"]): o["at_hp"] for o in raw.get("retreat_orders", [])}
    return {
        "id": int(raw["id"]),
        "attacker": raw["attacker"],
        "defender": raw["defender"],
        "state": raw["state"],
        "result": raw.get("result"),
        "duels": [dict(d, rounds=[dict(r) for r in d["rounds"]]) for d in raw.get("duels", [])],
        "turn": int(raw.get("turn", 0)),
        "attacking": [int(u) for u in raw.get("attacking", [])],
        "defending": [int(u) for u in raw.get("defending", [])],
        "in_fight_attacking": [int(u) for u in raw.get("in_fight_attacking", [])],
        "in_fight_defending": [int(u) for u in raw.get("in_fight_defending", [])],
        "retreat_orders": [{"unit": unit, "at_hp": hp} for unit, hp in orders.items()],
        "initiative": raw.get("initiative"),
        "deadline": _time(raw["deadline"]).isoformat() if raw.get("deadline") else None,
        "reminder_at": _time(raw["reminder_at"]).isoformat() if raw.get("reminder_at") else None,
    }


def _nations_document(game: dict[str, Any], nations: dict[str, dict[str, Any]],
                      battles: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """A Nations game's document: `game` (its fields in the format's order), each nation (its bonuses by kind and
    its units by id) and each battle."""
    listed = []
    for nation in nations.values():
        units = [nation["units"][key] for key in sorted(nation["units"])]
        listed.append({**{k: v for k, v in nation.items() if k not in ("bonuses", "units")},
                       "bonuses": list(nation["bonuses"].values()), "units": units})
    return {"game": game, "nations": listed, "battles": list(battles.values())}


def _legacy_nations_document(con: sqlite3.Connection, game: sqlite3.Row) -> dict[str, Any]:
    """A Nations game from the tables that kept it before this migration."""
    game_id = game["id"]
    nations: dict[str, dict[str, Any]] = {}
    for r in con.execute("SELECT * FROM nations WHERE game_id = ? ORDER BY position", (game_id,)):
        nations[r["name"]] = {
            "name": r["name"], "player": r["player"], "economy": r["economy"], "stability": r["stability"],
            "military": r["military"], "propaganda": r["propaganda"], "land": r["land"],
            "strength": r["strength"], "weakness": r["weakness"], "foreign_patches": r["foreign_patches"],
            "eliminated": bool(r["eliminated"]), "preset_slot": r["preset_slot"],
            "actions_used": list(json.loads(r["actions_used"])), "extra_actions": r["extra_actions"],
            "battles_won": 0, "bonuses": {}, "units": {},
        }
    for r in con.execute("SELECT * FROM units WHERE game_id = ? ORDER BY id", (game_id,)):
        nations[r["nation"]]["units"][r["id"]] = {"id": r["id"], "type": r["type"], "rank": r["rank"],
                                                  "hp": r["hp"], "battle": r["battle"]}
    for r in con.execute("SELECT * FROM bonuses WHERE game_id = ? ORDER BY rowid", (game_id,)):
        nations[r["nation"]]["bonuses"][r["kind"]] = {"kind": r["kind"], "value": r["value"],
                                                      "expires_at": _time(r["expires_at"]).isoformat()}
    battles: dict[int, dict[str, Any]] = {}
    for r in con.execute("SELECT data FROM battles WHERE game_id = ? ORDER BY id", (game_id,)):
        battle = _battle(json.loads(r["data"]))
        battles[battle["id"]] = battle
    fields = {
        "ruleset": "nations",
        "turn": game["turn"],
        "turn_hours": game["turn_hours"],
        "turn_started_at": _time(game["turn_started_at"]).isoformat(),
        "turn_ends_at": _time(game["turn_ends_at"]).isoformat(),
        "paused": bool(game["paused"]),
        "paused_remaining": game["paused_remaining"],
        "ended": bool(game["ended"]),
        "gm": game["gm"],
        "next_unit_id": game["next_unit_id"],
        "forced_dice": list(json.loads(game["forced_dice"])),
        "house": _house(NATIONS_HOUSE, json.loads(game["house"])),
        "next_battle_id": game["next_battle_id"],
    }
    return _nations_document(fields, nations, battles)


def _nations_snapshot(data: dict[str, Any]) -> dict[str, Any]:
    """A Nations document read and written again: the format's fields, each given its default when missing."""
    game = data["game"]
    if game.get("ruleset", "nations") != "nations":
        raise ValueError(f"not a Nations game: ruleset {game.get('ruleset')!r}")
    house = _house(NATIONS_HOUSE, game.get("house", {}))
    turn_hours = float(game["turn_hours"])
    ends_at = _time(game["turn_ends_at"])
    started = game.get("turn_started_at")
    nations: dict[str, dict[str, Any]] = {}
    max_unit = 0
    for raw in data["nations"]:
        nation = {
            "name": raw["name"], "player": raw.get("player"),
            "economy": int(raw["economy"]), "stability": int(raw["stability"]), "military": int(raw["military"]),
            "propaganda": int(raw["propaganda"]), "land": int(raw["land"]),
            "strength": raw["strength"], "weakness": raw["weakness"],
            "foreign_patches": int(raw.get("foreign_patches", 0)), "eliminated": bool(raw.get("eliminated", False)),
            "preset_slot": raw.get("preset_slot"), "actions_used": list(raw.get("actions_used", [])),
            "extra_actions": int(raw.get("extra_actions", 0)), "battles_won": int(raw.get("battles_won", 0)),
            "bonuses": {}, "units": {},
        }
        for b in raw.get("bonuses", []):
            nation["bonuses"][b["kind"]] = {"kind": b["kind"], "value": int(b["value"]),
                                            "expires_at": _time(b["expires_at"]).isoformat()}
        for u in raw.get("units", []):
            nation["units"][int(u["id"])] = {"id": int(u["id"]), "type": u["type"], "rank": u["rank"],
                                             "hp": int(u["hp"]), "battle": u.get("battle")}
            max_unit = max(max_unit, int(u["id"]))
        nations[nation["name"]] = nation
    battles: dict[int, dict[str, Any]] = {}
    for raw in data.get("battles", []):
        battle = _battle(raw)
        battles[battle["id"]] = battle
    fields = {
        "ruleset": "nations",
        "turn": int(game["turn"]),
        "turn_hours": turn_hours,
        "turn_started_at": (_time(started) if started else ends_at - timedelta(hours=turn_hours)).isoformat(),
        "turn_ends_at": ends_at.isoformat(),
        "paused": bool(game["paused"]),
        "paused_remaining": game.get("paused_remaining"),
        "ended": bool(game.get("ended", False)),
        "gm": game.get("gm", "gm"),
        "next_unit_id": max(int(game.get("next_unit_id", 1)), max_unit + 1),
        "forced_dice": [int(v) for v in game.get("forced_dice", [])],
        "house": house,
        "next_battle_id": max([int(game.get("next_battle_id", 1)), *(b + 1 for b in battles)]),
    }
    return _nations_document(fields, nations, battles)


def _nations_due(document: dict[str, Any]) -> datetime | None:
    """The first thing due in a Nations game: its turn's end (unless paused), a bonus's expiry, a battle's choice
    or the reminder of one."""
    game = document["game"]
    if game["ended"]:
        return None
    due = []
    if not game["paused"]:
        due.append((_time(game["turn_ends_at"]), "turn end"))
    for nation in document["nations"]:
        due += [(_time(bonus["expires_at"]), "bonus expiry") for bonus in nation["bonuses"]]
    for battle in document["battles"]:
        if battle["deadline"] is not None and battle["state"] != "over":
            due.append((_time(battle["deadline"]), "battle choice"))
            if battle["reminder_at"] is not None:
                due.append((_time(battle["reminder_at"]), "choice reminder"))
    due.sort(key=lambda d: (d[0], NATIONS_ORDER[d[1]]))
    return due[0][0] if due else None


# --- God Dice -------------------------------------------------------------------------------------------------


def _goddice_snapshot(data: dict[str, Any]) -> dict[str, Any]:
    """A God Dice document read and written again: the format's fields, each given its default when missing."""
    game = data["game"]
    if game.get("ruleset") != "goddice":
        raise ValueError(f"not a God Dice game: ruleset {game.get('ruleset')!r}")
    current = game.get("current")
    if not game["started_at"]:
        raise ValueError("game.started_at is missing")
    house = _house(GODDICE_HOUSE, game.get("house", {}))
    move_since = game.get("move_since")
    return {
        "game": {
            "ruleset": "goddice",
            "gm": str(game.get("gm", "gm")),
            "options": [str(o) for o in game.get("options", [])],
            "phase": str(game["phase"]),
            "active": game.get("active"),
            "direction": str(game.get("direction", "clockwise")),
            "winner": game.get("winner"),
            "ended": bool(game.get("ended", False)),
            "turn": int(game.get("turn", 0)),
            "started_at": _time(game["started_at"]).isoformat(),
            "move_since": _time(move_since).isoformat() if move_since else None,
            "reminders": int(game.get("reminders", 0)),
            "chooser": game.get("chooser"),
            "picks": [str(p) for p in game.get("picks", [])],
            "pool": {str(k): int(v) for k, v in game.get("pool", {}).items()},
            "next_character_id": int(game.get("next_character_id", 1)),
            "forced_dice": [str(f) for f in game.get("forced_dice", [])],
            "house": house,
            "cards": game["cards"],
            "current": None if current is None else {
                "player": str(current["player"]), "attacker": current.get("attacker"),
                "defender_player": current.get("defender_player"), "defender": current.get("defender"),
                "god": [str(f) for f in current.get("god", [])], "favor": current.get("favor"),
                "dice": [str(f) for f in current.get("dice", [])],
                "rolled": [str(r) for r in current.get("rolled", [])],
            },
        },
        "players": [
            {
                "name": str(raw["name"]), "seat": int(raw["seat"]), "wins": int(raw.get("wins", 0)),
                "characters": [{"id": int(c["id"]), "type": str(c["type"]), "life": int(c["life"]),
                                "max_life": int(c["max_life"]), "alive": int(c["life"]) > 0}
                               for c in raw.get("characters", [])],
            }
            for raw in data["players"]
        ],
    }


def _goddice_due(document: dict[str, Any]) -> datetime | None:
    """A God Dice game's one deadline: the reminder of the player whose move it is (none when it is off)."""
    game = document["game"]
    hours = game["house"]["reminder_hours"]
    if game["ended"] or game["active"] is None or game["move_since"] is None or hours <= 0:
        return None
    return _time(game["move_since"]) + timedelta(hours=hours * (game["reminders"] + 1))


SNAPSHOTS = {"nations": (_nations_snapshot, _nations_due), "goddice": (_goddice_snapshot, _goddice_due)}


def migrate(con: sqlite3.Connection) -> None:
    """Runs inside the migration's transaction."""
    con.row_factory = sqlite3.Row
    con.execute("ALTER TABLE games ADD COLUMN next_due TEXT")
    for game in con.execute("SELECT * FROM games").fetchall():
        if game["snapshot"] is None:
            document = _legacy_nations_document(con, game)
        else:
            if game["ruleset"] not in SNAPSHOTS:
                raise KeyError(f"unknown rule set {game['ruleset']!r}")
            document = SNAPSHOTS[game["ruleset"]][0](json.loads(game["snapshot"]))
        due = SNAPSHOTS[document["game"]["ruleset"]][1](document)
        con.execute("UPDATE games SET snapshot = ?, next_due = ? WHERE id = ?",
                    (json.dumps(document), due.isoformat() if due else None, game["id"]))
    for table in ("nations", "units", "bonuses", "battles", "deadlines"):
        con.execute(f"DROP TABLE {table}")
    for column in LEGACY_COLUMNS:
        con.execute(f"ALTER TABLE games DROP COLUMN {column}")
    con.execute("CREATE INDEX games_due ON games (next_due) WHERE ended = 0")
