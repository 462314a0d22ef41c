"""Exactly-once announcements (issue 33, migration 017): the clock's outbox of announcements as the store keeps it.

Each announcement is one process's at a time (a store's `outbox_owner`) for a lease it renews while it has it queued
(`hold_announcements`), checks just before it sends, and deletes once sent (`announced`); another process takes it
(`take_unannounced`) only when the lease ran out unrenewed. Two stores on one database are two processes. Time is
each store's clock, passed in (a FakeClock); on PostgreSQL the lease runs by the server's clock, and time passing
for it is the leases moved back by as much (`lapse`): the processes' own clocks may be hours apart.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from storehelpers import T0, FakeClock, lapse

from data.store import ANNOUNCE_GRACE, Store
from service.referee import Referee

GUILD = 4242
TURN = 12  # hours


async def outbox(store: Store) -> dict[int, str | None]:
    """The outbox as it stands: each announcement's action id and owner."""
    return {int(r[0]): r[1] for r in await store._fetchall("SELECT action_id, owner FROM announcements")}


async def rolled_over(store: Store, clock: FakeClock, games: int) -> list[int]:
    """`games` Discord games whose first turn ended, caught up through the referee as the Discord clock does it
    (into the outbox); the action ids of their turn ends, oldest first."""
    referee = Referee(store, roller=None, clock=clock)
    for i in range(games):
        await referee.start_game(f"discord:{GUILD}:{i}", "gm", turn_hours=TURN, guild_id=GUILD)
    clock.advance(hours=TURN, minutes=1)
    action_ids: dict[int, int] = {}
    await referee.catch_up_due(action_ids=action_ids, announce=True)
    assert len(action_ids) == games
    return sorted(action_ids.values())


@pytest.fixture
async def two(tmp_path: Any) -> Any:
    """Two processes' stores on one database."""
    first = await Store.open(tmp_path / "referee.db")
    second = await Store.open(tmp_path / "referee.db")
    yield first, second
    await second.close()
    await first.close()


async def test_a_commits_announcements_are_its_own_for_the_grace_then_anyone_may_take_them(two):
    a, b = two
    clock = FakeClock(T0)
    ids = await rolled_over(a, clock, 3)
    assert await outbox(a) == dict.fromkeys(ids)  # no owner yet: the committing process's for the grace
    await lapse(clock, a, 1)
    assert await b.take_unannounced(clock()) == []
    await lapse(clock, a, 2)  # the grace is over and nobody renewed them (the process that committed died)
    taken = await b.take_unannounced(clock())
    assert [action_id for _, action_id, _ in taken] == ids and all(events for _, _, events in taken)
    assert await outbox(a) == dict.fromkeys(ids, b.outbox_owner)
    assert await a.hold_announcements(ids, clock()) == []  # lost: not to be sent by the first process
    assert await b.take_unannounced(clock()) == []  # taken once
    assert await b.hold_announcements(ids, clock()) == ids


async def test_a_backlog_longer_than_the_grace_is_kept_by_its_renewing_owner_and_said_once(two):
    """The process that committed sends one announcement a minute (slow: a rate limit, a huge catch-up) and renews
    the leases of those still queued; another process looking at the outbox every minute never takes one. Before
    the leases, every announcement still queued after the 2-minute grace was taken and said a second time."""
    a, b = two
    clock = FakeClock(T0)
    ids = await rolled_over(a, clock, 6)
    queued, said = list(ids), []
    while queued:
        await lapse(clock, a, 1)
        await a.hold_announcements(queued, clock())  # the announcer's renewal, between two sends
        assert await b.take_unannounced(clock()) == []
        sending = queued.pop(0)
        assert await a.hold_announcements([sending], clock()) == [sending]  # checked just before it is sent
        said.append(sending)
        await a.announced([sending])
    assert clock() - T0 > timedelta(hours=TURN) + 2 * ANNOUNCE_GRACE  # (longer than the grace, twice over)
    assert said == ids and await outbox(a) == {}


