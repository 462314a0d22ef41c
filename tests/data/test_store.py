"""The store and the referee service: schema, transactions, snapshot = replay, undo, export/import, catch-up."""

from __future__ import annotations

import asyncio
import copy
import json
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from datetime import timedelta

import pytest
from storehelpers import (
    REPO,
    RULES,
    T0,
    FakeClock,
    assert_snapshot_is_replay,
    check_export_contract,
    contract_view,
    log_counts,
    read_snapshot,
    scalar,
    write_snapshot,
)

import data.store.schema as schema_module
from data.store import Store, migration_files
from engine.dice import ForcedRoller
from engine.errors import BadInput, NoGame, NotGM, RefereeError, RuleViolation
from engine.events import ActionUndone
from engine.nations import clock as clk
from engine.nations import gm, war
from engine.nations import peace as nat
from engine.nations.events import BonusExpired, TurnEnded
from engine.nations.snapshot import state_to_dict
from service.referee import Referee

LATEST = max(number for number, _ in migration_files())


@pytest.fixture
def roller():
    """No random die may be used: every die in these tests is entered by the GM (or pushed here)."""
    return ForcedRoller()


@pytest.fixture
def ref(store, clock, roller):
    return Referee(store, RULES, roller, clock)


async def two_nations(ref: Referee, channel: str = "chan", gm_name: str = "gm") -> int:
    """A game with Gracchan Republic (alice) and Charon (bob); returns its id."""
    report = await ref.start_game(channel, gm_name)
    await ref.act(channel, gm_name, nat.ClaimPreset("Gracchan Republic", "alice"), '/nation claim "Gracchan Republic"')
    await ref.act(channel, gm_name, nat.ClaimPreset("Charon", "bob"), "/nation claim Charon")
    return report.game_id


async def dice(ref: Referee, channel: str, *values: int, gm_name: str = "gm") -> None:
    await ref.act(channel, gm_name, gm.QueueDice(list(values)), f"/gm dice {' '.join(map(str, values))}")


# --- schema --------------------------------------------------------------------------------------


@pytest.mark.sqlite_only
async def test_migrations_create_schema_and_set_user_version(store):
    assert await scalar(store, "PRAGMA user_version") == LATEST
    tables = {r[0] for r in await store.db.execute_fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"games", "actions", "events", "rolls", "choice_messages"} <= tables
    assert not {"nations", "units", "bonuses", "battles", "deadlines"} & tables  # snapshots are one row (006)
    columns = {r[1] for r in await store.db.execute_fetchall("PRAGMA table_info(games)")}
    assert {"snapshot", "next_due", "ruleset", "ended"} <= columns


@pytest.mark.sqlite_only
async def test_wal_mode_is_on(store, tmp_path):
    assert (await scalar(store, "PRAGMA journal_mode")).lower() == "wal"
    # WAL is a property of the file: a plain connection sees it too
    with sqlite3.connect(tmp_path / "referee.db") as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"


@pytest.mark.sqlite_only
async def test_reopening_does_not_reapply_migrations(tmp_path, clock, roller):
    path = tmp_path / "reopen.db"
    first = await Store.open(path)
    try:
        await two_nations(Referee(first, RULES, roller, clock))
        before = await log_counts(first)
    finally:
        await first.close()
    for _ in range(2):
        again = await Store.open(path)  # re-running 001 would fail: its tables exist
        try:
            assert await scalar(again, "PRAGMA user_version") == LATEST
            assert await log_counts(again) == before
        finally:
            await again.close()


@pytest.mark.sqlite_only
async def test_a_new_migration_applies_once_on_an_existing_database(tmp_path, monkeypatch):
    folder = tmp_path / "migrations"
    folder.mkdir()
    for _, path in migration_files():
        shutil.copy(path, folder)
    monkeypatch.setattr(schema_module, "MIGRATIONS", folder)
    db = tmp_path / "m.db"
    first = await Store.open(db)
    await first.close()
    (folder / f"{LATEST + 1:03d}_runs.sql").write_text(
        "CREATE TABLE migration_runs (n INTEGER);\nINSERT INTO migration_runs VALUES (1);\n"
    )
    for _ in range(3):
        opened = await Store.open(db)
        try:
            assert await scalar(opened, "PRAGMA user_version") == LATEST + 1
            assert await scalar(opened, "SELECT COUNT(*) FROM migration_runs") == 1
        finally:
            await opened.close()


