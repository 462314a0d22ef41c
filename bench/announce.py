"""Exactly-once turn-end announcements (issue 33): many games sharing a turn end, rolled over and announced by the
Discord clock's own code (`cogs.clock.Clock`: its tick, its announcer, its leases and its outbox sweeps), each
announcement sent to a fake sender that counts it per game. Prints the duplicates (the goal: 0), the games never
announced (0) and the time to announce all.

    python -m bench.announce                      # SQLite, then PostgreSQL (a throwaway server), 5,000 games
    python -m bench.announce --url postgresql://… # an existing server instead (a fresh schema of its own)
    python -m bench.announce --sqlite-only --games 500

Rows: SQLite, two stores on one file (one clock: one process owns a SQLite file, but two bots may share it); and
PostgreSQL with one process, then with two whose clocks are `--skew` hours apart. Each "process" is a store of its
own (its connection and database thread) with its clock: every one ticks at once (the rollover: the games split
between them) and then sweeps the outbox every quarter lease, as the bot's outbox job does.

Time is scaled down so that announcing lasts many leases, as 5,000 games at Discord's 40 messages a second (125
s) outlast the 2-minute lease: the lease (and a new announcement's grace) is `--lease` seconds, renewed and swept
every quarter of it, and the announcer paces `--per-second` messages a second. On PostgreSQL the lease runs by the
server's clock (its column default is set to the scaled grace in the bench's schema).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests" / "support") not in sys.path:
    sys.path.append(str(ROOT / "tests" / "support"))  # tests/support/pgserver.py: the throwaway server

from bench.build import GUILD_ID, PRESETS, T0, TURN_HOURS, build_store, play_template, postgres_server  # noqa: E402
from bench.postgres import drop_schema, with_schema  # noqa: E402
from cogs.clock import Clock  # noqa: E402
from service.reports import Report  # noqa: E402

PLAYERS = [f"p{i}" for i in range(len(PRESETS))]


class CountingClock(Clock):
    """The Discord clock with a fake sender: an announcement counts for its game (the messages themselves are not
    built); the rest of a follow-up (status, reminders) is left out."""

    def __init__(self, bot: Any, counts: Counter[int], firsts: dict[int, float]) -> None:
        super().__init__(bot)
        self.counts, self.firsts = counts, firsts
        self.sent = 0

    async def say(self, report: Report) -> None:
        self.counts[report.game_id] += 1
        self.sent += 1
        self.firsts.setdefault(report.game_id, time.perf_counter())

    async def after_change(self, report: Report) -> None:
        pass


@dataclass
class Process:
    """One referee process of a row: its store, its clock, its outbox sweeps and what they took over."""

    store: Any
    clock: CountingClock
    taken: int = 0  # announcements its sweeps took from the outbox (another's, or nobody's)
    sweeps: asyncio.Task[None] | None = field(default=None)


@contextlib.contextmanager
def scaled(lease: float) -> Iterator[None]:
    """The lease, a new announcement's grace and the renewals scaled down to `lease` seconds (restored after)."""
    import cogs.clock as clock_module
    import data.store.frontend as frontend
    import data.store.games as games_module

    saved = (frontend.ANNOUNCE_LEASE, getattr(games_module, "ANNOUNCE_GRACE", None), clock_module.RENEW_EVERY)
    frontend.ANNOUNCE_LEASE = timedelta(seconds=lease)
    if saved[1] is not None:
        games_module.ANNOUNCE_GRACE = timedelta(seconds=lease)  # type: ignore[attr-defined]
    clock_module.RENEW_EVERY = timedelta(seconds=lease / 4)
    try:
        yield
    finally:
        frontend.ANNOUNCE_LEASE = saved[0]
        if saved[1] is not None:
            games_module.ANNOUNCE_GRACE = saved[1]  # type: ignore[attr-defined]
        clock_module.RENEW_EVERY = saved[2]


def process_clock(start: datetime, began: float) -> Callable[[], datetime]:
    """A process's clock: `start`, moving on with real time from `began`."""
    return lambda: start + timedelta(seconds=time.perf_counter() - began)


