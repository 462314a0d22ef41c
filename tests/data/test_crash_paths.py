"""kill -9 on each write path (issue 35): a process killed just before a COMMIT, or just after one before it answers,
leaves every command, every member of a group commit and every game of a clock rollover either whole (its actions,
events, rolls, idempotency key, state and due time) or not there at all; the game loads, its log replays to the state
it loads as, and the front-end's retry (the same key) or the clock's next catch-up finishes the job exactly once.

The child process (tests/support/crashpaths.py) stops inside the transaction (the store's own hook,
REFEREE_TEST_PAUSE_BEFORE_COMMIT) or just after its COMMIT, says so, and is killed there. Everything is read back
through the store's API (`load`, `events`, `actions`, `rolls`, `games`, `first_outcome`, `replayed`), never from its
columns, and compared with the same games run in a store nobody killed. On both backends: `pytest --postgres` runs
this file on PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import secrets
import sqlite3
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest
from crashpaths import (
    BATCH,
    LINK,
    PAUSED_AFTER,
    PAUSED_BEFORE,
    ROLLOVER_NOW,
    command_games,
    grow,
    key_of,
    kill_child,
    ledger_of,
    referee,
    rollover_ends,
    rollover_games,
    rollover_start,
    rollover_turns,
    turns_ended,
    unsynced,
    wait_for_backend_gone,
)
from storehelpers import T0, assert_snapshot_is_replay

from data.store import Store
from data.store.ledger import LedgerFilter, ReportMessage
from engine.dice import ForcedRoller
from service.reports import CLOCK_ACTOR

IN_TURN = T0 + timedelta(hours=1)
AT_TURN_END = T0 + timedelta(hours=12, minutes=1)  # the command's transaction ends the turn first
_schemas = itertools.count(1)


@pytest.fixture
def target(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """The database the child is killed on: a SQLite file, or (`--postgres`) a fresh schema of the test server."""
    url = request.config.pg_url  # type: ignore[attr-defined]
    if url is None:
        return str(tmp_path / "crash.db")
    return f"{url}{'&' if '?' in url else '?'}schema=crash{next(_schemas)}_{os.getpid()}_{secrets.token_hex(3)}"


@contextlib.asynccontextmanager
async def opened(target: Any, child_said: Sequence[str] = ()) -> AsyncIterator[Store]:
    """The store at `target`, closed after. After a killed child: on SQLite, the file checked whole first; on
    PostgreSQL, once the server has ended the child's backend (so nothing it held is still locked)."""
    if child_said and not str(target).startswith("postgresql://"):
        with contextlib.closing(sqlite3.connect(str(target))) as con:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store = await Store.open(target)
    try:
        for line in child_said:
            if line.startswith("backend "):
                await wait_for_backend_gone(store, int(line.split()[1]))
        yield store
    finally:
        await store.close()


async def killed(target: str, scenario: str, now: datetime, commit: int, when: str, rooms: Sequence[str] = ()
                 ) -> list[str]:
    """`kill_child` off the event loop: the lines the child said before it was killed."""
    return await asyncio.to_thread(kill_child, target, scenario, now, commit, when, rooms)


# --- one command --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("now", [IN_TURN, AT_TURN_END], ids=["in-turn", "with-a-turn-end"])
async def test_a_command_killed_at_its_commit_is_whole_or_not_there(target, tmp_path, when, now):
    """alice's /economy military (a die, a key; with-a-turn-end: the clock's turn end first, in the same
    transaction) killed just before its COMMIT: none of it; just after: all of it. Its retry applies it once."""
    rooms, key = ["room"], key_of("room")
    async with opened(tmp_path / "reference.db") as reference:
        ref = referee(reference, T0)
        await command_games(ref, rooms)
        game_id = await reference.live_game("room")
        before = await ledger_of(reference, game_id, [key])
        ref.clock.set(now)  # type: ignore[attr-defined]
        await grow(ref, rooms)
        after = await ledger_of(reference, game_id, [key])
    added = len(after["actions"]) - len(before["actions"])
    assert added == (2 if now == AT_TURN_END else 1) and after["keys"][key] == list(range(3, 3 + added))
    assert len(after["rolls"]) == len(before["rolls"]) + 1

    async with opened(target) as store:
        await command_games(referee(store, T0), rooms)
        assert await ledger_of(store, game_id, [key]) == before
    said = await killed(target, "command", now, 1, when, rooms)
    assert said[-2:] == ["ready", PAUSED_BEFORE if when == "before" else PAUSED_AFTER]  # nothing answered

    async with opened(target, said) as store:
        assert await ledger_of(store, game_id, [key]) == (before if when == "before" else after)
        await assert_snapshot_is_replay(store, game_id)
        retry = referee(store, now)
        await grow(retry, rooms)  # the front-end's retry, with the same key
        assert await ledger_of(store, game_id, [key]) == after
        assert isinstance(retry.roller, ForcedRoller) and retry.roller.used == (1 if when == "before" else 0)
        await assert_snapshot_is_replay(store, game_id)


