"""The roll ledger's export (issue 19): /log export of a 100,000-roll ledger as CSV and as JSON, through the bot's
own code path (`ledger.write_ledger` into a temporary file, as cogs/log.py does), with its time, its memory, the
output's size, and how long it holds the event loop.

    python -m bench.export [--rolls N] [--no-trace]   # default 100000 rolls; about 1 min with tracemalloc
    python -m bench                                   # runs `python -m bench.export --no-trace` (about 20 s)

The ledger is built fast: one five-nation Nations game is played through the referee (a few hundred commands,
which roll real dice, and a few free /roll rolls), then its rolls rows are copied with SQL (turn and time moved
on a copy at a time) until the game's ledger holds N rolls.

Each format is exported twice: once plain (wall time, event-loop lag, a store read done meanwhile, peak RSS) and
once under tracemalloc (the peak of Python allocations; tracemalloc slows Python down threefold, so no time is
taken from that run, and `--no-trace` leaves it out).
- event-loop lag: a task awaits `asyncio.sleep(0.001)` in a loop during the export; its lag is how much later
  than 1 ms each sleep returned.
- peak RSS: the resident set's high-water mark (`VmHWM` of /proc/self/status, reset through
  /proc/self/clear_refs just before the export) less the resident set (`VmRSS`) just before it.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.build import GUILD_ID, T0, peak_rss, percentile, play_template, reset_peak

CHANNEL = "export"
GM = "gm"
PLAYERS = [f"p{i}" for i in range(5)]
MIB = 1024 * 1024
SLEEP = 0.001


def _rss() -> int:
    """Bytes: the resident set now (Linux), else 0."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


# --- building the ledger ----------------------------------------------------------------------------------


async def play_rolls(path: Path, commands: int = 300) -> int:
    """The template game: played through the referee (random peace actions, 6 hours passing every 10th one,
    a free /roll every 20th); returns its id."""
    from data.store import Store
    from engine.dice import RandomRoller
    from engine.errors import RefereeError
    from engine.nations.peace import Encourage, GrowMilitary, PropagandaAttack, RaiseStability
    from service.referee import Referee

    await play_template(path, CHANNEL, GUILD_ID, GM, PLAYERS)
    store = await Store.open(path)
    try:
        now = [T0]
        referee = Referee(store, roller=RandomRoller(random.Random(7)), clock=lambda: now[0])
        rng = random.Random(8)
        for i in range(commands):
            state = await referee.state(CHANNEL)
            me = rng.choice(PLAYERS)
            others = [n.name for n in state.nations.values() if n.player != me and not n.eliminated]
            pick = rng.randrange(4)
            action = (PropagandaAttack(rng.choice(others)) if pick == 0 and others
                      else Encourage(rng.choice(["workers", "patriotism", "morale"])) if pick == 1
                      else GrowMilitary() if pick == 2 else RaiseStability())
            try:
                await referee.act(CHANNEL, me, action, "bench")
            except RefereeError:
                pass
            if i % 20 == 19:
                await referee.free_roll(CHANNEL, me, rng.choice(["1d20", "2d6+1", "4d6kh3", "1d100"]))
            if i % 10 == 9:
                now[0] += timedelta(hours=6)
        return await store.live_game(CHANNEL)
    finally:
        await store.close()


