"""Issue 20's benchmark (bench/postgres.py) at a tiny size: a smoke test only. Every row prints its commands a
second, its raw commits a second and their ratio; no timing is asserted (this machine's speed is not the test's
business). The PostgreSQL rows run on the test pass's server (`pytest --postgres`), in a schema of their own."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIGURE = r"\d[\d,]*"
ROW = rf"\s+{FIGURE}\s+{FIGURE}\s+{FIGURE}%"


def run_bench(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "bench.postgres", "--seconds", "0.3", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout


def has_row(output: str, backend: str, processes: int) -> bool:
    return any(re.fullmatch(rf"{backend}\s+{processes}{ROW}", line) for line in output.splitlines())


@pytest.mark.sqlite_only  # (starts no server; the PostgreSQL pass runs the test below)
def test_the_sqlite_row_prints_its_figures_without_postgres():
    output = run_bench("--sqlite-only")
    assert has_row(output, "SQLite", 1), output
    assert "PostgreSQL rows skipped: --sqlite-only" in output
    assert re.search(r"^SQLite: one file, WAL, synchronous=\d", output, re.M), output
    assert not has_row(output, "PostgreSQL", 1)


@pytest.mark.postgres_only
def test_every_row_prints_its_figures_on_postgres(request: pytest.FixtureRequest):
    output = run_bench("--url", request.config.pg_url)  # type: ignore[attr-defined]
    assert has_row(output, "SQLite", 1), output
    for processes in (1, 2, 4):
        assert has_row(output, "PostgreSQL", processes), output
    assert re.search(r"^PostgreSQL \d+[.\d]*: the server of --url, fsync=\w+, synchronous_commit=\w+", output,
                     re.M), output
    assert "skipped" not in output
