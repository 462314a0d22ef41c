"""Backups of a running database (issue 20): SQLite's online backup API, a consistent copy that replays."""

from __future__ import annotations

import asyncio
import os
import queue
import re
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from storehelpers import (
    REPO,
    RULES,
    FakeClock,
    assert_every_game_is_its_replay,
    bot_command,
    console_env,
    console_on,
    run_console,
    undo_compact_snapshots,
)

from data.backup import BackupError, backup_before_migration, backup_sqlite
from data.store import Store, migration_files
from engine.dice import ForcedRoller
from engine.nations import gm
from engine.nations import peace as nat
from service.referee import Referee

pytestmark = pytest.mark.sqlite_only  # SQLite's online backup (PostgreSQL: pg_dump)

LATEST = max(number for number, _ in migration_files())
NATIONS = ("Gracchan Republic", "Charon")


async def two_nations(ref: Referee, channel: str) -> int:
    report = await ref.start_game(channel, "gm")
    await ref.act(channel, "gm", nat.ClaimPreset(NATIONS[0], "alice"), "/nation claim")
    await ref.act(channel, "gm", nat.ClaimPreset(NATIONS[1], "bob"), "/nation claim")
    return report.game_id


def rows(db, sql: str, *params) -> list[tuple]:
    with sqlite3.connect(str(db)) as con:
        return con.execute(sql, params).fetchall()


def journal_flags(path) -> bytes:
    """Bytes 18-19 of a database's header: 1, 1 for a rollback journal, 2, 2 for WAL."""
    with open(path, "rb") as handle:
        return handle.read(20)[18:20]


# --- a backup while commands commit ------------------------------------------------------------------


async def test_a_backup_taken_while_50_commands_run_is_a_prefix_of_them_and_replays(tmp_path):
    db, copy = tmp_path / "referee.db", tmp_path / "copy.db"
    store = await Store.open(db)
    ref = Referee(store, RULES, ForcedRoller(), FakeClock())
    channels = ("north", "south", "east")
    for channel in channels:
        await two_nations(ref, channel)
        await ref.act(channel, "gm", gm.QueueDice([9, 2]), "/gm dice 9 2")
        await ref.act(channel, "alice", nat.Encourage("workers"), "/propaganda encourage")  # a rolled die
    [setup] = rows(db, "SELECT COUNT(*) FROM actions")[0]

    committed: list[int] = []  # one entry per command committed (of the 50)
    at_step: list[int] = []  # how many had committed at each step of the backup
    started = asyncio.Event()

    def progress(status: int, remaining: int, total: int) -> None:
        at_step.append(len(committed))
        if len(at_step) == 1:  # hold the first step until a command commits after it: the steps interleave
            deadline = time.monotonic() + 10
            while len(committed) == at_step[0] and time.monotonic() < deadline:
                time.sleep(0.001)
        time.sleep(0.002)

    async def command(number: int) -> None:
        await asyncio.sleep(number * 0.004)  # they come one after another (at once, a group commit takes them all)
        channel = channels[number % len(channels)]
        nation, stat = NATIONS[number % 2], ("land", "economy", "military")[number % 3]
        if number % 5 == 4:
            action, text = gm.QueueDice([number % 10 + 1]), f"/gm dice {number % 10 + 1}"
        else:
            action, text = gm.SetStat(nation, stat, 1, relative=True), f"/gm set {stat} +1"
        await ref.act(channel, "gm", action, text)
        committed.append(number)
        if len(committed) == 10:
            started.set()
        await asyncio.sleep(0)

    async def backup():
        await started.wait()  # a few commands are in; the rest run while the pages are copied
        return await asyncio.to_thread(backup_sqlite, db, copy, pages=1, progress=progress)

    *_, result = await asyncio.gather(*(command(n) for n in range(50)), backup())
    await store.close()

    assert len(committed) == 50
    assert len(at_step) > 3 and at_step[-1] > at_step[0]  # several steps, commands committed between them
    live = rows(db, "SELECT id FROM actions ORDER BY id")
    kept = rows(copy, "SELECT id FROM actions ORDER BY id")
    # a prefix of the commands, in commit order (at least the 10 committed before the backup began)
    assert 10 <= len(kept) - setup <= 50 and kept == live[:len(kept)]
    # each command all or nothing: every kept command's events and rolls, and nothing of a later one
    last = kept[-1][0]
    for table in ("events", "rolls"):
        in_copy = rows(copy, f"SELECT * FROM {table} ORDER BY id")
        assert in_copy == rows(db, f"SELECT * FROM {table} WHERE action_id <= ? ORDER BY id", last)
    assert result.games == 3 and result.schema == LATEST and result.path == copy
    assert result.size == copy.stat().st_size
    assert rows(copy, "PRAGMA journal_mode") == [("delete",)] and journal_flags(copy) == b"\x01\x01"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == ["copy.db"]
    assert await assert_every_game_is_its_replay(copy) == [1, 2, 3]


