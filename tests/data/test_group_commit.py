"""Group commit (issue 21): commands that arrive while a commit is in flight share the next transaction, each
still all-or-nothing — a refused or failing command is rolled back to its own savepoint and answered alone,
the others commit; a fault of the database fails the whole group; a process killed mid-group-commit leaves
none of the group behind. On both backends (`pytest --postgres` runs this file on PostgreSQL)."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest
from storehelpers import REPO, RULES, FakeClock, assert_every_game_is_its_replay, assert_snapshot_is_replay, scalar

from data.store import Store, StoreUnavailable
from engine.dice import ForcedRoller
from engine.errors import RefereeError
from engine.nations import gm
from engine.nations import peace as nat
from service.referee import Referee

CHANNELS = [f"room{n}" for n in range(12)]
_schemas = itertools.count(1)


@pytest.fixture
async def ref(store):
    return Referee(store, RULES, ForcedRoller(), FakeClock())


async def two_nations(ref: Referee, channel: str) -> int:
    report = await ref.start_game(channel, "gm")
    await ref.act(channel, "gm", nat.ClaimPreset("Gracchan Republic", "alice"), '/nation claim "Gracchan Republic"')
    await ref.act(channel, "gm", nat.ClaimPreset("Charon", "bob"), "/nation claim Charon")
    return report.game_id


def counting_groups(store: Store) -> list[int]:
    """The size of each group the store commits from now on."""
    sizes: list[int] = []
    commit_group = store._commit_group

    async def counted(group):
        sizes.append(len(group))
        return await commit_group(group)

    store._commit_group = counted  # type: ignore[method-assign]
    return sizes


def raise_stat(channel: str) -> tuple[str, object, str]:
    return channel, gm.SetStat("Charon", "land", 1, relative=True), "/gm set land +1"


async def test_commands_that_arrive_together_share_one_commit_and_each_applies(ref, store):
    games = [await two_nations(ref, channel) for channel in CHANNELS]
    sizes = counting_groups(store)
    reports = await asyncio.gather(*(ref.act(c, "gm", a, t) for c, a, t in map(raise_stat, CHANNELS)))
    assert [r.game_id for r in reports] == games
    assert sum(sizes) == len(CHANNELS) and len(sizes) < len(CHANNELS)  # grouped: fewer commits than commands
    assert sizes[0] == 1 and max(sizes) == len(CHANNELS) - 1  # the first alone, the rest while it commits
    for game_id in games:
        assert (await store.load(game_id)).nations["Charon"].land == 21
        await assert_snapshot_is_replay(store, game_id)


async def test_a_refused_command_inside_a_group_leaves_the_others_applied(ref, store):
    games = [await two_nations(ref, channel) for channel in CHANNELS]
    before = await scalar(store, "SELECT COUNT(*) FROM actions")
    sizes = counting_groups(store)
    refused = (CHANNELS[5], nat.ClaimPreset("Charon", "carol"), "/nation claim Charon")  # taken: refused
    commands = [raise_stat(c) if c != CHANNELS[5] else refused for c in CHANNELS]
    outcomes = await asyncio.gather(*(ref.act(c, "gm", a, t) for c, a, t in commands), return_exceptions=True)
    assert max(sizes) > 1 and sum(sizes) == len(CHANNELS)
    [error] = [o for o in outcomes if isinstance(o, BaseException)]
    assert outcomes.index(error) == 5 and isinstance(error, RefereeError) and "Charon" in str(error)
    assert await scalar(store, "SELECT COUNT(*) FROM actions") == before + len(CHANNELS) - 1
    for channel, game_id in zip(CHANNELS, games, strict=True):
        land = (await store.load(game_id)).nations["Charon"].land
        assert land == (20 if channel == CHANNELS[5] else 21)
        await assert_snapshot_is_replay(store, game_id)


async def test_a_command_that_fails_half_written_inside_a_group_is_rolled_back_alone(ref, store, monkeypatch):
    """Its action and events written, then its snapshot write fails: its savepoint takes all of it back."""
    games = [await two_nations(ref, channel) for channel in CHANNELS]
    before = await scalar(store, "SELECT COUNT(*) FROM actions")
    write_snapshot = Store._write_snapshot

    def failing(self, con, game_id, state):
        if game_id == games[7]:
            raise RuntimeError("the snapshot of one game cannot be written")
        return write_snapshot(self, con, game_id, state)

    monkeypatch.setattr(Store, "_write_snapshot", failing)
    sizes = counting_groups(store)
    outcomes = await asyncio.gather(*(ref.act(c, "gm", a, t) for c, a, t in map(raise_stat, CHANNELS)),
                                    return_exceptions=True)
    assert max(sizes) > 1
    assert [type(o).__name__ for o in outcomes if isinstance(o, BaseException)] == ["RuntimeError"]
    assert isinstance(outcomes[7], RuntimeError)
    assert await scalar(store, "SELECT COUNT(*) FROM actions") == before + len(CHANNELS) - 1
    assert await scalar(store, "SELECT COUNT(*) FROM actions WHERE game_id = ?", games[7]) == 3  # start, 2 claims
    monkeypatch.undo()
    for game_id in games:
        await assert_snapshot_is_replay(store, game_id)


@pytest.mark.sqlite_only  # a SQLite result code makes the fault
async def test_a_fault_of_the_database_fails_the_whole_group_and_writes_nothing(ref, store, monkeypatch):
    games = [await two_nations(ref, channel) for channel in CHANNELS]
    before = await scalar(store, "SELECT COUNT(*) FROM actions")
    write_snapshot = Store._write_snapshot

    def full_disk(self, con, game_id, state):
        if game_id == games[-1]:
            err = sqlite3.OperationalError("database or disk is full")
            err.sqlite_errorcode = 13  # SQLITE_FULL
            raise err
        return write_snapshot(self, con, game_id, state)

    monkeypatch.setattr(Store, "_write_snapshot", full_disk)
    sizes = counting_groups(store)
    outcomes = await asyncio.gather(*(ref.act(c, "gm", a, t) for c, a, t in map(raise_stat, CHANNELS[1:])),
                                    return_exceptions=True)
    assert sizes == [1, len(CHANNELS) - 2] or sizes == [len(CHANNELS) - 1]
    # the last group held the failing one: each of its commands refused in one line, none written
    last = outcomes[-sizes[-1]:]
    assert all(isinstance(o, StoreUnavailable) and "the disk is full" in str(o) for o in last)
    assert await scalar(store, "SELECT COUNT(*) FROM actions") == before + len(outcomes) - len(last)
    monkeypatch.undo()
    for game_id in games:
        await assert_snapshot_is_replay(store, game_id)


@pytest.mark.postgres_only
async def test_two_processes_groups_over_the_same_games_never_deadlock(request):
    """Two stores (two connections: two processes) commit groups over the same games, arriving in opposite
    orders: each group locks its games in id order first, so neither waits for the other in a circle."""
    url = f"{request.config.pg_url}?schema=groups{next(_schemas)}_{os.getpid()}"  # type: ignore[attr-defined]
    stores = [await Store.open(url), await Store.open(url)]
    try:
        refs = [Referee(s, RULES, ForcedRoller(), FakeClock()) for s in stores]
        games = [await two_nations(refs[0], channel) for channel in CHANNELS[:6]]
        sizes = [counting_groups(s) for s in stores]
        for _ in range(5):
            orders = (CHANNELS[:6], CHANNELS[:6][::-1])
            await asyncio.gather(*(r.act(c, "gm", a, t) for r, order in zip(refs, orders, strict=True)
                                   for c, a, t in map(raise_stat, order)))
        assert max(max(s) for s in sizes) > 1  # they were grouped
        for game_id in games:
            assert (await stores[0].load(game_id)).nations["Charon"].land == 30  # 2 stores × 5 rounds, once each
            await assert_snapshot_is_replay(stores[0], game_id)
    finally:
        for store in stores:
            await store.close()


# --- a process killed in the middle of a group's commit ----------------------------------------------------

GROUP_SCRIPT = textwrap.dedent("""
    import asyncio, os, sys
    sys.path[:0] = [sys.argv[1], os.path.join(sys.argv[1], "tests", "support")]
    from storehelpers import RULES, FakeClock
    from data.store import PAUSE_BEFORE_COMMIT, Store
    from engine.dice import ForcedRoller
    from engine.nations import gm
    from engine.nations import peace as nat
    from service.referee import Referee

    async def main(target, rooms):
        store = await Store.open(target)
        ref = Referee(store, RULES, ForcedRoller(), FakeClock())
        for room in rooms:
            await ref.start_game(room, "gm")
            await ref.act(room, "gm", nat.ClaimPreset("Charon", "bob"), "/nation claim Charon")
        print("set up", flush=True)
        await ref.act(rooms[0], "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set land +1")
        os.environ[PAUSE_BEFORE_COMMIT] = "30"  # every commit from now on pauses: the parent kills us there
        await asyncio.gather(*(ref.act(room, "gm", gm.SetStat("Charon", "land", 1, relative=True), "/gm set land +1")
                               for room in rooms))
        print("committed", flush=True)

    asyncio.run(main(sys.argv[2], sys.argv[3].split(",")))
