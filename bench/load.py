"""Persisted actions a second under load (issue 21): `in_flight` commands at once through `Referee.act`, each a
different game's, so the store's group commit takes the ones that arrive during a commit into the next
transaction; beside raw single-row commits of SQLite with the same settings, one after another, in the same run.

    python -m bench.load [--in-flight 50] [--seconds 3] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.build import PRESETS, T0, build_store, grow_or_grant


async def measure(in_flight: int, seconds: float, rounds: int) -> dict[str, Any]:
    """Medians of `rounds`: actions/s with `in_flight` commands at once, actions/s one after another, raw commits/s,
    and the group sizes the store committed."""
    from data.store import Store
    from engine.dice import RandomRoller
    from engine.errors import RefereeError
    from service.referee import Referee

    folder = Path(tempfile.mkdtemp(prefix="bench-load-"))
    try:
        players = [f"p{i}" for i in range(len(PRESETS))]
        channels = [f"load{n}" for n in range(in_flight)]
        await build_store(folder / "referee.db", channels, None, "gm", players)
        store = await Store.open(folder / "referee.db")
        sizes: list[int] = []
        commit_group = store._commit_group

        async def counted(group: Any) -> None:
            sizes.append(len(group))
            await commit_group(group)

        store._commit_group = counted  # type: ignore[method-assign]
        raw = sqlite3.connect(folder / "raw.db", isolation_level=None)
        try:
            referee = Referee(store, roller=RandomRoller(random.Random(2)), clock=lambda: T0 + timedelta(hours=1))
            state = await referee.state(channels[0])
            nations = [state.nation_of(player).name for player in players]
            journal = str((await store._fetchall("PRAGMA journal_mode"))[0][0])
            synchronous = int((await store._fetchall("PRAGMA synchronous"))[0][0])

            async def player(channel: str, until: float, counts: list[int]) -> None:
                # a player grows its economy, then the GM gives that action back: every action is accepted
                i = 0
                while time.perf_counter() < until:
                    try:
                        await grow_or_grant(referee, channel, i, players, nations)
                        counts[0] += 1
                    except RefereeError:
                        counts[1] += 1
                    i += 1

            async def round_of(parallel: int) -> float:
                counts = [0, 0]
                began = time.perf_counter()
                await asyncio.gather(*(player(c, began + seconds, counts) for c in channels[:parallel]))
                return counts[0] / (time.perf_counter() - began)

            raw.execute(f"PRAGMA journal_mode = {journal}")
            raw.execute(f"PRAGMA synchronous = {synchronous}")
            raw.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, data TEXT NOT NULL)")
            payload = json.dumps({"kind": "EconomyGrown", "nation": "Gracchan Republic", "roll": list(range(20))})

            def raw_round() -> float:
                done, began = 0, time.perf_counter()
                while time.perf_counter() < began + seconds:
                    raw.execute("BEGIN IMMEDIATE")
                    raw.execute("INSERT INTO rows (data) VALUES (?)", (payload,))
                    raw.execute("COMMIT")
                    done += 1
                return done / (time.perf_counter() - began)

            loaded, single, raws = [], [], []
            for _ in range(rounds):
                sizes.clear()
                loaded.append(await round_of(in_flight))
                grouped = list(sizes)
                single.append(await round_of(1))
                raws.append(raw_round())
        finally:
            raw.close()
            await store.close()
        return {"loaded": statistics.median(loaded), "single": statistics.median(single),
                "raw": statistics.median(raws), "in_flight": in_flight, "journal": journal,
                "synchronous": synchronous, "mean_group": statistics.mean(grouped) if grouped else 0.0}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--in-flight", type=int, default=50, help="commands at once (default 50)")
    parser.add_argument("--seconds", type=float, default=3.0, help="each measurement's length (default 3 s)")
    parser.add_argument("--rounds", type=int, default=3, help="medians of so many rounds (default 3)")
    args = parser.parse_args(argv)
    if not 1 <= args.in_flight <= 1000 or not 0 < args.seconds <= 60 or not 1 <= args.rounds <= 20:
        parser.error("--in-flight 1..1000, --seconds up to 60, --rounds 1..20")
    found = asyncio.run(measure(args.in_flight, args.seconds, args.rounds))
    share = found["loaded"] / found["raw"]
    print(f"persisted actions under load ({found['in_flight']} commands in flight, journal {found['journal']}, "
          f"synchronous {found['synchronous']}):")
    print(f"  {found['loaded']:,.0f} actions/s = {share:.0%} of raw single-row commits ({found['raw']:,.0f}/s) "
          f"[goal >= 150%: {'met' if share >= 1.5 else 'NOT met'}]; mean group {found['mean_group']:.1f} commands")
    print(f"  one after another: {found['single']:,.0f} actions/s = {found['single'] / found['raw']:.0%} of raw")
    return 0


if __name__ == "__main__":
    sys.exit(main())
