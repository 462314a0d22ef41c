"""God Dice, mended (issue 17), through the referee and the store: /gm export of the channel's last ended game
when none runs (every rule set: it is shared code), and the import's one-line refusal of an ended game."""

from __future__ import annotations

import pytest
from goddicehelpers import drafted
from storehelpers import FakeClock

from data.store import Store
from engine.clock import EndGame
from engine.dice import ForcedRoller
from engine.errors import NoGame, RuleViolation
from engine.goddice import actions
from engine.nations.peace import ClaimPreset
from service.referee import Referee

WON = ("that export is of a game alice won: its rules ended it, so nothing is left to play and it cannot be "
       "imported (a game its GM ended can: it starts again where it stood)")


@pytest.fixture
async def setup(tmp_path):
    store = await Store.open(tmp_path / "r.db")
    referee = Referee(store, None, ForcedRoller(), FakeClock())
    yield referee, store
    await store.close()


async def won_by_alice(referee: Referee, channel: str = "chan") -> None:
    """A God Dice duel, drafted, then the GM kills bob's every character: alice wins."""
    await drafted(referee, channel)
    for card in ("monk", "sage", "assassin", "hero"):
        await referee.act(channel, "gm", actions.SetLife("bob", card, 0), "/gm life")


async def test_export_after_a_god_dice_game_is_won_shows_the_winner(setup):
    referee, _ = setup
    await won_by_alice(referee)
    with pytest.raises(NoGame):
        await referee.state("chan")  # the game is over: no live game
    export = await referee.export("chan")
    assert (export["game"]["winner"], export["game"]["ended"], export["game"]["phase"]) == ("alice", True, "over")
    with pytest.raises(RuleViolation) as refused:
        await referee.import_game("other", "carol", export)
    assert str(refused.value) == WON
    with pytest.raises(NoGame):
        await referee.state("other")  # nothing imported


async def test_export_of_the_last_ended_game_for_every_rule_set(setup):
    referee, _ = setup
    with pytest.raises(NoGame, match="there is no game in this channel"):
        await referee.export("nat")
    await referee.start_game("nat", "gm")
    await referee.act("nat", "gm", ClaimPreset("Charon", "bob"), "/nation claim")
    live = await referee.export("nat")
    await referee.act("nat", "gm", EndGame(), "/game end")
    ended = await referee.export("nat")
    assert (live["game"]["ended"], ended["game"]["ended"]) == (False, True)
    # issue 34: a game its GM ended imports live again, where it stood, the importer its GM
    await referee.import_game("other", "carol", ended)
    reopened = await referee.state("other")
    assert (reopened.ended, reopened.gm, list(reopened.nations)) == (False, "carol", ["Charon"])
    await referee.start_game("nat", "gm")  # a new game takes the channel over: its export is the live one
    assert (await referee.export("nat"))["game"]["ended"] is False
