"""A battle survives a restart (RULINGS.md section 1, "War": "Pending choices survive a restart").

1. The console (`python bot.py --console`) is killed with SIGKILL in the middle of a battle, while it waits
   for more input; a new process on the same database resumes the battle exactly: same units, HP, retreat
   orders, initiative winner and GM-entered dice, and the forced dice give the exact expected outcome.
2. Through the referee service in-process: a choice deadline that passed while the bot was down is applied
   once by `catch_up`, announced by a ChoiceDefaulted event.
"""

from __future__ import annotations

import asyncio
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import NOW, hours

from data import rules_for
from data.store import Store
from engine.dice import ForcedRoller
from engine.events import DieRolled
from engine.nations.events import BattleAwaits, ChoiceDefaulted, ChoiceReminded, InitiativeDecided, UnitsCommitted
from engine.nations.peace import ClaimPreset
from engine.nations.snapshot import state_to_dict
from engine.nations.state import GameState
from engine.nations.war import DeclareAttack, PairUnits
from service.referee import Referee

ROOT = Path(__file__).resolve().parents[3]
MARK = "gm /attack status battle:99"  # a harmless query whose answer ends each command's output
MARK_ANSWER = "There is no battle #99."
TIMEOUT = 30


def console_command(db: Path) -> list[str]:
    return [sys.executable, "bot.py", "--console", "--db", str(db), "--seed", "1"]


