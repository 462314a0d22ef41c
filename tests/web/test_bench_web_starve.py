"""Issue 33's benchmark (bench/web_starve.py) at a tiny size: a smoke test only. Every line prints its figures,
the server kept no more connections from one address than its cap and pages were read; no timing is asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.sqlite_only  # (the bench's own SQLite store and processes of its own)

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--files", "1024", "--idle", "200", "--rolls", "600", "--downloads", "10", "--seconds", "0.5"]
N = r"\d[\d,.]*"
PAGES = rf"(?P<ok>{N}) of (?P<asked>{N}) answered 200; p50 {N} ms, p99 {N} ms"
ROWS = [
    (r"^page server under attack \(issue 33\): file limit 1,024; at most 768 connections, 32 an address, 384 live "
     r"streams, a request within 5 s; 200 idle connections from one address$"),
    rf"^  no attack: {N} files open; a page read: {PAGES}$",
    (rf"^  200 idle connections opened: the server keeps (?P<kept>{N}) \({N} by its own count\), {N} files open; a "
     rf"page read meanwhile: {PAGES}$"),
    (rf"^  200 idle connections opened from 100 addresses: the server keeps (?P<kept>{N}) \({N} by its own count\), "
     rf"{N} files open; a page read meanwhile: {PAGES}$"),
    (rf"^  200 connections reopened as soon as closed, for 0\.5 s: {N} opened \({N}/s.*\), {N} files open; the "
     rf"server used {N}% of a core; a page read meanwhile: {PAGES}$"),
    r"^  the server's log during the attack: [\d,]+ bytes; its counts: \{.*\}$",
    (rf"^  10 downloads of rolls.csv \(600 rolls, {N} MiB each\) from 10 addresses, all at once: "
     rf"(\d+ × 200)?(, )?(\d+ × 503)? in {N} s; the server's memory {N} MiB before, {N} MiB at its peak, {N} MiB "
     rf"after; a page read meanwhile: {PAGES}$"),
    (rf"^  10 downloads of rolls.csv \(600 rolls, {N} MiB each\) from 10 addresses, 8 at a time: 10 × 200 in {N} "
     rf"s; the server's memory {N} MiB before, {N} MiB at its peak, {N} MiB after; a page read meanwhile: "
     rf"{PAGES}$"),
]


def test_every_line_prints_its_figures_and_the_caps_held():
    done = subprocess.run([sys.executable, "-m", "bench.web_starve", *TINY], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(ROWS), done.stdout
    for line, pattern in zip(lines, ROWS, strict=True):
        found = re.search(pattern, line)
        assert found, f"{line!r} does not match {pattern!r}"
        if "ok" in found.groupdict():
            assert int(found["ok"]) > 0, line  # pages were read under attack
    assert int(re.search(ROWS[2], lines[2])["kept"]) <= 32  # one address: at most its cap
    assert int(re.search(ROWS[3], lines[3])["kept"]) <= 200