FAILED_MIGRATION_SCRIPT = textwrap.dedent("""
    import asyncio, os, shutil, sqlite3, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    import data.store as store_module
    import data.store.schema as schema_module

    folder, db = Path(sys.argv[2]), Path(sys.argv[3])
    for _, path in store_module.migration_files():
        shutil.copy(path, folder)
    schema_module.MIGRATIONS = folder

    async def main():
        store = await store_module.Store.open(db)
        await store.close()
        broken = "CREATE TABLE half_done (x INTEGER);\\nINSERT INTO nowhere VALUES (1);\\n"
        (folder / "900_broken.sql").write_text(broken)
        try:
            await store_module.Store.open(db)
        except sqlite3.Error:
            pass
        else:
            print("OPENED"); os._exit(2)
        con = sqlite3.connect(db, timeout=0.5, isolation_level=None)
        version = con.execute("PRAGMA user_version").fetchone()[0]
        half = con.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half_done'").fetchone()[0]
        print("version", version, "half_done", half, flush=True)
        try:
            con.execute("BEGIN IMMEDIATE"); con.execute("ROLLBACK")
        except sqlite3.OperationalError as err:
            print("LOCKED:", err, flush=True); os._exit(3)
        con.close()
        (folder / "900_broken.sql").write_text("CREATE TABLE half_done (x INTEGER);\\n")
        store = await store_module.Store.open(db)
        print("fixed version", tuple(await (await store.db.execute("PRAGMA user_version")).fetchone()), flush=True)
        await store.close()

    asyncio.run(main())
    print("EXITED", flush=True)
""")