# --- a report's link, a row deferred to the next write -----------------------------------------------------------


@pytest.mark.parametrize("when", ["before", "after"])
@pytest.mark.parametrize("scenario", ["link", "link-alone"])
async def test_a_report_link_killed_before_it_is_written_loses_the_link_only(target, tmp_path, when, scenario):
    """The message that announced alice's command (/log rolls' link to it) waits in memory for the next write: the
    next room's command (link) or a transaction of its own (link-alone). Killed just before that COMMIT, her command
    is whole and only its link is missing; just after, the link is there too. Nothing else is lost or half-applied."""
    rooms, key = ["room", "next"], key_of("room")
    async with opened(target) as store:
        await command_games(referee(store, T0), rooms)
        ids = {room: await store.live_game(room) for room in rooms}
        before = {room: await ledger_of(store, ids[room], [key_of(room)]) for room in rooms}
    said = await killed(target, scenario, IN_TURN, 2, when, rooms)
    assert said[-2:] == ["noted", PAUSED_BEFORE if when == "before" else PAUSED_AFTER]

    async with opened(target, said) as store:
        mine = await ledger_of(store, ids["room"], [key])
        assert mine["actions"][:-1] == before["room"]["actions"] and mine["keys"][key] == [3]
        assert len(mine["rolls"]) == len(before["room"]["rolls"]) + 1
        [(roll, link)] = (await store.ledger_page(ids["room"], LedgerFilter(), 0, 10))[0]
        assert roll.die == 9 and link == (ReportMessage(*LINK) if when == "after" else None)
        nexts = await ledger_of(store, ids["next"], [key_of("next")])
        assert (nexts == before["next"]) == (scenario == "link-alone" or when == "before")
        for room in rooms:
            await assert_snapshot_is_replay(store, ids[room])
        retry = referee(store, IN_TURN)
        await grow(retry, rooms[:1])  # the front-end's retry: answered from its key, no die rolled again
        assert isinstance(retry.roller, ForcedRoller) and retry.roller.used == 0
        assert await ledger_of(store, ids["room"], [key]) == mine


# --- a group commit -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("when", ["before", "after"])
async def test_a_group_killed_at_its_commit_leaves_each_member_whole_or_not_there(target, tmp_path, when):
    """Eight games' commands at once (each a turn end and a die, each with its key): the first commits alone, the
    other seven as one group, killed just before or just after the group's COMMIT. Each game then matches the
    same game in a store nobody killed, before its command or after it; the retries apply each exactly once."""
    rooms = [f"room{n}" for n in range(8)]
    async with opened(tmp_path / "reference.db") as reference:
        ref = referee(reference, T0)
        await command_games(ref, rooms)
        ids = {room: await reference.live_game(room) for room in rooms}
        before = {room: await ledger_of(reference, ids[room], [key_of(room)]) for room in rooms}
        ref.clock.set(AT_TURN_END)  # type: ignore[attr-defined]
        await grow(ref, rooms)
        after = {room: await ledger_of(reference, ids[room], [key_of(room)]) for room in rooms}
    assert all(after[room]["keys"][key_of(room)] == [3, 4] for room in rooms)

    async with opened(target) as store:
        await command_games(referee(store, T0), rooms)
        assert {room: await store.live_game(room) for room in rooms} == ids
    said = await killed(target, "group", AT_TURN_END, 2, when, rooms)
    assert [line for line in said if line.startswith("group ")] == ["group 1", "group 7"]
    assert said[-1] == (PAUSED_BEFORE if when == "before" else PAUSED_AFTER)

    async with opened(target, said) as store:
        for room in rooms:
            landed = room == rooms[0] or when == "after"  # the lone first commit, or the group's too
            assert await ledger_of(store, ids[room], [key_of(room)]) == (after if landed else before)[room], room
            await assert_snapshot_is_replay(store, ids[room])
        retry = referee(store, AT_TURN_END)
        await grow(retry, rooms)
        assert isinstance(retry.roller, ForcedRoller) and retry.roller.used == (7 if when == "before" else 0)
        for room in rooms:
            assert await ledger_of(store, ids[room], [key_of(room)]) == after[room], room
            await assert_snapshot_is_replay(store, ids[room])


