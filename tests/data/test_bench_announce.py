"""Issue 33's benchmark of exactly-once announcements (bench/announce.py) at a tiny size: a smoke test only. Every
row with its leases announces each game once (no duplicate, none missing), whatever this machine's speed; no time
is asserted, nor what the rows run as before issue 33 show (their duplicates depend on timing). The PostgreSQL rows
run on the test pass's server (`pytest --postgres`), in schemas of their own."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = 40
ONCE = rf"\s+{GAMES}\s+{GAMES}\s+0\s+0\s+\d+\.\d s .*"


def run_bench(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "bench.announce", "--games", str(GAMES), "--per-second", "2000",
                           "--lease", "0.4", *args], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout


def has_row(output: str, name: str) -> bool:
    return any(re.fullmatch(rf"{re.escape(name)}{ONCE}", line) for line in output.splitlines())


@pytest.mark.sqlite_only  # (starts no server; the PostgreSQL pass runs the test below)
def test_the_sqlite_row_announces_every_game_once():
    output = run_bench("--sqlite-only", "--no-before")
    assert has_row(output, "SQLite, 2 stores on one file"), output
    assert "PostgreSQL rows skipped: --sqlite-only" in output
    assert "as before" not in output


@pytest.mark.postgres_only
def test_every_row_with_leases_announces_every_game_once_on_postgres(request: pytest.FixtureRequest):
    output = run_bench("--url", request.config.pg_url)  # type: ignore[attr-defined]
    for name in ("SQLite, 2 stores on one file", "PostgreSQL, 1 process", "PostgreSQL, 2 processes 3 h apart"):
        assert has_row(output, name), output
    assert output.count("as before issue 33 (no leases)") == 2 and "skipped" not in output
