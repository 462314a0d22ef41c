"""The store's connection: opening a database (a SQLite file or a PostgreSQL URL), the database thread every
operation runs in, reads and writes as operations that closing waits for, transactions, the group commit of a
channel's commands, rows deferred to the next commit, and the handling of a database fault (refused once, logged
once, reconnected after).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeVar

import aiosqlite

from data import postgres
from data.store.dialect import POSTGRESQL, SQLITE, Dialect
from data.store.keys import UNKNOWN
from data.store.part import Part
from engine.errors import RefereeError

if TYPE_CHECKING:
    from data.store import Store

# Test hook: seconds to wait inside a transaction, just before COMMIT (the crash test kills us there).
PAUSE_BEFORE_COMMIT = "REFEREE_TEST_PAUSE_BEFORE_COMMIT"
BUSY_TIMEOUT = 5.0  # seconds a write waits for another program's lock before it is refused
CLOSE_TIMEOUT = 10.0  # seconds closing waits for the operations in flight
DEFER_DELAY = 0.5  # seconds deferred rows wait for another write to carry them before one of their own (`_defer`)
SHUTTING_DOWN = "the referee is shutting down; nothing changed — try again in a minute"
T = TypeVar("T")
log = logging.getLogger("referee.store")


class StoreUnavailable(RefereeError):
    """The database cannot be opened or written right now (not SQLite, locked, read-only, disk full).

    Its message is one line for a user ("the referee cannot save right now ...; nothing changed"); a
    write that raises it changed nothing."""


class CommitUnknown(StoreUnavailable):
    """A write's COMMIT failed with a fault (the connection lost during it): the server may have committed it or
    not, so its message says it cannot tell; a keyed command looks its key up first (`data.store.keys`) and, when
    it did not land, says `nothing_changed`."""

    def __init__(self, cause: str, nothing_changed: str) -> None:
        super().__init__(UNKNOWN.format(cause=cause))
        self.cause = cause
        self.nothing_changed = nothing_changed


AT_COMMIT = "referee_at_commit"  # set on a database error raised by COMMIT itself (`_transaction`)


class Connection(Part):
    """The store's part that holds its connection: opening and closing, the database thread, reads, writes,
    transactions, group commit and faults (`Store` is made of it and of the other parts)."""

    def __init__(self, db: aiosqlite.Connection | postgres.Worker, path: str = "",
                 busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.db = db
        self._dialect: Dialect = POSTGRESQL if isinstance(db, postgres.Worker) else SQLITE  # what differs
        self.dialect = self._dialect.name  # "sqlite" or "postgresql"
        self.page_rotations = 0  # page links this process rotated: a cache of links (the web's) is stale when it moves
        self.path = self._dialect.shown(path)  # what logs may show
        self._target = path
        self._errors: tuple[type[BaseException], ...] = self._dialect.errors()
        self.busy_timeout = busy_timeout
        self._write_lock = asyncio.Lock()
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = False
        self._close_task: asyncio.Future[None] | None = None
        self._fault: str | None = None  # the cause of the current fault episode (logged once)
        self._reopen = False  # a fault may have left the connection unusable: reconnect before the next write
        self._opening = False  # while `open` runs, a fault is its caller's one line, not a log entry
        # the commands waiting to commit (`_grouped`): each one's work, its answer, its channel
        self._group: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any], str]] = []
        self._committing = False  # a group is being committed
        # rows written with the next write transaction (`_defer`): each statement's rows, by their first value
        self._deferred: dict[str, dict[Any, tuple[Any, ...]]] = {}
        self.defer_delay = DEFER_DELAY
        self._defer_timer: asyncio.TimerHandle | None = None  # the transaction of their own, when no write comes
        self._defer_flush: asyncio.Future[None] | None = None  # that transaction, under way
        self._carrying: set[asyncio.Future[None]] = set()  # the transactions under way that carry deferred rows

    @classmethod
    async def open(cls, path: str | os.PathLike[str], *, busy_timeout: float = BUSY_TIMEOUT) -> Self:
        """Open (creating if need be) and migrate the database: a SQLite file's path, or a `postgresql://` URL.
        Raises `StoreUnavailable` with a one-line reason (not SQLite, locked by another program, a folder it
        cannot write in, a server that cannot be reached); nothing is left open then."""
        if postgres.is_url(path):
            return await cls._open_postgres(str(path), busy_timeout)
        db = aiosqlite.connect(str(path), isolation_level=None)
        try:
            await db
        except sqlite3.Error as err:
            # aiosqlite has asked its thread to stop: let it, while the loop can still take its answer
            await asyncio.to_thread(db._thread.join, CLOSE_TIMEOUT)
            raise StoreUnavailable(open_failure(path, err)) from None
        try:
            db.row_factory = aiosqlite.Row
            await db._execute(SQLITE.configure, db._conn, busy_timeout)
            store = cls(db, str(path), busy_timeout)
            store._opening = True
            await store.migrate()
            store._opening = False
        except BaseException as err:
            with contextlib.suppress(Exception):
                await db.close()
            cause = err.__cause__ if isinstance(err, StoreUnavailable) else err
            if isinstance(cause, sqlite3.Error) and SQLITE.fault_cause(cause) is not None:
                raise StoreUnavailable(open_failure(path, cause)) from None
            raise
        return store

    @classmethod
    async def _open_postgres(cls, url: str, busy_timeout: float) -> Self:
        try:
            worker = postgres.Worker(url, busy_timeout)
        except ValueError as err:
            raise StoreUnavailable(f"cannot open {postgres.redacted(url)}: {err}") from None
        try:
            await worker.open()
        except ImportError:
            await worker.close()
            raise StoreUnavailable("the PostgreSQL driver psycopg is not installed "
                                   "(pip install -r requirements.txt)") from None
        except Exception as err:
            await worker.close()
            text = str(err).strip()
            cause = postgres.fault_cause(err) or (text.splitlines()[0] if text else type(err).__name__)
            raise StoreUnavailable(f"cannot open {postgres.redacted(url)}: {cause}") from None
        store = cls(worker, url, busy_timeout)
        try:
            store._opening = True
            await store.migrate()
            store._opening = False
        except BaseException:
            await worker.close()
            raise
        return store

    async def another(self) -> Store | None:
        """Another store on the same database, with a connection (and a database thread) of its own: the game
        pages read through one, so that their reads never wait for, nor hold up, this store's commands. None for a
        database in memory (another connection would open another, empty one)."""
        if str(self._target) in ("", ":memory:") or str(self._target).startswith("file::memory:"):
            return None
        from data.store import Store

        return await Store.open(self._target, busy_timeout=self.busy_timeout)

    async def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Refuse new operations, let those in flight finish (at most `timeout` seconds), close the connection.
        Idempotent; concurrent calls all wait for the one close."""
        if self._close_task is None:
            self._closing = True
            self._close_task = asyncio.ensure_future(self._close(timeout))
        await asyncio.shield(self._close_task)

    async def _close(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            log.warning("closing the database with %d operation(s) still running", self._in_flight)
        else:
            await self._write_deferred_on_close()
        await self.db.close()  # queued after whatever is still running in the database thread

    async def _write_deferred_on_close(self) -> None:
        """The deferred rows still waiting, written before the connection closes (new operations are refused by
        now: this one goes straight to the database thread); a failure is logged, and they are lost."""
        deferred = self._take_deferred()
        if not deferred:
            return
        try:
            async with self._write_lock:
                if self._reopen:
                    await self._in_thread(self._reconnect)
                await self._in_thread(_transaction, _deferred_work(deferred, self._errors, self._dialect.fault_cause))
        except Exception as err:
            log.warning("closing the database %s: %d deferred row(s) not written (%s)", self.path,
                        sum(map(len, deferred.values())), err)

    @property
    def closed(self) -> bool:
        return self._closing

    @contextlib.asynccontextmanager
    async def _operation(self) -> AsyncIterator[None]:
        """One store operation: refused once closing has begun; counted so that closing waits for it."""
        if self._closing:
            raise StoreUnavailable(SHUTTING_DOWN)
        self._in_flight += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                self._idle.set()

    async def _in_thread(self, function: Callable[..., T], *args: Any) -> T:
        """Run `function(connection, *args)` in the database thread: one round trip. (The connection is looked
        up there, so a reconnect queued before it is seen.)"""
        return await self.db._execute(lambda: function(self.db._conn, *args))

    async def _read(self, function: Callable[..., T], *args: Any) -> T:
        """A read: `function(connection, *args)` in the database thread, as one operation."""
        async with self._operation():
            try:
                if self._reopen and self._dialect.reconnects_to_read:  # a lost connection is no use for reading
                    await self._in_thread(self._reconnect)
                    self._reopen = False
                return await self._in_thread(function, *args)
            except self._errors as err:
                raise self._failed(err, "read") from err

    async def _fetchall(self, query: str, params: Any = ()) -> list[sqlite3.Row]:
        return await self._read(lambda con: con.execute(query, params).fetchall())

    async def _write(self, function: Callable[..., T], *args: Any) -> T:
        """A write: `function(connection, *args)` in the database thread under the write lock, as one operation.
        A database fault (read-only, locked, full, I/O) raises `StoreUnavailable`: nothing changed; the cause is
        logged once per episode, and the next write reconnects first (a leftover read-only `-shm` or a failed
        rollback can leave the connection unusable even once the fault is fixed).

        The episode ends (logged once) with the first write that changes a row — and, on a full disk, that
        grows the database: a transaction that writes nothing commits even on a full disk or a read-only file,
        and one that changes rows in place commits on a full disk, so neither is a sign that the fault has
        passed."""
        grown = self._fault is not None and self._fault == self._dialect.full_disk
        async with self._operation(), self._write_lock:
            try:
                if self._reopen:
                    await self._in_thread(self._reconnect)
                size = self._dialect.size if grown else None
                result, changed = await self._in_thread(_counting_changes, size, function, *args)
            except self._errors as err:
                raise self._failed(err, "save") from err
        if changed:
            self._reopen = False
            if self._fault is not None:
                log.warning("the database %s can be written again", self.path)
                self._fault = None
        return result

    def _failed(self, err: BaseException, what: str) -> BaseException:
        """The error to raise for a database error: a fault becomes `StoreUnavailable` (logged once per episode)."""
        cause = self._dialect.fault_cause(err)
        if cause is None:
            return err
        self._reopen = True
        if self._opening:
            pass
        elif self._fault is None:
            log.error("cannot %s to the database %s: %s (%s); commands are refused until it clears",
                      "write" if what == "save" else "read", self.path, err, cause)
        else:
            log.debug("the database %s is still unavailable: %s", self.path, err)
        self._fault = cause
        message = f"the referee cannot {what} right now ({cause}); nothing changed — try again later"
        if getattr(err, AT_COMMIT, False):
            return CommitUnknown(cause, message)
        return StoreUnavailable(message)

    def _reconnect(self, old: sqlite3.Connection) -> None:
        """A fresh connection in place of the old one (runs in the database thread)."""
        self._dialect.reconnect(self.db, old, self.path, self.busy_timeout)

    # --- transactions --------------------------------------------------------------------------

    async def _transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work(connection)` in one transaction, in the database thread; the rows deferred until now (`_defer`) are
        written in it too, after the work. When the transaction fails they wait for the next one."""
        deferred = self._take_deferred()
        if not deferred:
            return await self._write(_transaction, work)
        rows = _deferred_work(deferred, self._errors, self._dialect.fault_cause)

        def work_then_rows(con: sqlite3.Connection) -> T:
            result = work(con)
            rows(con)
            return result

        carrying: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._carrying.add(carrying)
        try:
            return await self._write(_transaction, work_then_rows)
        except BaseException:  # (a COMMIT whose outcome is unknown too: its rows are written again, to no effect)
            self._put_back(deferred)
            raise
        finally:
            self._carrying.discard(carrying)
            carrying.set_result(None)

    # --- rows deferred to the next commit ----------------------------------------------------------------

    def _defer(self, statement: str, rows: Iterable[tuple[Any, ...]]) -> None:
        """Write `statement` with each of `rows` in the next write transaction, whatever it is (a command's group
        commit above all), rather than in one of their own: no fsync of their own. When no write comes within
        `defer_delay` seconds they get a transaction of their own; closing writes what is left.

        Only for what a crash may lose: rows still waiting when the process dies are gone. A row is keyed by its
        first value: one whose key waits already is dropped (the first stays). The statement must ignore a row
        already there (ON CONFLICT DO NOTHING): a COMMIT whose outcome is unknown has its rows written again."""
        waiting = self._deferred.setdefault(statement, {})
        for row in rows:
            waiting.setdefault(row[0], row)
        if waiting and self._defer_timer is None and not self._closing:
            self._defer_timer = asyncio.get_running_loop().call_later(self.defer_delay, self._flush_deferred_later)

    async def flush_deferred(self) -> None:
        """Write the deferred rows now: wait for the transactions under way that carry some, then write those still
        waiting in a transaction of their own (none: no transaction). A read that shows them calls it first. A
        failure is logged; they wait for the next write."""
        if self._carrying:
            await asyncio.wait(set(self._carrying))
        if not self._deferred or self._closing:  # (closing writes them)
            return
        try:
            await self._transaction(_nothing)
        except StoreUnavailable as err:  # (the fault itself is logged once, by the write)
            log.debug("the deferred rows of %s wait: %s", self.path, err)
        except Exception:
            log.exception("writing the deferred rows of %s failed", self.path)

    def _flush_deferred_later(self) -> None:
        self._defer_timer = None
        if self._deferred and not self._closing:
            self._defer_flush = asyncio.ensure_future(self.flush_deferred())

    def _take_deferred(self) -> dict[str, dict[Any, tuple[Any, ...]]]:
        """The rows deferred until now, taken to be written (the timer for them stopped)."""
        if self._defer_timer is not None:
            self._defer_timer.cancel()
            self._defer_timer = None
        taken, self._deferred = self._deferred, {}
        return taken

    def _put_back(self, taken: dict[str, dict[Any, tuple[Any, ...]]]) -> None:
        """Deferred rows taken by a transaction that failed: waiting again, before any deferred since (the first
        stays). The next write carries them (no timer: a fault would have it retry in a loop)."""
        for statement, rows in taken.items():
            since = self._deferred.get(statement, {})
            for key, row in since.items():
                rows.setdefault(key, row)
            self._deferred[statement] = rows

    # --- group commit ----------------------------------------------------------------------------

    async def _grouped(self, work: Callable[[sqlite3.Connection], T], channel: str) -> T:
        """`work(connection)` committed with the others that arrive while a commit is in flight: one transaction,
        one COMMIT (one fsync) for all of them. Each is all-or-nothing on its own (a savepoint of its own): one
        that raises is rolled back alone and gets its error; the others commit. A fault of the database fails
        every one of the group (nothing of any is written).

        On PostgreSQL the group first locks the live games of its channels in id order, as every group does, so
        that two processes' groups never wait for each other in a circle (a deadlock would refuse both)."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._group.append((work, future, channel))
        self._next_group()
        return await future

    def _next_group(self) -> None:
        if self._group and not self._committing:
            self._committing = True
            group, self._group = self._group, []
            asyncio.ensure_future(self._commit_group(group))

    async def _commit_group(self, group: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any], str]]
                            ) -> None:
        def run(con: sqlite3.Connection) -> list[tuple[bool, Any]]:
            if len(group) > 1:
                self._dialect.lock_live_games(con, sorted({channel for _, _, channel in group}))
            return _run_group(con, [work for work, _, _ in group], self._errors, self._dialect.fault_cause)

        try:
            outcomes = await self._transaction(run)
        except BaseException as err:  # every member gets the group's failure (nothing of any was written)
            outcomes = [(False, err)] * len(group)
        finally:
            self._committing = False
            self._next_group()  # what arrived meanwhile: the next group
        for (_, future, _), (ok, value) in zip(group, outcomes, strict=True):
            if future.done():
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)


def _nothing(con: sqlite3.Connection) -> None:
    """A transaction's work that does nothing (the deferred rows it carries are its work)."""


def _deferred_work(deferred: dict[str, dict[Any, tuple[Any, ...]]], errors: tuple[type[BaseException], ...],
                   fault_cause: Callable[[BaseException], str | None]) -> Callable[[sqlite3.Connection], None]:
    """What writes deferred rows inside a transaction, each statement's in a savepoint: one that fails (not a fault of
    the database) is rolled back alone and logged, and the rest of the transaction stands."""

    def work(con: sqlite3.Connection) -> None:
        for statement, rows in deferred.items():
            con.execute("SAVEPOINT deferred")
            try:
                con.executemany(statement, list(rows.values()))
            except errors as err:
                if fault_cause(err) is not None:
                    raise
                con.execute("ROLLBACK TO deferred")
                log.warning("%d deferred row(s) dropped: %s", len(rows), err)
            con.execute("RELEASE deferred")

    return work


def _run_group(con: sqlite3.Connection, works: list[Callable[[sqlite3.Connection], Any]],
               errors: tuple[type[BaseException], ...],
               fault_cause: Callable[[BaseException], str | None]) -> list[tuple[bool, Any]]:
    """A group's works inside its one transaction, each in a savepoint of its own: (True, result) or (False, the
    error it raised and was rolled back from). A fault of the database itself is raised: the whole group is
    refused. One alone needs no savepoint: its error is raised, and the transaction rolled back."""
    if len(works) == 1:
        return [(True, works[0](con))]
    outcomes: list[tuple[bool, Any]] = []
    for work in works:
        con.execute("SAVEPOINT command")
        try:
            outcomes.append((True, work(con)))
        except errors as err:
            if fault_cause(err) is not None:
                raise
            con.execute("ROLLBACK TO command")
            outcomes.append((False, err))
        except Exception as err:
            con.execute("ROLLBACK TO command")
            outcomes.append((False, err))
        con.execute("RELEASE command")
    return outcomes


def _counting_changes(con: sqlite3.Connection, grown: Callable[[sqlite3.Connection], int] | None,
                      function: Callable[..., T], *args: Any) -> tuple[T, bool]:
    """`function(con, *args)` and whether it inserted, updated or deleted a row (with `grown`, the database's
    size: and made the database bigger). Runs in the database thread."""
    pages = grown(con) if grown else 0
    before = con.total_changes
    result = function(con, *args)
    changed = con.total_changes > before
    if changed and grown:
        changed = grown(con) > pages
    return result, changed


def _transaction(con: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """BEGIN, the work, COMMIT — or ROLLBACK and the error. Runs in the database thread."""
    con.execute("BEGIN IMMEDIATE")
    try:
        result = work(con)
        pause = float(os.environ.get(PAUSE_BEFORE_COMMIT, "0") or 0)
        if pause:
            print("store: pausing before commit", flush=True)
            time.sleep(pause)
        try:
            _commit(con)
        except BaseException as err:  # the server may have committed before the connection failed
            setattr(err, AT_COMMIT, True)
            raise
        return result
    except BaseException as err:
        if con.in_transaction:
            try:
                con.execute("ROLLBACK")
            except Exception as failed:  # e.g. "cannot rollback" after a disk I/O error: report the first error
                err.add_note(f"(the rollback failed too: {failed})")
        raise


def _commit(con: sqlite3.Connection) -> None:
    """COMMIT (a function of its own: the tests cut the connection here)."""
    con.execute("COMMIT")


def open_failure(path: str | os.PathLike[str], err: sqlite3.Error) -> str:
    """Why a database could not be opened, in one line."""
    file = Path(path)
    folder = file.parent.resolve() if str(file.parent) else Path.cwd()
    code = (getattr(err, "sqlite_errorcode", 0) or 0) & 0xFF
    if code == 26 or code == 11:
        return f"{file} is not a SQLite database"
    if code in (5, 6, 15):
        return f"{file} is locked by another program"
    if code == 13:
        return f"cannot open {file}: the disk is full"
    if code in (8, 14, 10):
        if not folder.is_dir():
            return f"cannot open {file}: there is no folder {folder}"
        if file.is_dir():
            return f"cannot open {file}: it is a folder, not a database file (e.g. {file / 'referee.db'})"
        if file.exists() and not os.access(file, os.W_OK):
            return f"{file} is read-only"
        return f"cannot write in folder {folder}"
    return f"cannot open {file}: {err}"

