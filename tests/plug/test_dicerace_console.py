"""A fourth rule set defined in tests/ (tests/support/dicerace.py) plays in the console through the registry alone:
start, moves, a refusal, the clock, export and import, status, help and the log."""

from __future__ import annotations

import json

import pytest
from dicerace import register_dicerace, unregister_dicerace
from storehelpers import T0, console_on, said

from engine.commands import BY_PATH


@pytest.fixture
def dicerace():
    register_dicerace()
    yield
    unregister_dicerace()


async def test_a_fourth_rule_set_plays_in_the_console(dicerace, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    console, store, out = await console_on(tmp_path / "race.db")
    clock = console.referee.clock
    try:
        await console.handle("gm /game start ruleset:dicerace turn_hours:2")
        assert said(out) == ["🏁 Dice Race: first to square 20 wins; a move waits 2 h. GM: gm."]
        await console.handle("alice /race join")
        await console.handle("bob /race join")
        assert said(out) == ["alice joins the race.", "bob joins the race. First move due 2030-01-01 02:00 UTC."]

        await console.handle("gm /gm dice values:\"5 3\"")
        said(out)
        await console.handle("alice /race roll")
        assert said(out) == ["🎲 alice, move: d6 5 (GM die)", "alice moves 5 squares."]
        await console.handle("alice /race roll")  # a refusal: not her move, nothing changed
        assert said(out) == ["error: it is bob's move, not yours"]
        await console.handle("bob /race join")
        assert said(out) == ["error: you are in the race already"]

        await console.handle("carol /race show")
        assert said(out) == ["Dice Race — move 2, goal square 20; GM: gm", "2 racers", "  alice: square 5",
                             "  bob: square 0 ← to move until 2030-01-01 02:00 UTC"]

        clock.advance(hours=2, minutes=1)  # bob sleeps through his move: the clock passes him over
        await console.handle("carol /game status")
        assert said(out) == [
            "⏰ bob did not roll in time and is passed over; next move due 2030-01-01 04:00 UTC.",
            "Dice Race — move 3, goal square 20; GM: gm", "2 racers",
            "  alice: square 5 ← to move until 2030-01-01 04:00 UTC", "  bob: square 0"]

        await console.handle("alice /race roll")
        assert said(out) == ["🎲 alice, move: d6 3 (GM die)", "alice moves 3 squares."]
        await console.handle("gm /log rolls nation:al")
        assert said(out) == ["turn 1: 🎲 alice, move: d6 5 (GM die)", "turn 3: 🎲 alice, move: d6 3 (GM die)"]

        await console.handle("gm /gm export file:race.json")
        assert said(out) == ["Game exported to race.json."]
        exported = json.loads((tmp_path / "race.json").read_text())
        assert exported["game"]["ruleset"] == "dicerace"
        assert exported["racers"] == [{"name": "alice", "square": 8}, {"name": "bob", "square": 0}]
        assert [r["die"] for r in exported["rolls"]] == [5, 3]

        await console.handle("gm /game end confirm:true")
        assert said(out) == ["The game is over."]
        await console.handle("dora /game import file:race.json")
        assert said(out) == ["Dice Race game imported from race.json: move 4, 2 racers; GM: dora."]
        await console.handle("bob /race show")
        assert said(out)[2:] == ["  alice: square 8", "  bob: square 0 ← to move until 2030-01-01 04:01 UTC"]
        await console.handle("bob /economy grow")  # another rule set's command, refused with the reason
        assert said(out) == ["error: /economy grow is a Nations command, and this channel's game is Dice Race"]

        await console.handle("bob /help topic:race")
        assert said(out) == ["/race commands:", "/race join — take a place in the race",
                             "/race roll — your move: roll a d6 and move that many squares",
                             "/race show — every racer's square and whose move it is"]
    finally:
        await store.close()
    assert T0.year == 2030


def test_the_command_table_follows_the_registry():
    assert "race roll" not in BY_PATH
    register_dicerace()
    try:
        assert BY_PATH["race roll"].ruleset == "dicerace"
        assert "dicerace" in BY_PATH["game start"].params[0].choices
    finally:
        unregister_dicerace()
    assert "race roll" not in BY_PATH and "dicerace" not in BY_PATH["game start"].params[0].choices
