"""The turn clock across hours in real processes: the console run under faketime (Debian's `faketime`).

Each run is a new process whose wall clock is set by faketime; the database carries the game between
them, as it would between a GM's sessions days apart. Skipped where faketime is not installed (.ci/run
installs it).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("faketime") is None, reason="faketime is not installed")


def console_at(when: str, db: Path, lines: str) -> list[str]:
    done = subprocess.run(
        ["faketime", "-f", f"@{when}", sys.executable, str(REPO / "bot.py"), "--console", "--db", str(db)],
        input=lines, capture_output=True, text=True, timeout=60, cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "HOME": str(db.parent), "TZ": "UTC"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_rollovers_and_a_bonus_expiry_missed_between_sessions_are_announced_once(tmp_path):
    db = tmp_path / "game.db"
    first = console_at("2026-01-01 00:00:00", db, "\n".join([
        "gm /game start turn_hours:12",
        "alice /nation claim preset:Charon",
        'gm /gm dice values:"9"',
        "alice /propaganda encourage kind:morale",  # 9 + mod(P) 0 = 9: Morale +3 for 36 hours
    ]) + "\n")
    assert "✨ Charon: Morale +3 until 2026-01-02 12:00 UTC." in first

    # 30 hours later: two turns ended meanwhile; the first command's catch-up announces both, once.
    later = console_at("2026-01-02 06:00:00", db, "gm /game status\ngm /game status\n")
    assert later[:2] == [
        ("⏰ Turn 1 is over (time is up). Turn 2 begins and ends 2026-01-02 00:00 UTC. "
         "Last turn — Charon: PROPAGANDA."),
        "⏰ Turn 2 is over (time is up). Turn 3 begins and ends 2026-01-02 12:00 UTC. Last turn — Charon: nothing.",
    ]
    assert later[2] == "Nations — turn 3 (12 h), ends 2026-01-02 12:00 UTC; GM: gm"
    assert sum(line.startswith("⏰") for line in later) == 2

    # 36 hours after the roll, at the third turn's end: the turn ends first, then the bonus runs out.
    last = console_at("2026-01-02 12:00:01", db, "alice /nation show\n")
    assert last[:2] == [
        "⏰ Turn 3 is over (time is up). Turn 4 begins and ends 2026-01-03 00:00 UTC. Last turn — Charon: nothing.",
        "Charon: the Morale bonus (+3) has run out.",
    ]
