"""PostgreSQL and several processes (issue 20): persisted commands a second through the referee, each beside raw
single-row commits of the same database measured in the same run.

    python -m bench.postgres                      # 2 s a row, 3 rounds; starts a throwaway PostgreSQL server
    python -m bench.postgres --url postgresql://… # an existing server instead (a fresh schema of its own)
    python -m bench.postgres --sqlite-only        # the SQLite row alone

Rows: SQLite with 1 process; PostgreSQL with 1, 2 and 4 processes. A command is a Nations command through
`Referee.act` that commits one action (a player grows its economy, then the GM grants the action back: every
one accepted), as in bench/scale.py's throughput row. Each process has its own store (its own connection and
database thread), its own event loop and its own game, so that processes do not wait on one game's row; all
start together and play for a fixed time; a row's figure is the total across its processes. Its reference is
raw single-row commits (one INSERT and one COMMIT a transaction) with as many connections, each in a process
of its own: sqlite3 with the store's settings (WAL, its synchronous setting), psycopg with autocommit off.

The PostgreSQL rows are measured in rounds (1, 2, 4 processes, then again): the server's WAL grows as the run
goes on and two shared cores are as busy as their other users make them, so each row sees the same conditions
as the others; a row's figure is its median over the rounds, and "2 processes vs 1" the median of each round's
ratio. Beside them, a command's CPU (the referee process's, and its server backend's when the server runs on
this machine) and the server's WAL fsyncs a command (pg_stat_wal): where the time goes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests" / "support") not in sys.path:
    sys.path.append(str(ROOT / "tests" / "support"))  # tests/support/pgserver.py: the throwaway server

from bench.build import PRESETS, T0, grow_or_grant, play_template, postgres_server  # noqa: E402

PROCESSES = (1, 2, 4)
ROUNDS = 3
PAYLOAD = json.dumps({"kind": "EconomyGrown", "nation": "Gracchan Republic", "roll": list(range(20))})
PLAYERS = [f"p{i}" for i in range(len(PRESETS))]


def with_schema(url: str, schema: str) -> str:
    """The URL with our `schema=` parameter set (replacing one it has)."""
    parts = urlsplit(url)
    query = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key != "schema"]
    return urlunsplit(parts._replace(query=urlencode([*query, ("schema", schema)])))


# --- the workers: each in a process of its own ------------------------------------------------------------


async def _referee_commands(target: str, channel: str, seconds: float, barrier: Any) -> dict[str, Any]:
    from data.store import Store
    from engine.dice import RandomRoller
    from engine.errors import RefereeError
    from service.referee import Referee

    store = await Store.open(target)
    try:
        referee = Referee(store, roller=RandomRoller(random.Random(2)), clock=lambda: T0 + timedelta(hours=1))
        state = await referee.state(channel)
        nations = [state.nation_of(player).name for player in PLAYERS]
        synchronous = backend = None
        if store.dialect == "sqlite":
            async with store.db.execute("PRAGMA synchronous") as cursor:
                synchronous = int((await cursor.fetchone())[0])
        else:
            backend = (await store._fetchall("SELECT pg_backend_pid()"))[0][0]
        await asyncio.to_thread(barrier.wait)
        done = refused = 0
        began, cpu, server = time.perf_counter(), time.process_time(), backend_cpu(backend)
        while time.perf_counter() - began < seconds:
            for _ in range(2):  # a grow and its grant: the game is ready for the next round's run
                try:
                    await grow_or_grant(referee, channel, done, PLAYERS, nations)
                except RefereeError:
                    refused += 1
                done += 1
        spent, cpu = time.perf_counter() - began, time.process_time() - cpu
        after = backend_cpu(backend)
        server = after - server if after is not None and server is not None else None
    finally:
        await store.close()
    return {"done": done - refused, "refused": refused, "seconds": spent, "synchronous": synchronous, "cpu": cpu,
            "server_cpu": server}


def backend_cpu(pid: int | None) -> float | None:
    """CPU seconds a server process has used, when it runs on this machine and may be read (else None)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, TypeError):
        return None


