"""A database fault is logged once when it starts and once when it ends (issue 18, finding 5).

While the disk is full or the database read-only, a transaction that writes nothing (a catch-up with nothing
due, the clock's reminder sweep, a refused command) still commits. Such a commit is no sign that the fault has
passed: it must not log "can be written again", and the next write refused by the same fault must not log a
fresh ERROR. The faults are simulated as in `test_disk_faults` (`PRAGMA query_only`, `PRAGMA max_page_count`,
another connection's exclusive lock), each on the store's connection and on every new one while it lasts.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from test_disk_faults import FAST, NOTHING_CHANGED, SAVE_REFUSED, Table

import data.store as store_module
import data.store.dialect as dialect_module
from data.store import Store, StoreUnavailable

pytestmark = pytest.mark.sqlite_only  # SQLite's own files, faults and processes

RECOVERED = "can be written again"


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Every ERROR (or worse) line logged, by any logger."""
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def recoveries(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if RECOVERED in r.getMessage()]


async def busy_while_faulty(table: Table, cause: str) -> None:
    """What a bot does for a while during a fault: refused writes between writes that change nothing, reads,
    refused commands and the clock's sweeps."""
    store = table.store
    game_id = await store.live_game("console")
    for _ in range(4):
        assert await table.line("gm /gm dice 4") == f"{SAVE_REFUSED}{cause}{NOTHING_CHANGED}\n"
        # empty transactions: nothing is due, nothing to remind, a plan that writes nothing
        try:
            await table.referee_catch_up(game_id)
            await store.take_reminders_due(table.clock())
            await store.run_games([game_id], lambda state: store_module.Plan(state))
            await store.set_front_end(game_id, reminded_turn=1)  # a small write in place: may succeed
        except StoreUnavailable as err:  # (a lock refuses even these: that is the same fault)
            assert cause in str(err)
        assert (await table.line("alice /nation claim 1 bob")).startswith("error: ")  # refused by the rules
        await table.line("gm /game status")  # a read
        await table.line("")  # nothing


class FaultTable(Table):
    """The disk-fault tests' console table, with its referee and clock at hand."""

    @property
    def referee(self) -> Any:
        return self.console.referee

    def clock(self) -> Any:
        return self.referee.clock()

    async def referee_catch_up(self, game_id: int) -> None:
        await self.referee.catch_up(game_id)


@pytest.fixture
async def table(tmp_path):
    store = await Store.open(tmp_path / "referee.db", busy_timeout=FAST)
    game = FaultTable(store)
    for text in ("gm /game start", "gm /nation claim 1 alice"):
        assert "error" not in await game.line(text)
    yield game
    await store.close()


def query_only(monkeypatch: pytest.MonkeyPatch, table: Table) -> Callable[[], Any]:
    """The database turns read-only; returns what ends it."""
    configure = dialect_module._configure

    def read_only(con: sqlite3.Connection, busy_timeout: float) -> None:
        configure(con, busy_timeout)
        con.execute("PRAGMA query_only = ON")

    monkeypatch.setattr(dialect_module, "_configure", read_only)

    async def start() -> None:
        await table.store._in_thread(lambda con: con.execute("PRAGMA query_only = ON"))

    return start, lambda: monkeypatch.setattr(dialect_module, "_configure", configure)


def read_only_file(monkeypatch: pytest.MonkeyPatch, table: Table) -> Callable[[], Any]:
    """The database file turns read-only (as on a disk remounted read-only): every connection, the store's own
    and each new one while it lasts, opens it read-only; an empty transaction still commits then."""
    store = table.store
    reconnect = store._reconnect

    def read_only(old: sqlite3.Connection) -> None:
        new = sqlite3.connect(f"file:{store.path}?mode=ro", uri=True, isolation_level=None)
        new.execute(f"PRAGMA busy_timeout = {int(FAST * 1000)}")
        new.row_factory = old.row_factory
        store.db._connection = new
        old.close()

    async def start() -> None:
        monkeypatch.setattr(store, "_reconnect", read_only)
        await store._in_thread(read_only)

    return start, lambda: monkeypatch.setattr(store, "_reconnect", reconnect)


