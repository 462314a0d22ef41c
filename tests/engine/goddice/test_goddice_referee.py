"""God Dice through the referee, the store and the console: the rulebook's sample attack phase as a console
transcript, undo, export and import, the rule-set check, and an old Nations database migrating and playing on."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from goddicehelpers import SEAT_AND_DRAFT, drafted
from storehelpers import (
    FakeClock,
    assert_snapshot_is_replay,
    log_counts,
    run_console,
    scalar,
    state_to_dict,
)

import data.store.schema as schema_module
from data.store import Store, migration_files
from engine.dice import FacesRecord, ForcedRoller
from engine.errors import BadInput, RuleViolation
from engine.gm import QueueDice
from engine.goddice import actions
from engine.nations.peace import ClaimPreset, Encourage, GrowEconomy
from service.referee import Referee

# The rulebook's "Sample Attack Phase": the Hero against the Monk, God dice without effect, six rolls.
SAMPLE = [
    ("alice /goddice declare attacker:hero", [
        "⚔ alice's Hero attacks bob.",
        "⏳ bob's move: declare a defender (/goddice defend).",
    ]),
    ('gm /gm dice values:"S A"', ["GM gm entered the next 2 dice."]),
    ("bob /goddice defend character:monk", [
        "🛡 bob defends with the Monk.",
        "🎲 alice, god: S* A* (* entered by the GM)",
        "The God dice have no effect.",
        "⏳ alice's move: make the opening roll (/goddice roll).",
    ]),
    ('gm /gm dice values:"B B B R O O 5 5 5"', ["GM gm entered the next 9 dice."]),
    ("alice /goddice roll", [  # ROLL # 1: a basic attack worth 15
        "🎲 alice, opening: B* B* B* R* O* O* 5* 5* 5* (* entered by the GM)",
        "   dice: B B B R O O 5 5 5 — legal: basic 15",
    ]),
    ('gm /gm dice values:"Y O"', ["GM gm entered the next 2 dice."]),
    ("alice /goddice roll type:o", [  # ROLL # 2
        "🎲 alice, o: Y* O* (* entered by the GM)",
        "   dice: B B B R Y O 5 5 5 — legal: basic 15",
    ]),
    ('gm /gm dice values:"R O 5"', ["GM gm entered the next 3 dice."]),
    ("alice /goddice roll type:blue", [  # ROLL # 3: no legal attack at all
        "🎲 alice, blue: R* O* 5* (* entered by the GM)",
        "   dice: R R Y O O 5 5 5 5 — no legal attack",
    ]),
    ('gm /gm dice values:"B O"', ["GM gm entered the next 2 dice."]),
    ("alice /goddice roll type:red", [  # ROLL # 4: basic for 20
        "🎲 alice, red: B* O* (* entered by the GM)",
        "   dice: B Y O O O 5 5 5 5 — legal: basic 20",
    ]),
    ('gm /gm dice values:"O"', ["GM gm entered the next 1 die."]),
    ("alice /goddice roll type:yellow", [  # ROLL # 5
        "🎲 alice, yellow: O* (* entered by the GM)",
        "   dice: B O O O O 5 5 5 5 — legal: basic 20",
    ]),
    ('gm /gm dice values:"R O 5 5"', ["GM gm entered the next 4 dice."]),
    ("alice /goddice roll type:5", [  # ROLL # 6: five O's, a Wild attack
        "🎲 alice, 5: R* O* 5* 5* (* entered by the GM)",
        "   dice: B R O O O O O 5 5 — legal: basic 10, cleave 20, lacerate 25, lunge 15",
    ]),
    ("alice /goddice roll type:5", ["error: alice has rolled the 5 dice this turn: each type once"]),
    ("alice /goddice attack name:lacerate", [
        "💥 alice's Hero: Lacerate for 25 damage to bob's Monk.",
        "   bob's Monk: -25 → 30/55 life (Lacerate).",
        "▶ Turn 2: bob attacks.",
        "⏳ bob's move: declare an attacker (/goddice declare).",
    ]),
]


def test_the_rulebook_sample_attack_phase_as_a_console_transcript(tmp_path):
    done = run_console(tmp_path / "g.db", [*SEAT_AND_DRAFT, *(line for line, _ in SAMPLE), "bob /goddice status"])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("▶ Turn 1: alice attacks.") + 2
    expected = [out for _, outs in SAMPLE for out in outs]
    assert lines[start:start + len(expected)] == expected
    status = lines[start + len(expected):]
    assert status[:2] == ["God Dice — GM gm — turn 2, attacks go clockwise",
                          "⏳ bob's move: declare an attacker (/goddice declare)"]
    assert "Monk █████░░░░░ 30/55" in status[3]


# --- through the referee and the store --------------------------------------------------------------


@pytest.fixture
async def setup(tmp_path):
    store = await Store.open(tmp_path / "r.db")
    clock = FakeClock()
    referee = Referee(store, None, ForcedRoller(), clock)
    yield referee, store, clock
    await store.close()




async def test_a_god_dice_game_is_stored_as_its_log_and_undo_gives_entered_dice_back(setup):
    referee, store, _ = setup
    game_id = await drafted(referee)
    await referee.act("chan", "alice", actions.Declare("hero"), "/goddice declare")
    await referee.act("chan", "gm", QueueDice(["S", "A", *"BBBROO555"]), "/gm dice")
    await referee.act("chan", "bob", actions.Defend("monk"), "/goddice defend")
    await referee.act("chan", "alice", actions.Roll(), "/goddice roll")
    await referee.act("chan", "alice", actions.MakeAttack("basic"), "/goddice attack name:basic")
    state = await referee.state("chan")
    monk = state.player("bob").characters[0]
    assert (monk.type, monk.life, state.active, state.phase) == ("monk", 40, "bob", "declare")
    await assert_snapshot_is_replay(store, game_id)

    rolls = await referee.rolls("chan", limit=2)
    assert [(r.purpose, r.faces, r.forced) for r in rolls if isinstance(r, FacesRecord)] == [
        ("god", ["S", "A"], [True, True]),
        ("opening", list("BBBROO555"), [True] * 9),
    ]
    # undo the opening roll's attack, then the opening roll itself: its entered dice go back to the queue
    await referee.undo("chan", "gm")
    await referee.undo("chan", "gm")
    state = await referee.state("chan")
    assert state.player("bob").characters[0].life == 55
    assert (state.phase, state.forced_dice) == ("opening", list("BBBROO555"))
    assert [r.purpose for r in await referee.rolls("chan", limit=1)] == ["god"]
    await assert_snapshot_is_replay(store, game_id)


async def test_export_and_import_round_trip_a_god_dice_game(setup):
    referee, store, _ = setup
    await drafted(referee)
    await referee.act("chan", "alice", actions.Declare("hero"), "/goddice declare")
    export = await referee.export("chan")
    game = export["game"]
    assert (game["ruleset"], game["active"], game["direction"], game["winner"], game["options"]) == (
        "goddice", "bob", "clockwise", None, [])
    bob = export["players"][1]
    assert (bob["name"], bob["seat"]) == ("bob", 2)
    assert bob["characters"][0] == {"id": 1, "type": "monk", "life": 55, "max_life": 55, "alive": True}
    assert {r["purpose"] for r in export["rolls"]} == {"rolloff"}
    assert set(export["rolls"][0]) >= {"player", "purpose", "faces", "forced"}

    report = await referee.import_game("other", "carol", export)
    imported = await referee.export("other")
    assert imported["game"]["gm"] == "carol"
    assert {**imported, "game": {**imported["game"], "gm": "gm"}} == export
    await assert_snapshot_is_replay(store, report.game_id)
    await referee.act("other", "carol", QueueDice(["S", "A"]), "/gm dice")
    await referee.act("other", "bob", actions.Defend("sage"), "/goddice defend")
    assert (await referee.state("other")).phase == "opening"


async def test_a_command_of_another_rule_set_is_refused_with_the_reason(setup):
    referee, store, _ = setup
    await drafted(referee)
    before = await log_counts(store)
    with pytest.raises(RuleViolation, match="that is a Nations command, and this channel's game is God Dice"):
        await referee.act("chan", "alice", GrowEconomy(), "/economy grow")
    await referee.start_game("nat", "gm")
    await referee.act("nat", "gm", ClaimPreset("Charon", "bob"), "/nation claim")
    with pytest.raises(RuleViolation, match="that is a God Dice command, and this channel's game is Nations"):
        await referee.act("nat", "bob", actions.Join(), "/goddice join")
    with pytest.raises(BadInput, match="God Dice has no turn clock"):
        await referee.start_game("new", "gm", turn_hours=4, ruleset_name="goddice")
    with pytest.raises(BadInput, match="unknown rule set 'chess'"):
        await referee.start_game("new", "gm", ruleset_name="chess")
    assert (await log_counts(store))["rolls"] == before["rolls"]


# --- an old Nations database ------------------------------------------------------------------------


def write_schema_4_game(con: sqlite3.Connection, new_db: Path, snapshot: dict) -> None:
    """A Nations game as schema 4 kept it: its snapshot spread over games, nations, units, bonuses and
    deadlines, its log (actions, events, rolls) copied from the database it was played in."""
    game = snapshot["game"]
    con.execute(
        "INSERT INTO games (id, channel, gm, turn, turn_hours, turn_started_at, turn_ends_at, paused,"
        " paused_remaining, ended, next_unit_id, forced_dice, house, created_at, next_battle_id)"
        " VALUES (1, 'console', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (game["gm"], game["turn"], game["turn_hours"], game["turn_started_at"], game["turn_ends_at"],
         int(game["paused"]), game["paused_remaining"], int(game["ended"]), game["next_unit_id"],
         json.dumps(game["forced_dice"]), json.dumps(game["house"]), game["turn_started_at"],
         game["next_battle_id"]))
    for position, n in enumerate(snapshot["nations"]):
        con.execute(
            "INSERT INTO nations (game_id, position, name, player, economy, stability, military, propaganda, land,"
            " strength, weakness, foreign_patches, eliminated, preset_slot, actions_used, extra_actions)"
            " VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (position, n["name"], n["player"], n["economy"], n["stability"], n["military"], n["propaganda"],
             n["land"], n["strength"], n["weakness"], n["foreign_patches"], int(n["eliminated"]), n["preset_slot"],
             json.dumps(n["actions_used"]), n["extra_actions"]))
        for u in n["units"]:
            con.execute("INSERT INTO units (game_id, id, nation, type, rank, hp, battle) VALUES (1, ?, ?, ?, ?, ?, ?)",
                        (u["id"], n["name"], u["type"], u["rank"], u["hp"], u["battle"]))
        for b in n["bonuses"]:
            con.execute("INSERT INTO bonuses (game_id, nation, kind, value, expires_at) VALUES (1, ?, ?, ?, ?)",
                        (n["name"], b["kind"], b["value"], b["expires_at"]))
    con.execute("ATTACH ? AS new", (str(new_db),))
    for table in ("actions", "events", "rolls"):
        columns = ", ".join(row[1] for row in con.execute(f"PRAGMA main.table_info({table})"))
        con.execute(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM new.{table}")


@pytest.mark.sqlite_only  # an old SQLite database's migrations
async def test_an_old_nations_database_migrates_and_plays_on(tmp_path, monkeypatch):
    """A database written before rule sets (schema 4) opens, keeps its game and its rolls, and plays on."""
    new_db = tmp_path / "new.db"
    store = await Store.open(new_db)
    clock = FakeClock()
    referee = Referee(store, None, ForcedRoller([9]), clock)
    await referee.start_game("console", "gm")
    await referee.act("console", "gm", ClaimPreset("Charon", "bob"), "/nation claim")
    await referee.act("console", "bob", Encourage("workers"), "/propaganda encourage")
    before = state_to_dict(await referee.state("console"))
    await store.close()

    old_folder = tmp_path / "old"
    old_folder.mkdir()
    for number, path in migration_files():
        if number <= 4:
            shutil.copy(path, old_folder)
    monkeypatch.setattr(schema_module, "MIGRATIONS", old_folder)
    old_db = tmp_path / "old.db"
    old = await Store.open(old_db)
    await old.close()
    con = sqlite3.connect(old_db, isolation_level=None)
    write_schema_4_game(con, new_db, before)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 4
    con.close()
    monkeypatch.undo()

    migrated = await Store.open(old_db)
    try:
        assert await scalar(migrated, "PRAGMA user_version") == max(n for n, _ in migration_files())
        referee = Referee(migrated, None, ForcedRoller([10]), clock)
        assert state_to_dict(await referee.state("console")) == before
        assert [(r.purpose, r.die) for r in await referee.rolls("console")] == [("encourage workers", 9)]
        clock.advance(hours=12)
        await referee.act("console", "bob", Encourage("morale"), "/propaganda encourage")
        assert [(r.purpose, r.die) for r in await referee.rolls("console")] == [("encourage workers", 9),
                                                                             ("encourage morale", 10)]
        await assert_snapshot_is_replay(migrated, await referee.game_id("console"))
    finally:
        await migrated.close()


def test_the_readme_god_dice_example_runs_as_printed(tmp_path):
    """The README's God Dice console block, line for line: no refusal, and the sample's result."""
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    section = readme[readme.index("## Playing God Dice"):]
    block = [line[4:] for line in section.split("\n\n")[2].splitlines()]
    assert block[0] == "gm /game start ruleset:goddice" and len(block) > 20
    done = run_console(tmp_path / "readme.db", block)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert not [line for line in done.stdout.splitlines() if line.startswith("error:")]
    assert "💥 alice's Hero: Lacerate for 25 damage to bob's Monk." in done.stdout
    assert "Monk █████░░░░░ 30/55" in done.stdout
