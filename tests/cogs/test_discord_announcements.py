"""Exactly-once turn-end announcements on Discord (issue 33): two processes on one database, each with its clock.

A turn end the clock applies is announced by the process that applied it, which holds it by a lease it renews
while the announcement waits in its queue; another process says it only once the lease ran out unrenewed, and a
process never says one whose lease it lost. Time is the bots' fake clock, moved by the test; on PostgreSQL the
leases run by the server's clock, so time passing for them is the leases moved back as much (`lapse`).
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from discordkit import FakeClock, at, config, running, settle, table, texts
from storehelpers import lapse

ROLLOVER = f"⏰ Turn 1 is over (time is up). Turn 2 begins and ends {at(24)}."


async def rooms_with_games(t: Any, count: int) -> list[Any]:
    """`count` channels (the table's first), a game of 12-hour turns started in each."""
    rooms = [t.channel] + [t.fake.add_channel(t.guild, f"nations-{i}") for i in range(1, count)]
    for room in rooms:
        await t.fake.invoke(t.guild, room, t.gm, "game start", options={"turn_hours": 12})
        await settle(t.fake)
    return rooms


def said(t: Any, rooms: list[Any], posted: dict[int, int]) -> list[int]:
    """How many times each room's turn end was announced since `posted`."""
    return [sum(texts(m).startswith(ROLLOVER) for m in t.messages(room)[posted[room.id]:]) for room in rooms]


def quiet(rb: Any) -> Any:
    """A bot's clock with its timer and outbox job off: the test runs its ticks and sweeps."""
    clock = rb.bot.get_cog("Clock")
    clock.scheduler.remove_all_jobs()
    return clock


async def outbox_rows(store: Any) -> int:
    return int((await store._fetchall("SELECT COUNT(*) FROM announcements"))[0][0])


async def test_a_backlog_longer_than_the_grace_is_announced_once_while_another_process_sweeps(tmp_path):
    """Six games' turn ends, each announcement taking a minute to go out (Discord's rate limit, a huge rollover):
    the last goes out six minutes after the rollover, three times the grace. The announcing process renews the
    leases of those still queued; another process looking at the outbox after every send never takes one. Before
    issue 33 it took each still queued after the grace, and those turn ends were said twice."""
    async with table(tmp_path) as t, t.bot() as rb:
        rooms = await rooms_with_games(t, 6)
        posted = {room.id: len(t.messages(room)) for room in rooms}
        clock = quiet(rb)
        async with running(t.fake, config(t.db, t.clock, t.dice)) as other:
            sweeper = quiet(other)
            follow = clock.announcer.follow

            async def slowly(game_id: int, action_id: int | None, events: Any) -> None:
                await follow(game_id, action_id, events)
                await lapse(t.clock, rb.bot.store, 1)
                await sweeper.sweep()  # (every 30 s in a running bot)

            clock.announcer.follow = slowly
            t.clock.advance(hours=13)
            await clock.tick()
            await settle(t.fake)
            assert said(t, rooms, posted) == [1] * 6
            assert await outbox_rows(rb.bot.store) == 0


@pytest.mark.postgres_only  # (SQLite's leases run by the process's clock: one process owns a SQLite file)
async def test_two_processes_with_clocks_five_hours_apart_announce_each_turn_end_once(tmp_path):
    """Two processes on one PostgreSQL database, one's clock five hours ahead of the other's: the one behind rolls
    the turns over and is still sending when the one ahead looks at the outbox, which finds nothing to take (the
    lease runs by the server's clock). Before, the clock ahead took them all, and each turn end was said twice."""
    async with table(tmp_path) as t, t.bot() as rb:
        rooms = await rooms_with_games(t, 3)
        posted = {room.id: len(t.messages(room)) for room in rooms}
        clock = quiet(rb)
        ahead = FakeClock(t.clock() + timedelta(hours=5))
        async with running(t.fake, config(t.db, ahead, t.dice)) as other:
            sweeper = quiet(other)
            gate, follow = asyncio.Event(), clock.announcer.follow

            async def held_back(game_id: int, action_id: int | None, events: Any) -> None:
                await gate.wait()
                await follow(game_id, action_id, events)

            clock.announcer.follow = held_back
            t.clock.advance(hours=13)
            ahead.advance(hours=13)
            await clock.tick()  # every turn end applied, its announcement queued and held back
            await sweeper.tick()  # the clock five hours ahead: nothing due, nothing of the other's to take
            await sweeper.sweep()
            gate.set()
            await settle(t.fake)
            assert said(t, rooms, posted) == [1] * 3
            assert await outbox_rows(rb.bot.store) == 0


async def test_a_process_that_dies_mid_send_has_the_rest_announced_by_another_after_its_lease(tmp_path):
    """A process announces two of four turn ends a minute apart, renewing the others' leases past the grace, and
    dies while sending the third (before its message went out). Another process starting a minute later takes
    nothing (the lease still runs); once the lease has run out unrenewed, it announces the third and fourth."""
    async with table(tmp_path) as t:
        async with t.bot() as rb:
            rooms = await rooms_with_games(t, 4)
            posted = {room.id: len(t.messages(room)) for room in rooms}
            clock = quiet(rb)
            follow, sent, dying = clock.announcer.follow, [], asyncio.Event()

            async def dies_on_the_third(game_id: int, action_id: int | None, events: Any) -> None:
                if len(sent) == 2:
                    dying.set()
                    await asyncio.Event().wait()  # frozen mid-send: it never comes back
                await follow(game_id, action_id, events)
                sent.append(game_id)
                await lapse(t.clock, rb.bot.store, 1)

            clock.announcer.follow = dies_on_the_third
            t.clock.advance(hours=13)
            await clock.tick()
            await dying.wait()
            clock.announcer.close()  # (its process is gone: nothing of it runs on)
        assert said(t, rooms, posted) == [1, 1, 0, 0]
        t.clock.advance(minutes=1)  # (on PostgreSQL, its lease runs out two minutes after it was renewed, still)
        async with t.bot() as other:  # its start-up tick looks at the outbox: the dead process's lease still runs
            await settle(t.fake)
            assert said(t, rooms, posted) == [1, 1, 0, 0]
            await lapse(t.clock, other.bot.store, 2)
            await quiet(other).tick()
            await settle(t.fake)
            assert said(t, rooms, posted) == [1, 1, 1, 1]
            assert await outbox_rows(other.bot.store) == 0


async def test_a_process_never_announces_what_it_lost_to_another_while_cut_off(tmp_path):
    """A process's announcer is stuck (cut off from Discord and the database) past its lease with every turn end
    queued; another process takes them and says them. When the first comes back, each check before sending finds
    the announcement another's: it says none of them. Before, both said every turn end."""
    async with table(tmp_path) as t, t.bot() as rb:
        rooms = await rooms_with_games(t, 3)
        posted = {room.id: len(t.messages(room)) for room in rooms}
        clock = quiet(rb)
        async with running(t.fake, config(t.db, t.clock, t.dice)) as other:
            sweeper = quiet(other)
            gate, follow = asyncio.Event(), clock.announcer.follow

            async def stuck(game_id: int, action_id: int | None, events: Any) -> None:
                await gate.wait()
                await follow(game_id, action_id, events)

            clock.announcer.follow = stuck
            t.clock.advance(hours=13)
            await clock.tick()
            await lapse(t.clock, rb.bot.store, 3)
            await sweeper.sweep()
            assert sweeper.announcer.task is not None
            await sweeper.announcer.task  # (the other's announcements; the first's wait at the gate)
            assert said(t, rooms, posted) == [1] * 3
            gate.set()
            await settle(t.fake)
            assert said(t, rooms, posted) == [1] * 3
            assert await outbox_rows(rb.bot.store) == 0


async def test_an_announcement_to_a_deleted_channel_is_dropped_not_retried_forever(tmp_path, caplog):
    """A game whose channel an admin deleted: its turn end cannot be said, now or ever. It leaves the outbox at
    once (a warning in the log), instead of being taken again after every lease; the other games are said."""
    async with table(tmp_path) as t, t.bot() as rb:
        rooms = await rooms_with_games(t, 3)
        posted = {room.id: len(t.messages(room)) for room in rooms}
        clock = quiet(rb)
        t.fake.delete_channel(rooms[1])
        t.clock.advance(hours=13)
        await clock.tick()
        await settle(t.fake)
        assert said(t, [rooms[0], rooms[2]], posted) == [1, 1]
        assert await outbox_rows(rb.bot.store) == 0
        assert "channel is gone" in caplog.text
        caplog.clear()
        await lapse(t.clock, rb.bot.store, 5)  # past any lease: nothing left to take again
        await clock.sweep()
        await settle(t.fake)
        assert "announcement of game" not in caplog.text and said(t, [rooms[0], rooms[2]], posted) == [1, 1]