def grow_ledger(path: Path, game_id: int, rolls: int) -> int:
    """Copy the game's live rolls (turn and time moved on by the template's span each copy) until it has
    `rolls` of them, with executemany in one transaction; returns how many there are."""
    con = sqlite3.connect(path, isolation_level=None)
    try:
        names = [row[1] for row in con.execute("PRAGMA table_info(rolls)") if row[1] not in ("id", "game_id")]
        template = con.execute(f"SELECT {', '.join(names)} FROM rolls WHERE game_id = ? AND undone = 0 ORDER BY id",
                               (game_id,)).fetchall()
        if not template:
            raise SystemExit("the template game rolled no dice")
        turn_at, at_at = names.index("turn"), names.index("at")
        moments = [datetime.fromisoformat(r[at_at]) for r in template if r[at_at]]
        turns = max(r[turn_at] for r in template) - min(r[turn_at] for r in template) + 1
        span = max(moments) - min(moments) + timedelta(hours=6)

        def copies():
            made, copy = len(template), 1
            while made < rolls:
                for row in template[:rolls - made]:
                    row = list(row)
                    row[turn_at] += copy * turns
                    if row[at_at]:
                        row[at_at] = (datetime.fromisoformat(row[at_at]) + copy * span).isoformat()
                    yield (game_id, *row)
                made, copy = made + min(len(template), rolls - made), copy + 1

        con.execute("BEGIN IMMEDIATE")
        con.executemany(f"INSERT INTO rolls (game_id, {', '.join(names)}) VALUES (?{', ?' * len(names)})",
                        copies())
        con.execute("COMMIT")
        return con.execute("SELECT COUNT(*) FROM rolls WHERE game_id = ? AND undone = 0", (game_id,)).fetchone()[0]
    finally:
        con.close()


# --- measuring --------------------------------------------------------------------------------------------


async def lag_probe(stop: asyncio.Event, lags: list[float]) -> None:
    """Await 1 ms sleeps until `stop`, noting how much later than 1 ms each returned."""
    while not stop.is_set():
        began = time.perf_counter()
        await asyncio.sleep(SLEEP)
        lags.append(time.perf_counter() - began - SLEEP)


async def load_probe(store: Any, game_id: int, stop: asyncio.Event, took: list[float], every: float = 0.005) -> None:
    """`store.load` of the game every `every` seconds until `stop`, noting how long each took."""
    while not stop.is_set():
        began = time.perf_counter()
        await store.load(game_id)
        took.append(time.perf_counter() - began)
        await asyncio.sleep(every)


async def idle_figures(store: Any, game_id: int, seconds: float = 0.5) -> dict[str, list[float]]:
    """The lag and load probes with nothing else running: the reference."""
    stop, lags, loads = asyncio.Event(), [], []
    tasks = [asyncio.create_task(lag_probe(stop, lags)), asyncio.create_task(load_probe(store, game_id, stop, loads))]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks)
    return {"lags": lags, "loads": loads}


def count_output(fmt: str, handle: Any) -> int:
    """Rolls in the written export: CSV data rows (one a die: one a roll in Nations), JSON `rolls` items."""
    import orjson

    handle.seek(0)
    data = handle.read()
    if fmt == "json":
        return len(orjson.loads(data)["rolls"])
    return sum(1 for _ in csv.reader(io.StringIO(data.decode("utf-8-sig")))) - 1


async def export_plain(store: Any, game_id: int, fmt: str) -> dict[str, Any]:
    """One export into a temporary file, with the lag and load probes running; RSS before and peak during."""
    from service.ledger import write_ledger

    stop, lags, loads = asyncio.Event(), [], []
    with tempfile.TemporaryFile() as handle:
        window = reset_peak()
        before = _rss()
        tasks = [asyncio.create_task(lag_probe(stop, lags)),
                 asyncio.create_task(load_probe(store, game_id, stop, loads))]
        began = time.perf_counter()
        count = await write_ledger(store, game_id, fmt, handle)
        seconds = time.perf_counter() - began
        stop.set()
        await asyncio.gather(*tasks)
        peak = peak_rss()
        size = handle.tell()
        written = count_output(fmt, handle)
    return {"count": count, "written": written, "seconds": seconds, "size": size, "lags": lags, "loads": loads,
            "rss_before": before, "rss_peak": peak, "window": window}


async def export_traced(store: Any, game_id: int, fmt: str) -> int:
    """Bytes: the peak of Python allocations during one export, above what was allocated before it."""
    from service.ledger import write_ledger

    with tempfile.TemporaryFile() as handle:
        tracemalloc.start()
        try:
            base, _ = tracemalloc.get_traced_memory()
            await write_ledger(store, game_id, fmt, handle)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    return peak - base


