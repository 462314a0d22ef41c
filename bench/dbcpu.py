"""Database-thread CPU per `/economy grow` (issue 35): a five-nation Nations game on a temporary SQLite store, played
through `service.referee.Referee` with forced dice; each `/economy grow` (with an idempotency key, as Discord sends
one) is one job of the database thread, timed there with `time.thread_time()` (BEGIN, the work, COMMIT) and profiled
there with cProfile. The GM gives the action back after each grow, and sets ECONOMY back when it nears the land:
those commands are not counted.

    python -m bench.dbcpu [--grows 2000] [--top 10]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.build import PRESETS, T0

PLAYERS = [f"p{i}" for i in range(len(PRESETS))]


class ThreadMeter:
    """Times (and, while `measuring`, profiles) each job of the store's database thread, inside that thread."""

    def __init__(self) -> None:
        self.measuring = False
        self.profile = cProfile.Profile(time.thread_time_ns, 1e-9)  # CPU, not the wait for fsync
        self.cpu_ns: list[int] = []

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(con: Any, *args: Any) -> Any:
            if not self.measuring:
                return function(con, *args)
            start = time.thread_time_ns()
            try:
                return function(con, *args)
            finally:
                self.cpu_ns.append(time.thread_time_ns() - start)

        return timed

    def wrap_profiled(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def profiled(con: Any, *args: Any) -> Any:
            if not self.measuring:
                return function(con, *args)
            self.profile.enable()  # (cProfile profiles the thread that enables it: this one)
            try:
                return function(con, *args)
            finally:
                self.profile.disable()

        return profiled


async def run(grows: int, profiled: bool) -> ThreadMeter:
    from data.store import Store
    from data.store.connection import Connection
    from engine.dice import ForcedRoller
    from engine.nations.gm import GrantAction, SetStat
    from engine.nations.peace import ClaimPreset, GrowEconomy
    from service.referee import Referee

    meter = ThreadMeter()
    original = Connection._in_thread

    async def in_thread(self: Any, function: Callable[..., Any], *args: Any) -> Any:
        wrapped = meter.wrap_profiled(function) if profiled else meter.wrap(function)
        return await original(self, wrapped, *args)

    folder = Path(tempfile.mkdtemp(prefix="bench-dbcpu-"))
    Connection._in_thread = in_thread  # type: ignore[method-assign]
    try:
        store = await Store.open(folder / "referee.db")
        try:
            roller = ForcedRoller()
            referee = Referee(store, roller=roller, clock=lambda: T0)
            await referee.start_game("bench", "gm", turn_hours=12.0, guild_id=4242)
            nations = []
            for player, preset in zip(PLAYERS, PRESETS, strict=True):
                name = "Merewyn" if preset == "11" else None
                report = await referee.act("bench", "gm", ClaimPreset(preset, player, name), "/nation claim")
                nations.append(report.state.nation_of(player).name)
                await referee.act("bench", "gm", SetStat(nations[-1], "land", 40), "/gm set")
            for i in range(grows + 50):  # the first 50: warming up
                who = i % len(PLAYERS)
                roller.push(10 if i % 2 else 1)  # a success, then a failure
                meter.measuring = i >= 50
                report = await referee.act("bench", PLAYERS[who], GrowEconomy(), "/economy grow", key=f"k{i}")
                meter.measuring = False
                await referee.act("bench", "gm", GrantAction(nations[who], "economy"), "/gm action grant")
                nation = report.state.nations[nations[who]]
                if nation.economy + nation.military >= nation.land - 1:
                    await referee.act("bench", "gm", SetStat(nations[who], "economy", 3), "/gm set")
        finally:
            await store.close()
    finally:
        Connection._in_thread = original  # type: ignore[method-assign]
        shutil.rmtree(folder, ignore_errors=True)
    return meter


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grows", type=int, default=2000, help="/economy grow commands timed (default 2000)")
    parser.add_argument("--top", type=int, default=10, help="profile lines shown (default 10)")
    args = parser.parse_args(argv)
    timed = asyncio.run(run(max(1, args.grows), profiled=False))
    profiled = asyncio.run(run(max(1, min(args.grows, 1000)), profiled=True))
    per = [ns / 1000 for ns in timed.cpu_ns]
    text = io.StringIO()
    stats = pstats.Stats(profiled.profile, stream=text)
    stats.sort_stats("tottime").print_stats(args.top)
    print(f"database-thread CPU per /economy grow: {statistics.median(per):.0f} µs (the median of {len(per)}; mean "
          f"{statistics.fmean(per):.0f} µs; profile top {args.top} by own CPU time in the database thread, "
          f"{args.grows if args.grows <= 1000 else 1000} commands profiled):")
    lines = text.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
    print("\n".join(lines[start:]).rstrip())


if __name__ == "__main__":
    main()
