"""Issue 35's goal table, one row a goal, each figure beside its reference measured in the same run, with the goal
and whether it is met; then the table itself (markdown, for bench/RESULTS.md).

    python -m bench.goals                          # 10,000 and 100,000 games, PostgreSQL when a server starts
    python -m bench.goals --games 10000 --big 100000
    python -m bench.goals --quick                  # tiny sizes, no 100,000, no PostgreSQL unless --postgres

Each measurement runs in a fresh Python process (`--worker NAME`, or bench/scale.py's own workers); the counting
is done there by wrapping, in that process only, what production code calls: `unpack_state` and `snapshot_document`
(snapshot loads), aiosqlite's call into its database thread (each job's CPU and wall time, read inside the thread),
the store's group commit (commands a transaction). fsyncs are real `fsync`/`fdatasync` system calls, counted by
strace on the worker's every thread, between markers the worker leaves in the trace (a failing `chdir` to a
named path), so that starting, warming up and closing are not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib
import json
import math
import os
import random
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.build import (
    MB,
    PRESETS,
    T0,
    TURN_HOURS,
    _discord,
    _keys,
    _table,
    bot_with_noop,
    build_store,
    mib,
    percentile,
    verdict,
    worker_in_process,
    worker_or_report,
)

STRACE = "/usr/bin/strace"
MARK = "bench-goals-mark"  # the markers' folder (never created): `chdir` into it fails and strace shows the name
RATES = (100, 150, 200, 250, 300, 400, 500)
SLOW = 0.100  # the open loop's p99 bound
ACK = 3.0  # Discord's limit on the initial response
JUDGED_AT = 10_000  # the rollover goals are stated at 10,000 games (and 100,000)
RAW_PAYLOAD = json.dumps({"kind": "EconomyGrown", "nation": "Gracchan Republic", "roll": list(range(20))})


# --- what a worker counts, patched in its own process only -----------------------------------------------


@dataclass
class Job:
    """One call run in a database thread: when it began (perf_counter), its wall time and its thread's CPU."""

    began: float
    wall: float
    cpu: float


JOBS: list[Job] = []
LOADS = [0]


