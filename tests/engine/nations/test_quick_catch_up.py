"""The quick catch-up (a rollover worked out from a game's clock fields alone, its events appended to the log and
replayed on the snapshot at its next load) gives exactly what the engine's Tick gives, and declines whenever
anything but one turn end is due."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest
from helpers import Game, snap
from storehelpers import RULES, FakeClock, assert_snapshot_is_replay, read_snapshot

from data.store import MAX_LOG_AHEAD, Store
from engine.clock import Tick, next_deadline
from engine.core import Context, execute
from engine.dice import ForcedRoller
from engine.events import event_to_dict, replay
from engine.nations.clock import PauseClock, clock_fields, quick_catch_up
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
    """(quick's result from the game's clock fields, Tick's events and state) from the same state at `game.now`."""
    quick = quick_catch_up(clock_fields(game.state), game.now)
    slow = execute(game.state, Tick(), Context(game.now, "clock", game.rules, True, ForcedRoller([5] * 30)))
    return quick, slow


def assert_same(game: Game) -> None:
    before = copy.deepcopy(game.state)
    quick, slow = both_ways(game)
    assert quick is not None, "the quick catch-up declined a plain rollover"
    events, next_due, after = quick
    assert [event_to_dict(e) for e in events] == [event_to_dict(e) for e in slow.events]
    assert snap(replay(events, before)) == snap(slow.state)  # the snapshot plus the appended log: Tick's state
    assert next_due == next_deadline(slow.state)
    assert after == clock_fields(slow.state)  # the fields kept are those the state would give


def assert_declined(game: Game) -> None:
    quick, _ = both_ways(game)
    assert quick is None


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


async def log_ahead(store: Store, game_id: int) -> int:
    """The actions the game's stored snapshot does not hold yet (its log-only rollovers since it was written)."""
    [[ahead]] = await store._fetchall("SELECT log_ahead FROM games WHERE id = ?", (game_id,))
    return int(ahead)


async def test_a_rolled_snapshot_is_behind_until_the_next_write_and_every_load_replays_it(store, clock):
    referee = Referee(store, RULES, clock=clock)
    game_id = (await referee.start_game("a", "gm", turn_hours=1)).game_id
    written = await store._read(lambda con: read_snapshot(con, game_id))
    for _ in range(3):  # three log-only rollovers: the stored snapshot is not rewritten
        clock.advance(hours=1)
        assert list(await referee.catch_up_due()) == [game_id]
    assert await store._read(lambda con: read_snapshot(con, game_id)) == written
    assert await log_ahead(store, game_id) == 3
    assert (await store.load(game_id)).turn == 4  # the load replays them
    await assert_snapshot_is_replay(store, game_id)
    await referee.act("a", "gm", PauseClock(), "/gm clock pause")  # any write writes the snapshot whole again
    assert read_snapshot_turn(await store._read(lambda con: read_snapshot(con, game_id))) == 4
    assert await log_ahead(store, game_id) == 0


def read_snapshot_turn(document) -> int:
    return int(document["game"]["turn"])


async def test_a_snapshot_never_falls_more_than_the_bound_behind(store, clock):
    referee = Referee(store, RULES, clock=clock)
    game_id = (await referee.start_game("a", "gm", turn_hours=1)).game_id
    seen = []
    for _ in range(MAX_LOG_AHEAD + 3):
        clock.advance(hours=1)
        await referee.catch_up_due()
        seen.append(await log_ahead(store, game_id))
    # log-only rollovers until the bound, where the next is the full one: the snapshot written whole again
    assert max(seen) == MAX_LOG_AHEAD and 0 in seen[1:]
    assert (await store.load(game_id)).turn == MAX_LOG_AHEAD + 4
    await assert_snapshot_is_replay(store, game_id)
