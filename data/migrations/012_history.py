"""Stat history (`engine.history`): a `history` table of what each side's numbers became, action by action,
with the marks a chart shows (battles, conquests…). An undone action's rows are undone with it.

Games played before this migration get their history here, by replaying each game's live log one action at a
time: their charts start at their first turn, as a new game's do.

A migration is history: this one works on the logged events as plain JSON, with its own frozen copy of what it
needs as the engine had it when this migration was written — for each rule set of then (Nations, God Dice,
Godsfire), what its history follows (each side's numbers), the events that change them and the events a chart
marks — so that an old database gets the same history whatever the engine becomes. It follows only those
numbers, not the whole state a replay would build.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from datetime import datetime
from itertools import groupby
from typing import Any

import orjson

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

Point = dict[tuple[str, str], Any]  # (side, stat) → value, in the rule set's order


def _name_key(name: Any) -> str:
    """What two names are compared by (players, systems): NFKC, no invisible characters, single spaces,
    case-folded; "" for what is no name."""
    if not isinstance(name, str):
        return ""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(" " if ch.isspace() else ch for ch in text
                   if ch.isspace() or unicodedata.category(ch) not in ("Cf", "Cc", "Cs", "Co", "Cn"))
    return " ".join(text.split()).casefold()


def _named(name: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """The item of that name: by its whole name, else by the one name that starts so."""
    key = _name_key(name)
    exact = [item for item in items if key and _name_key(item["name"]) == key]
    starts = [item for item in items if key and _name_key(item["name"]).startswith(key)]
    if exact:
        return exact[0]
    if len(starts) != 1:
        raise KeyError(f"no one item is called {name!r}")
    return starts[0]


# --- Nations: each nation's five stats; battles, conquests and eliminations marked -------------------------------

NATIONS_STATS = ("land", "economy", "stability", "military", "propaganda")
CONQUEST = "province conquered"


def _nations(snapshot: dict[str, Any]) -> dict[str, Any]:
    nations = {}
    for raw in snapshot["nations"]:
        nations[raw["name"]] = {stat: int(raw[stat]) for stat in NATIONS_STATS}
    return {"ruleset": "nations", "turn": int(snapshot["game"]["turn"]), "nations": nations}


def _nations_event(state: dict[str, Any] | None, kind: str, e: dict[str, Any]) -> dict[str, Any] | None:
    if kind == "game_started":
        return {"ruleset": "nations", "turn": 1, "nations": {}}
    assert state is not None
    if kind == "nation_added":
        state["nations"][e["name"]] = {stat: e[stat] for stat in NATIONS_STATS}
    elif kind == "stat_changed" and e["stat"] in NATIONS_STATS:
        nation = state["nations"][e["nation"]]
        nation[e["stat"]] += e["delta"]
    elif kind == "turn_ended":
        state["turn"] = e["ended"] + 1
    return state


def _nations_point(state: dict[str, Any]) -> Point:
    return {(name, stat): nation[stat] for name, nation in state["nations"].items() for stat in NATIONS_STATS}


def _nations_marks(kind: str, e: dict[str, Any]) -> list[tuple[str, str]]:
    if kind == "battle_ended" and e["winner"] and e["loser"]:
        return [(e["winner"], "battle won"), (e["loser"], "battle lost")]
    if kind == "stat_changed" and e["stat"] == "land" and e["delta"] > 0 and e["reason"].startswith(CONQUEST):
        return [(e["nation"], "conquest")]
    if kind == "nation_eliminated":
        return [(e["nation"], "eliminated")]
    return []


# --- God Dice: every character's life (its side: its card's title and its player, "Hero 2 (alice)") -------------


def _titles(cards: dict[str, Any]) -> dict[str, str]:
    return {str(key): card["title"].strip() for key, card in dict(cards["characters"]).items()}


def _goddice(snapshot: dict[str, Any]) -> dict[str, Any]:
    game = snapshot["game"]
    players = [{"name": str(raw["name"]),
                "characters": [{"id": int(c["id"]), "type": str(c["type"]), "life": int(c["life"]),
                                "max_life": int(c["max_life"])} for c in raw.get("characters", [])]}
               for raw in snapshot["players"]]
    return {"ruleset": "goddice", "turn": int(game.get("turn", 0)), "titles": _titles(game["cards"]),
            "players": players}


def _character(state: dict[str, Any], character_id: int) -> dict[str, Any]:
    for player in state["players"]:
        for character in player["characters"]:
            if character["id"] == character_id:
                return character
    raise KeyError(character_id)


def _goddice_event(state: dict[str, Any] | None, kind: str, e: dict[str, Any]) -> dict[str, Any] | None:
    if kind == "goddice_started":
        return {"ruleset": "goddice", "turn": 0, "titles": _titles(e["cards"]), "players": []}
    assert state is not None
    if kind == "cards_loaded":
        state["titles"] = _titles(e["cards"])
    elif kind == "player_joined":
        state["players"].append({"name": e["player"], "characters": []})
    elif kind == "character_picked":
        key = _name_key(e["player"])
        player = next(p for p in state["players"] if key and _name_key(p["name"]) == key)
        player["characters"].append({"id": e["character"], "type": e["type"], "life": e["life"],
                                     "max_life": e["life"]})
    elif kind == "turn_started":
        state["turn"] = e["turn"]
    elif kind in ("life_changed", "character_resurrected"):
        _character(state, e["character"])["life"] = e["life"]
    elif kind == "campaign_game_started":
        for player in state["players"]:
            for character in player["characters"]:
                character["life"] = character["max_life"]
        state["turn"] = 0
    return state


def _goddice_point(state: dict[str, Any]) -> Point:
    point: Point = {}
    for player in state["players"]:
        for character in player["characters"]:
            title = state["titles"][character["type"]]
            same = [c["id"] for c in player["characters"] if c["type"] == character["type"]]
            label = f"{title} {same.index(character['id']) + 1}" if len(same) > 1 else title
            point[(f"{label} ({player['name']})", "life")] = character["life"]
    return point


# --- Godsfire: each player's systems and money, each system's bank, each region's allegiance and economy ---------

PLAYER_FIELDS = {"name": None, "ng_money": 0, "in_transit": 0}
SYSTEM_FIELDS = {"name": None, "owner": None, "bank": 0}
REGION_FIELDS = ("number", "allegiance", "economy")


def _system(raw: dict[str, Any]) -> dict[str, Any]:
    system = {key: raw.get(key, default) if default is not None else raw[key] for key, default in
              SYSTEM_FIELDS.items()}
    system["regions"] = [{key: r[key] for key in REGION_FIELDS} for r in raw.get("regions", [])]
    return system


def _godsfire(snapshot: dict[str, Any]) -> dict[str, Any]:
    players = [{key: raw.get(key, default) if default is not None else raw[key] for key, default in
                PLAYER_FIELDS.items()} for raw in snapshot.get("players", [])]
    return {"ruleset": "godsfire", "turn": int(snapshot["game"].get("turn", 1)), "players": players,
            "systems": [_system(raw) for raw in snapshot.get("systems", [])]}


def _changed(target: dict[str, Any], changes: dict[str, Any], followed: Any) -> None:
    for key, value in changes.items():
        if key in followed:
            target[key] = value


def _godsfire_event(state: dict[str, Any] | None, kind: str, e: dict[str, Any]) -> dict[str, Any] | None:
    if kind == "godsfire_started":
        return {"ruleset": "godsfire", "turn": 1, "players": [], "systems": []}
    assert state is not None
    if kind == "player_added":
        state["players"].append({"name": e["name"], "ng_money": 0, "in_transit": 0})
    elif kind == "system_added":
        state["systems"].append(_system(e["system"]))
    elif kind == "region_changed":
        regions = _named(e["system"], state["systems"])["regions"]
        region = next((r for r in regions if r["number"] == e["region"]), None)
        if region is None:
            raise KeyError(f"{e['system']} has no region {e['region']}")
        _changed(region, e["changes"], REGION_FIELDS)
    elif kind == "system_changed":
        _changed(_named(e["system"], state["systems"]), e["changes"], SYSTEM_FIELDS)
    elif kind == "player_changed":
        _changed(_named(e["player"], state["players"]), e["changes"], PLAYER_FIELDS)
    elif kind == "game_changed":
        _changed(state, e["changes"], ("turn",))
    elif kind == "godsfire_phase_changed":
        state["turn"] = e["turn"]
    return state


def _godsfire_point(state: dict[str, Any]) -> Point:
    point: Point = {}
    for player in state["players"]:
        key = _name_key(player["name"])
        owned = [s for s in state["systems"] if s["owner"] is not None and _name_key(s["owner"]) == key]
        point[(player["name"], "systems")] = len(owned)
        point[(player["name"], "money")] = player["ng_money"] + player["in_transit"] + sum(s["bank"] for s in owned)
    for system in state["systems"]:
        point[(system["name"], "bank")] = system["bank"]
        for region in system["regions"]:
            point[(f"{system['name']} {region['number']}", "allegiance")] = region["allegiance"]
            point[(f"{system['name']} {region['number']}", "economy")] = region["economy"]
    return point


def _godsfire_marks(kind: str, e: dict[str, Any]) -> list[tuple[str, str]]:
    if kind == "system_changed" and e["changes"].get("owner"):
        return [(str(e["changes"]["owner"]), "system taken")]
    return []


# --- every rule set ------------------------------------------------------------------------------------------------

STARTS = {"game_started": "nations", "goddice_started": "goddice", "godsfire_started": "godsfire"}
IMPORTS = {"nations": _nations, "goddice": _goddice, "godsfire": _godsfire}
EVENTS = {"nations": _nations_event, "goddice": _goddice_event, "godsfire": _godsfire_event}
POINTS = {"nations": _nations_point, "goddice": _goddice_point, "godsfire": _godsfire_point}
MARKS = {"nations": _nations_marks, "goddice": lambda kind, e: [], "godsfire": _godsfire_marks}


def _apply(state: dict[str, Any] | None, data: dict[str, Any]) -> dict[str, Any] | None:
    """The followed numbers after one logged event (a new game's from its first event)."""
    kind = data["kind"]
    if kind == "game_imported":
        snapshot = data["snapshot"]
        return IMPORTS[snapshot["game"].get("ruleset", "nations")](snapshot)
    if kind in STARTS:
        return EVENTS[STARTS[kind]](None, kind, data)
    if state is None:
        return None
    return EVENTS[state["ruleset"]](state, kind, data)


def _record(con: sqlite3.Connection, game_id: int, action_id: int, state: dict[str, Any],
            events: list[dict[str, Any]], before: Point | None, at: datetime, turn_before: int | None) -> Point:
    """One action's history rows: its marks, then each number that differs from `before` (all of them without
    one), at the state's turn — God Dice's at the turn the action was taken in (`turn_before`, when there was a
    game before it), as the store records them: an attack's damage at the turn it was made, though it ends that
    turn. Returns the numbers now."""
    turn = turn_before if state["ruleset"] == "goddice" and turn_before is not None else state["turn"]
    after = POINTS[state["ruleset"]](state)
    marks = [mark for e in events for mark in MARKS[state["ruleset"]](e["kind"], e)]
    # (side, stat, value, mark): a mark has no stat and no value
    rows: list[tuple[str, str, str | None, str | None]] = [(side, "", None, label) for side, label in marks]
    rows += [(side, stat, None if value is None else orjson.dumps(value).decode(), None)
             for (side, stat), value in after.items()
             if before is None or (side, stat) not in before or before[(side, stat)] != value]
    con.executemany(
        "INSERT INTO history (game_id, action_id, turn, at, side, stat, value, mark) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(game_id, action_id, turn, at.isoformat(), side, stat, value, mark)
         for side, stat, value, mark in rows])
    return after


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
            events = [orjson.loads(row[2]) for row in group]
            turn_before: int | None = state["turn"] if state is not None else None
            for data in events:
                state = _apply(state, data)
            if state is None:
                raise ValueError("an event log must start with a game's start or GameImported")
            point = _record(con, game_id, action_id, state, events, point, datetime.fromisoformat(at), turn_before)