async def open_process(target: str, clock: Callable[[], datetime], counts: Counter[int], firsts: dict[int, float],
                       per_second: float, leases: bool = True) -> Process:
    """A process of a row; without `leases`, as before issue 33: nothing renewed, nothing checked before sending."""
    from data.store import Store
    from engine.dice import RandomRoller
    from service.referee import Referee

    store = await Store.open(target)
    referee = Referee(store, roller=RandomRoller(random.Random(3)), clock=clock)
    bot = SimpleNamespace(store=store, referee=referee, settings=SimpleNamespace(health_file=None),
                          owns=lambda guild_id: guild_id is not None, is_ready=lambda: True)
    counting = CountingClock(cast(Any, bot), counts, firsts)
    counting.announcer.interval = 1 / per_second
    process = Process(store, counting)
    take = store.take_unannounced

    async def counted(now: datetime, limit: int = 500) -> Any:
        taken = await take(now, limit)
        process.taken += len(taken)
        return taken

    store.take_unannounced = counted
    if not leases:
        async def held(action_ids: Any, now: datetime) -> list[int]:
            return list(action_ids)

        store.hold_announcements = held
    return process


async def sweeping(process: Process, every: float) -> None:
    """The outbox job: a sweep every `every` seconds (its first after one interval, as the scheduler's)."""
    while True:
        await asyncio.sleep(every)
        await process.clock.sweep_job()


async def outbox_rows(store: Any) -> int:
    return int((await store._fetchall("SELECT COUNT(*) FROM announcements"))[0][0])


async def announce_row(targets: list[str], skews: list[timedelta], games: int, per_second: float,
                       lease: float, leases: bool = True) -> dict[str, Any]:
    """One row: a process per target (its clock skewed by as much), all ticking at once, sweeping every quarter
    lease, until every game is announced and nothing is left to send."""
    counts: Counter[int] = Counter()
    firsts: dict[int, float] = {}
    began = time.perf_counter()
    start = T0 + timedelta(hours=TURN_HOURS, seconds=1)
    processes = [await open_process(target, process_clock(start + skew, began), counts, firsts, per_second, leases)
                 for target, skew in zip(targets, skews, strict=True)]
    try:
        began = time.perf_counter()
        for process in processes:
            process.clock._renewed = None
        for process in processes:
            process.sweeps = asyncio.create_task(sweeping(process, lease / 4))
        await asyncio.gather(*(process.clock.tick() for process in processes))
        ticked = time.perf_counter() - began
        deadline = began + games / per_second * 4 + 120
        while time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
            idle = all(not len(p.clock.announcer) and p.clock.announcer.sending is None for p in processes)
            if idle and len(counts) >= games and not await outbox_rows(processes[0].store):
                break
        last = max(firsts.values(), default=began)
        left = await outbox_rows(processes[0].store)
    finally:
        for process in processes:
            if process.sweeps is not None:
                process.sweeps.cancel()
            process.clock.announcer.close()
            process.clock.scheduler.remove_all_jobs()
            await process.store.close()
    return {"games": games, "sent": sum(counts.values()), "duplicates": sum(n - 1 for n in counts.values() if n > 1),
            "missing": games - len(counts), "seconds": last - began, "rollover": ticked, "left": left,
            "taken": [p.taken for p in processes], "by": [p.clock.sent for p in processes], "pace": games / per_second,
            "lease": lease}


def line(name: str, row: dict[str, Any]) -> str:
    by, taken = ("/".join(f"{n:,}" for n in row[key]) for key in ("by", "taken"))
    return (f"{name:<38} {row['games']:>6,} {row['sent']:>6,} {row['duplicates']:>10,} {row['missing']:>7,}  "
            f"{row['seconds']:>6.1f} s  ({row['rollover']:.1f} s rollover; the pace alone {row['pace']:.1f} s; "
            f"{row['seconds'] / row['lease']:.0f} leases); sent by each process {by}, taken by its sweeps {taken}")


