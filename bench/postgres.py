"""PostgreSQL and several processes (issue 20): persisted commands a second through the referee, each beside raw
single-row commits of the same database measured in the same run.

    python -m bench.postgres                      # 3 s a row; starts a throwaway PostgreSQL server
    python -m bench.postgres --url postgresql://… # an existing server instead (a fresh schema of its own)
    python -m bench.postgres --sqlite-only        # the SQLite row alone

Rows: SQLite with 1 process; PostgreSQL with 1, 2 and 4 processes. A command is a Nations command through
`Referee.act` that commits one action (a player grows its economy, then the GM grants the action back: every
one accepted), as in bench/scale.py's throughput row. Each process has its own store (its own connection and
database thread), its own event loop and its own game, so that processes do not wait on one game's row; all
start together and play for a fixed time; a row's figure is the total across its processes. Its reference is
raw single-row commits (one INSERT and one COMMIT a transaction) with as many connections, each in a process
of its own: sqlite3 with the store's settings (WAL, its synchronous setting), psycopg with autocommit off.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import shutil
import sqlite3
import sys
import tempfile
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
        synchronous = None
        if store.dialect == "sqlite":
            async with store.db.execute("PRAGMA synchronous") as cursor:
                synchronous = int((await cursor.fetchone())[0])
        await asyncio.to_thread(barrier.wait)
        done = refused = 0
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            try:
                await grow_or_grant(referee, channel, done, PLAYERS, nations)
            except RefereeError:
                refused += 1
            done += 1
        spent = time.perf_counter() - began
    finally:
        await store.close()
    return {"done": done - refused, "refused": refused, "seconds": spent, "synchronous": synchronous}


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
    """`len(channels)` processes at once (one a channel); the total a second across them."""
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(len(channels)), context.Queue()
    workers = [context.Process(target=_worker, args=(kind, target, channel, seconds, synchronous, barrier, results))
               for channel in channels]
    for worker in workers:
        worker.start()
    done = [results.get(timeout=120 + seconds * 2) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    errors = [r["error"] for r in done if "error" in r]
    if errors:
        raise RuntimeError(f"a {kind} process failed: {errors[0]}")
    return {"rate": sum(r["done"] / r["seconds"] for r in done), "refused": sum(r["refused"] for r in done),
            "synchronous": done[0].get("synchronous")}


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


def postgres_rows(url: str, seconds: float, counts: tuple[int, ...] = PROCESSES) -> list[dict[str, Any]]:
    import psycopg

    from data.postgres import split_schema

    dsn, schema = split_schema(url)
    with psycopg.connect(dsn, autocommit=True) as con:
        con.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        con.execute(f'CREATE TABLE "{schema}".raw_rows (id BIGSERIAL PRIMARY KEY, data TEXT NOT NULL)')
    channels = {n: [f"pg-{n}-{i}" for i in range(n)] for n in counts}
    _prepare_games(url, [channel for n in counts for channel in channels[n]])
    rows = []
    for n in counts:
        referee = run_processes("referee", url, channels[n], seconds)
        raw = run_processes("raw", url, [f"raw-{i}" for i in range(n)], seconds)
        rows.append({"processes": n, "commands": referee["rate"], "raw": raw["rate"], "refused": referee["refused"]})
    return rows


def server_settings(url: str) -> dict[str, str]:
    import psycopg

    from data.postgres import split_schema

    with psycopg.connect(split_schema(url)[0], autocommit=True) as con:
        names = ("server_version", "fsync", "synchronous_commit", "wal_sync_method")
        return {name: str(con.execute(f"SHOW {name}").fetchone()[0]) for name in names}  # type: ignore[index]


def drop_schema(url: str) -> None:
    import psycopg

    from data.postgres import split_schema

    dsn, schema = split_schema(url)
    with psycopg.connect(dsn, autocommit=True) as con:
        con.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


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
        f"{os.cpu_count()} CPUs")
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
            for row in postgres_rows(url, args.seconds, tuple(args.processes)):
                out(line("PostgreSQL", row))
            where = "a throwaway server (tests/support/pgserver.py) on 127.0.0.1" if server else "the server of --url"
            notes.append(f"PostgreSQL {settings['server_version'].split()[0]}: {where}, fsync={settings['fsync']}, "
                         f"synchronous_commit={settings['synchronous_commit']}, wal_sync_method="
                         f"{settings['wal_sync_method']}; each process its own store, connection, event loop and "
                         f"game; raw: psycopg, autocommit off, INSERT + COMMIT, one connection a process")
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
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each measurement (default 3 s)")
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
