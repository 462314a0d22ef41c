"""Issue 35's goal table (bench/goals.py) at a tiny size: a smoke test only. Every goal's row prints its figure
beside its reference and a verdict (or why it was skipped), then the markdown table; no timing is asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.goals import fsyncs_between

pytestmark = pytest.mark.sqlite_only  # SQLite's own files and processes (the PostgreSQL row is skipped by --quick)

ROOT = Path(__file__).resolve().parents[2]
ROWS = [
    "fsyncs per command (SQLite, one after another; under load)",
    "snapshot loads per command",
    "database-thread CPU per `/economy grow`",
    "rollover, 200 games",
    "database thread held by the clock at a time",
    "a command's p99 during a 200-game rollover",
    "open loop: rate at which a command's p99 passes 100 ms",
    "PostgreSQL, 2 processes vs 1",
    "`/economy grow` vs a no-op slash command",
    "a Nations report embed's render time",
]
JUDGED = re.compile(r"\(goal .+\) — (met|missed|skipped: .+|not judged.*|not measured.*)$")


def test_every_goal_prints_a_row_beside_its_reference_and_the_table() -> None:
    done = subprocess.run([sys.executable, "-m", "bench.goals", "--quick"], cwd=ROOT, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "FAILED" not in done.stdout and "INCOMPLETE" not in done.stdout, done.stdout
    for row in ROWS:
        printed = [line for line in lines if line.startswith(row + ":")]
        assert printed, f"no row {row!r} in:\n{done.stdout}"
        assert "; reference: " in printed[0] and JUDGED.search(printed[0]), printed[0]
        assert [line for line in lines if line.startswith(f"| {row} |")], f"{row!r} is not in the table"
    assert "| measure | now | reference (same run) | goal | met? |" in lines
    assert "skipped: --quick" in next(line for line in lines if line.startswith("PostgreSQL"))


def test_fsyncs_are_counted_between_the_markers_only() -> None:
    trace = "\n".join([
        '101 fdatasync(5) = 0',  # starting: not counted
        '101 chdir("/tmp/x/bench-goals-mark/single") = -1 ENOENT (No such file or directory)',
        '102 fdatasync(5 <unfinished ...>',
        '101 fsync(7) = 0',
        '102 <... fdatasync resumed>) = 0',
        '101 chdir("/tmp/x/bench-goals-mark/single-end") = -1 ENOENT (No such file or directory)',
        '102 fdatasync(5) = 0',  # between phases: not counted
        '101 chdir("/tmp/x/bench-goals-mark/raw") = -1 ENOENT (No such file or directory)',
        '101 chdir("/tmp/x/bench-goals-mark/raw-end") = -1 ENOENT (No such file or directory)',
    ])
    assert fsyncs_between(trace) == {"single": 2, "raw": 0}
