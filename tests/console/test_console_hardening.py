"""Issue 18's edges on the console: /game digest since: a time beyond the calendar's ends or before the game
(finding 4); the temporary file a /gm export killed midway leaves, cleaned on the next export or start (finding
6); a --db that is a folder (finding 8)."""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from storehelpers import REPO, T0, console_env, console_on, run_console, said

from console.app import EXPORT_TEMP, clean_leftovers, write_new_file
from data.store import Store, StoreUnavailable
from engine.errors import BadInput
from service.digest import parse_since

NOW = datetime(2030, 1, 3, 12, 0, tzinfo=UTC)
BEGAN = datetime(2030, 1, 1, 9, 30, 15, tzinfo=UTC)
BEFORE = "since is before this game began (2030-01-01 09:30 UTC): a digest lists the game's own log"


# --- finding 4: since: within the game's life -------------------------------------------------------


@pytest.mark.parametrize(("given", "refusal"), [
    ("0001-01-01T00:00+14:00", BEFORE),
    ("0001-01-01T00:00", BEFORE),
    ("2030-01-01T09:29", BEFORE),
    ("9999-12-31T23:59-14:00", "since is in the future (9999-12-31T23:59-14:00): a digest lists what has happened"),
    ("9999-12-31T23:59", "since is in the future (9999-12-31 23:59 UTC): a digest lists what has happened"),
])
def test_since_beyond_the_calendar_or_the_games_life_is_refused_in_one_line(given, refusal):
    with pytest.raises(BadInput) as caught:
        parse_since(given, NOW, BEGAN)
    assert str(caught.value) == refusal


def test_since_from_the_minute_the_game_began_is_taken():
    assert parse_since("2030-01-01T09:30", NOW, BEGAN) == datetime(2030, 1, 1, 9, 30, tzinfo=UTC)
    assert parse_since("2030-01-01T23:30+14:00", NOW, BEGAN) == datetime(2030, 1, 1, 9, 30, tzinfo=UTC)
    assert parse_since("1w", NOW, BEGAN) == datetime(2029, 12, 27, 12, 0, tzinfo=UTC)  # a span reaches back


async def test_console_digest_since_beyond_the_calendar_is_one_line_and_logs_nothing(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    console, store, out = await console_on(tmp_path / "d.db")
    try:
        await console.handle("gm /game start")
        console.referee.clock.advance(hours=2)
        said(out)
        for since in ("0001-01-01T00:00+14:00", "9999-12-31T23:59-14:00", "2029-12-31T23:00"):
            await console.handle(f"gm /game digest since:{since}")
        assert said(out) == [
            f"error: since is before this game began ({T0:%Y-%m-%d %H:%M} UTC): a digest lists the game's own log",
            "error: since is in the future (9999-12-31T23:59-14:00): a digest lists what has happened",
            f"error: since is before this game began ({T0:%Y-%m-%d %H:%M} UTC): a digest lists the game's own log",
        ]
        await console.handle(f"gm /game digest since:{T0:%Y-%m-%dT%H:%M}")
        assert said(out)[0] == f"Digest since {T0:%Y-%m-%d %H:%M} UTC: 1 entry"
        assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    finally:
        await store.close()


# --- finding 6: an export killed midway -------------------------------------------------------------


KILLED_EXPORT = """
import os, signal, sys
sys.path.insert(0, {repo!r})
os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)  # killed with the export written, not yet renamed
from bot import main
sys.exit(main(["--console", "--db", {db!r}]))
"""


def killed_during_export(tmp_path, exports) -> list[str]:
    """A console killed (SIGKILL) during `/gm export file:… overwrite:true`; the temporary files it left."""
    db = tmp_path / "k.db"
    script = KILLED_EXPORT.format(repo=str(REPO), db=str(db))
    lines = f"gm /game start\ngm /gm export file:{exports / 'game.json'} overwrite:true\n"
    done = subprocess.run([sys.executable, "-c", script], input=lines, capture_output=True, text=True, timeout=60,
                          cwd=REPO, env=console_env({"REFEREE_EXPORT_DIR": str(exports)}))
    assert done.returncode == -signal.SIGKILL, done.stderr
    return leftovers(exports)


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(EXPORT_TEMP[0]))


def test_a_kill_during_export_leaves_a_temporary_file_that_the_next_start_removes(tmp_path):
    exports = tmp_path / "exports"
    exports.mkdir()
    assert len(killed_during_export(tmp_path, exports)) == 1
    done = run_console(tmp_path / "next.db", [], env={"REFEREE_EXPORT_DIR": str(exports)})
    assert done.returncode == 0, done.stderr
    assert leftovers(exports) == []


async def test_the_next_export_removes_what_a_killed_one_left_but_not_what_a_running_one_holds(tmp_path):
    exports = tmp_path / "exports"
    exports.mkdir()
    [left] = killed_during_export(tmp_path, exports)
    running = exports / ".export-running.tmp"  # another export, writing now: its file is held locked
    running.write_bytes(b"{")
    held = os.open(running, os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)
    not_ours = exports / ".export-notes.txt"
    not_ours.write_text("kept")
    console, store, out = await console_on(tmp_path / "e.db")
    console.export_dir = str(exports)  # REFEREE_EXPORT_DIR, as bot.py reads it with the settings
    try:
        await console.handle("gm /game start")
        said(out)
        await console.handle(f"gm /gm export file:{exports / 'game.json'} overwrite:true")
        assert said(out) == [f"Game exported to {exports / 'game.json'}."]
        assert leftovers(exports) == [".export-notes.txt", ".export-running.tmp"]
        os.close(held)  # that export was killed too: the next cleaning takes its file
        assert clean_leftovers(exports) == 1
        assert leftovers(exports) == [".export-notes.txt"]
        assert left not in leftovers(exports)
    finally:
        await store.close()


def test_an_export_keeps_its_own_temporary_file_locked_while_it_writes(tmp_path, monkeypatch):
    seen = []
    real_fsync = os.fsync

    def cleaning_meanwhile(fd):
        seen.append((leftovers(tmp_path), clean_leftovers(tmp_path)))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", cleaning_meanwhile)
    write_new_file(tmp_path / "out.json", b"{}\n", False, "out.json")
    [(names, removed)] = seen
    assert len(names) == 1 and removed == 0  # another export's cleaning left it alone
    assert (tmp_path / "out.json").read_bytes() == b"{}\n" and leftovers(tmp_path) == []


# --- finding 8: --db a folder -----------------------------------------------------------------------


async def test_a_database_path_that_is_a_folder_is_named_a_folder(tmp_path):
    with pytest.raises(StoreUnavailable) as caught:
        await Store.open(tmp_path)
    assert str(caught.value) == (f"cannot open {tmp_path}: it is a folder, not a database file "
                                 f"(e.g. {tmp_path / 'referee.db'})")
    done = run_console(tmp_path, [])
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [f"error: {caught.value}"]