def _raw_commits(target: str, seconds: float, barrier: Any, synchronous: int | None) -> dict[str, Any]:
    """Single-row commits: sqlite3 (WAL and the given synchronous setting), or psycopg with autocommit off."""
    if target.startswith("postgresql://"):
        import psycopg

        from data.postgres import split_schema

        dsn, schema = split_schema(target)
        con: Any = psycopg.connect(dsn, autocommit=False)
        if schema is not None:
            con.execute(f'SET search_path TO "{schema}"')
            con.commit()

        def commit_one() -> None:
            con.execute("INSERT INTO raw_rows (data) VALUES (%s)", (PAYLOAD,))
            con.commit()
    else:
        con = sqlite3.connect(target, isolation_level=None, timeout=30)
        con.execute("PRAGMA journal_mode = WAL")
        con.execute(f"PRAGMA synchronous = {synchronous}")

        def commit_one() -> None:
            con.execute("BEGIN IMMEDIATE")
            con.execute("INSERT INTO raw_rows (data) VALUES (?)", (PAYLOAD,))
            con.execute("COMMIT")
    try:
        barrier.wait()
        done = 0
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            commit_one()
            done += 1
        spent = time.perf_counter() - began
    finally:
        con.close()
    return {"done": done, "refused": 0, "seconds": spent}


def _worker(kind: str, target: str, channel: str, seconds: float, synchronous: int | None, barrier: Any,
            results: Any) -> None:
    try:
        if kind == "referee":
            result = asyncio.run(_referee_commands(target, channel, seconds, barrier))
        else:
            result = _raw_commits(target, seconds, barrier, synchronous)
    except BaseException as err:  # (the parent reports it: a worker's failure is the row's failure)
        barrier.abort()
        result = {"error": f"{type(err).__name__}: {err}"}
    results.put(result)


def run_processes(kind: str, target: str, channels: list[str], seconds: float,
                  synchronous: int | None = None) -> dict[str, Any]:
    """`len(channels)` processes at once (one a channel); the total a second across them, and how busy the machine's
    cores were meanwhile (`busy`: cores, whoever used them)."""
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(len(channels) + 1), context.Queue()  # (we start the clock of `busy` too)
    workers = [context.Process(target=_worker, args=(kind, target, channel, seconds, synchronous, barrier, results))
               for channel in channels]
    for worker in workers:
        worker.start()
    with contextlib.suppress(threading.BrokenBarrierError):  # (a worker that failed says why below)
        barrier.wait(timeout=120)
    cores = machine_time()
    done = [results.get(timeout=120 + seconds * 2) for _ in workers]
    cores = [after - before for before, after in zip(cores, machine_time(), strict=True)]
    for worker in workers:
        worker.join(timeout=30)
    errors = [r["error"] for r in done if "error" in r]
    if errors:
        raise RuntimeError(f"a {kind} process failed: {errors[0]}")
    commands = sum(r["done"] + r["refused"] for r in done) or 1
    servers = [r.get("server_cpu") for r in done]
    return {"rate": sum(r["done"] / r["seconds"] for r in done), "refused": sum(r["refused"] for r in done),
            "synchronous": done[0].get("synchronous"), "commands": commands,
            "cpu_us": 1e6 * sum(r.get("cpu", 0.0) for r in done) / commands,
            "server_us": None if None in servers else 1e6 * sum(servers) / commands,
            "busy": (cores[0] - cores[1]) / cores[0] * (os.cpu_count() or 1) if cores[0] > 0 else None}