async def read_all_at_once(store: Any, game_id: int, trace: bool = True) -> dict[str, Any]:
    """For contrast: the whole ledger in one `store.rolls` call (as /log fairness reads it), with the lag probe."""
    stop, lags = asyncio.Event(), []
    probe = asyncio.create_task(lag_probe(stop, lags))
    await asyncio.sleep(0.01)
    began = time.perf_counter()
    rolls = await store.rolls(game_id)
    seconds = time.perf_counter() - began
    stop.set()
    await probe
    count = len(rolls)
    del rolls
    if not trace:
        return {"count": count, "seconds": seconds, "lags": lags, "traced": None}
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        rolls = await store.rolls(game_id)
        _, peak = tracemalloc.get_traced_memory()
        del rolls
    finally:
        tracemalloc.stop()
    return {"count": count, "seconds": seconds, "lags": lags, "traced": peak - base}


# --- the benchmark ----------------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def lag_text(lags: list[float]) -> str:
    if not lags:
        return "no lag sample"
    return f"p99 {ms(percentile(lags, 0.99))}, max {ms(max(lags))} ({len(lags)} samples)"


def load_text(loads: list[float]) -> str:
    if not loads:
        return "no load"
    return (f"median {ms(statistics.median(loads))}, p99 {ms(percentile(loads, 0.99))}, max {ms(max(loads))} "
            f"({len(loads)} loads)")


async def run(rolls: int = 100_000, trace: bool = True, out: Any = print) -> None:
    from data.store import Store
    from service.ledger import EXPORT_CHUNK

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "export.db"
        began = time.perf_counter()
        game_id = await play_rolls(path)
        held = grow_ledger(path, game_id, rolls)
        built = time.perf_counter() - began
        out(f"ledger export (issue 19): one Nations game whose ledger holds {held:,} rolls, built in {built:.1f} s "
            f"(database {path.stat().st_size / MIB:.1f} MiB); chunks of {EXPORT_CHUNK:,} rolls")
        store = await Store.open(path)
        try:
            idle = await idle_figures(store, game_id)
            out(f"  idle reference: event-loop lag {lag_text(idle['lags'])}; store.load {load_text(idle['loads'])}")
            for fmt in ("csv", "json"):
                r = await export_plain(store, game_id, fmt)
                traced = await export_traced(store, game_id, fmt) if trace else None
                ok = r["count"] == r["written"] == held == rolls
                whole = "" if r["window"] else " (whole-process peak: VmHWM could not be reset)"
                out(f"  export {fmt}: {r['count']:,} rolls ({r['written']:,} in the file"
                    f"{'' if ok else f', expected {rolls:,} — MISMATCH'}) in {r['seconds']:.2f} s "
                    f"= {r['count'] / r['seconds']:,.0f} rolls/s; {r['size'] / MIB:.1f} MiB written")
                traced_text = "" if traced is None else f"tracemalloc peak +{traced / MIB:.1f} MiB; "
                out(f"    memory: {traced_text}peak RSS +"
                    f"{(r['rss_peak'] - r['rss_before']) / MIB:.1f} MiB "
                    f"({r['rss_before'] / MIB:.0f} → {r['rss_peak'] / MIB:.0f} MiB){whole}")
                worst = max(r["lags"]) if r["lags"] else float("inf")
                out(f"    event-loop lag during it: {lag_text(r['lags'])} (goal: max well under 100 ms) — "
                    f"{'met' if worst < 0.1 else 'missed'}")
                out(f"    store.load meanwhile (every 5 ms): {load_text(r['loads'])}")
            whole = await read_all_at_once(store, game_id, trace)
            traced_text = "" if whole["traced"] is None else f", tracemalloc peak +{whole['traced'] / MIB:.1f} MiB"
            out(f"  for contrast, the whole ledger in one store.rolls call (as /log fairness reads it): "
                f"{whole['count']:,} rolls in {whole['seconds']:.2f} s{traced_text}; event-loop lag "
                f"{lag_text(whole['lags'])}")
        finally:
            await store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.export", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rolls", type=int, default=100_000, help="rolls in the ledger (default 100000)")
    parser.add_argument("--no-trace", action="store_true", help="leave out the tracemalloc runs (3× faster)")
    args = parser.parse_args(argv)
    asyncio.run(run(args.rolls, not args.no_trace, out=lambda line: print(line, flush=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
