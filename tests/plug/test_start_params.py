"""/game start's options come from the registered rule sets (`RuleSet.start_params`): each offered once, described
by the rule sets that take it; an option the game's rule set does not take is refused in one line."""

from __future__ import annotations

from dataclasses import replace

import pytest
from dicerace import register_dicerace, unregister_dicerace
from storehelpers import console_on, said

from console.app import CHANNEL
from engine.commands import BY_PATH, check_start
from engine.errors import BadInput
from engine.rulesets import register
from engine.vocabulary import LIST, Param


def test_the_options_are_the_rule_sets_own():
    ruleset, turn_hours, options = BY_PATH["game start"].params
    assert ruleset.name == "ruleset"
    assert (turn_hours.name, turn_hours.kind, turn_hours.help, turn_hours.low, turn_hours.high) == (
        "turn_hours", float, "Nations: turn length in hours", 0.1, 336.0)
    assert (options.name, options.kind, options.help, options.words) == (
        "options", str, 'God Dice: optional rules, e.g. "campaign resurrection free_for_all"', LIST)


def test_an_option_several_take_is_offered_once_described_by_each():
    register_dicerace()
    try:
        names = [p.name for p in BY_PATH["game start"].params]
        turn_hours = BY_PATH["game start"].params[1]
        assert names == ["ruleset", "turn_hours", "options"]
        assert (turn_hours.help, turn_hours.low, turn_hours.high) == (
            "Nations, Dice Race: turn length in hours", 0.1, 336.0)
        assert check_start({"ruleset": "dicerace", "turn_hours": 2.0}).name == "dicerace"
    finally:
        unregister_dicerace()
    assert BY_PATH["game start"].params[1].help == "Nations: turn length in hours"


@pytest.mark.parametrize(("options", "refusal"), [
    ({"ruleset": "goddice", "turn_hours": 4.0}, "/game start's turn_hours: is not for God Dice (it is for Nations)"),
    ({"turn_hours": 4.0, "options": "campaign"}, "/game start's options: is not for Nations (it is for God Dice)"),
    ({"ruleset": "godsfire", "options": "ffa"}, "/game start's options: is not for Godsfire (it is for God Dice)"),
])
def test_an_option_the_rule_set_does_not_take_is_refused(options, refusal):
    with pytest.raises(BadInput) as refused:
        check_start(options)
    assert str(refused.value) == refusal


def test_what_each_rule_set_took_is_still_taken():
    assert check_start({"turn_hours": 4.0}).name == "nations"
    assert check_start({"ruleset": "goddice", "options": "campaign"}).name == "goddice"
    assert check_start({"ruleset": "godsfire"}).name == "godsfire"


async def test_a_rule_sets_own_option_reaches_its_start(tmp_path):
    """Every option of /game start but the rule set's name is handed to the rule set's `start`: one the shared
    code has never heard of (Dice Race given a `goal`) included."""
    found = register_dicerace()
    register(replace(found, start_params=(*found.start_params,
                                          Param("goal", int, help="the winning square", low=5, high=100))))
    console, store, out = await console_on(tmp_path / "referee.db")
    try:
        await console.handle("gm /game start ruleset:dicerace goal:30 turn_hours:2")
        assert said(out)[0] == "🏁 Dice Race: first to square 30 wins; a move waits 2 h. GM: gm."
        state = await console.referee.state(CHANNEL)
        assert (state.goal, state.turn_hours) == (30, 2.0)
    finally:
        await store.close()
        unregister_dicerace()