async def pg_games(url: str, games: int, lease: float) -> None:
    """The bench's games on PostgreSQL: one played through the referee, its `games` row cloned in SQL (the
    catch-up reads a game's snapshot only), and the scaled grace as the outbox's default lease."""
    from data.store import Store

    await play_template(cast(Path, url), f"discord:{GUILD_ID}:0", GUILD_ID, "gm", PLAYERS)
    store = await Store.open(url)
    try:
        def clone(con: Any) -> None:
            names = [r[0] for r in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name = 'games' ORDER BY ordinal_position") if r[0] not in ("id", "channel")]
            listed = ", ".join(names)
            con.execute(f"INSERT INTO games (channel, {listed}) SELECT 'discord:{GUILD_ID}:' || i, {listed}"
                        f" FROM games CROSS JOIN generate_series(1, ?) AS i", (games - 1,))
            con.execute(f"ALTER TABLE announcements ALTER COLUMN lease_until SET DEFAULT now() + {lease} * interval"
                        " '1 second'")

        await store._transaction(clone)
    finally:
        await store.close()


async def report(args: argparse.Namespace) -> None:
    def out(text: str) -> None:
        print(text, flush=True)

    logging.getLogger("referee.clock").setLevel(logging.ERROR)  # (a sweep that takes some says so: counted here)
    out(f"Exactly-once announcements (issue 33): {args.games:,} games sharing a turn end, rolled over and announced "
        f"through cogs.clock.Clock with a counting sender; {args.per_second:g} messages/s, lease {args.lease:g} s "
        f"(production: 2 min; renewed and swept every {args.lease / 4:g} s), {os.cpu_count()} CPUs")
    out(f"{'row':<38} {'games':>6} {'sent':>6} {'duplicates':>10} {'missing':>7}  time to announce all")
    skew = timedelta(hours=args.skew)
    rows = [(True, "SQLite, 2 stores on one file")] + ([(False, "  as before issue 33 (no leases)")]
                                                        if args.before else [])
    with scaled(args.lease):
        for leases, name in rows:
            folder = Path(tempfile.mkdtemp(prefix="bench-announce-"))
            try:
                path = folder / "referee.db"
                await build_store(path, [f"discord:{GUILD_ID}:{i}" for i in range(args.games)], GUILD_ID, "gm",
                                  PLAYERS)
                out(line(name, await announce_row([str(path)] * 2, [timedelta(0)] * 2, args.games, args.per_second,
                                                  args.lease, leases)))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
        args.url, server, reason = postgres_server(args.url, "--sqlite-only" if args.sqlite_only else None)
        if reason is not None:
            out(f"PostgreSQL rows skipped: {reason}")
            return
        apart = f"PostgreSQL, 2 processes {args.skew:g} h apart"
        pg_rows = [([timedelta(0)], True, "PostgreSQL, 1 process"), ([timedelta(0), skew], True, apart)]
        pg_rows += [([timedelta(0), skew], False, "  as before issue 33 (no leases)")] if args.before else []
        try:
            for number, (skews, leases, name) in enumerate(pg_rows):
                url = with_schema(args.url, f"bench_announce_{os.getpid()}_{number}")
                try:
                    await pg_games(url, args.games, args.lease)
                    out(line(name, await announce_row([url] * len(skews), skews, args.games, args.per_second,
                                                      args.lease, leases)))
                finally:
                    if server is None:
                        drop_schema(url)
        finally:
            if server is not None:
                server.stop()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.announce", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5000, help="games sharing the turn end (default 5,000)")
    parser.add_argument("--per-second", type=float, default=400.0,
                        help="the announcer's pace, messages a second (default 400; the bot's is 40)")
    parser.add_argument("--lease", type=float, default=4.0, help="the scaled lease, seconds (default 4)")
    parser.add_argument("--skew", type=float, default=3.0, help="hours between the two processes' clocks (3)")
    parser.add_argument("--url", help="an existing PostgreSQL server (default: start a throwaway one)")
    parser.add_argument("--sqlite-only", action="store_true", help="the SQLite rows alone")
    parser.add_argument("--no-before", dest="before", action="store_false",
                        help="without the rows run as before issue 33 (no leases: the duplicates it fixed)")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 100_000 or not 1 <= args.per_second <= 100_000 or not 0.2 <= args.lease <= 600:
        parser.error("--games is 1 to 100,000, --per-second 1 to 100,000, --lease 0.2 to 600")
    return args


def main(argv: list[str] | None = None) -> int:
    asyncio.run(report(parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
