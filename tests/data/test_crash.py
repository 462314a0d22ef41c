"""A crash between the roll and the commit leaves no trace: the console is killed inside its transaction."""

from __future__ import annotations

import json
import queue
import signal
import sqlite3
import subprocess
import threading

import pytest
from storehelpers import (
    REPO,
    bot_command,
    console_env,
    db_counts,
    normalize_times,
    read_lines,
    read_snapshot,
    run_console,
    wait_for,
)

pytestmark = pytest.mark.sqlite_only  # SQLite's own files, faults and processes

PAUSE_MESSAGE = "store: pausing before commit"
SETUP = [
    "gm /game start",
    'gm /nation claim "Gracchan Republic" alice',
    "gm /nation claim Charon bob",
    'gm /gm dice values:"9"',
]
ROLL_LINE = "🎲 Gracchan Republic, grow military: d10 9 (GM die) + mod(E) +1 = 10 vs > 8: success"


def game_row(db) -> dict:
    """What the game's snapshot row holds (turn, entered dice, nations and units), read with plain sqlite3."""
    with sqlite3.connect(str(db)) as con:
        snapshot = read_snapshot(con)
    game = {"turn": snapshot["game"]["turn"], "forced_dice": json.dumps(snapshot["game"]["forced_dice"]),
            "next_unit_id": snapshot["game"]["next_unit_id"]}
    nations = {n["name"]: {key: n[key] for key in ("name", "economy", "military", "stability", "propaganda", "land")}
               | {"actions_used": json.dumps(n["actions_used"])} for n in snapshot["nations"]}
    units = sum(len(n["units"]) for n in snapshot["nations"])
    return {"game": game, "nations": nations, "units": units}


def test_a_crash_between_roll_and_commit_leaves_no_trace(tmp_path):
    db = tmp_path / "crash.db"
    first = run_console(db, SETUP)
    assert first.returncode == 0, first.stderr
    assert "GM gm entered the next 1 die." in first.stdout
    counts, before = db_counts(db), game_row(db)
    assert json.loads(before["game"]["forced_dice"]) == [9]

    # the second run pauses inside the transaction of its one rolled action, and is killed there
    process = subprocess.Popen(bot_command(db), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, encoding="utf-8", cwd=REPO,
                               env=console_env({"REFEREE_TEST_PAUSE_BEFORE_COMMIT": "30"}))
    lines: queue.Queue = queue.Queue()
    reader = threading.Thread(target=read_lines, args=(process.stdout, lines), daemon=True)
    reader.start()
    try:
        process.stdin.write("alice /economy military\n")
        process.stdin.flush()
        seen = wait_for(lines, PAUSE_MESSAGE, timeout=30)
        assert seen == [PAUSE_MESSAGE]  # nothing was announced before the commit
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        process.stdin.close()
    reader.join(timeout=10)
    assert process.returncode == -signal.SIGKILL

    # no new action, event or roll; the state as it was, the GM die still queued
    assert db_counts(db) == counts
    after = game_row(db)
    assert after == before
    assert json.loads(after["game"]["forced_dice"]) == [9]
    assert json.loads(after["nations"]["Gracchan Republic"]["actions_used"]) == []
    with sqlite3.connect(str(db)) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    # a third, normal run plays the same action, with the same GM die
    third = run_console(db, ["alice /economy military", "gm /game status"])
    assert third.returncode == 0, third.stderr
    out = normalize_times(third.stdout).splitlines()
    assert out[:4] == [
        ROLL_LINE,
        "Gracchan Republic: MILITARY +1 (grow military).",
        "Gracchan Republic: ECONOMY -1 (cost of growing military).",
        "Gracchan Republic: 1 of 2 actions left; turn 1 ends <T>.",
    ]
    assert "GM-entered dice waiting" not in third.stdout
    assert "Gracchan Republic — alice: E 11 S 10 M 9 P 10 L 20; 5 units; 1 action left" in out
    final = db_counts(db)
    assert final["actions"] == counts["actions"] + 1 and final["rolls"] == counts["rolls"] + 1


def test_the_pause_hook_is_only_on_when_asked(tmp_path):
    """Without the variable no run pauses (the hook must never slow a real game)."""
    done = run_console(tmp_path / "quiet.db", [*SETUP, "alice /economy military"], timeout=30)
    assert done.returncode == 0
    assert PAUSE_MESSAGE not in done.stdout
    assert ROLL_LINE in done.stdout
