"""Issue 22's benchmark (bench/web.py) at a tiny size: a smoke test only. Every line prints its figures and the
pages were really served, 200 OK; no timing is asserted (this machine's speed is not the test's business)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.sqlite_only  # (the bench's own SQLite store, the bot and a process of its own)

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--pages-per-second", "40", "--seconds", "0.6", "--games", "2", "--commands", "4", "--rounds", "1",
        "--addresses", "4"]
FIGURE = r"\d[\d,.]*"
MS = rf"{FIGURE} ms"
ROWS = [
    (r"^game pages \(issue 22\): 2 games' pages at 40 pages/s from 4 client addresses, 1 rounds of 0\.6 s with "
     r"pages and 1 without, alternating, 4 /economy grow a round on the games whose pages are read; "),
    (rf"^pages served: {FIGURE}/s \((?P<ok>{FIGURE}) of (?P<requested>{FIGURE}) requests answered 200 OK; no other "
     rf"status, no failure\), {FIGURE} KiB a page$"),
    rf"^page latency \(as the client sees it\): median {MS}, p99 {MS}, max {MS}$",
    (rf"^pages made afresh \(their game had changed since its page was cached\): ({FIGURE} of {FIGURE}, {FIGURE}/s; "
     rf"render_page median {MS}, p99 {MS}, max {MS}|none of {FIGURE})$"),
    (rf"^/economy grow without pages: median {MS}, p99 {MS} \(4 commands; round medians {MS}\); a no-op slash "
     rf"command: median {MS}, p99 {MS}$"),
    (rf"^/economy grow with pages: median {MS}, p99 {MS} \(4 commands; round medians {MS}\); a no-op slash "
     rf"command: median {MS}, p99 {MS}$"),
    (rf"^the bot's process: {FIGURE}% of a core without pages, {FIGURE}% with them: -?{FIGURE} ms of CPU a page; "
     rf"the load process: {FIGURE}% of a core$"),
    (rf"^pages while the bot answers: {FIGURE} pages/s served; /economy grow median ×{FIGURE} with pages \(.*\) "
     rf"\(goal: 200 pages/s, interaction latency unchanged within noise\) — (met|missed) \(at 40 pages/s: judged at "
     rf"200\)( \(the rounds without pages differ .*\))?$"),
]


def test_every_line_prints_its_figures_and_the_pages_were_served():
    done = subprocess.run([sys.executable, "-m", "bench.web", *TINY], cwd=ROOT, capture_output=True, text=True,
                          timeout=180, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(ROWS), done.stdout
    for line, pattern in zip(lines, ROWS, strict=True):
        assert re.search(pattern, line), f"{line!r} does not match {pattern!r}"
    served = re.search(ROWS[1], lines[1])
    assert served is not None
    ok, requested = (int(served[name].replace(",", "")) for name in ("ok", "requested"))
    assert ok == requested == 24  # 40 pages a second for 0.6 s, every one 200 OK
