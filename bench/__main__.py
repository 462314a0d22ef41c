"""How fast the referee is: engine actions, replay, store commits, memory, the roll ledger's export, charts, the
page server under attack. Prints figures only.

    python -m bench
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

from data import rules_for
from data.store import Store
from engine.clock import Tick
from engine.core import Context, execute
from engine.dice import RandomRoller
from engine.errors import RefereeError
from engine.events import replay
from engine.nations.clock import start_game
from engine.nations.gm import SetStat
from engine.nations.peace import ClaimPreset, Encourage, GrowMilitary, PropagandaAttack, RaiseStability
from service.referee import Referee

RULES = rules_for("nations")
START = datetime(2026, 1, 1, tzinfo=UTC)
PLAYERS = [f"p{i}" for i in range(5)]
PRESETS = ["1", "7", "9", "10", "11"]


def new_game(rng: random.Random):
    ctx = Context(START, "gm", RULES, True, RandomRoller(rng))
    outcome = start_game(ctx)
    state, events = outcome.state, list(outcome.events)
    for player, preset in zip(PLAYERS, PRESETS, strict=True):
        extra = {"name": "Merewyn"} if preset == "11" else {}
        out = execute(state, ClaimPreset(preset, player, **extra), ctx)
        state, events = out.state, events + out.events
        out = execute(state, SetStat(state.nation_of(player).name, "land", 40), ctx)
        state, events = out.state, events + out.events
    return state, events


def random_action(rng: random.Random, state):
    me = rng.choice(PLAYERS)
    others = [n.name for n in state.nations.values() if n.player != me and not n.eliminated]
    choice = rng.randrange(4)
    if choice == 0 and others:
        return me, PropagandaAttack(rng.choice(others))
    if choice == 1:
        return me, Encourage(rng.choice(["workers", "patriotism", "morale"]))
    if choice == 2:
        return me, GrowMilitary()
    return me, RaiseStability()


def play(state, events: list, rng: random.Random, commands: int) -> tuple[object, int]:
    """Random commands, with 6 hours passing every 4th one; returns the state and how many were refused."""
    now, refused = START, 0
    for i in range(commands):
        if i % 4 == 3:
            now += timedelta(hours=6)
            actor, action = "clock", Tick()
        else:
            actor, action = random_action(rng, state)
        try:
            out = execute(state, action, Context(now, actor, RULES, False, RandomRoller(rng)))
        except RefereeError:
            refused += 1
            continue
        state = out.state
        events.extend(out.events)
    return state, refused


def bench_engine(commands: int = 5000) -> None:
    rng = random.Random(1)
    state, events = new_game(rng)
    began = time.perf_counter()
    state, refused = play(state, events, rng, commands)
    spent = time.perf_counter() - began
    print(f"engine: {commands} commands ({refused} refused) in {spent:.2f} s "
          f"= {commands / spent:,.0f} commands/s, {len(events)} events")
    began = time.perf_counter()
    rebuilt = replay(events)
    spent = time.perf_counter() - began
    assert rebuilt == state
    print(f"replay: {len(events)} events in {spent * 1000:.0f} ms = {len(events) / spent:,.0f} events/s")


async def bench_store(commands: int = 500) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "bench.db")
        clock_now = [START]
        referee = Referee(store, RULES, RandomRoller(random.Random(2)), lambda: clock_now[0])
        await referee.start_game("bench", "gm")
        for player, preset in zip(PLAYERS, PRESETS, strict=True):
            name = "Merewyn" if preset == "11" else None
            await referee.act("bench", "gm", ClaimPreset(preset, player, name), "claim")
        rng = random.Random(3)
        latencies = []
        for i in range(commands):
            state = await referee.state("bench")
            actor, action = random_action(rng, state)
            began = time.perf_counter()
            try:
                await referee.act("bench", actor, action, "bench")
            except RefereeError:
                pass
            latencies.append(time.perf_counter() - began)
            if i % 10 == 9:
                clock_now[0] += timedelta(hours=6)
        latencies.sort()
        size = (Path(folder) / "bench.db").stat().st_size
        median, p95 = latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.95)]
        print(f"store: {commands} commands through the referee (catch-up + load + engine + one transaction): "
              f"median {median * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms, max {latencies[-1] * 1000:.2f} ms; "
              f"database {size / 1024:.0f} KiB")
        await store.close()


def bench_memory() -> None:
    tracemalloc.start()
    rng = random.Random(4)
    state, events = new_game(rng)
    play(state, events, rng, 2000)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"memory: a 5-nation game with {len(events)} events held in memory: {current / 1024:.0f} KiB, "
          f"peak {peak / 1024:.0f} KiB")


def bench_export() -> None:
    """The roll ledger's export of 100,000 rolls (bench/export.py), in a fresh process so that its memory figures
    do not mix with the benchmarks above; without its slow tracemalloc runs (`python -m bench.export` has them)."""
    subprocess.run([sys.executable, "-m", "bench.export", "--no-trace"], check=True,
                   cwd=Path(__file__).resolve().parent.parent)


def bench_charts() -> None:
    """Charts (bench/charts.py): a 500-turn, 8-nation game's /game chart and /nation chart built from the stored
    history and drawn (inline and in the chart worker), and the bot's interaction latency through discord.py
    while charts render; in a fresh process (it spawns the chart worker and runs the fake Discord)."""
    subprocess.run([sys.executable, "-m", "bench.charts"], check=True, cwd=Path(__file__).resolve().parent.parent)


def bench_web_starve() -> None:
    """The page server under the attacks of issue 33 (bench/web_starve.py): idle connections from one address and
    from many, and 30 downloads of a 100,000-roll ledger's CSV; its own processes."""
    subprocess.run([sys.executable, "-m", "bench.web_starve"], check=True, cwd=Path(__file__).resolve().parent.parent)


def bench_announce() -> None:
    """Exactly-once turn-end announcements (bench/announce.py): 5,000 games sharing a turn end, rolled over and
    announced by the Discord clock's code on SQLite and PostgreSQL, one process and two with skewed clocks; the
    duplicates counted. In a fresh process (it may start a PostgreSQL server)."""
    subprocess.run([sys.executable, "-m", "bench.announce"], check=True, cwd=Path(__file__).resolve().parent.parent)


def bench_stall() -> None:
    """No game stalls another (bench/stall.py): the other games' latency while the largest legal game of each rule
    set runs its slowest command, or the largest legal import, again and again. In a fresh process (it sets the
    interpreter's switch interval as the bot does)."""
    subprocess.run([sys.executable, "-m", "bench.stall"], check=True, cwd=Path(__file__).resolve().parent.parent)


def main() -> None:
    bench_engine()
    asyncio.run(bench_store())
    bench_memory()
    bench_export()
    bench_charts()
    bench_announce()
    bench_web_starve()
    bench_stall()


if __name__ == "__main__":
    main()
