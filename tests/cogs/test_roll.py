"""/roll (issue 11): free dice through the d20 library, bounded at the edge, logged in the game's ledger as
"free roll, not a rule roll" — never counted for a rule, never taking a GM-entered die, never undone."""

from __future__ import annotations

import subprocess
import sys

import pytest
from discordkit import mention, start_war, table, texts
from storehelpers import REPO, console_on, log_counts, said

from engine.dice import ForcedRoller, free_roll
from engine.errors import BadInput


@pytest.mark.parametrize(("typed", "dice", "expected", "total"), [
    ("2d6+3", [3, 5], "2d6 (3, 5) + 3 = 11", 11),
    ("1d20 adv", [4, 17], "2d20kh1 (4 dropped, 17) = 17", 17),
    ("1d20+2 disadvantage", [4, 17], "2d20kl1 (4, 17 dropped) + 2 = 6", 6),
    ("2d20kh1", [12, 9], "2d20kh1 (12, 9 dropped) = 12", 12),
    ("4d6kh3", [6, 1, 4, 5], "4d6kh3 (6, 1 dropped, 4, 5) = 15", 15),
])
def test_free_roll_with_forced_dice(typed, dice, expected, total):
    roller = ForcedRoller(dice)
    roll = free_roll(typed, roller)
    assert (roll.breakdown, roll.total) == (expected, total)
    assert roller.queue == type(roller.queue)()  # every forced die used, no other


@pytest.mark.parametrize(("typed", "refusal"), [
    ("1000d1000", "that is 1000 dice: at most 100 in one roll"),
    ("60d6+41d6", "that is 101 dice: at most 100 in one roll"),
    ("1d1001", "a die has at most 1000 sides, not 1001"),
    ("1d6+" + "1+" * 50 + "1", "that dice expression is too long: at most 100 characters"),
    ("((((((1d6))))))", "that dice expression nests parentheses too deep: at most 5"),
    ("2d6+", "cannot read '2d6+' as dice: write e.g. 2d6+3, 4d6kh3, 2d20kl1 or \"1d20 adv\""),
    ("1d6e6", None),  # explodes on every 6: bounded by the dice counted, see below
    ("1d6*1234567", "a number in a roll is at most 999999"),
    ("2d6 adv", 'adv rolls a d20 twice: write it after a d20, e.g. dice:"1d20+5 adv"'),
    ("1d0", "cannot roll '1d0': Cannot roll a 0-sided die."),
])
def test_refusals_roll_no_die(typed, refusal):
    roller = ForcedRoller([6] * 101)
    if refusal is None:  # an explosion on every die: refused once 100 dice are rolled
        with pytest.raises(BadInput, match="more than 100 dice"):
            free_roll(typed, roller)
        return
    with pytest.raises(BadInput) as caught:
        free_roll(typed, roller)
    assert str(caught.value) == refusal
    assert roller.used == 0


async def test_console_roll_is_logged_as_a_free_roll_and_counts_for_nothing(tmp_path):
    console, store, out = await console_on(tmp_path / "r.db")
    dice = console.referee.roller
    try:
        dice.push(2, 6)
        await console.handle("alice /roll 2d6+3")  # no game: rolled and answered, nothing logged
        assert said(out) == ["🎲 alice, free roll, not a rule roll: 2d6 (2, 6) + 3 = 11"]
        await console.handle("gm /game start")
        await console.handle('gm /nation claim preset:"Gracchan Republic" player:alice')
        await console.handle('gm /gm dice values:"9"')  # a GM-entered die waits for a rule roll
        said(out)
        counts = await log_counts(store)
        dice.push(3, 5)
        await console.handle("alice /roll dice:2d6+3")
        dice.push(4, 17)
        await console.handle('bob /roll "1d20 adv"')
        dice.push(6, 1, 4, 5)
        await console.handle("bob /roll 4d6kh3")
        for refused in ("bob /roll 1000d1000", "bob /roll 2d6+", f"bob /roll {'1+' * 60}1"):
            await console.handle(refused)
        assert said(out) == [
            "🎲 alice, free roll, not a rule roll: 2d6 (3, 5) + 3 = 11",
            "🎲 bob, free roll, not a rule roll: 2d20kh1 (4 dropped, 17) = 17",
            "🎲 bob, free roll, not a rule roll: 4d6kh3 (6, 1 dropped, 4, 5) = 15",
            "error: that is 1000 dice: at most 100 in one roll",
            "error: cannot read '2d6+' as dice: write e.g. 2d6+3, 4d6kh3, 2d20kl1 or \"1d20 adv\"",
            "error: that dice expression is too long: at most 100 characters",
        ]
        after = await log_counts(store)
        assert {k: after[k] - counts[k] for k in counts} == {**{k: 0 for k in counts}, "rolls": 3}
        state = await console.referee.state("console")
        assert state.forced_dice == [9]  # the GM's die still waits for a rule roll
        await console.handle("gm /log rolls")
        assert said(out) == [
            "turn 1: 🎲 alice, free roll, not a rule roll: 2d6 (3, 5) + 3 = 11",
            "turn 1: 🎲 bob, free roll, not a rule roll: 2d20kh1 (4 dropped, 17) = 17",
            "turn 1: 🎲 bob, free roll, not a rule roll: 4d6kh3 (6, 1 dropped, 4, 5) = 15",
        ]
        # /gm undo takes back the last action (the claim), never a free roll; the export leaves them out
        target = await console.referee.undo_target("console")
        assert target is not None and target.command.startswith("/gm dice")
        assert (await console.referee.export("console"))["rolls"] == []
    finally:
        await store.close()


async def test_discord_roll_answers_and_log_marks_the_free_roll(tmp_path):
    async with table(tmp_path) as t, t.bot():
        t.dice.push(3, 5)
        result = await t.run(t.alice, "roll", dice="2d6+3")  # no game yet: rolled, answered
        assert texts(result.message) == (f"🎲 Free roll\n🎲 {mention(t.alice)}, free roll, not a rule roll: "
                                         "2d6 (3, 5) + 3 = **11**")
        await start_war(t)
        t.dice.push(4, 17)
        result = await t.run(t.bob, "roll", dice="1d20 adv")
        bobs = f"{mention(t.bob)}, free roll, not a rule roll: 2d20kh1 (4 dropped, 17) = **17**"
        assert bobs in texts(result.message)
        assert result.embeds[0]["footer"]["text"] == "Logged in this game's /log; it counts for no rule."
        refused = await t.run(t.bob, "roll", dice="1000d1000")
        assert "that is 1000 dice: at most 100 in one roll" in texts(refused.message)
        log = await t.run(t.alice, "log rolls")
        assert f"{mention(t.bob)}, free roll, not a rule roll: 2d20kh1 (4 dropped, 17) = **17**" in texts(log.message)
        assert mention(t.alice) + ", free roll" not in texts(log.message)  # rolled before the game: not logged
        assert t.dice.all_used()


def test_the_d20_library_loads_on_the_first_roll_only():
    """A referee that never rolls free dice does not pay d20's import (a quarter second, 10 MiB)."""
    code = "import sys, bot, console; print('d20' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert done.stdout.strip() == "False"
