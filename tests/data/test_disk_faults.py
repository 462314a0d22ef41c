"""Disk faults (issue 9, findings 5 and 6): a database that cannot be opened ends the program with one line; a
write that cannot be saved is refused with one line, changes nothing, is logged once, and the next command after
the fault is fixed succeeds.

How each fault is simulated (the tests run as root, whom file modes do not stop):
- not SQLite: a file of other bytes;
- locked at start: another process's connection in `locking_mode = EXCLUSIVE` holding its write lock;
- locked on a write: another connection holding `BEGIN EXCLUSIVE` (the store's busy timeout is 0.05 s here);
- read-only folder at start: the program runs without root's file-mode override (setpriv) in a folder it may
  not write in;
- read-only database on a write: `PRAGMA query_only` on the store's connection and on every new one while the
  fault lasts — like a leftover read-only `-shm`, the old connection stays broken after the fix, so recovery
  needs the store's reconnect;
- full disk: `PRAGMA max_page_count` capped at the database's size, on the connection and every new one.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from storehelpers import REPO, RULES, FakeClock, console_env

import data.store as store_module
import data.store.dialect as dialect_module
from console.app import Console
from data.store import Store, StoreUnavailable, _transaction
from engine.dice import ForcedRoller
from service.referee import Referee

pytestmark = pytest.mark.sqlite_only  # SQLite's own files, faults and processes

FAST = 0.05  # the store's busy timeout in these tests (seconds)
SAVE_REFUSED = "error: the referee cannot save right now ("
NOTHING_CHANGED = "); nothing changed — try again later"


# --- start-up: one line, a non-zero exit, nothing left running ------------------------------------------


def start(db: Path, discord: bool = False, user: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python bot.py` on `db` (the console, or the Discord path with a token), stdin empty, within 20 s."""
    command = [*(user or []), sys.executable, str(REPO / "bot.py"), "--db", str(db)]
    env = console_env()
    if discord:
        env["DISCORD_TOKEN"] = "secret-token-123"  # the store is opened before Discord is contacted
    else:
        command.append("--console")
    try:
        return subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                              cwd=REPO, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command} hung")


def assert_one_line(done: subprocess.CompletedProcess[str], reason: str) -> None:
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines == [lines[0]] and lines[0].startswith("error: ") and reason in lines[0], done.stderr
    assert "secret-token-123" not in done.stderr + done.stdout


@pytest.mark.parametrize("discord", [False, True], ids=["console", "discord"])
def test_a_file_that_is_not_sqlite_ends_the_program_with_one_line(tmp_path, discord):
    db = tmp_path / "referee.db"
    db.write_bytes(b"these are not the bytes of a database\n" * 200)
    done = start(db, discord)
    assert_one_line(done, f"{db} is not a SQLite database")
    assert db.read_bytes() == b"these are not the bytes of a database\n" * 200


def test_a_database_locked_by_another_program_ends_the_program_with_one_line(tmp_path):
    db = tmp_path / "referee.db"
    asyncio.run(_create(db))
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE held (x)")
    try:
        done = start(db)  # waits the default 5 s busy timeout, then gives up
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert_one_line(done, f"{db} is locked by another program")


def as_reader() -> list[str]:
    """A command prefix under which file modes apply: root runs the program without the capabilities that
    let it write anywhere (the repository, wherever it is cloned, stays readable: root owns it)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root, and no setpriv to drop the capabilities that override file modes")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


@pytest.mark.parametrize("discord", [False, True], ids=["console", "discord"])
def test_a_folder_it_cannot_write_in_ends_the_program_with_one_line(tmp_path, discord):
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        done = start(folder / "referee.db", discord, user=as_reader())
        assert_one_line(done, f"cannot write in folder {folder}")
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


def database_threads() -> int:
    return sum(getattr(t, "_target", None) is aiosqlite.core._connection_worker_thread for t in threading.enumerate())


async def test_store_open_closes_what_it_opened_when_it_fails(tmp_path):
    db = tmp_path / "junk.db"
    db.write_bytes(b"\x00junk" * 1000)
    threads = database_threads()
    with pytest.raises(StoreUnavailable, match="is not a SQLite database"):
        await Store.open(db)
    await asyncio.sleep(0.01)  # (the thread ends just after answering its last call)
    # aiosqlite's thread is not a daemon: one left running would keep the process alive
    assert database_threads() == threads


async def _create(db: Path) -> None:
    store = await Store.open(db)
    await store.close()


# --- write faults: one line, nothing changed, logged once, recovery ------------------------------------------


class Table:
    """A console game on a store with a short busy timeout; `line` runs a command and returns its output."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.out = io.StringIO()
        self.console = Console(Referee(store, RULES, ForcedRoller(), FakeClock()), self.out)

    async def line(self, text: str) -> str:
        self.out.seek(0)
        self.out.truncate()
        await self.console.handle(text)
        return self.out.getvalue()

    async def export(self) -> dict[str, Any]:
        return await self.store.export(await self.store.live_game("console"))