""")


@pytest.fixture
def crash_target(request, tmp_path) -> str:
    url = request.config.pg_url  # type: ignore[attr-defined]
    return f"{url}?schema=group{next(_schemas)}_{os.getpid()}" if url else str(tmp_path / "referee.db")


def test_a_process_killed_mid_group_commit_leaves_none_of_the_group(crash_target):
    rooms = [f"room{n}" for n in range(8)]
    process = subprocess.Popen([sys.executable, "-c", GROUP_SCRIPT, str(REPO), crash_target, ",".join(rooms)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        lines = []
        for line in process.stdout:  # type: ignore[union-attr]
            lines.append(line.strip())
            if line.strip() == "store: pausing before commit":
                break
        assert lines[:2] == ["set up", "store: pausing before commit"], (lines, process.stderr.read())
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    # the first command committed alone before the pause was set; the group of 8 was in its commit: none is left
    games = asyncio.run(after_the_crash(crash_target))
    assert games == list(range(1, 9))


async def after_the_crash(target: str) -> list[int]:
    store = await Store.open(target)
    try:
        [land] = [state.nations["Charon"].land for state in [await store.load(1)]]
        assert land == 21  # the command before the group
        for game_id in range(2, 9):
            assert (await store.load(game_id)).nations["Charon"].land == 20  # the group's: none of them
        assert await scalar(store, "SELECT COUNT(*) FROM actions") == 8 * 2 + 1
    finally:
        await store.close()
    return await assert_every_game_is_its_replay(target)