def console_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DISCORD_TOKEN", None)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class LiveConsole:
    """A console process fed line by line; `say` returns the output of one command."""

    def __init__(self, db: Path, stderr: Path) -> None:
        self.err = open(stderr, "w")  # closed in close()
        self.proc = subprocess.Popen(console_command(db), cwd=ROOT, env=console_env(), text=True, bufsize=1,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def say(self, line: str) -> list[str]:
        """Send one command and the marker; the command's output lines once the marker's answer is back."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{line}\n{MARK}\n")
        self.proc.stdin.flush()
        out = []
        while True:
            try:
                got = self.lines.get(timeout=TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"no answer to {line!r}; so far {out}") from None
            if got == MARK_ANSWER:
                return out
            out.append(got)

    def kill(self) -> int:
        self.proc.send_signal(signal.SIGKILL)
        return self.proc.wait(timeout=TIMEOUT)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=TIMEOUT)
        self.err.close()


def run_console(db: Path, lines: list[str]) -> list[list[str]]:
    """A fresh console process that runs `lines` to the end of its input; each command's output lines."""
    text = "".join(f"{line}\n{MARK}\n" for line in lines)
    done = subprocess.run(console_command(db), cwd=ROOT, env=console_env(), input=text, text=True,
                          capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    chunks = done.stdout.split(MARK_ANSWER + "\n")
    assert chunks[-1] == "", chunks[-1]
    return [[x for x in chunk.split("\n") if x] for chunk in chunks[:-1]]


async def _load(db: Path) -> tuple[GameState, GameState, list[tuple]]:
    store = await Store.open(db)
    try:
        game_id = await store.live_game("console")
        assert game_id is not None
        rolls = [(r.nation, r.purpose, r.die, r.modifiers, r.total, r.target, r.success, r.forced)
                 for r in await store.rolls(game_id)]
        return await store.load(game_id), await store.replayed(game_id), rolls
    finally:
        await store.close()


def load(db: Path) -> tuple[GameState, list[tuple]]:
    """The stored state (checked equal to the replay of its log) and every roll, oldest first."""
    state, replayed, rolls = asyncio.run(_load(db))
    assert state_to_dict(state) == state_to_dict(replayed)
    return state, rolls


def units(state: GameState) -> dict[int, tuple[str, str, int, int | None]]:
    return {u.id: (u.type, u.rank, u.hp, u.battle) for n in state.nations.values() for u in n.units.values()}


def test_console_killed_mid_battle_resumes_it_exactly(tmp_path):
    db = tmp_path / "war.db"
    console = LiveConsole(db, tmp_path / "stderr-1.txt")
    try:
        for line in ('gm /game start', 'alice /nation claim preset:"Gracchan Republic"',
                     'bob /nation claim preset:Charon', 'gm /gm dice values:"3 7"'):
            out = console.say(line)
            assert not any(x.startswith("error") for x in out), out
        out = console.say('alice /attack declare target:Charon units:"1 2 4" retreat_at:1')
        assert any("battle #1" in x for x in out) and not any(x.startswith("error") for x in out), out
        out = console.say('bob /attack commit units:"6 7"')
        assert any("The defender wins the initiative in battle #1" in x for x in out), out
        console.say("bob /attack retreat unit:7 at_hp:1")
        # The first duel's dice are entered before the crash: they must survive it too.
        console.say('gm /gm dice values:"10 2 1 9 1 6"')
        status_before = console.say("gm /attack status")
        armies_before = console.say("alice /army show"), console.say("bob /army show")
        assert "waits for Charon to pair units" in status_before[0]
        # The process now waits for more input: kill it there.
        assert console.kill() == -signal.SIGKILL
    finally:
        console.close()

    # What is on disk: the battle waiting for Charon's pairing, exactly as it was.
    state, rolls = load(db)
    battle = state.battles[1]
    assert (battle.attacker, battle.defender, battle.stage, battle.initiative) == (
        "Gracchan Republic", "Charon", "pairing", "defender")
    assert (battle.attacking, battle.defending) == ([1, 2, 4], [6, 7])
    assert (battle.in_fight_attacking, battle.in_fight_defending) == ([1, 2, 4], [6, 7])
    assert battle.retreat_orders == {1: 1, 2: 1, 4: 1, 7: 1}
    assert battle.deadline is not None and battle.duels == []
    assert state.forced_dice == [10, 2, 1, 9, 1, 6]
    assert units(state) == {
        1: ("infantry", "green", 3, 1), 2: ("infantry", "green", 3, 1), 3: ("infantry", "green", 3, None),
        4: ("bomber", "green", 2, 1), 5: ("armour", "green", 2, None),
        6: ("armour", "green", 2, 1), 7: ("armour", "green", 2, 1), 8: ("armour", "green", 2, None),
        9: ("bomber", "green", 2, None),
    }
    # Initiative: 3 + mod(M 8) -1 = 2 against 7 + mod(M 9) -1 = 6.
    assert rolls == [
        ("Gracchan Republic", "initiative (attacker), battle #1", 3, {"mod(M)": -1}, 2, None, None, True),
        ("Charon", "initiative (defender), battle #1", 7, {"mod(M)": -1}, 6, None, None, True),
    ]

    # A new process on the same database.
    outs = run_console(db, [
        "gm /attack status",
        "alice /army show",
        "bob /army show",
        "alice /attack pair attacker:1 defender:6 battle:1",
        "bob /attack pair attacker:1 defender:6",
        "alice /attack pair attacker:2 defender:7 battle:1",
        'gm /gm dice values:"8 3 2 10 3 9"',
        "bob /attack pair attacker:4 defender:7",
        "gm /attack status",
    ])
    assert outs[0] == status_before  # same units, orders, waiting for the same nation until the same time
    assert (outs[1], outs[2]) == armies_before
    assert outs[3] == ["error: Charon won the initiative in battle #1: only its player pairs the units"]
    assert outs[5] == ["error: Charon won the initiative in battle #1: only its player pairs the units"]
    assert outs[8][0].startswith("Battle #1, turn 1: Gracchan Republic against Charon — attacker won")

    state, rolls = load(db)
    assert rolls[2:] == [
        # Duel 1: #1 infantry (Infantry STRENGTH: 3 HP) against #6 armour (COMBAT 3, WINS vs infantry +1).
        ("Gracchan Republic", "combat, #1 infantry vs #6 armour", 10, {}, 10, None, None, True),
        ("Charon", "combat, #6 armour vs #1 infantry", 2, {"COMBAT": 3, "WINS vs infantry": 1}, 6, None, None,
         True),
        ("Charon", "demotion of #6 armour (needs 6+)", 1, {}, 1, 6, False, True),
        ("Gracchan Republic", "combat, #1 infantry vs #6 armour", 9, {}, 9, None, None, True),
        ("Charon", "combat, #6 armour vs #1 infantry", 1, {"COMBAT": 3, "WINS vs infantry": 1}, 5, None, None,
         True),
        ("Gracchan Republic", "promotion of #1 infantry (needs 6+)", 6, {}, 6, 6, True, True),
        # Duel 2: #4 bomber (COMBAT 2) against #7 armour (COMBAT 3, FAILS vs bomber -1), ordered to retreat at 1.
        ("Gracchan Republic", "combat, #4 bomber vs #7 armour", 8, {"COMBAT": 2}, 10, None, None, True),
        ("Charon", "combat, #7 armour vs #4 bomber", 3, {"COMBAT": 3, "FAILS vs bomber": -1}, 5, None, None, True),
        ("Charon", "demotion of #7 armour (needs 6+)", 2, {}, 2, 6, False, True),
        ("Charon", "retreat of #7 armour, battle #1", 10, {}, 10, 9, True, True),  # 10 > M 9
        ("Gracchan Republic", "promotion of #4 bomber (needs 6+)", 3, {}, 3, 6, False, True),
        ("Charon", "promotion of #7 armour (needs 6+)", 9, {"retreated": -2}, 7, 6, True, True),
    ]
    battle = state.battles[1]
    assert (battle.stage, battle.result, battle.deadline) == ("over", "attacker won", None)
    assert [(d["attacker_unit"], d["defender_unit"], d["chosen_by"], d["outcome"]) for d in battle.duels] == [
        (1, 6, "Charon", "the defender's #6 armour was killed"),
        (4, 7, "Charon", "the defender's #7 armour retreated"),
    ]
    assert [d["rounds"] for d in battle.duels] == [
        [{"kind": "round", "attacker_total": 10, "defender_total": 6, "loser": 6},
         {"kind": "round", "attacker_total": 9, "defender_total": 5, "loser": 6}],
        [{"kind": "round", "attacker_total": 10, "defender_total": 5, "loser": 7},
         {"kind": "retreat", "unit": 7, "side": "defender", "total": 10, "target": 9, "success": True}],
    ]
    assert state.forced_dice == []
    # Survivors at full HP (#1 REGULAR Infantry STRENGTH: 4; #7 REGULAR: 3), all free; #6 is dead.
    assert units(state) == {
        1: ("infantry", "regular", 4, None), 2: ("infantry", "green", 3, None), 3: ("infantry", "green", 3, None),
        4: ("bomber", "green", 2, None), 5: ("armour", "green", 2, None),
        7: ("armour", "regular", 3, None), 8: ("armour", "green", 2, None), 9: ("bomber", "green", 2, None),
    }
    g, c = state.nations["Gracchan Republic"], state.nations["Charon"]
    assert (g.economy, g.military, g.propaganda, g.land, g.foreign_patches) == (12, 8, 11, 25, 1)
    # Charon 20 -> 15 land: E 11 M 9 cut E, E, M (tie), E, M -> E 8 M 7.
    assert (c.economy, c.military, c.propaganda, c.land, c.foreign_patches) == (8, 7, 9, 15, 0)


# --- the referee service: a deadline passes while the bot is down --------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> Any:
        return self.now


@pytest.mark.asyncio
async def test_choice_deadline_passing_while_down_is_applied_once_by_catch_up(tmp_path):
    db, clock, rules = tmp_path / "down.db", Clock(), rules_for("nations")
    store = await Store.open(db)
    try:
        referee = Referee(store, rules, ForcedRoller([]), clock)
        game_id = (await referee.start_game("chan", "gm")).game_id
        await referee.act("chan", "alice", ClaimPreset("Gracchan Republic"), "/nation claim")
        await referee.act("chan", "bob", ClaimPreset("Charon"), "/nation claim")
        report = await referee.act("chan", "alice", DeclareAttack("Charon", [1, 4]), "/attack declare")
        assert report.state.battles[1].deadline == NOW + hours(4)  # a third of the 12-hour turn
    finally:
        await store.close()  # the bot goes down

    clock.now = NOW + hours(5)  # and comes back five hours later
    store = await Store.open(db)
    try:
        roller = ForcedRoller([4, 6])
        referee = Referee(store, rules, roller, clock)
        assert [row.next_deadline for row in await store.games()] == [NOW + hours(2)]  # the half-time reminder
        report = await referee.catch_up(game_id)
        kinds = [type(e) for e in report.events]
        assert kinds == [ChoiceReminded, ChoiceDefaulted, UnitsCommitted, DieRolled, DieRolled, InitiativeDecided,
                         BattleAwaits]
        # The reminder came too late to be of use: recorded as missed (no front-end says it).
        assert report.events[0] == ChoiceReminded(1, "commit", "Charon", "bob", NOW + hours(4), missed=True)
        defaulted, committed = report.events[1], report.events[2]
        # Charon's strongest free units: the three armour (2 HP + COMBAT 3), not the bomber (2 + 2).
        assert (defaulted.battle, defaulted.choice, defaulted.nation, defaulted.default) == (
            1, "commit", "Charon", "its strongest free units #6, #7, #8")
        assert (committed.units, committed.by) == ([6, 7, 8], "default")
        # 4 + mod(M 8) -1 = 3 against 6 + mod(M 9) -1 = 5: Charon pairs.
        assert [(e.roll.nation, e.roll.die, e.roll.total) for e in report.events if isinstance(e, DieRolled)] == [
            ("Gracchan Republic", 4, 3), ("Charon", 6, 5)]
        assert report.events[-1].nation == "Charon" and report.events[-1].deadline > clock.now
        assert roller.used == 2 and not roller.queue
        # Applied once: a second catch-up (or a restart's catch-up of every game) finds nothing due.
        assert (await referee.catch_up(game_id)).events == []
        assert await referee.catch_up_due() == {}
        state = await store.load(game_id)
        assert state_to_dict(state) == state_to_dict(await store.replayed(game_id))
        battle = state.battles[1]
        assert (battle.stage, battle.initiative, battle.defending) == ("pairing", "defender", [6, 7, 8])
        assert [r.purpose for r in await store.rolls(game_id)] == [
            "initiative (attacker), battle #1", "initiative (defender), battle #1"]
        # The game goes on: Charon pairs.
        roller.push(10, 1, 1, 10, 1, 1)
        report = await referee.act("chan", "bob", PairUnits(1, 6), "/attack pair")
        assert report.caught_up == []
        assert report.state.battles[1].duels[0]["outcome"] == "the defender's #6 armour was killed"
    finally:
        await store.close()