def machine_time() -> list[float]:
    """(all the cores' time, their idle time) so far, in clock ticks (Linux's /proc/stat; zeros elsewhere)."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(field) for field in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return [0.0, 0.0]
    return [float(sum(ticks)), float(ticks[3] + ticks[4])]  # (idle and iowait)


# --- the rows ---------------------------------------------------------------------------------------------


def _prepare_games(target: str, channels: list[str]) -> None:
    async def build() -> None:
        for channel in channels:
            await play_template(target, channel, None, "gm", PLAYERS)  # type: ignore[arg-type]

    asyncio.run(build())


def sqlite_row(seconds: float) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="bench-pg-sqlite-"))
    try:
        target = str(folder / "referee.db")
        _prepare_games(target, ["sqlite-1"])
        referee = run_processes("referee", target, ["sqlite-1"], seconds)
        raw_path = folder / "raw.db"
        with sqlite3.connect(raw_path) as con:
            con.execute("CREATE TABLE raw_rows (id INTEGER PRIMARY KEY, data TEXT NOT NULL)")
        raw = run_processes("raw", str(raw_path), ["raw"], seconds, referee["synchronous"])
        return {"processes": 1, "commands": referee["rate"], "raw": raw["rate"], "refused": referee["refused"],
                "synchronous": referee["synchronous"]}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def postgres_rows(url: str, seconds: float, counts: tuple[int, ...] = PROCESSES,
                  rounds: int = ROUNDS) -> list[dict[str, Any]]:
    """Each count's row (its medians over `rounds` rounds, each round running every count once, referee then raw):
    commands and raw commits a second; a command's CPU (µs: the referee processes', and their backends' when the
    server is on this machine, else None); WAL fsyncs a command; `ratio`, the median of each round's commands a
    second over the round's first count's."""
    import psycopg

    from data.postgres import split_schema

    dsn, schema = split_schema(url)
    with psycopg.connect(dsn, autocommit=True) as con:
        con.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        con.execute(f'CREATE TABLE "{schema}".raw_rows (id BIGSERIAL PRIMARY KEY, data TEXT NOT NULL)')
    channels = {n: [f"pg-{n}-{i}" for i in range(n)] for n in counts}
    _prepare_games(url, [channel for n in counts for channel in channels[n]])
    runs: dict[int, list[dict[str, Any]]] = {n: [] for n in counts}
    for _ in range(max(1, rounds)):
        for n in counts:
            before = wal_syncs(dsn)
            referee = run_processes("referee", url, channels[n], seconds)
            after = wal_syncs(dsn)
            referee["fsyncs"] = None if before is None or after is None else (after - before) / referee["commands"]
            referee["raw"] = run_processes("raw", url, [f"raw-{i}" for i in range(n)], seconds)["rate"]
            runs[n].append(referee)
    rows = []
    for n in counts:
        ratios = [run["rate"] / first["rate"] for run, first in zip(runs[n], runs[counts[0]], strict=True)]
        rows.append({"processes": n, "commands": _median(run["rate"] for run in runs[n]),
                     "raw": _median(run["raw"] for run in runs[n]), "refused": sum(run["refused"] for run in runs[n]),
                     "cpu_us": _median(run["cpu_us"] for run in runs[n]),
                     "server_us": _median(run["server_us"] for run in runs[n]),
                     "fsyncs": _median(run["fsyncs"] for run in runs[n]),
                     "busy": _median(run["busy"] for run in runs[n]),
                     "ratio": _median(ratios), "ratios": ratios})
    return rows


def _median(values: Any) -> Any:
    """The median of figures (None when one of them is unknown)."""
    known = list(values)
    return None if not known or None in known else statistics.median(known)


def wal_syncs(dsn: str) -> int | None:
    """The server's WAL fsyncs so far (pg_stat_wal, PostgreSQL 14 and later; else None)."""
    import psycopg

    try:
        with psycopg.connect(dsn, autocommit=True) as con:
            row = con.execute("SELECT wal_sync FROM pg_stat_wal").fetchone()
    except psycopg.Error:
        return None
    return None if row is None else int(row[0])


def server_settings(url: str) -> dict[str, str]:
    import psycopg

    from data.postgres import split_schema

    with psycopg.connect(split_schema(url)[0], autocommit=True) as con:
        names = ("server_version", "fsync", "synchronous_commit", "wal_sync_method", "commit_delay")
        return {name: str(con.execute(f"SHOW {name}").fetchone()[0]) for name in names}  # type: ignore[index]