async def test_an_announcement_whose_lease_ran_out_is_not_sent_by_its_first_owner(two):
    a, b = two
    clock = FakeClock(T0)
    [action_id] = await rolled_over(a, clock, 1)
    assert await a.hold_announcements([action_id], clock()) == [action_id]
    await lapse(clock, a, 3)  # the owner was cut off from the database for longer than its lease
    assert [x for _, x, _ in await b.take_unannounced(clock())] == [action_id]
    assert await a.hold_announcements([action_id], clock()) == []  # its check before sending: not its own now
    await b.announced([action_id])
    assert await a.hold_announcements([action_id], clock()) == []  # nor once sent by the other


async def test_a_process_that_dies_mid_send_has_the_rest_taken_by_another_after_its_lease(two):
    a, b = two
    clock = FakeClock(T0)
    ids = await rolled_over(a, clock, 4)
    assert await a.hold_announcements(ids, clock()) == ids
    assert await a.hold_announcements(ids[:1], clock()) == ids[:1]
    await a.announced(ids[:1])  # one said
    assert await a.hold_announcements(ids[1:2], clock()) == ids[1:2]  # the next being sent when it dies
    await a.close()
    await lapse(clock, b, 1)
    assert await b.take_unannounced(clock()) == []  # its lease still runs
    await lapse(clock, b, 2)
    assert [x for _, x, _ in await b.take_unannounced(clock())] == ids[1:]
    assert await outbox(b) == dict.fromkeys(ids[1:], b.outbox_owner)


async def test_a_refused_commands_catch_up_is_nobodys_and_taken_at_once(two):
    """A command refused after catching its game up leaves the turn end to the clock: nobody's (owner ''), taken by
    the first sweep, whatever the clocks say."""
    a, b = two
    clock = FakeClock(T0)
    referee = Referee(a, roller=None, clock=clock)
    channel = f"discord:{GUILD}:0"
    await referee.start_game(channel, "gm", turn_hours=TURN, guild_id=GUILD)
    clock.advance(hours=TURN, minutes=1)
    from engine.errors import RefereeError
    from engine.nations.peace import GrowEconomy

    with pytest.raises(RefereeError):
        await referee.act(channel, "stranger", GrowEconomy(), "/economy grow")
    assert list((await outbox(a)).values()) == [""]
    assert len(await b.take_unannounced(clock())) == 1


@pytest.mark.postgres_only
async def test_two_processes_with_clocks_hours_apart_announce_each_turn_end_once(two):
    """Shards whose clocks disagree by five hours, either way: neither takes what the other committed and is
    sending, whichever clock is ahead (the lease runs by the server's clock). Before, a clock more than the grace
    ahead took every announcement of the other at its next look, and each turn end was said twice."""
    a, b = two
    behind, ahead = FakeClock(T0), FakeClock(T0 + timedelta(hours=5))
    referee = Referee(b, roller=None, clock=ahead)
    await referee.start_game(f"discord:{GUILD}:b", "gm", turn_hours=TURN, guild_id=GUILD)
    mine = await rolled_over(a, behind, 2)
    assert await b.take_unannounced(ahead()) == []
    ahead.advance(hours=TURN, minutes=1)
    theirs: dict[int, int] = {}
    await referee.catch_up_due(action_ids=theirs, announce=True)  # its own game's turn end (a's are not due)
    assert len(theirs) == 1 and not set(theirs.values()) & set(mine)
    assert await a.take_unannounced(behind()) == [] and await b.take_unannounced(ahead()) == []
    assert await a.hold_announcements(mine, behind()) == mine
    assert await b.hold_announcements(list(theirs.values()), ahead()) == list(theirs.values())
    behind.advance(minutes=10)  # the processes' clocks move on (not the server's): nothing runs out
    ahead.advance(minutes=10)
    assert await a.take_unannounced(behind()) == [] and await b.take_unannounced(ahead()) == []