@pytest.mark.sqlite_only
def test_a_failing_migration_changes_nothing_and_releases_the_database(tmp_path):
    folder = tmp_path / "migrations"
    folder.mkdir()
    try:
        done = subprocess.run([sys.executable, "-c", FAILED_MIGRATION_SCRIPT, str(REPO), str(folder),
                               str(tmp_path / "m.db")], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("the process hung after a failed migration")
    assert f"version {LATEST} half_done 0" in done.stdout, done.stdout + done.stderr
    assert "LOCKED" not in done.stdout, done.stdout
    assert "fixed version (900,)" in done.stdout and "EXITED" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0


# --- one action, one transaction -----------------------------------------------------------------


async def test_a_failed_snapshot_write_leaves_no_trace_of_the_action(ref, store, monkeypatch):
    game_id = await two_nations(ref)
    await dice(ref, "chan", 9, 4)
    before_counts = await log_counts(store, game_id)
    before_state = state_to_dict(await store.load(game_id))

    def broken(self, con, game_id, state):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Store, "_write_snapshot", broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        await ref.act("chan", "alice", nat.GrowMilitary(), "/economy military")
    monkeypatch.undo()

    assert await log_counts(store, game_id) == before_counts
    assert state_to_dict(await store.load(game_id)) == before_state
    assert (await store.load(game_id)).forced_dice == [9, 4]
    await assert_snapshot_is_replay(store, game_id)
    # the store is still usable and the same action now goes through, with the same GM die
    report = await ref.act("chan", "alice", nat.GrowMilitary(), "/economy military")
    assert [e.roll.die for e in report.events if e.kind == "die_rolled"] == [9]
    counts = await log_counts(store, game_id)
    assert counts["actions"] == before_counts["actions"] + 1
    assert counts["rolls"] == before_counts["rolls"] + 1
    assert (await store.load(game_id)).forced_dice == [4]


async def test_a_failure_after_the_log_inserts_rolls_back_rolls_events_and_action(ref, store, monkeypatch):
    """The failure comes after _log has inserted the action, its events and its rolls."""
    game_id = await two_nations(ref)
    await dice(ref, "chan", 9)
    before = await log_counts(store, game_id)
    real_log = Store._log
    seen = {}

    def log_then_fail(self, con, *args, **kwargs):
        real_log(self, con, *args, **kwargs)
        seen["inside"] = {table: con.execute(f"SELECT COUNT(*) FROM {table} WHERE game_id = ?", (game_id,)
                                             ).fetchone()[0] for table in ("actions", "events", "rolls")}
        raise OSError("crash after the log")

    monkeypatch.setattr(Store, "_log", log_then_fail)
    with pytest.raises(OSError):
        await ref.act("chan", "alice", nat.GrowMilitary(), "/economy military")
    monkeypatch.undo()
    assert seen["inside"]["rolls"] == before["rolls"] + 1  # the roll was written inside the transaction…
    assert await log_counts(store, game_id) == before  # …and is gone with it
    await assert_snapshot_is_replay(store, game_id)


async def test_a_failed_start_leaves_no_game(ref, store, monkeypatch):
    def broken(self, con, game_id, state):
        raise RuntimeError("no")

    monkeypatch.setattr(Store, "_write_snapshot", broken)
    with pytest.raises(RuntimeError):
        await ref.start_game("chan", "gm")
    monkeypatch.undo()
    assert await log_counts(store) == {"games": 0, "actions": 0, "events": 0, "rolls": 0}
    assert await store.live_game("chan") is None
    await two_nations(ref)  # the channel is free


async def test_a_refusal_commits_nothing(ref, store):
    game_id = await two_nations(ref)
    await dice(ref, "chan", 9)
    before = await log_counts(store, game_id)
    with pytest.raises(RuleViolation, match="no room"):
        await ref.act("chan", "alice", nat.GrowEconomy(), "/economy grow")
    with pytest.raises(NotGM):
        await ref.act("chan", "alice", clk.EndTurn(), "/gm turn end")
    assert await log_counts(store, game_id) == before
    assert (await store.load(game_id)).forced_dice == [9]


# --- snapshot = replay ---------------------------------------------------------------------------


async def test_snapshot_equals_replay_after_a_sequence_of_actions(ref, store, clock):
    game_id = await two_nations(ref)
    await dice(ref, "chan", 9, 8, 9, 4)
    steps = [
        ("alice", nat.GrowMilitary()),
        ("alice", nat.Encourage("workers")),
        ("gm", gm.SetStat("Charon", "propaganda", 14)),
        ("bob", nat.PropagandaAttack("Gracchan Republic")),   # 9 + 2 > 10: success, spoils 4 -> 12 land
        ("bob", nat.Disband(7)),
        ("bob", nat.RaiseStability()),
        ("gm", gm.AddUnit("Charon", "infantry", "elite")),
        ("gm", gm.SetUnitRank(6, "regular", 2)),
        ("gm", clk.PauseClock()),
        ("gm", gm.GrantAction("Gracchan Republic")),
        ("gm", clk.ResumeClock()),
        ("gm", clk.SetTurnLength(6)),
        ("gm", gm.AssignNation("Charon", "carol")),
        ("gm", gm.SetHouse("end_turn_when_all_done", "true")),
    ]
    for actor, action in steps:
        clock.advance(minutes=20)
        await ref.act("chan", actor, action, type(action).__name__)
        await assert_snapshot_is_replay(store, game_id)
    clock.advance(hours=40)
    await ref.catch_up(game_id)
    await assert_snapshot_is_replay(store, game_id)
    await ref.undo("chan", "gm")
    await assert_snapshot_is_replay(store, game_id)
    state = await store.load(game_id)
    assert state.nations["Gracchan Republic"].land == 8 and state.nations["Charon"].land == 32


# --- undo ----------------------------------------------------------------------------------------


async def test_undo_takes_back_the_whole_action_and_its_rolls(ref, store):
    game_id = await two_nations(ref)
    await ref.act("chan", "gm", gm.SetStat("Charon", "propaganda", 14), "/gm set Charon P 14")
    await dice(ref, "chan", 9, 4, 7)
    before = state_to_dict(await store.load(game_id))
    before_export = await ref.export("chan")

    report = await ref.act("chan", "bob", nat.PropagandaAttack("Gracchan Republic"), "/propaganda attack")
    assert [e.roll.die for e in report.events if e.kind == "die_rolled"] == [9, 4]
    after = await store.load(game_id)
    assert after.forced_dice == [7]
    assert after.nations["Gracchan Republic"].land == 8

    undo = await ref.undo("chan", "gm")
    assert [type(e) for e in undo.events] == [ActionUndone]
    assert (undo.events[0].summary, undo.events[0].undone_actor) == ("/propaganda attack", "bob")
    assert state_to_dict(await store.load(game_id)) == before
    assert (await store.load(game_id)).forced_dice == [9, 4, 7]  # the GM dice it used are queued again
    undone = await store._fetchall("SELECT die, undone FROM rolls WHERE game_id = ? ORDER BY id", (game_id,))
    assert [(r[0], r[1]) for r in undone] == [(9, 1), (4, 1)]
    assert await store.rolls(game_id) == []
    assert len(await store.rolls(game_id, include_undone=True)) == 2
    export = await ref.export("chan")
    assert export["rolls"] == [] and export == before_export
    await assert_snapshot_is_replay(store, game_id)

    # the same dice give the same result again
    again = await ref.act("chan", "bob", nat.PropagandaAttack("Gracchan Republic"), "/propaganda attack")
    assert [e.roll.die for e in again.events if e.kind == "die_rolled"] == [9, 4]


async def test_a_failed_undo_leaves_the_action_in_place(ref, store, monkeypatch):
    game_id = await two_nations(ref)
    await dice(ref, "chan", 9)
    await ref.act("chan", "alice", nat.GrowMilitary(), "/economy military")
    before = state_to_dict(await store.load(game_id))
    counts = await log_counts(store, game_id)

    def broken(self, con, game_id, state):
        raise RuntimeError("no")

    monkeypatch.setattr(Store, "_write_snapshot", broken)
    with pytest.raises(RuntimeError):
        await ref.undo("chan", "gm")
    monkeypatch.undo()
    assert state_to_dict(await store.load(game_id)) == before
    assert await log_counts(store, game_id) == counts
    assert await scalar(store, "SELECT COUNT(*) FROM rolls WHERE undone = 1") == 0
    assert await scalar(store, "SELECT COUNT(*) FROM events WHERE undone = 1") == 0
    assert await scalar(store, "SELECT COUNT(*) FROM actions WHERE undone = 1") == 0
    assert [r.die for r in await store.rolls(game_id)] == [9]


async def test_undo_twice_and_nothing_left_to_undo(ref, store):
    game_id = await two_nations(ref)
    await ref.undo("chan", "gm")  # Charon's claim
    await ref.undo("chan", "gm")  # Gracchan's claim
    assert (await store.load(game_id)).nations == {}
    with pytest.raises(RuleViolation, match="nothing to undo"):
        await ref.undo("chan", "gm")
    with pytest.raises(NotGM):
        await ref.undo("chan", "alice")
    await assert_snapshot_is_replay(store, game_id)


async def test_undo_skips_clock_catch_up(ref, store, clock):
    game_id = await two_nations(ref)
    await dice(ref, "chan", 9)
    await ref.act("chan", "alice", nat.GrowMilitary(), "/economy military")
    clock.advance(hours=13)
    report = await ref.undo("chan", "gm")
    assert [e.kind for e in report.caught_up] == ["turn_ended"]
    state = await store.load(game_id)
    assert state.turn == 2
    assert state.forced_dice == [9]
    assert state.nations["Gracchan Republic"].military == 8
    await assert_snapshot_is_replay(store, game_id)


# --- channels and the end of a game --------------------------------------------------------------


async def test_two_games_in_two_channels_are_kept_apart(ref, store, clock):
    first = await two_nations(ref, "one")
    second = await two_nations(ref, "two", gm_name="zed")
    assert first != second
    await dice(ref, "one", 9)
    await dice(ref, "two", 2, gm_name="zed")
    await ref.act("one", "alice", nat.GrowMilitary(), "/economy military")
    await ref.act("two", "alice", nat.GrowMilitary(), "/economy military")
    one, two = await store.load(first), await store.load(second)
    assert one.nations["Gracchan Republic"].military == 9
    assert two.nations["Gracchan Republic"].military == 8
    assert [r.die for r in await store.rolls(first)] == [9]
    assert [r.die for r in await store.rolls(second)] == [2]
    with pytest.raises(NotGM):  # gm is not the GM of channel two
        await ref.act("two", "gm", clk.EndTurn(), "/gm turn end")
    await ref.undo("one", "gm")
    assert (await store.load(second)).nations["Gracchan Republic"].actions_used == ["economy"]
    assert (await store.load(first)).nations["Gracchan Republic"].actions_used == []
    clock.advance(hours=12)
    caught = await ref.catch_up_due()
    assert sorted(caught) == [first, second]
    for game_id in (first, second):
        await assert_snapshot_is_replay(store, game_id)
        assert (await store.load(game_id)).turn == 2
    first_actions = {e.action_id for e in await store.events(first)}
    assert first_actions.isdisjoint({e.action_id for e in await store.events(second)})


async def test_live_game_after_game_end_and_a_new_game(ref, store):
    game_id = await two_nations(ref)
    assert await store.live_game("chan") == game_id
    with pytest.raises(RuleViolation, match="already has a game"):
        await ref.start_game("chan", "gm")
    await ref.act("chan", "gm", clk.EndGame(), "/game end")
    assert await store.live_game("chan") is None
    assert [g.id for g in await store.games()] == []
    assert [g.id for g in await store.games(live_only=False)] == [game_id]
    with pytest.raises(NoGame):
        await ref.act("chan", "alice", nat.GrowEconomy(), "/economy grow")
    report = await ref.start_game("chan", "other")
    assert report.game_id != game_id
    assert await store.live_game("chan") == report.game_id
    assert (await store.load(game_id)).ended is True
    assert (await store.load(report.game_id)).nations == {}


# --- export and import ---------------------------------------------------------------------------


async def play_for_export(ref: Referee, clock: FakeClock) -> None:
    """Two nations, four GM dice, three rolled actions; clock at T0 + 1 h 20 min after it."""
    await two_nations(ref)
    await dice(ref, "chan", 9, 8, 9, 4)
    clock.advance(minutes=20)
    await ref.act("chan", "alice", nat.GrowMilitary(), "/economy military")
    clock.advance(minutes=20)
    await ref.act("chan", "alice", nat.Encourage("Workers"), "/propaganda encourage workers")
    clock.advance(minutes=20)
    await ref.act("chan", "gm", gm.SetStat("Charon", "propaganda", 14), "/gm set")
    clock.advance(minutes=20)
    await ref.act("chan", "bob", nat.PropagandaAttack("gracchan republic"), "/propaganda attack")


def unit(uid, type_, hp, rank="green"):
    return {"id": uid, "type": type_, "rank": rank, "hp": hp}


EXPECTED_CONTRACT = {
    "game": {"ruleset": "nations", "turn": 1, "turn_hours": 12.0, "turn_ends_at": "2030-01-01T12:00:00+00:00",
             "paused": False},
    "nations": [
        {"name": "Gracchan Republic", "player": "alice", "economy": 4, "stability": 10, "military": 4,
         "propaganda": 10, "land": 8, "strength": "infantry", "weakness": "bomber", "foreign_patches": 0,
         "eliminated": False, "actions_used": ["economy", "propaganda"],
         "bonuses": [{"kind": "workers", "value": 2, "expires_at": "2030-01-02T12:40:00+00:00"}],
         "units": [unit(1, "infantry", 3), unit(2, "infantry", 3), unit(3, "infantry", 3), unit(4, "bomber", 2),
                   unit(5, "armour", 2)]},
        {"name": "Charon", "player": "bob", "economy": 11, "stability": 10, "military": 9, "propaganda": 15,
         "land": 32, "strength": "armour", "weakness": "bomber", "foreign_patches": 1, "eliminated": False,
         "actions_used": ["propaganda"], "bonuses": [],
         "units": [unit(6, "armour", 2), unit(7, "armour", 2), unit(8, "armour", 2), unit(9, "bomber", 2)]},
    ],
    "rolls": [
        {"nation": "Gracchan Republic", "purpose": "grow military", "die": 9, "modifiers": {"mod(E)": 1},
         "total": 10, "target": 8, "success": True, "forced": True},
        {"nation": "Gracchan Republic", "purpose": "encourage workers", "die": 8, "modifiers": {},
         "total": 8, "target": 5, "success": True, "forced": True},
        {"nation": "Charon", "purpose": "propaganda attack on Gracchan Republic", "die": 9,
         "modifiers": {"mod(P)": 2}, "total": 11, "target": 10, "success": True, "forced": True},
        {"nation": "Charon", "purpose": "propaganda spoils from Gracchan Republic", "die": 4, "modifiers": {},
         "total": 4, "target": None, "success": None, "forced": True},
    ],
}


async def test_export_matches_the_contract(ref, clock):
    await play_for_export(ref, clock)
    export = await ref.export("chan")
    json.dumps(export)  # JSON-ready as it is
    check_export_contract(export)
    assert contract_view(export) == EXPECTED_CONTRACT


async def test_export_of_a_paused_game_with_a_random_roll(store, clock):
    from engine.dice import RandomRoller

    class Fixed(RandomRoller):
        def roll(self, sides):
            return 6

    ref = Referee(store, RULES, Fixed(), clock)
    await two_nations(ref)
    await ref.act("chan", "bob", nat.GrowMilitary(), "/economy military")  # Charon: 6 + 0 > 9? no
    await ref.act("chan", "gm", clk.PauseClock(), "/gm clock pause")
    export = await ref.export("chan")
    check_export_contract(export)
    assert export["game"]["paused"] is True
    assert export["rolls"] == [{**export["rolls"][0], "nation": "Charon", "purpose": "grow military", "die": 6,
                                "modifiers": {}, "total": 6, "target": 9, "success": False, "forced": False}]
    assert export["nations"][1]["military"] == 9 and export["nations"][1]["economy"] == 11


async def test_export_import_export_round_trip_is_exact(ref, store, clock):
    await play_for_export(ref, clock)
    await dice(ref, "chan", 3, 10)  # dice still waiting travel too
    await ref.act("chan", "gm", gm.AddUnit("Charon", "warships", "guard"), "/gm unit add")
    await ref.act("chan", "gm", gm.AssignNation("Charon", None), "/gm assign Charon none")
    await ref.act("chan", "gm", clk.PauseClock(), "/gm clock pause")
    first = await ref.export("chan")
    clock.advance(hours=1)
    imported = await ref.import_game("elsewhere", "gm", json.loads(json.dumps(first)))
    second = await ref.export("elsewhere")
    assert second == first
    await assert_snapshot_is_replay(store, imported.game_id)
    # and the imported game plays on: the queued dice are used next
    await ref.act("elsewhere", "gm", clk.ResumeClock(), "/gm clock resume")
    await ref.act("elsewhere", "gm", gm.GrantAction("Gracchan Republic", "propaganda"), "/gm action grant")
    played = await ref.act("elsewhere", "alice", nat.Encourage("morale"), "/propaganda encourage morale")
    assert [(e.roll.die, e.roll.forced) for e in played.events if e.kind == "die_rolled"] == [(3, True)]
    assert (await store.load(imported.game_id)).forced_dice == [10]
    assert (await store.load(await store.live_game("chan"))).forced_dice == [3, 10]


async def test_import_by_another_gm_changes_only_the_gm(ref, clock):
    await play_for_export(ref, clock)
    first = await ref.export("chan")
    await ref.import_game("elsewhere", "newgm", first)
    second = await ref.export("elsewhere")
    assert second["game"].pop("gm") == "newgm"
    assert first["game"].pop("gm") == "gm"
    assert second == first


async def test_import_of_the_contract_keys_alone_round_trips_them(ref, clock):
    await play_for_export(ref, clock)
    minimal = contract_view(await ref.export("chan"))
    await ref.import_game("elsewhere", "gm", copy.deepcopy(minimal))
    again = await ref.export("elsewhere")
    check_export_contract(again)
    assert contract_view(again) == minimal


async def test_import_refuses_a_channel_with_a_live_game_and_a_non_nations_export(ref, clock, store):
    await play_for_export(ref, clock)
    export = await ref.export("chan")
    with pytest.raises(RuleViolation, match="already has a game"):
        await ref.import_game("chan", "gm", export)
    with pytest.raises(BadInput, match="not a Nations"):
        await ref.import_game("other", "gm", {**export, "game": {**export["game"], "ruleset": "starfleet"}})
    with pytest.raises(BadInput, match="not a Nations"):
        await ref.import_game("other", "gm", {"nations": []})
    assert await store.live_game("other") is None
    assert len(await store.games()) == 1


def _broken(export, change):
    data = copy.deepcopy(export)
    change(data["nations"][0])
    return data


BAD_IMPORTS = {
    "unknown unit type": lambda n: n["units"][0].update(type="tank"),
    "HP over the rank's maximum": lambda n: n["units"][0].update(hp=99),
    "a negative stat": lambda n: n.update(propaganda=-3),
    "an unknown action kind": lambda n: n.update(actions_used=["dance"]),
}


@pytest.mark.parametrize("what", list(BAD_IMPORTS))
async def test_import_refuses_an_export_that_breaks_the_rules(ref, clock, store, what):
    await play_for_export(ref, clock)
    data = _broken(await ref.export("chan"), BAD_IMPORTS[what])
    before = await log_counts(store)
    with pytest.raises(RefereeError):
        await ref.import_game("elsewhere", "gm", data)
    assert await log_counts(store) == before
    assert await store.live_game("elsewhere") is None


# --- the clock: catch-up -------------------------------------------------------------------------


def turn_end(event):
    assert isinstance(event, TurnEnded), event
    return event.ended, event.started_at, event.ends_at, event.reason


async def test_catch_up_after_30_hours_announces_two_turn_ends_once(ref, store, clock):
    game_id = await two_nations(ref)
    clock.advance(hours=30)
    caught = await ref.catch_up_due()
    assert list(caught) == [game_id]
    assert [turn_end(e) for e in caught[game_id]] == [
        (1, T0 + timedelta(hours=12), T0 + timedelta(hours=24), "clock"),
        (2, T0 + timedelta(hours=24), T0 + timedelta(hours=36), "clock"),
    ]
    assert await ref.catch_up_due() == {}
    assert (await ref.catch_up(game_id)).events == []
    state = await store.load(game_id)
    assert state.turn == 3 and state.turn_ends_at == T0 + timedelta(hours=36)
    stored = [e.event for e in await store.events(game_id) if e.event.kind == "turn_ended"]
    assert len(stored) == 2
    clock_actions = [a for a in await store.actions(game_id) if a.actor == "clock"]
    assert len(clock_actions) == 1
    await assert_snapshot_is_replay(store, game_id)


async def test_a_command_catches_up_first_and_reports_it(ref, store, clock):
    game_id = await two_nations(ref)
    await dice(ref, "chan", 9, 2)
    await ref.act("chan", "alice", nat.GrowMilitary(), "/economy military")
    clock.advance(hours=13)
    report = await ref.act("chan", "alice", nat.Encourage("morale"), "/propaganda encourage morale")
    assert [e.kind for e in report.caught_up] == ["turn_ended"]
    assert report.state.turn == 2
    assert report.state.nations["Gracchan Republic"].actions_used == ["propaganda"]
    assert (await ref.act("chan", "gm", gm.SetStat("Charon", "land", 21), "/gm set")).caught_up == []
    await assert_snapshot_is_replay(store, game_id)


async def test_bonus_expires_after_36_hours(ref, store, clock):
    game_id = await two_nations(ref)
    await dice(ref, "chan", 10)
    report = await ref.act("chan", "alice", nat.Encourage("patriotism"), "/propaganda encourage patriotism")
    bonus = report.state.nations["Gracchan Republic"].bonuses["patriotism"]
    assert (bonus.value, bonus.expires_at) == (3, T0 + timedelta(hours=36))
    clock.set(T0 + timedelta(hours=36) - timedelta(seconds=1))
    early = await ref.catch_up(game_id)
    assert [e.kind for e in early.events] == ["turn_ended", "turn_ended"]
    assert "patriotism" in early.state.nations["Gracchan Republic"].bonuses
    clock.set(T0 + timedelta(hours=36))
    due = await ref.catch_up(game_id)
    assert [type(e) for e in due.events] == [TurnEnded, BonusExpired]
    assert turn_end(due.events[0]) == (3, T0 + timedelta(hours=36), T0 + timedelta(hours=48), "clock")
    assert (due.events[1].nation, due.events[1].bonus, due.events[1].value) == ("Gracchan Republic", "patriotism", 3)
    assert due.state.nations["Gracchan Republic"].bonuses == {}
    assert (await ref.catch_up(game_id)).events == []
    await assert_snapshot_is_replay(store, game_id)


async def test_paused_clock_holds_turns_and_bonuses(ref, store, clock):
    """A pause holds every deadline, a bonus's expiry included; resuming gives each the time it had left."""
    game_id = await two_nations(ref)
    await dice(ref, "chan", 7)
    await ref.act("chan", "alice", nat.Encourage("workers"), "/propaganda encourage workers")
    clock.advance(hours=2)
    await ref.act("chan", "gm", clk.PauseClock(), "/gm clock pause")
    clock.advance(hours=100)
    report = await ref.catch_up(game_id)
    assert [e.kind for e in report.events] == [] and report.state.turn == 1
    resumed = await ref.act("chan", "gm", clk.ResumeClock(), "/gm clock resume")
    assert resumed.state.turn_ends_at == clock.now + timedelta(hours=10)
    [bonus] = resumed.state.nations["Gracchan Republic"].bonuses.values()
    assert bonus.expires_at == clock.now + timedelta(hours=34)  # 36 h from the roll, 2 of them spent before
    await assert_snapshot_is_replay(store, game_id)


async def test_house_turn_hours_changes_this_games_turn_length(ref, store, clock):
    """Either `/gm house turn_hours` really changes this game's turns, or it is refused (use /gm clock length)."""
    game_id = await two_nations(ref)
    try:
        await ref.act("chan", "gm", gm.SetHouse("turn_hours", "6"), "/gm house turn_hours 6")
    except RefereeError:
        return
    clock.advance(hours=12)
    report = await ref.catch_up(game_id)
    assert report.state.turn_hours == 6
    assert report.state.turn_ends_at - report.state.turn_started_at == timedelta(hours=6)


async def test_undo_of_dice_a_clock_default_used_is_refused_cleanly(ref, store, clock):
    game_id = await two_nations(ref)
    await ref.act("chan", "alice", war.DeclareAttack("Charon", [1]), "/attack declare Charon 1")
    await dice(ref, "chan", 5, 6, *[9, 1] * 10)
    # a third of the 12-hour turn: Charon's commitment falls to its default after 4 hours (reminded at 2),
    # and initiative uses the GM dice
    clock.advance(hours=4)
    kinds = [e.kind for e in (await ref.catch_up(game_id)).events]
    start = kinds.index("choice_defaulted")
    assert "choice_reminded" in kinds[:start]
    assert kinds[start:start + 3] == ["choice_defaulted", "units_committed", "die_rolled"]
    before = await log_counts(store, game_id)
    with pytest.raises(RuleViolation):
        await ref.undo("chan", "gm")
    assert await log_counts(store, game_id) == before
    await assert_snapshot_is_replay(store, game_id)


# --- war through the store -----------------------------------------------------------------------


async def test_a_unit_killed_in_battle_leaves_the_export(ref, store):
    game_id = await two_nations(ref)
    # initiative 5 / 5; round 10 v 1 (armour wounded), demotion 1; round 10 v 1 (armour killed); promotion 1
    await dice(ref, "chan", 5, 5, 10, 1, 1, 10, 1, 1)
    await ref.act("chan", "alice", war.DeclareAttack("Charon", [1]), "/attack declare Charon 1")
    report = await ref.act("chan", "bob", war.CommitUnits([6]), "/attack commit 6")
    assert [e.result for e in report.events if e.kind == "battle_ended"] == ["attacker won"]
    export = await ref.export("chan")
    check_export_contract(export)
    charon = next(n for n in export["nations"] if n["name"] == "Charon")
    gracchan = next(n for n in export["nations"] if n["name"] == "Gracchan Republic")
    assert [u["id"] for u in charon["units"]] == [7, 8, 9]  # the dead #6 armour is gone
    assert (charon["land"], charon["economy"], charon["military"], charon["propaganda"]) == (15, 8, 7, 9)
    assert (gracchan["land"], gracchan["foreign_patches"], gracchan["propaganda"]) == (25, 1, 11)
    assert gracchan["actions_used"] == ["attack"]
    assert unit(1, "infantry", 3) in [{k: u[k] for k in ("id", "type", "rank", "hp")} for u in gracchan["units"]]
    assert [(r["nation"], r["die"], r["total"], r["success"]) for r in export["rolls"]] == [
        ("Gracchan Republic", 5, 4, None), ("Charon", 5, 4, None),         # initiative: mod(M) -1 each
        ("Gracchan Republic", 10, 10, None), ("Charon", 1, 5, None),       # round 1: COMBAT +3, WINS +1
        ("Charon", 1, 1, False),                                           # demotion of the armour (6+)
        ("Gracchan Republic", 10, 10, None), ("Charon", 1, 5, None),       # round 2: the armour dies
        ("Gracchan Republic", 1, 1, False),                                # promotion of the infantry (6+)
    ]
    assert all(r["forced"] for r in export["rolls"])
    await assert_snapshot_is_replay(store, game_id)
    await ref.import_game("copy", "gm", export)
    assert await ref.export("copy") == export


async def test_two_concurrent_starts_in_one_channel_one_is_refused(ref, store):
    results = await asyncio.gather(ref.start_game("chan", "a"), ref.start_game("chan", "b"), return_exceptions=True)
    errors = [r for r in results if isinstance(r, BaseException)]
    assert len(errors) == 1
    assert isinstance(errors[0], RuleViolation), repr(errors[0])
    assert len(await store.games()) == 1


# --- the clock's index ---------------------------------------------------------------------------


async def test_the_due_index_holds_each_games_next_due_time_and_the_front_ends_reminder(ref, store, clock):
    first = await two_nations(ref, "one")
    clock.advance(hours=1)
    second = await two_nations(ref, "two")
    assert await store.due(T0 + timedelta(hours=11)) == []
    assert await store.due(T0 + timedelta(hours=12)) == [(first, None)]
    assert await store.due(T0 + timedelta(hours=13)) == [(first, None), (second, None)]  # earliest first
    assert await store.next_wake() == T0 + timedelta(hours=12)
    await store.set_front_end(second, remind_at=T0 + timedelta(hours=2))
    assert await store.next_wake() == T0 + timedelta(hours=2)
    assert (await store.game(second)).remind_at == T0 + timedelta(hours=2)
    assert await store.take_reminders_due(T0 + timedelta(hours=1)) == []
    assert await store.take_reminders_due(T0 + timedelta(hours=2)) == [(second, None)]
    assert await store.take_reminders_due(T0 + timedelta(hours=2)) == []  # taken off the index
    assert await store.next_wake() == T0 + timedelta(hours=12)
    await ref.act("one", "gm", clk.EndGame(), "/game end")
    assert await store.due(T0 + timedelta(hours=13)) == [(second, None)]  # an ended game is never due


async def test_a_snapshot_kept_as_text_is_read_and_written_compressed(ref, store, clock):
    """A game whose row holds its snapshot as JSON text (not written since migration 015) loads as it was, and is
    written compressed (the text left NULL) when it next changes: both by a command and by the quick catch-up."""
    game_ids = [await two_nations(ref, channel) for channel in ("chan", "other")]

    def as_text(con):
        for game_id in game_ids:
            text = json.dumps(read_snapshot(con, game_id), separators=(",", ":"))
            con.execute("UPDATE games SET snapshot = ?, snapshot_z = NULL WHERE id = ?", (text, game_id))

    before = state_to_dict(await store.load(game_ids[0]))
    await store._transaction(as_text)
    assert state_to_dict(await store.load(game_ids[0])) == before
    await ref.act("chan", "gm", gm.SetStat("Gracchan Republic", "land", 30), "/gm set")
    clock.advance(hours=24)
    await ref.catch_up_due()
    forms = await store._fetchall("SELECT snapshot IS NULL, snapshot_z IS NOT NULL FROM games ORDER BY id")
    assert [tuple(map(bool, row)) for row in forms] == [(True, True), (True, True)]
    for game_id in game_ids:
        await assert_snapshot_is_replay(store, game_id)


@pytest.mark.sqlite_only
async def test_catch_up_due_goes_in_batches_and_a_failing_game_does_not_stop_the_others(ref, store, clock,
                                                                                      monkeypatch):
    games = [await two_nations(ref, f"chan{i}") for i in range(5)]
    before = state_to_dict(await store.load(games[2]))
    counts = await log_counts(store, games[2])
    real_plan = Referee._plan

    def plan(self, state, now, *args, **kwargs):
        if state.nations["Charon"].player == "bob" and state.gm == "broken":
            raise RuntimeError("a bug in one game")
        return real_plan(self, state, now, *args, **kwargs)

    # game 2's GM is renamed to mark it (the store keeps what the snapshot says)
    def rename(con):
        document = read_snapshot(con, games[2])
        document["game"]["gm"] = "broken"
        write_snapshot(con, games[2], document)

    await store._transaction(rename)
    real_quick = Referee._quick

    def quick(name, document, now):  # the quick catch-up fails too: the full plan is tried, and fails
        if document["game"]["gm"] == "broken":
            raise RuntimeError("a bug in one game")
        return real_quick(name, document, now)

    monkeypatch.setattr(Referee, "_plan", plan)
    monkeypatch.setattr(Referee, "_quick", staticmethod(quick))
    clock.advance(hours=12)
    batches = []
    real_run_games = Store.run_games

    async def run_games(self, ids, work, quick=None, announce=False):
        batches.append(list(ids))
        return await real_run_games(self, ids, work, quick, announce)

    monkeypatch.setattr(Store, "run_games", run_games)
    caught = await ref.catch_up_due(batch=2)
    assert batches == [games[0:2], games[2:4], games[4:5]]
    assert sorted(caught) == [g for g in games if g != games[2]]
    for game_id in caught:
        assert (await store.load(game_id)).turn == 2
        await assert_snapshot_is_replay(store, game_id)
    assert state_to_dict(await store.load(games[2])) == {**before, "game": {**before["game"], "gm": "broken"}}
    assert await log_counts(store, games[2]) == counts