@pytest.fixture
async def table(tmp_path):
    store = await Store.open(tmp_path / "referee.db", busy_timeout=FAST)
    game = Table(store)
    for text in ("gm /game start", "gm /nation claim 1 alice"):
        assert "error" not in await game.line(text)
    yield game
    await store.close()


def store_records(caplog: pytest.LogCaptureFixture, level: int) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "referee.store" and r.levelno == level]


async def refused_twice_then_recovers(table: Table, caplog: pytest.LogCaptureFixture, cause: str,
                                      fix: Any) -> None:
    """Two writes refused with one line each and nothing changed, one ERROR logged; after `fix()`, a write works."""
    before = await table.export()
    for _ in range(2):
        answer = await table.line("gm /gm dice 4")
        assert answer == f"{SAVE_REFUSED}{cause}{NOTHING_CHANGED}\n"
    assert await table.export() == before
    [logged] = store_records(caplog, logging.ERROR)
    assert cause in logged.getMessage()
    fix()
    assert await table.line("gm /gm dice 4") == "GM gm entered the next 1 die.\n"
    assert await table.export() != before
    assert len(store_records(caplog, logging.ERROR)) == 1
    assert any("can be written again" in r.getMessage() for r in store_records(caplog, logging.WARNING))


async def test_a_lock_held_past_the_busy_timeout_refuses_the_write_and_then_recovers(table, tmp_path, caplog):
    holder = sqlite3.connect(tmp_path / "referee.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")

    def release() -> None:
        holder.execute("ROLLBACK")
        holder.close()

    await refused_twice_then_recovers(table, caplog, "the database is locked by another program", release)


async def test_a_read_only_database_refuses_the_write_and_a_fresh_connection_recovers(table, monkeypatch, caplog):
    configure = dialect_module._configure

    def read_only(con: sqlite3.Connection, busy_timeout: float) -> None:
        configure(con, busy_timeout)
        con.execute("PRAGMA query_only = ON")

    monkeypatch.setattr(dialect_module, "_configure", read_only)
    await table.store._in_thread(lambda con: con.execute("PRAGMA query_only = ON"))
    # The old connection stays read-only after the fix: only the store's reconnect recovers.
    await refused_twice_then_recovers(table, caplog, "the database is read-only",
                                      lambda: monkeypatch.setattr(dialect_module, "_configure", configure))


async def test_a_full_disk_refuses_the_write_and_then_recovers(table, monkeypatch, caplog):
    configure = dialect_module._configure
    pages = await table.store._in_thread(lambda con: con.execute("PRAGMA page_count").fetchone()[0])

    def full(con: sqlite3.Connection, busy_timeout: float) -> None:
        configure(con, busy_timeout)
        con.execute(f"PRAGMA max_page_count = {pages}")

    monkeypatch.setattr(dialect_module, "_configure", full)
    await table.store._in_thread(lambda con: con.execute(f"PRAGMA max_page_count = {pages}"))
    for turn in range(300):  # the game's log grows until the database has no page left
        before = await table.export()
        answer = await table.line("gm /gm dice clear" if turn % 50 == 49 else "gm /gm dice 4")
        if answer.startswith("error"):
            break
    assert answer == f"{SAVE_REFUSED}the disk is full{NOTHING_CHANGED}\n"
    assert await table.export() == before
    await refused_twice_then_recovers(table, caplog, "the disk is full",
                                      lambda: monkeypatch.setattr(dialect_module, "_configure", configure))


class FailingRollback:
    """A connection whose work fails with a disk I/O error and whose ROLLBACK then fails too (as SQLite does
    when the I/O error has already rolled the transaction back)."""

    in_transaction = True

    def execute(self, sql: str) -> None:
        if sql == "ROLLBACK":
            raise sqlite3.OperationalError("cannot rollback - no transaction is active")


def test_a_failed_rollback_does_not_hide_the_error_that_caused_it():
    def work(con: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    with pytest.raises(sqlite3.OperationalError, match="disk I/O error") as caught:
        _transaction(FailingRollback(), work)  # type: ignore[arg-type]
    assert "cannot rollback" in "".join(caught.value.__notes__)


async def test_every_kind_of_write_is_refused_with_the_one_line(table, tmp_path):
    """Not only commands: the front-end's bookkeeping, reminders and undo refuse the same way."""
    game_id = await table.store.live_game("console")
    before = await table.export()
    holder = sqlite3.connect(tmp_path / "referee.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        writes = [
            table.store.set_front_end(game_id, reminded_turn=3),
            table.store.take_reminders_due(FakeClock()()),
            table.store.choice_message(game_id, 1, 99),
            table.store.run_games([game_id], lambda state: store_module.Plan(state)),
        ]
        for write in writes:
            with pytest.raises(StoreUnavailable, match=r"^the referee cannot save right now \(the database is "
                                                       r"locked by another program\); nothing changed"):
                await write
        assert "error: the referee cannot save" in await table.line("gm /gm undo confirm:true")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert await table.export() == before
