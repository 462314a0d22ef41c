"""Every command every game shares (`engine.commands.COMMANDS` of no rule set), run in the console against a game of
every registered rule set, the toy Dice Race included: each answers, or refuses in one `error:` line — never a
traceback, never "the referee hit a problem"."""

from __future__ import annotations

import logging

import pytest
from dicerace import register_dicerace, unregister_dicerace
from storehelpers import console_on, said

from console.app import CHANNEL
from engine.commands import COMMANDS
from engine.rulesets import RULESETS, ruleset

NAMES = list(dict.fromkeys([*RULESETS, "dicerace"]))

LINES = [  # (the command's path, the line typed): every shared command, in an order that plays a game through
    ("game start", "gm /game start ruleset:{ruleset}"),
    ("game status", "alice /game status"),
    ("game list", "alice /game list"),
    ("game digest", "gm /game digest"),
    ("game chart", "alice /game chart file:chart.png"),
    ("game page", "alice /game page"),
    ("log rolls", "alice /log rolls"),
    ("log export", "gm /log export format:csv file:ledger.csv"),
    ("log gm", "alice /log gm"),
    ("log game", "alice /log game"),
    ("log fairness", "alice /log fairness"),
    ("roll", "alice /roll dice:1d6+1"),
    ("log secret", "alice /log secret"),
    ("log reveal", "alice /log reveal roll:1"),
    ("remind me", "alice /remind me dm:on"),
    ("gm dice", "gm /gm dice values:1"),
    ("gm clock pause", "gm /gm clock pause"),
    ("gm clock resume", "gm /gm clock resume"),
    ("gm undo", "gm /gm undo confirm:true"),
    ("gm house", "gm /gm house key:{house_key} value:{house_value}"),
    ("gm cogm add", "gm /gm cogm add player:bob"),
    ("gm cogm remove", "gm /gm cogm remove player:bob"),
    ("gm handover", "gm /gm handover player:carol"),
    ("server gmrole", "carol /server gmrole"),
    ("gm export", "carol /gm export file:game.json"),
    ("gm page rotate", "carol /gm page rotate"),
    ("help", "alice /help topic:gm"),
    ("game end", "carol /game end confirm:true"),
    ("game import", "dora /game import file:game.json"),
]
ANSWERED = {"game start", "game status", "gm export", "game end", "game import"}  # never refused here


@pytest.fixture
def dicerace():
    register_dicerace()
    yield
    unregister_dicerace()


def test_every_shared_command_is_run():
    assert [path for path, _ in LINES] == list(dict.fromkeys(path for path, _ in LINES))
    assert {path for path, _ in LINES} == {c.path for c in COMMANDS if c.ruleset is None}


@pytest.mark.parametrize("name", NAMES)
async def test_every_shared_command_answers_or_refuses_in_a_game_of_each_rule_set(name, dicerace, tmp_path,
                                                                                   monkeypatch, caplog):
    monkeypatch.chdir(tmp_path)  # the files the commands write land here
    console, store, out = await console_on(tmp_path / "referee.db")
    console.referee.roller.push(4)  # the free roll's die
    try:
        await console.handle(LINES[0][1].format(ruleset=name))
        [started] = said(out)
        assert not started.startswith("error:"), started
        state = await console.referee.state(CHANNEL)
        assert state.ruleset == name
        # a house setting it has (set to its value), else any word: a game without house settings refuses it
        settings = {} if state.house is None else state.house.as_dict()
        key = next((k for k in settings if k not in ruleset(name).fixed_house_keys), "goal")
        for path, typed in LINES[1:]:
            await console.handle(typed.format(house_key=key, house_value=settings.get(key, 3)))
            lines = said(out)
            assert lines, typed
            assert not any("hit a problem" in line or "Traceback" in line for line in lines), (typed, lines)
            refused = [line for line in lines if line.startswith("error:")]
            assert not refused or (lines == refused[:1] and path not in ANSWERED), (typed, lines)
        assert (await console.referee.state(CHANNEL)).ruleset == name  # the imported game
    finally:
        await store.close()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