def watch_jobs() -> None:
    """Time every job aiosqlite runs in a database thread (its `_execute`: every store read, write and commit)."""
    import aiosqlite.core

    connection = aiosqlite.core.Connection
    if getattr(connection._execute, "bench_goals", False):
        return
    original = connection._execute

    async def timed(self: Any, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        def job(*a: Any, **k: Any) -> Any:
            cpu, began = time.thread_time(), time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                JOBS.append(Job(began, time.perf_counter() - began, time.thread_time() - cpu))

        return await original(self, job, *args, **kwargs)

    timed.bench_goals = True  # type: ignore[attr-defined]
    connection._execute = timed  # type: ignore[method-assign]


def count_loads() -> None:
    """Count snapshot loads: `unpack_state` (a state from its row) and `snapshot_document` (a document from its row)
    replaced wherever a module of the referee other than the codec's own holds them."""
    for name in ("data.store", "data.store.games", "data.store.ledger", "data.store.frontend", "service.referee",
                 "cogs.clock", "cogs.util"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from data.store import encoding

    for function in ("unpack_state", "snapshot_document"):
        original = getattr(encoding, function)

        def counted(*args: Any, original: Any = original, **kwargs: Any) -> Any:
            LOADS[0] += 1
            return original(*args, **kwargs)

        for module in list(sys.modules.values()):
            if module is not encoding and getattr(module, function, None) is original:
                setattr(module, function, counted)


def group_sizes(store: Any) -> list[int]:
    """The sizes of the groups the store commits from now on (empty when it has no group commit)."""
    sizes: list[int] = []
    commit_group = getattr(store, "_commit_group", None)
    if commit_group is not None:
        async def counted(group: Any) -> None:
            sizes.append(len(group))
            await commit_group(group)

        store._commit_group = counted
    return sizes


def jobs_between(began: float, ended: float) -> list[Job]:
    return [job for job in JOBS if began <= job.began < ended]


# --- the bot on the fake Discord, and commands sent to it ----------------------------------------------


@dataclass
class Session:
    fake: Any
    kit: Any
    bot: Any
    guild: Any
    rooms: list[Any]
    players: list[Any]
    folder: Path
    used: int = 0  # (room, player) pairs used this turn
    errors: int = 0  # errors the bot logged (a late answer's "Unknown interaction" under overload)

    def pair(self) -> tuple[Any, Any]:
        """A room and player that have not grown their economy this turn (consecutive ones in other rooms)."""
        k, self.used = self.used, self.used + 1
        if k >= len(self.rooms) * len(self.players):
            raise RuntimeError(f"more than {k} commands in one turn: more rooms needed")
        return self.rooms[k % len(self.rooms)], self.players[k // len(self.rooms)]

    def take_errors(self) -> int:
        """Count and clear the errors the bot logged (the fake would raise them when it stops)."""
        fakediscord, _ = _discord()
        try:
            self.fake.assert_no_errors()
        except fakediscord.BotErrorLogged as err:
            self.errors += len(err.records)
        return self.errors

    async def settle(self) -> None:
        """Wait until every interaction sent so far is answered and followed up (not for the clock's announcer,
        which paces a rollover's announcements for minutes)."""
        deadline = time.monotonic() + self.kit.HANG_TIMEOUT
        while busy := [task for task in asyncio.all_tasks() if not task.done() and self.kit._bot_work(task)
                       and not task.get_name().startswith("referee-announcer")]:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the bot is still busy after {self.kit.HANG_TIMEOUT:.0f} s: {busy}")
            await asyncio.wait(busy, timeout=deadline - time.monotonic())

    async def grow(self, settle: bool = True) -> Any:
        room, player = self.pair()
        result = await self.fake.invoke(self.guild, room, player, "economy grow")
        if settle:
            await self.settle()
        if result.ephemeral:
            raise RuntimeError(f"/economy grow was refused: {self.kit.texts(result)}")
        return result


@contextlib.asynccontextmanager
async def session(rooms: int, extra_games: int = 0, deadline: float | None = None) -> AsyncIterator[Session]:
    """The bot (with /noop, its clock standing at turn 1) against the fake Discord: `rooms` channels with a
    five-nation game each, and `extra_games` more games in channels the fake does not have (the rollover's)."""
    fakediscord, kit = _discord()
    folder = Path(tempfile.mkdtemp(prefix="bench-goals-"))
    try:
        async with fakediscord.FakeDiscord(error_loggers=kit.ERROR_LOGGERS, interaction_deadline=deadline) as fake:
            guild, room_list, gm, players = await _table(fake, rooms)
            keys = _keys(guild, room_list) + [f"discord:{guild.id}:{900_000 + i}" for i in range(extra_games)]
            await build_store(folder / "referee.db", keys, guild.id, str(gm.id), [str(p.id) for p in players])
            running = await fake.start_bot(bot_with_noop(folder / "referee.db", T0 + timedelta(hours=1)))
            # as `bot.serve` runs the bot: the switch interval set, what starting made frozen out of the collector
            from service.referee import SWITCH_INTERVAL

            sys.setswitchinterval(SWITCH_INTERVAL)
            gc.collect()
            gc.freeze()
            made = Session(fake, kit, running.bot, guild, room_list, players, folder)
            try:
                yield made
            finally:
                await running.close()
                made.take_errors()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def mark(folder: Path, name: str) -> None:
    """A marker in the strace log: a `chdir` that fails, naming `name`."""
    with contextlib.suppress(OSError):
        os.chdir(folder / MARK / name)


def raw_commits(path: Path, synchronous: int, count: int) -> None:
    con = sqlite3.connect(path, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode = WAL")
        con.execute(f"PRAGMA synchronous = {synchronous}")
        con.execute("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, data TEXT NOT NULL)")
        for _ in range(count):
            con.execute("BEGIN IMMEDIATE")
            con.execute("INSERT INTO rows (data) VALUES (?)", (RAW_PAYLOAD,))
            con.execute("COMMIT")
    finally:
        con.close()


async def pragma(store: Any, name: str) -> Any:
    return (await store._fetchall(f"PRAGMA {name}"))[0][0]


# --- the workers (each in a process of its own) ---------------------------------------------------------


async def worker_fsyncs(commands: int, loaded: int, in_flight: int, raw: int, warmup: int = 10) -> dict[str, Any]:
    """Run under strace: `/economy grow` one after another (each followed up before the next), then `loaded`
    of them `in_flight` at a time, then raw single-row commits after a warm-up that wraps the WAL; markers
    between."""
    rooms = math.ceil((commands + loaded) / (len(PRESETS) - 1)) + 1
    async with session(rooms) as s:
        bot = s.bot
        store = bot.store
        for _ in range(max(warmup, rooms)):  # every room's first change posts and pins its status: not measured
            await s.grow()
        mark(s.folder, "single")
        for _ in range(commands):
            await s.grow()
        mark(s.folder, "single-end")
        sizes = group_sizes(store)
        left = [loaded]

        async def slot() -> None:
            while left[0] > 0:
                left[0] -= 1
                await s.grow(settle=False)

        mark(s.folder, "loaded")
        await asyncio.gather(*(slot() for _ in range(in_flight)))
        await s.settle()
        mark(s.folder, "loaded-end")
        synchronous = int(await pragma(store, "synchronous"))
        journal = str(await pragma(store, "journal_mode"))
    path = Path(tempfile.mkdtemp(prefix="bench-goals-raw-"))
    try:
        raw_commits(path / "raw.db", synchronous, 1500)  # the WAL grown past a checkpoint and reused
        mark(path, "raw")
        raw_commits(path / "raw.db", synchronous, raw)
        mark(path, "raw-end")
    finally:
        shutil.rmtree(path, ignore_errors=True)
    return {"single": commands, "loaded": loaded, "raw": raw, "in_flight": in_flight, "synchronous": synchronous,
            "journal": journal, "mean_group": statistics.mean(sizes) if sizes else None}


async def worker_commands(commands: int, jobs: int = 200, warmup: int = 10) -> dict[str, Any]:
    """`/economy grow` one after another through discord.py (each followed up before the next): snapshot loads
    and database-thread CPU a command; the same for /noop; a no-op job's and a raw single-row commit's CPU in the
    database thread."""
    watch_jobs()
    count_loads()
    rooms = math.ceil(commands / (len(PRESETS) - 1)) + 1
    async with session(rooms) as s:
        store = s.bot.store
        for _ in range(max(warmup, rooms)):  # every room's first change posts and pins its status: not measured
            await s.grow()

        async def phase(run: Callable[[], Any], times: int) -> tuple[float, float, int]:
            loads, began = LOADS[0], time.perf_counter()
            for _ in range(times):
                await run()
            ended = time.perf_counter()
            done = jobs_between(began, ended)
            return (LOADS[0] - loads) / times, sum(j.cpu for j in done) / times, len(done)

        grow_loads, grow_cpu, grow_jobs = await phase(s.grow, commands)
        room, player = s.rooms[0], s.players[0]

        async def noop() -> None:
            await s.fake.invoke(s.guild, room, player, "noop")
            await s.settle()

        noop_loads, noop_cpu, _ = await phase(noop, commands)
        db = store.db
        _, nothing_cpu, _ = await phase(lambda: db._execute(lambda: None), jobs)
        synchronous = int(await pragma(store, "synchronous"))
        raw_path = s.folder / "raw.db"
        raw: list[sqlite3.Connection] = []

        def open_raw() -> None:
            con = sqlite3.connect(raw_path, isolation_level=None, check_same_thread=False)
            con.execute("PRAGMA journal_mode = WAL")
            con.execute(f"PRAGMA synchronous = {synchronous}")
            con.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, data TEXT NOT NULL)")
            raw.append(con)

        def commit_one() -> None:
            raw[0].execute("BEGIN IMMEDIATE")
            raw[0].execute("INSERT INTO rows (data) VALUES (?)", (RAW_PAYLOAD,))
            raw[0].execute("COMMIT")

        await db._execute(open_raw)
        for _ in range(1500):  # a warmed WAL
            await db._execute(commit_one)
        _, raw_cpu, _ = await phase(lambda: db._execute(commit_one), jobs)
        await db._execute(lambda: raw[0].close())
    return {"commands": commands, "grow_loads": grow_loads, "grow_cpu": grow_cpu, "grow_jobs": grow_jobs / commands,
            "noop_loads": noop_loads, "noop_cpu": noop_cpu, "nothing_cpu": nothing_cpu, "raw_cpu": raw_cpu,
            "seen": bool(JOBS)}


async def stream(s: Session, rate: float, until: Callable[[float], bool], seed: int = 1,
                 poisson: bool = False) -> tuple[list[float], int, int]:
    """`/economy grow` arriving `rate` a second (evenly spaced, or Poisson) while `until(elapsed)` is false, each
    timed from its arrival to the initial response the fake received; (latencies, not acknowledged in time,
    refused)."""
    fakediscord, _ = _discord()
    loop = asyncio.get_running_loop()
    rng = random.Random(seed)
    latencies: list[float] = []
    missed = refused = 0

    async def one(due: float) -> None:
        nonlocal missed, refused
        room, player = s.pair()
        try:
            result = await s.fake.invoke(s.guild, room, player, "economy grow")
        except fakediscord.InteractionNotAcknowledged:
            missed += 1
            return
        if result.ephemeral:
            refused += 1
        latencies.append(result.acknowledged_at - due)

    tasks = []
    began = due = loop.time()
    while not until(due - began):
        wait = due - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        tasks.append(asyncio.ensure_future(one(due)))
        due += rng.expovariate(rate) if poisson else 1 / rate
    await asyncio.gather(*tasks)
    await s.settle()
    return latencies, missed, refused


async def worker_open_loop(rates: list[float], seconds: float) -> dict[str, Any]:
    """An open loop: Poisson arrivals of `/economy grow` through discord.py at each rate for `seconds`; p50, p99
    and the interactions not acknowledged within Discord's 3 s, a rate."""
    fakediscord, _ = _discord()
    total = sum(rate * seconds for rate in rates) * 1.3 + 50
    rows = []
    async with session(math.ceil(total / len(PRESETS)), deadline=fakediscord.DISCORD_ACK_SECONDS) as s:
        for _ in range(5):
            await s.grow()
        for rate in rates:
            latencies, missed, refused = await stream(s, rate, lambda elapsed: elapsed >= seconds, poisson=True)
            late = sum(1 for value in latencies if value > ACK) + missed
            before, errors = s.errors, s.take_errors()
            rows.append({"rate": rate, "sent": len(latencies) + missed, "p50": percentile(latencies, 0.5),
                         "p99": percentile(latencies, 0.99), "late": late, "refused": refused,
                         "errors": errors - before})
    return {"rows": rows, "seconds": seconds}


async def worker_held(games: int, rate: float, alone_seconds: float, rounds: int) -> dict[str, Any]:
    """A rollover of `games` games by the bot's own clock (its `tick`, as its timer runs it) while `/economy grow`
    arrives at `rate` a second through discord.py in other games; before each, as long at the same rate, with
    nothing due: the commands' latencies and the database thread's jobs, each window."""
    watch_jobs()
    rooms = max(20, math.ceil(rate * (alone_seconds + 30) / len(PRESETS)))
    alone: list[float] = []
    during: list[float] = []
    alone_jobs: list[Job] = []
    during_jobs: list[Job] = []
    seconds: list[float] = []
    left_due = 0
    async with session(rooms, extra_games=games) as s:
        bot = s.bot
        clock, cog = bot.runtime.clock, bot.get_cog("Clock")
        cog.announcer.follow = None  # the rollover's announcements queued but not sent (as bench/scale.py's row)
        for _ in range(5):
            await s.grow()
        for _ in range(rounds):
            began = time.perf_counter()
            latencies, _, _ = await stream(s, rate, lambda elapsed: elapsed >= alone_seconds)
            alone += latencies
            alone_jobs += jobs_between(began, time.perf_counter())
            clock.advance(hours=TURN_HOURS)  # every game's turn is over
            s.used = 0
            tick = asyncio.ensure_future(cog.tick())
            began = time.perf_counter()
            ended = [math.inf]

            def done(elapsed: float, tick: asyncio.Future[None] = tick, ended: list[float] = ended) -> bool:
                if tick.done() and ended[0] == math.inf:
                    ended[0] = time.perf_counter()
                return tick.done()

            latencies, _, _ = await stream(s, rate, done)
            await tick
            seconds.append(ended[0] - began)
            during += latencies
            during_jobs += jobs_between(began, ended[0])
            left_due += len(await bot.store.due(clock()))
    return {"games": games, "rate": rate, "rounds": rounds, "seconds": seconds, "left_due": left_due,
            "alone_p50": percentile(alone, 0.5), "alone_p99": percentile(alone, 0.99), "alone_n": len(alone),
            "during_p50": percentile(during, 0.5), "during_p99": percentile(during, 0.99), "during_n": len(during),
            "held_max": max((j.wall for j in during_jobs), default=0.0),
            "held_over_5ms": sum(1 for j in during_jobs if j.wall > 0.005),
            "command_job_p50": percentile([j.wall for j in alone_jobs], 0.5) if alone_jobs else 0.0,
            "command_job_max": max((j.wall for j in alone_jobs), default=0.0), "seen": bool(JOBS)}


WORKERS: dict[str, Callable[..., Any]] = {
    "fsyncs": worker_fsyncs, "commands": worker_commands, "open_loop": worker_open_loop, "held": worker_held}


def run_worker(name: str, timeout: float, prefix: list[str] | None = None, **kwargs: Any) -> dict[str, Any]:
    """One measurement of this module in a fresh Python process, under `prefix`."""
    return worker_in_process("bench.goals", name, timeout, prefix, **kwargs)


def fsyncs_between(trace: str) -> dict[str, int]:
    """fsync and fdatasync calls between each pair of markers ("single" … "single-end") of an strace log."""
    counts: dict[str, int] = {}
    phase: str | None = None
    call = re.compile(r"\b(fsync|fdatasync)\(")
    marker = re.compile(rf'chdir\(".*/{MARK}/([\w-]+)"')
    for line in trace.splitlines():
        if found := marker.search(line):
            name = found.group(1)
            phase = None if name.endswith("-end") else name
            counts.setdefault(name.removesuffix("-end"), 0)
        elif phase is not None and call.search(line):
            counts[phase] += 1
    return counts


# --- the rows ---------------------------------------------------------------------------------------------


@dataclass
class Row:
    """One goal: its figure, its reference from the same run, the goal, and whether it is met (None: not
    judged, `why`)."""

    measure: str
    figure: str
    reference: str
    goal: str
    met: bool | None
    why: str = ""

    def line(self) -> str:
        judged = verdict(self.met) if self.met is not None else (self.why or "not judged")
        return f"{self.measure}: {self.figure}; reference: {self.reference} (goal {self.goal}) — {judged}"

    def cells(self) -> str:
        judged = verdict(self.met) if self.met is not None else (self.why or "not judged")
        cells = [self.measure, self.figure, self.reference, self.goal, judged]
        return "| " + " | ".join(" ".join(cell.replace("|", "/").split()) for cell in cells) + " |"


def us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f} µs"


def msf(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def row_fsyncs(args: argparse.Namespace) -> Row:
    what = "fsyncs per command (SQLite, one after another; under load)"
    goal = "1; under load one shared by the group"
    if not Path(STRACE).exists() and shutil.which("strace") is None:
        return Row(what, "-", "-", goal, None, f"skipped: strace is not installed ({STRACE})")
    strace = STRACE if Path(STRACE).exists() else str(shutil.which("strace"))
    log = Path(tempfile.mkdtemp(prefix="bench-goals-strace-"))
    try:
        prefix = [strace, "-f", "--seccomp-bpf", "-e", "trace=fsync,fdatasync,chdir", "-o", str(log / "trace")]
        try:
            r = run_worker("fsyncs", 600, prefix, commands=args.commands, loaded=args.loaded,
                           in_flight=args.in_flight, raw=args.raw)
        except RuntimeError as err:
            if "ptrace" in str(err) or "Operation not permitted" in str(err):
                return Row(what, "-", "-", goal, None, f"skipped: strace cannot trace here ({str(err)[-200:]})")
            raise
        counts = fsyncs_between((log / "trace").read_text(errors="replace"))
    finally:
        shutil.rmtree(log, ignore_errors=True)
    single = counts.get("single", 0) / r["single"]
    loaded = counts.get("loaded", 0) / r["loaded"]
    raw = counts.get("raw", 0) / r["raw"]
    group = r["mean_group"]
    shared = f", {group:.1f} commands a transaction" if group else ""
    one = raw * 1.1 + 0.02
    met = single <= one and (loaded <= one / group if group else loaded < 0.5 * single)
    return Row(what, f"{single:.2f} one after another ({r['single']} commands); {loaded:.2f} with {r['in_flight']} "
                     f"in flight ({r['loaded']} commands{shared})",
               f"raw single-row sqlite3 commits, warmed WAL ({r['journal']}, synchronous={r['synchronous']}): "
               f"{raw:.2f} a commit", goal, met)


def rows_commands(args: argparse.Namespace) -> list[Row]:
    r = run_worker("commands", 600, commands=args.commands)
    loads = Row("snapshot loads per command", f"{r['grow_loads']:.2f} a `/economy grow` ({r['commands']} through "
                f"discord.py, each followed up)", f"1 (a /noop: {r['noop_loads']:.2f})", "1",
                r["grow_loads"] <= 1.0)
    if not r["seen"]:
        return [loads, Row("database-thread CPU per `/economy grow`", "-", "-", "≤ 150 µs", None,
                           "not measured: no database-thread job seen (the store no longer runs on aiosqlite?)")]
    cpu = Row("database-thread CPU per `/economy grow`", f"{us(r['grow_cpu'])} ({r['grow_jobs']:.1f} jobs a command)",
              f"a no-op job {us(r['nothing_cpu'])}; a raw single-row commit (warmed WAL) {us(r['raw_cpu'])}; "
              f"a /noop's jobs {us(r['noop_cpu'])}", "≤ 150 µs", r["grow_cpu"] <= 150e-6)
    return [loads, cpu]


def rows_rollover(args: argparse.Namespace) -> list[Row]:
    from bench.scale import run_worker as scale_worker

    sizes = [args.games] + ([args.big] if args.big else [])
    small = max(1, args.games // 10)
    base = scale_worker("rollover", False, 300, games=small)
    rows = []
    for n in sizes:
        r = scale_worker("rollover", False, 600 + n / 20, games=n)
        complete = r["rolled"] == n and r["left_due"] == 0
        goal_s = 0.3 if n <= JUDGED_AT else 3.0  # issue 35: < 0.3 s for 10,000 games, < 3 s for 100,000
        whole = "" if r["peak_window"] else ", whole-process peak"
        met = complete and r["seconds"] < goal_s and r["peak_rss"] < 150 * MB if n >= JUDGED_AT else None
        rows.append(Row(f"rollover, {n:,} games", f"{r['seconds']:.2f} s, peak RSS {mib(r['peak_rss'])}{whole}"
                        + ("" if complete else f" — INCOMPLETE: {r['rolled']} rolled, {r['left_due']} still due"),
                        f"{small:,} games {base['seconds']:.3f} s (×{r['seconds'] / base['seconds']:.1f} the time for "
                        f"×{n / small:g} the games), {mib(base['peak_rss'])}",
                        f"< {goal_s:g} s, RSS < 150 MB", met, f"not judged: the goal is at {JUDGED_AT:,} games"))
    return rows


def rows_held(args: argparse.Namespace) -> list[Row]:
    r = run_worker("held", 900 + args.games / 20, games=args.games, rate=args.held_rate,
                   alone_seconds=args.held_seconds, rounds=args.held_rounds)
    where = f"{r['games']:,}-game rollover by the bot's clock ({', '.join(f'{s:.2f}' for s in r['seconds'])} s)"
    incomplete = f" — {r['left_due']} games still due after it" if r["left_due"] else ""
    if r["seen"]:
        held = Row("database thread held by the clock at a time",
                   f"longest job {msf(r['held_max'])} during a {where}; {r['held_over_5ms']} jobs over 5 ms "
                   "(announcements queued, not sent)"
                   + incomplete, f"a command's jobs alone: median {msf(r['command_job_p50'])}, longest "
                   f"{msf(r['command_job_max'])}", "≤ 5 ms", r["held_max"] <= 0.005)
    else:
        held = Row("database thread held by the clock at a time", "-", "-", "≤ 5 ms", None,
                   "not measured: no database-thread job seen")
    p99 = Row(f"a command's p99 during a {r['games']:,}-game rollover",
              f"p99 {msf(r['during_p99'])}, p50 {msf(r['during_p50'])} ({r['during_n']} `/economy grow` at "
              f"{r['rate']:g}/s through discord.py during it)" + incomplete,
              f"without it: p99 {msf(r['alone_p99'])}, p50 {msf(r['alone_p50'])} ({r['alone_n']})", "< 15 ms",
              r["during_p99"] < 0.015)
    return [held, p99]


def row_open_loop(args: argparse.Namespace) -> Row:
    r = run_worker("open_loop", 900, rates=args.rates, seconds=args.rate_seconds)
    rows = r["rows"]
    crossed = next((row["rate"] for row in rows if row["p99"] > SLOW), None)
    shown = "; ".join(f"{row['rate']:g}/s p50 {msf(row['p50'])} p99 {msf(row['p99'])}, {row['late']} of "
                      f"{row['sent']} not acknowledged in 3 s"
                      + (f", {row['refused']} refused" if row["refused"] else "")
                      + (f", {row['errors']} errors logged by the bot" if row["errors"] else "") for row in rows)
    passes = f"p99 passes 100 ms at {crossed:g}/s" if crossed is not None else \
        f"p99 under 100 ms up to {max(r_['rate'] for r_ in rows):g}/s"
    judged = max(row["rate"] for row in rows) >= 500
    slow_by_300 = any(row["p99"] > SLOW for row in rows if row["rate"] <= 300)
    acknowledged = all(row["late"] == 0 for row in rows if row["rate"] <= 500)
    met = (not slow_by_300 and acknowledged) if judged else None
    return Row("open loop: rate at which a command's p99 passes 100 ms", f"{passes} ({shown})",
               f"the lowest rate's p99: {msf(rows[0]['p99'])}", "≥ 300/s on SQLite, every interaction acknowledged "
               "in 3 s up to 500/s", met, "" if met is not None else "not judged: rates below 500/s only")


def row_postgres(args: argparse.Namespace) -> Row:
    what, goal = "PostgreSQL, 2 processes vs 1", "×1.8 or better"
    if not args.postgres:
        return Row(what, "-", "-", goal, None, "skipped: --quick (add --postgres to run it)")
    from bench.build import postgres_server
    from bench.postgres import postgres_rows, with_schema

    url, server, reason = postgres_server(args.url)
    if reason is not None or url is None:
        return Row(what, "-", "-", goal, None, f"skipped: {reason}")
    try:
        one, two = postgres_rows(with_schema(url, f"bench_goals_{os.getpid()}"), args.pg_seconds, (1, 2))
    finally:
        if server is not None:
            server.stop()
    ratio, raw = two["commands"] / one["commands"], two["raw"] / one["raw"]
    return Row(what, f"×{ratio:.2f} ({one['commands']:,.0f} → {two['commands']:,.0f} commands/s)",
               f"raw single-row commits ×{raw:.2f} ({one['raw']:,.0f} → {two['raw']:,.0f}/s)", goal, ratio >= 1.8)


def row_versus_noop(args: argparse.Namespace) -> Row:
    from bench.scale import run_worker as scale_worker

    r = scale_worker("commands", False, 600, commands=args.commands)
    ratio = r["grow_median"] / r["noop_median"]
    return Row("`/economy grow` vs a no-op slash command", f"×{ratio:.1f} (median {msf(r['grow_median'])}, p99 "
               f"{msf(r['grow_p99'])}; {r['commands']} commands through discord.py)",
               f"a no-op slash command: median {msf(r['noop_median'])}, p99 {msf(r['noop_p99'])}", "≤ ×3",
               ratio <= 3)


def row_embed(args: argparse.Namespace) -> Row:
    what, goal = "a Nations report embed's render time", "≤ 100 µs"
    try:
        embed = importlib.import_module("bench.embed")
    except ModuleNotFoundError as err:
        if err.name != "bench.embed":
            raise
        return Row(what, "-", "-", goal, None, "not measured yet (bench/embed.py does not exist)")
    spent, reference = embed.measure()
    return Row(what, f"{spent:,.0f} µs (bench/embed.py)", f"{reference:,.1f} µs (bench/embed.py's reference)", goal,
               spent <= 100)


ROWS: list[tuple[list[str], Callable[[argparse.Namespace], Row | list[Row]]]] = [
    (["fsyncs per command (SQLite, one after another; under load)"], row_fsyncs),
    (["snapshot loads per command", "database-thread CPU per `/economy grow`"], rows_commands),
    (["rollover"], rows_rollover),
    (["database thread held by the clock at a time", "a command's p99 during a rollover"], rows_held),
    (["open loop: rate at which a command's p99 passes 100 ms"], row_open_loop),
    (["PostgreSQL, 2 processes vs 1"], row_postgres),
    (["`/economy grow` vs a no-op slash command"], row_versus_noop),
    (["a Nations report embed's render time"], row_embed),
]


def report(args: argparse.Namespace, out: Callable[[str], None] = print) -> list[Row]:
    """Every row, each printed as it is measured; then the table. A row that fails prints why, and the others
    still run."""
    began = time.perf_counter()
    out(f"issue 35's goals, {args.games:,} games" + (f" and {args.big:,}" if args.big else "")
        + f", {os.cpu_count()} CPUs" + (" (quick: tiny sizes)" if args.quick else ""))
    rows: list[Row] = []
    for names, measure in ROWS:
        try:
            made = measure(args)
        except Exception as err:  # (one row's failure is printed; the others still run)
            last = str(err).strip().splitlines()[-1:] or [""]
            made = [Row(name, "-", "-", "-", None, f"FAILED: {type(err).__name__}: {last[0][:300]}")
                    for name in names]
        for row in made if isinstance(made, list) else [made]:
            rows.append(row)
            out(row.line())
    out("")
    out("| measure | now | reference (same run) | goal | met? |")
    out("|---|---|---|---|---|")
    for row in rows:
        out(row.cells())
    out(f"bench.goals took {time.perf_counter() - began:.0f} s")
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.goals", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games of the rollover rows (default 10000)")
    parser.add_argument("--big", type=int, default=100_000, help="the large rollover (default 100000)")
    parser.add_argument("--no-big", action="store_true", help="without the large rollover")
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny sizes, no large rollover, no "
                        "PostgreSQL unless --postgres")
    parser.add_argument("--postgres", action="store_true", help="the PostgreSQL row even with --quick")
    parser.add_argument("--url", help="an existing PostgreSQL server (default: a throwaway one)")
    parser.add_argument("--commands", type=int, default=200, help="timed commands one after another (default 200)")
    parser.add_argument("--loaded", type=int, default=1000, help="commands of the fsync row under load")
    parser.add_argument("--in-flight", type=int, default=50, help="commands at once under load (default 50)")
    parser.add_argument("--raw", type=int, default=1000, help="raw commits of the fsync reference (default 1000)")
    parser.add_argument("--rates", type=float, nargs="+", default=list(RATES), help="the open loop's rates a second")
    parser.add_argument("--rate-seconds", type=float, default=3.0, help="each open-loop rate's length (default 3 s)")
    parser.add_argument("--held-rate", type=float, default=50.0, help="commands a second during the rollover")
    parser.add_argument("--held-seconds", type=float, default=2.0, help="the window without it, each round")
    parser.add_argument("--held-rounds", type=int, default=3, help="rollovers of the held rows (default 3)")
    parser.add_argument("--pg-seconds", type=float, default=3.0, help="each PostgreSQL measurement's length")
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--kwargs", default="{}", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.games = min(args.games, 200)
        args.commands, args.loaded, args.in_flight, args.raw = 10, 40, 8, 100
        args.rates, args.rate_seconds = [20.0, 40.0], 0.5
        args.held_rate, args.held_seconds, args.held_rounds = 20.0, 0.3, 1
        args.pg_seconds = 1.0
    else:
        args.postgres = True
    if args.no_big or args.quick or args.big <= args.games:
        args.big = 0
    return args


def main(argv: list[str] | None = None) -> int:
    return worker_or_report(parse_args(argv), WORKERS, report)


if __name__ == "__main__":
    sys.exit(main())
