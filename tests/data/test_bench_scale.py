"""The scale benchmarks (bench/scale.py) at a tiny size: a smoke test only. Every row prints its figure beside
its reference and a verdict; no timing is asserted (this machine's speed is not the test's business)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.scale import run_worker

pytestmark = pytest.mark.sqlite_only  # SQLite's own files, faults and processes

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--scale", "20", "--small", "10", "--commands", "20", "--actions", "40", "--active", "5",
        "--in-flight", "4", "--load-seconds", "0.2",
        "--lateness-games", "2", "--turns", "1", "--turn-seconds", "0.5"]
FIGURE = r"\d[\d,.]*"
VERDICT = r"— (met|missed)$"
ROWS = {
    "/economy grow": rf"^/economy grow through discord\.py, 20 commands: median {FIGURE} ms, p99 {FIGURE} ms .*"
                     rf"a no-op slash command: median {FIGURE} ms.*{FIGURE}× the no-op .*{VERDICT}",
    "persisted actions": rf"^persisted actions: {FIGURE}/s through the referee .*raw single-row sqlite3 commits "
                         rf".*: {FIGURE}/s; {FIGURE}% .*{VERDICT}",
    "under load": rf"^persisted actions under load, 4 commands in flight: {FIGURE}/s \(group commit, {FIGURE} "
                  rf"commands a transaction on average\); raw single-row sqlite3 commits .*: {FIGURE}/s; "
                  rf"{FIGURE}%; one after another: {FIGURE}/s .*{VERDICT}",
    "rollover 10": rf"^rollover 10 games: {FIGURE} s, all committed ",
    "rollover 20": rf"^rollover 20 games: {FIGURE} s, all committed; 10 games: {FIGURE} s, ×{FIGURE} the time",
    "rollover RSS": rf"^peak RSS during the 20-game rollover: {FIGURE} MiB; 10 games: {FIGURE} MiB .*{VERDICT}",
    "announcements": rf"^announcements to 20 channels through discord\.py: {FIGURE} ms a message, {FIGURE} s, the "
                     rf"last fifth ×{FIGURE} the first's time a message, at most {FIGURE} rate-limit buckets; "
                     rf"discord\.py's own table: {FIGURE} ms a message, .*{VERDICT}",
    "restart 10": rf"^restart to ready with 10 games pending: {FIGURE} s; empty store: {FIGURE} s, {FIGURE}× ",
    "restart 20": rf"^restart to ready with 20 games pending: {FIGURE} s; empty store: {FIGURE} s, {FIGURE}× ",
    "lateness": rf"^deadline lateness, 2 games × 1 turns of 0\.5 s: rollover committed median -?{FIGURE} ms, "
                rf"max -?{FIGURE} ms; announced median -?{FIGURE} ms, max -?{FIGURE} ms .*{VERDICT}",
    "memory": rf"^peak RSS, 20 games stored, 5 active \(10 commands\): {FIGURE} MiB; 5 stored, all active: "
              rf"{FIGURE} MiB .*{VERDICT}",
}


def test_every_row_prints_a_figure_at_a_tiny_size():
    done = subprocess.run([sys.executable, "-m", "bench.scale", *TINY, "--inline"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for row, pattern in ROWS.items():
        assert [line for line in lines if re.search(pattern, line)], f"no {row} row in:\n{done.stdout}"
    assert "INCOMPLETE" not in done.stdout and "NOT armed" not in done.stdout and "never seen" not in done.stdout


def test_a_measurement_runs_in_a_process_of_its_own():
    result = run_worker("rollover", inline=False, timeout=60, games=5)
    assert result["games"] == result["rolled"] == result["due_before"] == 5
    assert result["left_due"] == 0 and result["seconds"] > 0 and result["peak_rss"] > 0


def test_snapshot_bench_prints_each_step_of_a_snapshot_both_ways_and_what_a_cache_would_save() -> None:
    """bench/snapshot.py: a stored snapshot smaller than its JSON, both forms (the export document, typed), and each
    step's time printed, with the private copies a parsed-state cache would need."""
    out = subprocess.run([sys.executable, "-m", "bench.snapshot", "--repeat", "5"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True).stdout.splitlines()
    sizes = re.match(r"^a five-nation snapshot: ([\d,]+) bytes of JSON; stored ([\d,]+) bytes as the compressed "
                     r"document, ([\d,]+) typed$", out[0])
    assert sizes is not None, out
    json_bytes, document, typed = (int(g.replace(",", "")) for g in sizes.groups())
    assert 0 < document < json_bytes and 0 < typed < json_bytes
    assert re.match(rf"^as the document: load {FIGURE} µs \(decompress and parse {FIGURE} \+ build the state "
                    rf"{FIGURE}\), write {FIGURE} µs \(state to document {FIGURE} \+ JSON and zlib {FIGURE}\)$", out[1])
    assert re.match(rf"^typed \(what the store writes\): load {FIGURE} µs, write {FIGURE} µs: -?{FIGURE} µs less a "
                    "command$", out[2]), out
    assert re.match(rf"^a private copy for a parsed-state cache: copy\.deepcopy {FIGURE} µs, msgspec encode and "
                    rf"decode {FIGURE} µs, against a typed load of {FIGURE} µs$", out[3])