def drop_schema(url: str) -> None:
    import psycopg

    from data.postgres import split_schema

    dsn, schema = split_schema(url)
    with psycopg.connect(dsn, autocommit=True) as con:
        con.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def costs(row: dict[str, Any]) -> str:
    """Where a PostgreSQL row's command goes: its CPU in the referee process and the server, its fsyncs."""
    server = f"{row['server_us']:,.0f} µs" if row.get("server_us") is not None else "not seen (another machine)"
    fsyncs = f"{row['fsyncs']:.2f}" if row.get("fsyncs") is not None else "not seen (before PostgreSQL 14)"
    busy = f"; the machine's cores busy: {row['busy']:.2f} of {os.cpu_count()}" if row.get("busy") is not None else ""
    return (f"  {row['processes']} process{'es' if row['processes'] > 1 else ''}: referee CPU "
            f"{row['cpu_us']:,.0f} µs, server CPU {server}, WAL fsyncs {fsyncs}{busy}")


def line(backend: str, row: dict[str, Any]) -> str:
    refused = f"  ({row['refused']} refused)" if row["refused"] else ""
    return (f"{backend:<11} {row['processes']:>9}  {row['commands']:>12,.0f}  {row['raw']:>13,.0f}  "
            f"{row['commands'] / row['raw']:>5.0%}{refused}")


def report(args: argparse.Namespace) -> None:
    began = time.perf_counter()
    def out(text: str) -> None:
        print(text, flush=True)

    out(f"PostgreSQL and several processes (issue 20): persisted commands a second through the referee (each one "
        f"committed transaction) beside raw single-row commits, {args.seconds:g} s a measurement, "
        f"{args.rounds} round(s) of the PostgreSQL rows, {os.cpu_count()} CPUs")
    out(f"{'backend':<11} {'processes':>9}  {'commands/s':>12}  {'raw commits/s':>13}  {'ratio':>5}")
    sqlite = sqlite_row(args.seconds)
    out(line("SQLite", sqlite))
    sqlite_note = (f"SQLite: one file, WAL, synchronous={sqlite['synchronous']} (the store's settings); "
                   "raw: sqlite3, BEGIN IMMEDIATE + INSERT + COMMIT")
    notes = [sqlite_note]
    args.url, server, reason = postgres_server(args.url, "--sqlite-only" if args.sqlite_only else None)
    if reason is not None:
        out(f"PostgreSQL rows skipped: {reason}")
    else:
        url = with_schema(args.url, f"bench_{os.getpid()}")
        try:
            settings = server_settings(url)
            rows = postgres_rows(url, args.seconds, tuple(args.processes), args.rounds)
            for row in rows:
                out(line("PostgreSQL", row))
            out("PostgreSQL, a command's cost (medians):")
            for row in rows:
                out(costs(row))
            for row in rows[1:]:
                shown = ", ".join(f"×{ratio:.2f}" for ratio in row["ratios"])
                out(f"PostgreSQL {row['processes']} processes vs {rows[0]['processes']}: ×{row['ratio']:.2f} "
                    f"(the median of {len(row['ratios'])} rounds' ratios: {shown})")
            where = "a throwaway server (tests/support/pgserver.py) on 127.0.0.1" if server else "the server of --url"
            notes.append(f"PostgreSQL {settings['server_version'].split()[0]}: {where}, fsync={settings['fsync']}, "
                         f"synchronous_commit={settings['synchronous_commit']}, wal_sync_method="
                         f"{settings['wal_sync_method']}, commit_delay={settings['commit_delay']}; each process its "
                         f"own store, connection, event loop and game; raw: psycopg, autocommit off, INSERT + "
                         f"COMMIT, one connection a process")
        finally:
            if server is not None:
                server.stop()
            else:
                drop_schema(url)
    for note in notes:
        out(note)
    out(f"bench.postgres took {time.perf_counter() - began:.0f} s")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.postgres", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of each measurement (default 2 s)")
    parser.add_argument("--rounds", type=int, default=ROUNDS,
                        help=f"rounds of the PostgreSQL rows, each row's figure its median (default {ROUNDS})")
    parser.add_argument("--url", help="an existing PostgreSQL server (default: start a throwaway one)")
    parser.add_argument("--processes", type=int, nargs="+", default=list(PROCESSES),
                        help="the PostgreSQL rows' process counts (default 1 2 4)")
    parser.add_argument("--sqlite-only", action="store_true", help="the SQLite row alone")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    report(parse_args(argv))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