# --- a clock rollover ---------------------------------------------------------------------------------------------


def check_rolled(old: dict[str, Any], new: dict[str, Any], index: int, ended: list[int]) -> None:
    """A game the rollover caught up: its log as before with one clock action added that ends its due turns (each
    once), nothing else changed but its state's turn and actions and its next due time."""
    assert ended == rollover_ends(index)
    assert new["actions"] == [*old["actions"], (CLOCK_ACTOR, "clock", ROLLOVER_NOW.isoformat(), False)]
    assert new["events"][:len(old["events"])] == old["events"]
    assert {action for action, _ in new["events"][len(old["events"]):]} == {len(old["actions"])}
    assert new["rolls"] == old["rolls"] and new["keys"] == old["keys"]
    assert new["state"]["game"]["turn"] == 1 + len(ended)
    assert all(not nation["actions_used"] for nation in new["state"]["nations"])
    assert new["next_due"] == rollover_start(index) + timedelta(hours=rollover_turns(index) * (len(ended) + 1))


@pytest.mark.parametrize("when", ["before", "after"])
async def test_a_rollover_killed_between_its_batches_leaves_each_game_rolled_or_untouched(target, when):
    """650 games due (every 10th ends two turns: the engine's full catch-up; the others one: the quick one), caught up
    200 to a transaction; killed just before the third batch's COMMIT, or just after it before it is answered. Each
    game is then either untouched or rolled whole; the next catch-up rolls exactly the untouched ones, and every turn
    has ended once; every game's log replays to its state."""
    count = 3 * BATCH + BATCH // 4
    async with opened(target) as store:
        await unsynced(store)
        numbers = await rollover_games(referee(store, T0), count)
        assert len(await store.due(ROLLOVER_NOW)) == count
        before = {game_id: await ledger_of(store, game_id) for game_id in numbers}
    said = await killed(target, "rollover", ROLLOVER_NOW, 3, when)
    batches = [json.loads(line.removeprefix("batch ")) for line in said if line.startswith("batch ")]
    assert [len(batch) for batch in batches] == [BATCH, BATCH]  # two answered; the third stopped at its COMMIT
    assert said[-1] == (PAUSED_BEFORE if when == "before" else PAUSED_AFTER)
    reported = set(itertools.chain(*batches))

    async with opened(target, said) as store:
        rolled, untouched = set(), set()
        for game_id, index in numbers.items():
            found = await ledger_of(store, game_id)
            if found == before[game_id]:
                untouched.add(game_id)
            else:
                check_rolled(before[game_id], found, index, await turns_ended(store, game_id))
                rolled.add(game_id)
            await assert_snapshot_is_replay(store, game_id)
        if when == "before":
            assert rolled == reported
        else:  # the third batch committed too, unanswered
            assert rolled > reported and len(rolled) == 3 * BATCH
        assert len(untouched) == count - len(rolled)

        caught = await referee(store, ROLLOVER_NOW).catch_up_due(batch=BATCH)
        assert set(caught) == untouched
        assert await store.due(ROLLOVER_NOW) == []
        for game_id, index in numbers.items():
            found = await ledger_of(store, game_id)
            check_rolled(before[game_id], found, index, await turns_ended(store, game_id))
            await assert_snapshot_is_replay(store, game_id)
