"""Migrations under a lock (issue 33): several processes opening one fresh database at once all open it, at the
latest schema, and each migration runs once — a test migration that inserts a row leaves one row.

On SQLite each migration's transaction (`BEGIN IMMEDIATE`) reads the version again before it applies; on
PostgreSQL the run holds an advisory lock, the version read again once it is held. Stores opened together in one
event loop each have their own connection and database thread; on PostgreSQL separate processes do it too.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest
from storehelpers import REPO, scalar

import data.store.schema as schema_module
from data.store import MIGRATIONS, Store, migration_files

STORES = 4


def counting_migrations(tmp_path: Path) -> tuple[Path, int]:
    """A copy of the migrations with one more after the last: it makes a table and inserts one row in it (run
    twice, it would fail, or leave two rows). Returns the folder and the new latest number."""
    folder = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, folder, ignore=shutil.ignore_patterns("__pycache__"))
    number = max(n for n, _ in migration_files()) + 1
    (folder / f"{number:03d}_runs.sql").write_text(
        "CREATE TABLE migration_runs (n INTEGER);\nINSERT INTO migration_runs VALUES (1);\n")
    return folder, number


async def test_stores_opening_one_fresh_database_at_once_all_open_it_and_each_migration_runs_once(tmp_path,
                                                                                               monkeypatch):
    folder, latest = counting_migrations(tmp_path)
    monkeypatch.setattr(schema_module, "MIGRATIONS", folder)
    opened = await asyncio.gather(*(Store.open(tmp_path / "fresh.db") for _ in range(STORES)),
                                  return_exceptions=True)
    stores = [store for store in opened if isinstance(store, Store)]
    try:
        assert stores == opened, [repr(err) for err in opened if not isinstance(err, Store)]
        for store in stores:
            assert await store.migrate() == latest  # (at the latest version: nothing left to apply)
        assert await scalar(stores[0], "SELECT COUNT(*) FROM migration_runs") == 1
    finally:
        for store in stores:
            await store.close()


MIGRATING = textwrap.dedent("""
    import asyncio, os, sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    import data.store.schema as schema_module
    from data.store import Store

    schema_module.MIGRATIONS = Path(sys.argv[2])
    go = Path(sys.argv[4])
    print("ready", flush=True)
    while not go.exists():  # all start together
        time.sleep(0.005)

    async def main():
        store = await Store.open(sys.argv[3])
        try:
            print("version", await store.migrate(), flush=True)
        finally:
            await store.close()

    asyncio.run(main())
""")


@pytest.mark.postgres_only
async def test_processes_opening_one_fresh_postgresql_database_at_once_all_open_it_and_migrate_once(
        tmp_path, request):
    """Before the lock, three processes started together on a fresh database crashed 9 times in 24 with a raw
    traceback (a migration's CREATE TABLE raced another's)."""
    folder, latest = counting_migrations(tmp_path)
    base = request.config.pg_url  # type: ignore[attr-defined]
    url = f"{base}{'&' if '?' in base else '?'}schema=mig_{uuid.uuid4().hex[:12]}"
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    processes = [subprocess.Popen([sys.executable, "-c", MIGRATING, str(REPO), str(folder), url, str(go)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env)
                 for _ in range(STORES)]
    try:
        for process in processes:
            assert process.stdout is not None and process.stdout.readline() == "ready\n"
        go.touch()
        outcomes = [process.communicate(timeout=120) for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
    for process, (out, err) in zip(processes, outcomes, strict=True):
        assert process.returncode == 0 and out == f"version {latest}\n", err
    store: Any = await Store.open(url)
    try:
        assert await scalar(store, "SELECT COUNT(*) FROM migration_runs") == 1
        assert await scalar(store, "SELECT COUNT(*) FROM referee_schema") == 1
    finally:
        await store.close()
