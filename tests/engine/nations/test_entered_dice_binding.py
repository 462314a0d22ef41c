"""GM-entered dice go only to the rolls they were entered for (issue 34): the GM's own commands' rolls, one
player's, one purpose's — or, as in an old game (and the console's default), the next roll whoever makes it.
A roll they are not for draws real dice and leaves them waiting."""

from __future__ import annotations

import pytest
from helpers import Game, snap

from engine.errors import BadInput
from engine.events import DiceQueued
from engine.game import ANYONE, GM_ONLY, entered_for
from engine.gm import QueueDice, binding, waiting_view
from engine.nations.peace import GrowEconomy, PropagandaAttack
from engine.nations.snapshot import state_from_dict
from engine.view import text_lines


def two_nations() -> Game:
    game = Game()
    game.nation_with("Alpha", "alice", economy=8, military=4, propaganda=12)
    game.nation_with("Beta", "bob", economy=8)
    return game


def test_a_player_acting_right_after_the_gm_entered_dice_rolls_real_dice():
    game = two_nations()
    game.do(QueueDice([10, 10, 1, 1], GM_ONLY))
    roll = game.do(GrowEconomy(), actor="alice", dice=[3]).rolls[0]  # her own die, not the GM's 10
    assert (roll.die, roll.forced) == (3, False)
    assert game.state.forced_dice == [10, 10, 1, 1]
    roll = game.do(GrowEconomy(), actor="bob", gm=True).rolls[0]  # a command the GM (a co-GM) runs takes them
    assert (roll.die, roll.forced) == (10, True)
    assert game.state.forced_dice == [10, 1, 1]
    game.assert_replays()


def test_dice_bound_to_a_player_go_to_that_players_next_roll_only():
    game = two_nations()
    game.do(QueueDice([9], GM_ONLY))
    out = game.do(QueueDice([10], binding("bob", None, GM_ONLY)))
    assert out.events == [DiceQueued([10], "gm", "player:bob")]
    roll = game.do(GrowEconomy(), actor="alice", dice=[2]).rolls[0]
    assert (roll.die, roll.forced) == (2, False)
    roll = game.do(GrowEconomy(), actor="bob").rolls[0]  # bob's die is the second waiting: it is his
    assert (roll.die, roll.forced) == (10, True)
    assert (game.state.forced_dice, entered_for(game.state)) == ([9], [GM_ONLY])
    game.do(QueueDice([8], binding("bob", None, GM_ONLY)))
    out = game.do(PropagandaAttack("Alpha", "Beta"))  # the GM acts for bob's nation: his die, not the GM's 9
    assert [(r.die, r.forced) for r in out.rolls] == [(8, True)]
    assert (game.state.forced_dice, entered_for(game.state)) == ([9], [GM_ONLY])
    game.assert_replays()


def test_dice_bound_to_a_purpose_go_to_a_roll_for_it():
    game = two_nations()
    game.do(QueueDice([10], binding(None, "Propaganda", GM_ONLY)))
    roll = game.do(GrowEconomy(), actor="alice", dice=[4]).rolls[0]
    assert (roll.die, roll.forced) == (4, False)
    out = game.do(PropagandaAttack("Beta"), actor="alice", dice=[2])  # the attack takes the 10, the spoils roll 2
    assert [(r.die, r.forced) for r in out.rolls] == [(10, True), (2, False)]
    assert game.state.forced_dice == []
    game.assert_replays()


def test_the_binding_survives_an_export_and_an_old_export_still_loads():
    game = two_nations()
    game.do(QueueDice([7], binding("bob", None, GM_ONLY)))
    game.do(QueueDice([3], GM_ONLY))
    exported = snap(game.state)
    assert exported["game"]["forced_dice"] == [7, 3]
    assert exported["game"]["forced_for"] == ["player:bob", GM_ONLY]
    again = state_from_dict(exported)
    assert entered_for(again) == ["player:bob", GM_ONLY]
    del exported["game"]["forced_for"]  # an export of before bindings: a list of plain values
    old = state_from_dict(exported)
    assert (old.forced_dice, entered_for(old)) == ([7, 3], [ANYONE, ANYONE])
    assert "forced_for" not in snap(old)["game"]  # (and it exports as it was)


def test_the_waiting_list_says_whose_roll_takes_each_die():
    game = two_nations()
    game.do(QueueDice([7], binding("bob", None, GM_ONLY)))
    game.do(QueueDice([3, 4], binding(None, "initiative", GM_ONLY)))
    game.do(QueueDice([5], GM_ONLY))
    assert text_lines(waiting_view(game.state)) == [
        "4 entered dice waiting, in order (you alone see this)",
        "  7 — for the next roll of bob", "  3 — for the next roll whose purpose holds “initiative”",
        "  4 — for the next roll whose purpose holds “initiative”", "  5 — for the next roll of a command the GM runs"]


@pytest.mark.parametrize(("player", "purpose", "words"), [("bob", "initiative", "not both"),
                                                          (None, "x" * 60, "at most")])
def test_a_bad_binding_is_refused_and_changes_nothing(player, purpose, words):
    game = two_nations()
    with pytest.raises(BadInput, match=words):
        game.do(QueueDice([5], binding(player, purpose, GM_ONLY)))
    assert game.state.forced_dice == []
