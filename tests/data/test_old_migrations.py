"""The migrations that change stored data (the `.py` ones: 006 snapshots, 012 history) are history: each works on
plain JSON with its own frozen copy of what it needs, never the engine's live classes, so that an old database
migrates the same whatever the engine becomes; and what they make of an old database is what the engine made of a
new one."""

from __future__ import annotations

import ast
import io
import json
import random
import sqlite3
from pathlib import Path

import pytest
from storehelpers import REPO, FakeClock, assert_history_is_state, sessions, undo_compact_snapshots

from data.store import Store, migration_files

pytestmark = pytest.mark.sqlite_only  # old SQLite databases' migrations

PROJECT = {"bench", "bot", "cogs", "console", "data", "engine", "service", "web"}  # the project's own packages
HISTORY = "SELECT game_id, action_id, turn, at, side, stat, value, mark FROM history WHERE undone = 0 ORDER BY id"


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add("." if node.level else str(node.module).split(".")[0])
    return found


def test_a_migration_imports_nothing_of_the_project():
    scripts = [path for _, path in migration_files() if path.suffix == ".py"]
    assert {path.name for path in scripts} >= {"006_snapshots.py", "012_history.py"}
    for path in scripts:
        assert not imported_modules(path) & (PROJECT | {"."}), f"{path.name} imports live code"


async def play(db: Path, block: list[str]) -> None:
    from console.app import Console
    from engine.dice import RandomRoller
    from service.referee import Referee

    store = await Store.open(db)
    console = Console(Referee(store, None, RandomRoller(random.Random(31)), FakeClock()), io.StringIO())
    try:
        for line in block:
            await console.handle(line)
    finally:
        await store.close()


def back_to_schema_11(db: Path) -> None:
    """The database as schema 11 kept it: no history table (nor what came after it)."""
    with sqlite3.connect(db) as con:
        con.execute("DROP TABLE history")
        con.execute("DROP TABLE report_messages")
        con.execute("DROP TABLE announcements")
        undo_compact_snapshots(con)
        con.execute("PRAGMA user_version = 11")


SESSIONS = [(doc, number, block) for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
            for number, block in enumerate(sessions(doc), 1) if "/game start" in block[0]]  # whole games


@pytest.mark.parametrize(("doc", "number", "block"), SESSIONS,
                         ids=[f"{doc.stem.lower()}-{number}" for doc, number, _ in SESSIONS])
async def test_an_old_database_gets_the_history_its_games_recorded(doc, number, block, tmp_path, monkeypatch):
    """A console session of the README or a guide (every rule set has some), played, then taken back to schema
    11: migration 012 replays each game's log into the very history the store recorded as it was played (a game
    brought by an import, whose history came with it, aside)."""
    monkeypatch.chdir(tmp_path)  # where /gm export file: and chart files are written
    db = tmp_path / "session.db"
    await play(db, block)
    with sqlite3.connect(db) as con:
        imported = {row[0] for row in con.execute("SELECT game_id FROM history WHERE action_id IS NULL")}
        recorded = [row for row in con.execute(HISTORY) if row[0] not in imported]
    assert recorded  # the session's game did change its numbers
    back_to_schema_11(db)
    store = await Store.open(db)
    try:
        migrated = [row for row in await store._fetchall(HISTORY) if row[0] not in imported]
        assert [tuple(row) for row in migrated] == recorded
        for game_id in {row[0] for row in recorded}:
            await assert_history_is_state(store, game_id)
    finally:
        await store.close()


def test_every_rule_set_has_a_session_for_the_history_test():
    assert {block[0].split("ruleset:")[-1] if "ruleset:" in block[0] else "nations" for _, _, block in SESSIONS} \
        == {"nations", "goddice", "godsfire"}


async def test_a_schema_5_nations_game_with_a_battle_and_a_bonus_becomes_one_document(tmp_path, monkeypatch):
    """Migration 006 on a Nations game kept in its tables, with a unit in a battle awaiting a choice, a bonus and
    a paused clock: one document in the export format, and its next due time the earliest of what falls due."""
    import data.store.schema as schema_module

    old_folder = tmp_path / "schema-5"
    old_folder.mkdir()
    for number, path in migration_files():
        if number <= 5:
            (old_folder / path.name).write_bytes(path.read_bytes())
    db = tmp_path / "old.db"
    monkeypatch.setattr(schema_module, "MIGRATIONS", old_folder)
    await (await Store.open(db)).close()
    monkeypatch.undo()
    battle = {"id": 2, "attacker": "Charon", "defender": "Brigid", "state": "commit", "turn": 3, "attacking": [4],
              "retreat_orders": [{"unit": 4, "at_hp": 1}], "deadline": "2030-01-02T06:00:00+00:00",
              "reminder_at": "2030-01-02T05:00:00+00:00", "duels": []}
    with sqlite3.connect(db) as con:
        con.execute(
            "INSERT INTO games (id, channel, gm, turn, turn_hours, turn_started_at, turn_ends_at, paused,"
            " paused_remaining, ended, next_unit_id, forced_dice, house, created_at, next_battle_id)"
            " VALUES (1, 'console', 'gm', 3, 12.0, '2030-01-01T12:00:00+00:00', '2030-01-02T00:00:00+00:00', 1,"
            " 3600.0, 0, 5, '[4]', '{\"turn_hours\": 12.0, \"bonus_hours\": 24}', '2030-01-01T00:00:00+00:00', 3)")
        for position, (name, player) in enumerate([("Charon", "bob"), ("Brigid", None)]):
            con.execute(
                "INSERT INTO nations (game_id, position, name, player, economy, stability, military, propaganda,"
                " land, strength, weakness, foreign_patches, eliminated, preset_slot, actions_used, extra_actions)"
                " VALUES (1, ?, ?, ?, 6, 7, 5, 4, 20, 'infantry', 'cavalry', 0, 0, NULL, '[\"attack\"]', 0)",
                (position, name, player))
        con.execute("INSERT INTO units VALUES (1, 4, 'Charon', 'infantry', 'green', 3, 2)")
        con.execute("INSERT INTO bonuses VALUES (1, 'Brigid', 'morale', 1, '2030-01-02T04:00:00+00:00')")
        con.execute("INSERT INTO battles VALUES (1, 2, 'Charon', 'Brigid', 'commit', NULL, ?, ?)",
                    (battle["deadline"], json.dumps(battle)))
    store = await Store.open(db)
    try:
        [row] = await store._fetchall("SELECT next_due FROM games WHERE id = 1")
        assert row[0] == "2030-01-02T04:00:00+00:00"  # the bonus's expiry: the clock is paused, the battle later
        exported = await store.export(1)
    finally:
        await store.close()
    game = exported["game"]
    assert (game["turn"], game["paused"], game["paused_remaining"], game["forced_dice"]) == (3, True, 3600.0, [4])
    assert game["house"]["bonus_hours"] == 24 and game["house"]["actions_per_turn"] == 2  # the defaults filled in
    assert [n["name"] for n in exported["nations"]] == ["Charon", "Brigid"]
    assert exported["nations"][0]["units"] == [{"id": 4, "type": "infantry", "rank": "green", "hp": 3, "battle": 2}]
    assert exported["nations"][1]["bonuses"] == [{"kind": "morale", "value": 1,
                                                  "expires_at": "2030-01-02T04:00:00+00:00"}]
    [fought] = exported["battles"]
    assert (fought["id"], fought["state"], fought["retreat_orders"]) == (2, "commit", [{"unit": 4, "at_hp": 1}])
    assert fought["deadline"] == battle["deadline"] and fought["reminder_at"] == battle["reminder_at"]
