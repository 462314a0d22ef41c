"""The quick catch-up (a rollover applied to the snapshot document, without building the state) gives exactly
what the engine's Tick gives, and declines whenever anything but one turn end is due."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest
from helpers import Game, snap
from storehelpers import RULES, FakeClock, assert_snapshot_is_replay

from data.store import Store
from engine.clock import Tick, next_deadline
from engine.core import Context, execute
from engine.dice import ForcedRoller
from engine.events import event_to_dict
from engine.nations.clock import PauseClock, quick_catch_up
from engine.nations.gm import Eliminate
from engine.nations.peace import Encourage, GrowEconomy
from engine.nations.war import DeclareAttack
from service.referee import Referee


def two_nations(turn_hours: float = 12) -> Game:
    game = Game(turn_hours=turn_hours)
    game.nation_with("Alpha", "alice", economy=8, military=8, units={"infantry": 2})
    game.nation_with("Beta", "bob", units={"infantry": 2})
    game.do(GrowEconomy(), actor="alice", dice=[9])
    return game


def both_ways(game: Game):
    """(quick's result and document, Tick's events and state) from the same state at `game.now`."""
    document = copy.deepcopy(snap(game.state))
    quick = quick_catch_up(document, game.now)
    slow = execute(game.state, Tick(), Context(game.now, "clock", game.rules, True, ForcedRoller([5] * 30)))
    return quick, document, slow


def assert_same(game: Game) -> None:
    quick, document, slow = both_ways(game)
    assert quick is not None, "the quick catch-up declined a plain rollover"
    events, next_due = quick
    assert [event_to_dict(e) for e in events] == [event_to_dict(e) for e in slow.events]
    assert document == snap(slow.state)
    assert next_due == next_deadline(slow.state)


def assert_declined(game: Game) -> None:
    before = snap(game.state)
    quick, document, _ = both_ways(game)
    assert quick is None and document == before  # untouched


@pytest.mark.parametrize("past", [timedelta(0), timedelta(seconds=1), timedelta(hours=11, minutes=59)])
def test_one_turn_ended_is_the_same_both_ways(past):
    game = two_nations()
    game.advance(hours=12)
    game.now += past
    assert_same(game)


def test_a_bonus_still_running_and_an_eliminated_nation_are_the_same_both_ways():
    game = two_nations()
    game.do(Encourage("workers"), actor="bob", dice=[9])  # a bonus of 36 hours
    game.nation_with("Gamma", "carol")
    game.do(Eliminate("Gamma"))
    game.advance(hours=12, seconds=5)
    assert_same(game)


def test_it_declines_when_anything_else_is_due_or_nothing_is():
    game = two_nations()
    assert_declined(game)  # nothing due yet
    game.advance(hours=24, seconds=1)
    assert_declined(game)  # two turn ends: the engine's catch-up
    bonus = two_nations()
    bonus.do(Encourage("workers"), actor="bob", dice=[9])
    bonus.advance(hours=24, seconds=1)
    bonus.do(Tick())  # two turns; the third ends when the 36-hour bonus runs out
    bonus.advance(hours=12)
    assert bonus.nation("Beta").bonuses
    assert_declined(bonus)  # a turn end and a bonus expiry: the engine orders them
    battle = two_nations()
    battle.do(DeclareAttack("Beta", [1]), actor="alice")  # Beta's choice waits until its deadline
    battle.advance(hours=12, seconds=1)
    assert_declined(battle)  # the choice's deadline (an hour) fell due before the turn end
    paused = two_nations()
    paused.do(PauseClock())
    paused.advance(hours=13)
    assert_declined(paused)


async def test_a_rollover_through_the_store_is_quick_and_its_snapshot_is_the_replay(tmp_path):
    clock = FakeClock()
    store = await Store.open(tmp_path / "referee.db")
    try:
        referee = Referee(store, RULES, clock=clock)
        ids = []
        for channel in ("a", "b", "c"):
            report = await referee.start_game(channel, "gm", turn_hours=1)
            ids.append(report.game_id)
        await referee.act("a", "gm", PauseClock(), "/gm clock pause")  # a game the quick path leaves alone
        clock.advance(hours=1, seconds=1)
        caught = await referee.catch_up_due()
        assert sorted(caught) == ids[1:]
        for game_id in ids:
            await assert_snapshot_is_replay(store, game_id)
            assert (await store.load(game_id)).turn == (1 if game_id == ids[0] else 2)
        assert await store.due(clock()) == []
    finally:
        await store.close()