def full_disk(monkeypatch: pytest.MonkeyPatch, table: Table) -> Callable[[], Any]:
    """The disk fills up (no page more than the database has now); returns what ends it."""
    configure = dialect_module._configure
    pages: list[int] = []

    def full(con: sqlite3.Connection, busy_timeout: float) -> None:
        configure(con, busy_timeout)
        con.execute(f"PRAGMA max_page_count = {pages[0]}")

    async def start() -> None:
        pages[:] = [await table.store._in_thread(lambda con: con.execute("PRAGMA page_count").fetchone()[0])]
        monkeypatch.setattr(dialect_module, "_configure", full)
        await table.store._in_thread(lambda con: con.execute(f"PRAGMA max_page_count = {pages[0]}"))
        for turn in range(300):  # the game's log grows until the database has no page left
            answer = await table.line("gm /gm dice clear" if turn % 50 == 49 else "gm /gm dice 4")
            if answer.startswith("error"):
                return
        pytest.fail("the disk never filled up")

    return start, lambda: monkeypatch.setattr(dialect_module, "_configure", configure)


def locked(tmp_path: Any) -> Callable[[], Any]:
    """Another program holds the database's write lock; returns what ends it."""
    holder: list[sqlite3.Connection] = []

    async def start() -> None:
        holder.append(sqlite3.connect(tmp_path / "referee.db", isolation_level=None))
        holder[0].execute("BEGIN EXCLUSIVE")

    def release() -> None:
        holder[0].execute("ROLLBACK")
        holder.pop().close()

    return start, release


FAULTS = {
    "read-only": ("the database is read-only", lambda mp, table, tmp: query_only(mp, table)),
    "read-only file": ("the database is read-only", lambda mp, table, tmp: read_only_file(mp, table)),
    "full": ("the disk is full", lambda mp, table, tmp: full_disk(mp, table)),
    "locked": ("the database is locked by another program", lambda mp, table, tmp: locked(tmp)),
}


@pytest.mark.parametrize("kind", FAULTS)
async def test_a_fault_is_logged_once_when_it_starts_and_once_when_it_ends(table, monkeypatch, tmp_path, caplog,
                                                                           kind):
    cause, make = FAULTS[kind]
    caplog.set_level(logging.DEBUG, logger="referee")
    for episode in (1, 2):  # two faults one after the other: each is logged on its own
        start, fix = make(monkeypatch, table, tmp_path)
        await start()
        await busy_while_faulty(table, cause)
        assert len(errors(caplog)) == episode, errors(caplog)
        assert cause in errors(caplog)[-1]
        assert len(recoveries(caplog)) == episode - 1, recoveries(caplog)
        fix()
        for _ in range(3):  # the fault has ended: said once, and nothing more while all is well
            assert (await table.line("gm /gm dice 4")).endswith("die.\n")
            await table.referee_catch_up(await table.store.live_game("console"))
        assert len(recoveries(caplog)) == episode, recoveries(caplog)
        assert len(errors(caplog)) == episode, errors(caplog)


async def test_an_empty_transaction_during_a_fault_is_no_sign_that_it_has_ended(table, monkeypatch, tmp_path,
                                                                                caplog):
    start, fix = read_only_file(monkeypatch, table)
    await start()
    assert (await table.line("gm /gm dice 4")).startswith(SAVE_REFUSED)
    await table.store.take_reminders_due(table.clock())  # commits: it changes nothing
    assert recoveries(caplog) == []
    assert (await table.line("gm /gm dice 4")).startswith(SAVE_REFUSED)
    assert len(errors(caplog)) == 1
    fix()
    assert (await table.line("gm /gm dice 4")).endswith("die.\n")
    assert len(recoveries(caplog)) == 1