# --- a backup of a console that writes, from another process -------------------------------------------------


def test_bot_backup_copies_the_database_a_running_console_writes(tmp_path):
    db, copy = tmp_path / "live.db", tmp_path / "backup" / "live copy.db"
    copy.parent.mkdir()
    console = subprocess.Popen(bot_command(db), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, encoding="utf-8", cwd=REPO, env=console_env())
    answers: queue.Queue = queue.Queue()

    def read() -> None:
        for line in iter(console.stdout.readline, ""):
            answers.put(line)

    threading.Thread(target=read, daemon=True).start()
    stop = threading.Event()

    def write() -> None:  # commands, on and on, until the backup is done
        for line in ["gm /game start", "gm /nation claim 1 alice", "gm /nation claim 2 bob"]:
            console.stdin.write(line + "\n")
        number = 0
        while not stop.is_set() and number < 2000:
            console.stdin.write(f"gm /gm set nation:{number % 2 + 1} stat:land value:+1\n")
            console.stdin.flush()
            number += 1
            time.sleep(0.005)
        console.stdin.close()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        deadline = time.monotonic() + 60
        seen = 0
        while seen < 20:  # the console is up and writing
            assert time.monotonic() < deadline, "the console did not answer"
            line = answers.get(timeout=deadline - time.monotonic())
            seen += "LAND +1" in line
        done = subprocess.run([sys.executable, str(REPO / "bot.py"), "--db", str(db), "--backup", str(copy)],
                              capture_output=True, text=True, encoding="utf-8", cwd=REPO, env=console_env(),
                              timeout=60)
    finally:
        stop.set()
        writer.join()
        console.wait(timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert re.fullmatch(rf"backed up {re.escape(str(db))} \(1 game, schema {LATEST}\) to {re.escape(str(copy))}\n",
                        done.stdout), done.stdout
    assert console.returncode == 0, console.stderr.read()
    kept, live = rows(copy, "SELECT id FROM actions ORDER BY id"), rows(db, "SELECT id FROM actions ORDER BY id")
    assert 23 <= len(kept) < len(live) and kept == live[:len(kept)]  # set-up (3), ≥ 20 commands; more came after
    assert asyncio.run(assert_every_game_is_its_replay(copy)) == [1]


def test_bot_backup_refuses_in_one_line(tmp_path):
    taken = tmp_path / "taken.db"
    taken.write_bytes(b"mine")
    assert run_console(tmp_path / "referee.db", ["gm /game start"]).returncode == 0
    missing = tmp_path / "missing.db"
    cases = [
        ({"REFEREE_DB": str(missing)}, "copy.db", 1, f"error: {missing} does not exist"),
        ({"REFEREE_DB": str(tmp_path / "referee.db")}, str(taken), 1,
         f"error: {taken} already exists; not overwritten"),
        ({"REFEREE_DB": "postgresql://referee:secret@db.example/referee"}, "referee.dump", 2,
         ("error: the database is PostgreSQL; --backup copies a SQLite file. Back it up with pg_dump: "
          'pg_dump --format=custom --file=referee.dump "$REFEREE_DB"')),
    ]
    for env, dest, status, line in cases:
        done = subprocess.run([sys.executable, str(REPO / "bot.py"), "--backup", dest], capture_output=True,
                              text=True, encoding="utf-8", cwd=tmp_path, env=console_env(env), timeout=60)
        assert (done.returncode, done.stdout, done.stderr) == (status, "", line + "\n")
    assert taken.read_bytes() == b"mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["referee.db", "taken.db"]


# --- before a migration ---------------------------------------------------------------------------------------


async def schema_12_database(db) -> list[tuple]:
    """A database with two games, taken back to schema 12 (before report_messages); its games' rows."""
    console, store, out = await console_on(db)
    for line in ["gm /game start", "gm /nation claim 1 alice", "gm /gm set nation:1 stat:land value:+3",
                 "gm /gm turn end"]:
        await console.handle(line)
    await store.close()
    console, store, out = await console_on(db)
    await console.referee.start_game("another", "gm")
    await store.close()
    with sqlite3.connect(db) as con:
        con.execute("DROP TABLE report_messages")
        con.execute("DROP TABLE announcements")
        undo_compact_snapshots(con)
        con.execute("PRAGMA user_version = 12")
    return rows(db, "SELECT * FROM games ORDER BY id")


async def test_a_backup_before_a_migration_keeps_the_old_database(tmp_path):
    db = tmp_path / "old.db"
    games = await schema_12_database(db)
    assert len(games) == 2
    reading = sqlite3.connect(db, isolation_level=None)  # another connection, in the middle of a read
    try:
        reading.execute("BEGIN")
        assert reading.execute("SELECT COUNT(*) FROM games").fetchone() == (2,)
        bak = backup_before_migration(db, 12, 13)
    finally:
        reading.close()
    assert bak == tmp_path / "old.db.before-013.bak" and bak.is_file()
    assert rows(bak, "PRAGMA user_version") == [(12,)] and rows(bak, "PRAGMA integrity_check") == [("ok",)]
    assert rows(bak, "SELECT * FROM games ORDER BY id") == games
    assert not rows(bak, "SELECT name FROM sqlite_master WHERE name = 'report_messages'")
    first = bak.read_bytes()

    # a second time: a new file beside it, the first one untouched
    again = backup_before_migration(db, 12, 13)
    assert again is not None and again != bak
    assert re.fullmatch(r"old\.db\.before-013\.\d{8}T\d{6}Z\.bak", again.name), again.name
    assert bak.read_bytes() == first and rows(again, "SELECT * FROM games ORDER BY id") == games

    # then the store migrates the old database on: the backup does not stand in its way
    migrated = await Store.open(db)
    await migrated.close()
    assert rows(db, "PRAGMA user_version") == [(LATEST,)] and rows(bak, "PRAGMA user_version") == [(12,)]


async def test_a_backup_before_a_migration_while_the_store_writes(tmp_path):
    """Called in the store's own database thread while its connection holds a write transaction (as `migrate`
    may): the copy is the last committed state."""
    db = tmp_path / "referee.db"
    await schema_12_database(db)
    store = await Store.open(db)
    try:
        def work(con):
            con.execute("UPDATE games SET gm = 'someone else'")
            return backup_before_migration(db, LATEST, LATEST + 1)

        bak = await store._transaction(work)
        assert rows(db, "SELECT DISTINCT gm FROM games") == [("someone else",)]
    finally:
        await store.close()
    assert bak == tmp_path / f"referee.db.before-{LATEST + 1:03d}.bak"
    assert rows(bak, "SELECT DISTINCT gm FROM games") == [("gm",)] and rows(bak, "PRAGMA user_version") == [(LATEST,)]


async def test_no_backup_before_migrating_a_database_without_games(tmp_path):
    db = tmp_path / "fresh.db"
    store = await Store.open(db)
    await store.close()
    before = sorted(tmp_path.iterdir())
    assert backup_before_migration(db, LATEST, LATEST + 1) is None
    assert backup_before_migration(db, 0, 1) is None
    assert backup_before_migration(tmp_path / "not-yet.db", 0, 1) is None
    assert sorted(tmp_path.iterdir()) == before


# --- refusals -------------------------------------------------------------------------------------------------


@pytest.fixture
def played(tmp_path):
    db = tmp_path / "referee.db"
    assert run_console(db, ["gm /game start"]).returncode == 0
    return db


@pytest.mark.parametrize(("case", "message"), [
    ("missing source", "{folder}/missing.db does not exist"),
    ("not a database", "{folder}/notes.txt is not a SQLite database"),
    ("another database", "{folder}/other.db is not a referee database (it has no games table)"),
    ("source is a folder", "{folder}/sub is a folder, not a database file"),
    ("destination exists", "{folder}/copy.db already exists; not overwritten"),
    ("destination is a folder", "{folder}/sub is a folder; give the backup's file name (e.g. {folder}/sub/referee.db)"),
    ("no such folder", "cannot write {folder}/nowhere/copy.db: there is no folder {folder}/nowhere"),
])
def test_a_refused_backup_says_why_in_one_line_and_writes_nothing(played, tmp_path, case, message):
    (tmp_path / "notes.txt").write_text("not a database at all, just notes\n" * 20)
    with sqlite3.connect(tmp_path / "other.db") as con:
        con.execute("CREATE TABLE things (x)")
    (tmp_path / "sub").mkdir()
    (tmp_path / "copy.db").write_bytes(b"an older backup")
    source, dest = {
        "missing source": (tmp_path / "missing.db", tmp_path / "new.db"),
        "not a database": (tmp_path / "notes.txt", tmp_path / "new.db"),
        "another database": (tmp_path / "other.db", tmp_path / "new.db"),
        "source is a folder": (tmp_path / "sub", tmp_path / "new.db"),
        "destination exists": (played, tmp_path / "copy.db"),
        "destination is a folder": (played, tmp_path / "sub"),
        "no such folder": (played, tmp_path / "nowhere" / "copy.db"),
    }[case]
    before = {p.name: p.read_bytes() if p.is_file() else None for p in tmp_path.rglob("*")}
    with pytest.raises(BackupError) as refused:
        backup_sqlite(source, dest)
    assert str(refused.value) == message.format(folder=tmp_path)
    assert "\n" not in str(refused.value)
    assert {p.name: p.read_bytes() if p.is_file() else None for p in tmp_path.rglob("*")} == before


def test_overwrite_replaces_an_older_backup_but_never_the_database(played, tmp_path):
    copy = tmp_path / "copy.db"
    copy.write_bytes(b"an older backup")
    result = backup_sqlite(played, copy, overwrite=True)
    assert (result.games, rows(copy, "SELECT COUNT(*) FROM games")) == (1, [(1,)])
    with pytest.raises(BackupError, match="is the database itself"):
        backup_sqlite(played, played, overwrite=True)
    assert rows(played, "SELECT COUNT(*) FROM games") == [(1,)]


def test_a_failed_copy_leaves_no_file_behind(played, tmp_path, monkeypatch):
    """A fault while the pages are copied (here: the progress callback fails): no destination, no temporary."""
    def fail(status, remaining, total):
        raise OSError(28, "No space left on device")

    before = sorted(tmp_path.iterdir())
    with pytest.raises(OSError):
        backup_sqlite(played, tmp_path / "copy.db", pages=1, progress=fail)
    assert sorted(tmp_path.iterdir()) == before
    assert not any(name.endswith(".partial") for name in os.listdir(tmp_path))
