"""The store: the one module that speaks SQL. SQLite through aiosqlite (WAL) by default, PostgreSQL (psycopg 3,
`data.postgres`) when the database is a `postgresql://` URL; numbered migrations.

A game lives as a snapshot and a log. The snapshot is one JSON document on the game's `games` row (its
rule set's export format without the rolls), written compactly (`snapshot_z`: zlib-compressed JSON; rows
written before migration 015 keep JSON text in `snapshot` until their game is next written), with the game's
next due time beside it (`next_due`, the clock's index); the log is `actions`, `events` and `rolls`. The
snapshot always equals the replay of the log's live events.

Every write is one transaction and one round trip to the database thread: the work runs there as one
plain function (`_transaction`), so a command's rolls, state change and log entry commit together or not
at all. `run_game` goes further: it loads a game, runs the engine on it (the referee's `plan`) and commits
what the plan returns, all in that one call.

Several processes may share one PostgreSQL database: a command locks its game's row for its transaction (so a
game's commands are serialised across processes, not only within one), and the clock's catch-up takes only the
due games no other process holds (`FOR UPDATE SKIP LOCKED`), so nothing due is applied twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import logging
import os
import re
import secrets
import sqlite3
import time
import zlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite
import orjson

from data import postgres
from engine.clock import next_deadline
from engine.dice import FacesRecord, FreeRoll, RollRecord
from engine.errors import RefereeError
from engine.events import (
    DiceRolled,
    DieRolled,
    Event,
    GameImported,
    event_from_dict,
    replay,
    to_jsonable,
)
from engine.history import HistoryEntry, Point, entries_of, entry_to_dict, last_point
from engine.rulesets import ruleset, ruleset_of

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Test hook: seconds to wait inside a transaction, just before COMMIT (the crash test kills us there).
PAUSE_BEFORE_COMMIT = "REFEREE_TEST_PAUSE_BEFORE_COMMIT"
BUSY_TIMEOUT = 5.0  # seconds a write waits for another program's lock before it is refused
CLOSE_TIMEOUT = 10.0  # seconds closing waits for the operations in flight
SHUTTING_DOWN = "the referee is shutting down; nothing changed — try again in a minute"
# How long the clock's announcement of a catch-up is its own process's to send before another may (`announcements`)
ANNOUNCE_GRACE = timedelta(minutes=2)
UNIQUE_VIOLATION = "23505"  # PostgreSQL's SQLSTATE for a second live game in a channel (the unique index)
OUTBOX_INSERT = "INSERT INTO announcements (action_id, due_at, game_id) VALUES (?, ?, ?)"
# The live events of one action of a game (its game first: SQLite indexes events by game, not by action)
ACTION_EVENTS = "SELECT data FROM events WHERE game_id = ? AND action_id = ? AND undone = 0 ORDER BY id"
OUTBOX_IF_DISCORD = ("INSERT INTO announcements (action_id, due_at, game_id)"
                     " SELECT ?, ?, id FROM games WHERE id = ? AND guild_id IS NOT NULL")
T = TypeVar("T")
log = logging.getLogger("referee.store")


class StoreUnavailable(RefereeError):
    """The database cannot be opened or written right now (not SQLite, locked, read-only, disk full).

    Its message is one line for a user ("the referee cannot save right now ...; nothing changed"); a
    write that raises it changed nothing."""


class ChannelTaken(Exception):
    """The channel already has a live game."""


class NoLiveGame(Exception):
    """The channel has no live game."""


PAGE_TOKEN_BYTES = 18  # a game page's token: 144 random bits, 24 URL-safe characters (issue 22)
PAGE_VERSION = ("(SELECT COALESCE(MAX(id), 0) FROM actions WHERE game_id = g.id),"
                " (SELECT COALESCE(MAX(id), 0) FROM rolls WHERE game_id = g.id), g.ended")  # `page_version`'s parts
PAGE_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")  # what a page link's token may look like before it is looked up
GAME_MOVED_ON = "the game changed while this was being prepared; nothing changed — try again"


class GameMovedOn(RefereeError):
    """Another action was logged in the game after a change was worked out against it (another process's):
    nothing was written."""


@dataclass(frozen=True)
class LoggedEvent:
    id: int
    action_id: int
    event: Event
    undone: bool


@dataclass(frozen=True)
class ActionRow:
    id: int
    actor: str
    command: str
    at: datetime
    undone: bool


@dataclass(frozen=True)
class GameRow:
    id: int
    channel: str
    guild_id: int | None
    ended: bool
    next_deadline: datetime | None
    status_message_id: int | None = None
    reminded_turn: int = 0
    remind_at: datetime | None = None  # the front-end's next reminder


@dataclass(frozen=True)
class DmReminder:
    """One player's reminders by direct message in one game (/remind me, migration 011)."""

    game_id: int
    player: str  # a Discord user id
    before: timedelta  # how long before a deadline its reminder comes
    failed: bool = False  # a DM was refused: their reminders go to the channel until they opt in again
    sent: tuple[str, ...] = ()  # the keys of the reminders already sent that still stand


@dataclass(frozen=True)
class ListedGame:
    """A live game as /game list lists it: where it is, its GM, and its state."""

    id: int
    channel: str
    guild_id: int | None
    gm: str
    state: Any


@dataclass(frozen=True)
class LoggedAction:
    """One action of the log with its live events, in order (what a digest lists)."""

    action: ActionRow
    events: list[Event]


@dataclass
class Entry:
    """One log entry a plan asks to commit: who did what, and the events it produced."""

    actor: str
    command: str
    now: datetime
    events: list[Event]


@dataclass
class Quick:
    """What a quick catch-up did to a snapshot document (changed in place): its log entries, its next due."""

    entries: list[Entry]
    next_due: datetime | None


@dataclass
class Plan:
    """What `run_game`'s plan returns: the entries to commit, the state after them, and a refusal to raise
    once they are committed (a catch-up commits even when the command after it is refused)."""

    state: Any
    entries: list[Entry] = field(default_factory=list)
    refusal: BaseException | None = None
    action_ids: list[int] = field(default_factory=list)  # the logged actions of `entries`, once committed


def _iso(value: datetime) -> str:
    return value.isoformat()


def _json(value: Any) -> str:
    """JSON text of plain values (orjson: a snapshot is written on every command)."""
    return orjson.dumps(value).decode()


# zlib's fastest level, with a 16 KB window (zlib's default 32 KB costs twice the time on a 4 KB document, for
# the same size): a 3.8 KB five-nation snapshot becomes 0.9 KB in about 15 µs. A plain `zlib.decompress` reads it.
SNAPSHOT_LEVEL = 1
SNAPSHOT_WBITS = 14


def pack_snapshot(document: dict[str, Any]) -> bytes:
    """A snapshot document as it is written (`games.snapshot_z`): zlib-compressed JSON."""
    return zlib.compress(orjson.dumps(document), SNAPSHOT_LEVEL, SNAPSHOT_WBITS)


def snapshot_document(text: str | bytes | None, packed: bytes | memoryview | None) -> dict[str, Any]:
    """A snapshot document from its row, either form: `snapshot_z` (compressed) when there is one, else the JSON
    text of `snapshot` (a row not written since migration 015). Every read of a snapshot goes through here."""
    if packed is not None:
        return orjson.loads(zlib.decompress(packed))
    if text is None:
        raise ValueError("the game has no snapshot")
    return orjson.loads(text)


def event_json(event: Event) -> str:
    """The logged text of an event: `_json(event_to_dict(event))`, written by orjson straight from the
    dataclass (datetimes as ISO 8601, keys as text) instead of walking it in Python first."""
    body = orjson.dumps(event, option=orjson.OPT_NON_STR_KEYS)
    head = b'{"kind":' + orjson.dumps(event.kind)
    return (head + (b"," + body[1:] if body != b"{}" else b"}")).decode()


class Store:
    """Open with `await Store.open(path)`; close with `await store.close()` (idempotent, safe to call twice at
    once: it waits, bounded, for the operations in flight and refuses new ones)."""

    def __init__(self, db: aiosqlite.Connection | postgres.Worker, path: str = "",
                 busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.db = db
        self.dialect = "postgresql" if isinstance(db, postgres.Worker) else "sqlite"
        self.page_rotations = 0  # page links this process rotated: a cache of links (the web's) is stale when it moves
        self.path = postgres.redacted(path) if self.dialect == "postgresql" else path  # what logs may show
        self._target = path
        self._errors: tuple[type[BaseException], ...] = (
            (sqlite3.Error, *postgres.error_types()) if self.dialect == "postgresql" else (sqlite3.Error,))
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

    @classmethod
    async def open(cls, path: str | os.PathLike[str], *, busy_timeout: float = BUSY_TIMEOUT) -> Store:
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
            await db._execute(_configure, db._conn, busy_timeout)
            store = cls(db, str(path), busy_timeout)
            store._opening = True
            await store.migrate()
            store._opening = False
        except BaseException as err:
            with contextlib.suppress(Exception):
                await db.close()
            cause = err.__cause__ if isinstance(err, StoreUnavailable) else err
            if isinstance(cause, sqlite3.Error) and _fault_cause(cause) is not None:
                raise StoreUnavailable(open_failure(path, cause)) from None
            raise
        return store

    @classmethod
    async def _open_postgres(cls, url: str, busy_timeout: float) -> Store:
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
        await self.db.close()  # queued after whatever is still running in the database thread

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
                if self._reopen and self.dialect == "postgresql":  # a lost connection is no use for reading either
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
        grown = self._fault == _FAULTS[SQLITE_FULL]
        async with self._operation(), self._write_lock:
            try:
                if self._reopen:
                    await self._in_thread(self._reconnect)
                result, changed = await self._in_thread(_counting_changes, grown, function, *args)
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
        cause = _fault_cause(err)
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
        return StoreUnavailable(f"the referee cannot {what} right now ({cause}); nothing changed — try again later")

    def _reconnect(self, old: sqlite3.Connection) -> None:
        """A fresh connection in place of the old one (runs in the database thread)."""
        if isinstance(self.db, postgres.Worker):
            self.db.reconnect()
            return
        new = sqlite3.connect(self.path, isolation_level=None)
        try:
            _configure(new, self.busy_timeout)
        except BaseException:
            new.close()
            raise
        new.row_factory = old.row_factory
        self.db._connection = new
        with contextlib.suppress(sqlite3.Error):
            old.close()

    # --- schema --------------------------------------------------------------------------------

    async def migrate(self) -> int:
        """Apply every numbered migration newer than the database; returns the schema version.

        A migration is an `NNN_name.sql` script or an `NNN_name.py` module whose `migrate(connection)`
        runs; each runs in a transaction of its own with the new version number.
        """
        version = await self._read(_schema_version)
        for number, path in migration_files(self.dialect):
            if number <= version:
                continue
            if self.dialect == "sqlite" and version:
                await self._backup_before(version, number, path)
            await self._write(_apply_migration, number, path)
            version = number
        return version

    async def _backup_before(self, version: int, number: int, path: Path) -> None:
        """A migration that changes stored data (a `.py` one) takes a backup of the database first."""
        if path.suffix != ".py" or not self.path or self.path == ":memory:":
            return
        from data.backup import BackupError, backup_before_migration

        try:
            copy = await asyncio.to_thread(backup_before_migration, self.path, version, number)
        except BackupError as err:
            raise StoreUnavailable(f"cannot back up {self.path} before migration {number:03d} ({err}); "
                                   "nothing changed") from None
        if copy is not None:
            log.warning("backed up %s to %s before migration %03d", self.path, copy, number)

    # --- transactions --------------------------------------------------------------------------

    async def _transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work(connection)` in one transaction, in the database thread."""
        return await self._write(_transaction, work)

    async def create_game(
        self, channel: str, guild_id: int | None, state: Any, events: list[Event],
        actor: str, command: str, now: datetime,
    ) -> tuple[int, int]:
        """A new game with its first action; returns (game id, action id)."""

        def work(con: sqlite3.Connection) -> tuple[int, int]:
            game_id = self._insert_game(con, channel, guild_id, state.gm, now)
            action_id = self._log(con, game_id, actor, command, now, events)
            record_history(con, game_id, action_id, state, (), None, now)
            self._write_snapshot(con, game_id, state)
            return game_id, action_id

        return await self._transaction(work)

    async def run_game(self, game_id: int, plan: Callable[[Any], Plan], announce: bool = False) -> Plan:
        """Load a game, run `plan(state)` on it and commit its entries and state: one transaction, one round
        trip. A plan that raises commits nothing; a plan's `refusal` is raised after its entries commit.
        `announce`: its entries go in the outbox of announcements too (`take_unannounced`)."""

        result = await self._transaction(lambda con: self._run_plan(con, game_id, plan, announce))
        if result.refusal is not None:
            raise result.refusal
        return result

    async def run_channel(self, channel: str, plan: Callable[[Any], Plan]) -> tuple[int, Plan]:
        """`run_game` for the channel's live game, the lookup folded into the same transaction: a command is one
        round trip to the database thread. Returns the game's id with the plan; `NoLiveGame` when there is none."""

        query = "SELECT id, ruleset, snapshot, snapshot_z FROM games WHERE channel = ? AND ended = 0"
        if self.dialect == "postgresql":
            query += " FOR UPDATE"

        def work(con: sqlite3.Connection) -> tuple[int, Plan]:
            row = con.execute(query, (channel,)).fetchone()  # the game found and read (and locked) at once
            if row is None:
                raise NoLiveGame(channel)
            state = ruleset(row[1]).state_from_dict(snapshot_document(row[2], row[3]))
            return int(row[0]), self._run_plan(con, int(row[0]), plan, loaded=state)

        game_id, result = await self._grouped(work, channel)
        if result.refusal is not None:
            raise result.refusal
        return game_id, result

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
            if self.dialect == "postgresql" and len(group) > 1:
                con.execute("SELECT id FROM games WHERE channel = ANY(?) AND ended = 0 ORDER BY id FOR UPDATE",
                            (sorted({channel for _, _, channel in group}),)).fetchall()
            return _run_group(con, [work for work, _, _ in group], self._errors)

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

    async def run_games(self, game_ids: list[int], plan: Callable[[Any], Plan],
                        quick: Callable[[str, dict[str, Any]], Quick | None] | None = None,
                        announce: bool = False) -> dict[int, Plan]:
        """`run_game` for several games in one transaction (a batch of the clock's catch-up). Each game is
        all-or-nothing on its own: one whose plan or write fails is left as it was, and the others go on.

        `quick(ruleset, document)`, when given, is tried first on each game's snapshot document: when it
        returns its entries (having changed the document in place), they and the document are written as they
        are, without building the state (the returned Plan's `state` is then None); else `plan` runs.
        `announce`: the entries go in the outbox of announcements too, as in `run_game`."""

        def work(con: sqlite3.Connection) -> dict[int, Plan]:
            done: dict[int, Plan] = {}
            ids = list(game_ids)
            if self.dialect == "postgresql" and ids:
                # the due games no other process holds now: those it holds, it is catching up (or a command is)
                held = {int(r[0]) for r in con.execute(
                    "SELECT id FROM games WHERE id = ANY(?) ORDER BY id FOR UPDATE SKIP LOCKED", (ids,))}
                ids = [game_id for game_id in ids if game_id in held]
            slow = ids
            if quick is not None and ids:
                slow = self._run_quick(con, ids, quick, done, announce)
            for game_id in slow:
                con.execute("SAVEPOINT game")
                try:
                    result = self._run_plan(con, game_id, plan, announce)
                except self._errors as err:
                    if _fault_cause(err) is not None:
                        raise  # the database itself failed: the whole batch is refused
                    log.exception("catching up game %s failed; it is left as it was", game_id)
                    con.execute("ROLLBACK TO game")
                except Exception:
                    log.exception("catching up game %s failed; it is left as it was", game_id)
                    con.execute("ROLLBACK TO game")
                else:
                    done[game_id] = result
                con.execute("RELEASE game")
            return done

        return await self._transaction(work)

    def _run_quick(self, con: sqlite3.Connection, game_ids: list[int],
                   quick: Callable[[str, dict[str, Any]], Quick | None], done: dict[int, Plan],
                   announce: bool = False) -> list[int]:
        """The quick catch-ups of a batch: every document read in one query, each tried with `quick`, and what
        they wrote saved with one statement per table. Returns the games `quick` left to the full plan."""
        marks = ",".join("?" * len(game_ids))
        rows = {row[0]: row for row in con.execute(f"SELECT id, ruleset, snapshot, snapshot_z FROM games"
                                                   f" WHERE id IN ({marks})",
                                                   game_ids)}
        slow, written = [], []
        for game_id in game_ids:
            row = rows.get(game_id)
            fast = None
            if row is not None:
                try:
                    document = snapshot_document(row[2], row[3])
                    fast = quick(row[1], document)
                except Exception:  # left to the full plan, which logs what fails
                    log.exception("the quick catch-up of game %s failed; trying the full one", game_id)
            if fast is None or any(isinstance(e, DieRolled | DiceRolled) for n in fast.entries for e in n.events):
                slow.append(game_id)
                continue
            written.append((game_id, fast, document))
            done[game_id] = Plan(None, list(fast.entries))
            done[game_id].action_ids = []
        if not written:
            return slow
        # One statement per table for the whole batch; the actions' ids are given, so events can name them.
        count = sum(len(fast.entries) for _, fast, _ in written)
        if self.dialect == "postgresql":  # other processes insert actions too: the sequence hands out the ids
            new_ids = [int(r[0]) for r in con.execute(
                "SELECT nextval(pg_get_serial_sequence('actions', 'id')) FROM generate_series(1, ?)", (count,))]
        else:  # one writer at a time (BEGIN IMMEDIATE)
            first = int(con.execute("SELECT COALESCE(MAX(id), 0) FROM actions").fetchone()[0]) + 1
            new_ids = list(range(first, first + count))
        actions, events, outbox = [], [], []
        numbered = iter(new_ids)
        moment: datetime | None = None  # the batch's entries share one `now`: its text is worked out once
        for game_id, fast, _ in written:
            for entry in fast.entries:
                if entry.now is not moment:
                    moment, at, due_at = entry.now, _iso(entry.now), _iso(entry.now + ANNOUNCE_GRACE)
                next_id = next(numbered)
                done[game_id].action_ids.append(next_id)
                actions.append((next_id, game_id, entry.actor, entry.command, at))
                events += [(game_id, next_id, e.kind, event_json(e)) for e in entry.events]
                outbox.append((next_id, due_at, game_id))
        con.executemany("INSERT INTO actions (id, game_id, actor, command, at) VALUES (?, ?, ?, ?, ?)", actions)
        con.executemany("INSERT INTO events (game_id, action_id, kind, data) VALUES (?, ?, ?, ?)", events)
        if announce:
            con.executemany(OUTBOX_INSERT, outbox)
        con.executemany("UPDATE games SET snapshot = NULL, snapshot_z = ?, next_due = ? WHERE id = ?",
                        [(pack_snapshot(document), _iso(fast.next_due) if fast.next_due else None, game_id)
                         for game_id, fast, document in written])
        return slow

    def _run_plan(self, con: sqlite3.Connection, game_id: int, plan: Callable[[Any], Plan],
                  announce: bool = False, loaded: Any = None) -> Plan:
        """Load the game (its row locked until the transaction ends, on PostgreSQL: a game's commands are
        serialised across processes) unless it is `loaded` already (so, in this transaction), run the plan, write
        its entries, their stat history and (if any) the new snapshot."""
        state = loaded if loaded is not None else self._load(con, game_id, lock=True)
        point_of = ruleset_of(state).history_point
        before = point_of(state) if point_of is not None else None  # the plan may change `state` in place
        result = plan(state)
        result.action_ids = [self._log(con, game_id, entry.actor, entry.command, entry.now, entry.events)
                             for entry in result.entries]
        if announce and result.entries:
            con.executemany(OUTBOX_INSERT, [(action_id, _iso(entry.now + ANNOUNCE_GRACE), game_id)
                                            for entry, action_id in zip(result.entries, result.action_ids,
                                                                        strict=True)])
        elif result.refusal is not None and result.entries:
            # A refused command's catch-up is committed but its answer is the refusal alone: the Discord clock
            # announces it (due at once; a console game has no server and no row).
            con.executemany(OUTBOX_IF_DISCORD, [(action_id, _iso(entry.now), game_id)
                                                for entry, action_id in zip(result.entries, result.action_ids,
                                                                            strict=True)])
        if result.entries:
            if point_of is not None:
                self._history_of_plan(con, game_id, result, before)
            self._write_snapshot(con, game_id, result.state)
        return result

    def _history_of_plan(self, con: sqlite3.Connection, game_id: int, result: Plan, before: Point | None) -> None:
        """Each entry's stat history, at the turn it left the game in. One entry (a command) is the state after
        it; several (a catch-up) are replayed one by one from the snapshot."""
        state = result.state if len(result.entries) == 1 else self._load(con, game_id)
        for entry, action_id in zip(result.entries, result.action_ids, strict=True):
            if len(result.entries) > 1:
                state = replay(entry.events, state)
            before = record_history(con, game_id, action_id, state, entry.events, before, entry.now)

    async def undo(self, game_id: int, action_id: int | Sequence[int], state: Any,
                   undo_event: Event | Sequence[Event], actor: str, command: str, now: datetime,
                   last_action: int | None = None) -> int:
        """Mark one action (or several, `/gm undo steps:N`), its events and its rolls undone, log the undo (one
        action, an ActionUndone event for each action undone) and write the replayed state: one transaction.

        `last_action`: the game's newest action when `state` was worked out; if another has been logged since
        (another process's command), nothing is undone (`GameMovedOn`)."""
        ids = [action_id] if isinstance(action_id, int) else list(action_id)
        undo_events = [undo_event] if isinstance(undo_event, Event) else list(undo_event)

        def work(con: sqlite3.Connection) -> int:
            if last_action is not None:
                self._document(con, game_id, lock=True)
                [newest] = con.execute("SELECT MAX(id) FROM actions WHERE game_id = ?", (game_id,)).fetchone()
                if newest != last_action:
                    raise GameMovedOn(GAME_MOVED_ON)
            for undone_id in ids:
                for table in ("events", "rolls", "history"):
                    con.execute(f"UPDATE {table} SET undone = 1 WHERE action_id = ?", (undone_id,))
                con.execute("UPDATE actions SET undone = 1 WHERE id = ?", (undone_id,))
            new_id = self._log(con, game_id, actor, command, now, undo_events)
            self._write_snapshot(con, game_id, state)
            return new_id

        return await self._transaction(work)

    # --- the pieces of a transaction (they run in the database thread) -----------------------------

    def _insert_game(self, con: sqlite3.Connection, channel: str, guild_id: int | None, gm: str,
                     now: datetime) -> int:
        try:
            cursor = con.execute("INSERT INTO games (channel, guild_id, gm, created_at) VALUES (?, ?, ?, ?)"
                                 " RETURNING id", (channel, guild_id, gm, _iso(now)))
            return int(cursor.fetchone()[0])
        except self._errors as err:
            if isinstance(err, sqlite3.IntegrityError) or getattr(err, "sqlstate", None) == UNIQUE_VIOLATION:
                raise ChannelTaken(channel) from None
            raise

    def _log(self, con: sqlite3.Connection, game_id: int, actor: str, command: str, now: datetime,
             events: list[Event]) -> int:
        cursor = con.execute("INSERT INTO actions (game_id, actor, command, at) VALUES (?, ?, ?, ?) RETURNING id",
                             (game_id, actor, command, _iso(now)))
        action_id = int(cursor.fetchone()[0])
        con.executemany(
            "INSERT INTO events (game_id, action_id, kind, data) VALUES (?, ?, ?, ?)",
            [(game_id, action_id, e.kind, event_json(e)) for e in events],
        )
        for event in events:
            if isinstance(event, DieRolled | DiceRolled):
                self._insert_roll(con, game_id, action_id, to_jsonable(event.roll))
        return action_id

    def _insert_roll(self, con: sqlite3.Connection, game_id: int, action_id: int | None,
                     roll: dict[str, Any]) -> None:
        """One ledger row: a numbered die with modifiers, or (with `faces` and no `die`) dice with named faces."""
        if "faces" in roll and "die" not in roll:
            forced = roll.get("forced") or []
            row = (game_id, action_id, roll.get("turn", 0), roll.get("player"), roll["purpose"], None, None, None,
                   None, None, None, sum(map(bool, forced)) if isinstance(forced, list) else int(bool(forced)),
                   roll.get("at") or "", None, None, json.dumps([str(f) for f in roll["faces"]]), None)
        else:
            row = (
                game_id, action_id, roll.get("turn", 0), roll.get("nation"), roll["purpose"], roll["die"],
                json.dumps(roll.get("modifiers", {})), roll["total"], roll.get("target"), roll.get("comparison"),
                None if roll.get("success") is None else int(bool(roll["success"])), int(bool(roll["forced"])),
                roll.get("at") or "", roll.get("battle"), roll.get("unit"), None, roll.get("sides", 10),
            )
        con.execute(
            "INSERT INTO rolls (game_id, action_id, turn, nation, purpose, die, modifiers, total, target,"
            " comparison, success, forced, at, battle, unit, faces, sides)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row,
        )

    def _write_snapshot(self, con: sqlite3.Connection, game_id: int, state: Any) -> None:
        """The game's row: its snapshot document and its next due time (the clock's index)."""
        due = next_deadline(state)
        con.execute(
            "UPDATE games SET gm = ?, ruleset = ?, ended = ?, snapshot = NULL, snapshot_z = ?, next_due = ?"
            " WHERE id = ?",
            (state.gm, state.ruleset, int(state.ended), pack_snapshot(ruleset_of(state).state_to_dict(state)),
             _iso(due) if due else None, game_id),
        )

    def _load(self, con: sqlite3.Connection, game_id: int, lock: bool = False) -> Any:
        name, document = self._document(con, game_id, lock)
        return ruleset(name).state_from_dict(document)

    def _document(self, con: sqlite3.Connection, game_id: int, lock: bool = False) -> tuple[str, dict[str, Any]]:
        """A game's rule set and its snapshot document (the export format, as stored); with `lock`, inside a
        transaction, its row stays locked to other processes until the transaction ends (PostgreSQL: SQLite's
        BEGIN IMMEDIATE already holds the whole database)."""
        query = "SELECT ruleset, snapshot, snapshot_z FROM games WHERE id = ?"
        if lock and self.dialect == "postgresql":
            query += " FOR UPDATE"
        row = con.execute(query, (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id}")
        return row[0], snapshot_document(row[1], row[2])

    # --- the game's page (issue 22) ---------------------------------------------------------------

    async def page_token(self, game_id: int, now: datetime) -> str:
        """The token of the game's page link (`PUBLIC_URL/g/<token>`), made the first time it is asked for (a read
        after that: every status message links to it, a rollover's too)."""
        rows = await self._fetchall("SELECT token FROM game_pages WHERE game_id = ?", (game_id,))
        if rows:
            return str(rows[0][0])

        def work(con: sqlite3.Connection) -> str:
            con.execute("INSERT INTO game_pages (game_id, token, created_at) VALUES (?, ?, ?)"
                        " ON CONFLICT (game_id) DO NOTHING",
                        (game_id, secrets.token_urlsafe(PAGE_TOKEN_BYTES), _iso(now)))
            return str(con.execute("SELECT token FROM game_pages WHERE game_id = ?", (game_id,)).fetchone()[0])

        return await self._transaction(work)

    async def rotate_page_token(self, game_id: int, now: datetime) -> str:
        """A new token for the game's page: the old link stops working at once. Returns the new token."""
        token = secrets.token_urlsafe(PAGE_TOKEN_BYTES)
        await self._transaction(lambda con: con.execute(
            "INSERT INTO game_pages (game_id, token, created_at) VALUES (?, ?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET token = excluded.token, created_at = excluded.created_at",
            (game_id, token, _iso(now))))
        self.page_rotations += 1
        return token

    async def page_game(self, token: str) -> int | None:
        """The game whose page this token opens, or None (a token of the wrong shape is not looked up)."""
        if not PAGE_TOKEN.fullmatch(token):
            return None
        rows = await self._fetchall("SELECT game_id FROM game_pages WHERE token = ?", (token,))
        return int(rows[0][0]) if rows else None

    async def page_version(self, game_id: int) -> str:
        """What changes whenever the game's page would: its last action (an undo is one too), its last roll (a free
        roll is logged without an action) and whether it has ended. Cheap: the page's live updates poll it."""
        rows = await self._fetchall(f"SELECT g.id, {PAGE_VERSION} FROM games g WHERE g.id = ?", (game_id,))
        if not rows:
            raise KeyError(f"no game {game_id}")
        return _page_version(rows[0])

    async def page_of(self, token: str) -> tuple[int, str] | None:
        """`page_game` and `page_version` in one statement (every request for a page asks both): the game this token
        opens and its page's version, or None."""
        if not PAGE_TOKEN.fullmatch(token):
            return None
        rows = await self._fetchall(f"SELECT g.id, {PAGE_VERSION} FROM game_pages p JOIN games g ON g.id = p.game_id"
                                    " WHERE p.token = ?", (token,))
        return (int(rows[0][0]), _page_version(rows[0])) if rows else None

    # --- reading -------------------------------------------------------------------------------

    async def live_game(self, channel: str) -> int | None:
        """The id of the channel's game that has not ended, if any."""
        rows = await self._fetchall("SELECT id FROM games WHERE channel = ? AND ended = 0", (channel,))
        return int(rows[0]["id"]) if rows else None

    async def last_ended_game(self, channel: str) -> int | None:
        """The id of the channel's most recent game that has ended, if any."""
        rows = await self._fetchall("SELECT MAX(id) AS id FROM games WHERE channel = ? AND ended = 1", (channel,))
        return int(rows[0]["id"]) if rows and rows[0]["id"] is not None else None

    async def live_ruleset(self, channel: str) -> str | None:
        """The rule set of the channel's game that has not ended, if any."""
        rows = await self._fetchall("SELECT ruleset FROM games WHERE channel = ? AND ended = 0", (channel,))
        return str(rows[0]["ruleset"]) if rows else None

    async def games(self, live_only: bool = True, game_id: int | None = None) -> list[GameRow]:
        """Every game (live ones only by default; or the one game asked for) with its next deadline."""
        where, params = [], []
        if live_only:
            where.append("ended = 0")
        if game_id is not None:
            where.append("id = ?")
            params.append(game_id)
        query = ("SELECT id, channel, guild_id, ended, status_message_id, reminded_turn, next_due, remind_at FROM games"
                 + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id")
        rows = await self._fetchall(query, params)
        return [
            GameRow(int(r["id"]), r["channel"], r["guild_id"], bool(r["ended"]),
                    datetime.fromisoformat(r["next_due"]) if r["next_due"] else None,
                    r["status_message_id"], int(r["reminded_turn"]),
                    datetime.fromisoformat(r["remind_at"]) if r["remind_at"] else None)
            for r in rows
        ]

    async def listed_games(self, guild_id: int | None, gm: str, limit: int) -> tuple[list[ListedGame], int]:
        """The live games of a server (`guild_id`; None: every live game in the database), those `gm` runs as
        their GM first (compared as the referee compares GMs: without case), each group in the order the games
        began; at most `limit` of them with their states, and how many there are in all. One round trip."""

        def work(con: sqlite3.Connection) -> tuple[list[ListedGame], int]:
            query = "SELECT id, channel, guild_id, gm FROM games WHERE ended = 0"
            params: tuple[Any, ...] = ()
            if guild_id is not None:
                query, params = query + " AND guild_id = ?", (guild_id,)
            rows = con.execute(query + " ORDER BY id", params).fetchall()
            rows.sort(key=lambda r: r[3].lower() != gm.lower())  # stable: the start order within each group
            shown = [ListedGame(int(r[0]), r[1], r[2], r[3], self._load(con, int(r[0]))) for r in rows[:limit]]
            return shown, len(rows)

        return await self._read(work)

    async def due(self, now: datetime) -> list[tuple[int, int | None]]:
        """(game id, server) of the live games with something due by `now`, earliest first: the clock's index."""
        query = "SELECT id, guild_id FROM games WHERE ended = 0 AND next_due <= ? ORDER BY next_due"
        return [(int(r["id"]), r["guild_id"]) for r in await self._fetchall(query, (_iso(now),))]

    async def due_page(self, now: datetime, limit: int,
                       after: tuple[str, int] | None = None) -> list[tuple[int, int | None, str]]:
        """`due` a page at a time, for a rollover of any number of games: at most `limit` (game id, server, due
        time) in the order (due time, id), those after `after` (the last one's (due time, id)) only."""
        query = "SELECT id, guild_id, next_due FROM games WHERE ended = 0 AND next_due <= ?"
        params: tuple[Any, ...] = (_iso(now),)
        if after is not None:
            query += " AND (next_due > ? OR (next_due = ? AND id > ?))"
            params += (after[0], after[0], after[1])
        rows = await self._fetchall(query + " ORDER BY next_due, id LIMIT ?", (*params, limit))
        return [(int(r["id"]), r["guild_id"], str(r["next_due"])) for r in rows]

    async def next_wake(self) -> datetime | None:
        """The earliest moment any live game needs the clock: a due time or a front-end reminder (one timer
        is enough for the whole clock). Two index lookups."""
        [row] = await self._fetchall("SELECT (SELECT MIN(next_due) FROM games WHERE ended = 0),"
                                     " (SELECT MIN(remind_at) FROM games WHERE ended = 0)")
        moments = [datetime.fromisoformat(value) for value in row if value] if row else []
        return min(moments, default=None)

    async def take_reminders_due(self, now: datetime) -> list[tuple[int, int | None]]:
        """(game id, server) of the live games whose front-end reminder is due by `now`; each is taken off the
        index (the front-end records the next one when it has reminded)."""

        def work(con: sqlite3.Connection) -> list[tuple[int, int | None]]:
            if self.dialect == "postgresql":  # each reminder taken by one process only
                rows = con.execute(
                    "UPDATE games SET remind_at = NULL WHERE id IN (SELECT id FROM games WHERE ended = 0"
                    " AND remind_at <= ? ORDER BY id FOR UPDATE SKIP LOCKED) RETURNING id, guild_id",
                    (_iso(now),)).fetchall()
                return [(int(r[0]), r[1]) for r in rows]
            rows = con.execute("SELECT id, guild_id FROM games WHERE ended = 0 AND remind_at <= ?",
                               (_iso(now),)).fetchall()
            con.executemany("UPDATE games SET remind_at = NULL WHERE id = ?", [(r[0],) for r in rows])
            return [(int(r[0]), r[1]) for r in rows]

        return await self._transaction(work)

    async def take_unannounced(self, now: datetime) -> list[tuple[int, int, list[Event]]]:
        """The clock's announcements left unsent past their time (their process died after the commit): (game id,
        action id, its live events), oldest first. Each is taken by one process: its time moves on by the grace
        (should this process die too, another takes it then); `announced` removes it once sent."""

        def work(con: sqlite3.Connection) -> list[tuple[int, int, list[Event]]]:
            if self.dialect == "postgresql":
                rows = con.execute(
                    "UPDATE announcements SET due_at = ? WHERE action_id IN (SELECT action_id FROM announcements"
                    " WHERE due_at <= ? ORDER BY action_id LIMIT 500 FOR UPDATE SKIP LOCKED)"
                    " RETURNING game_id, action_id", (_iso(now + ANNOUNCE_GRACE), _iso(now))).fetchall()
            else:
                rows = con.execute("SELECT game_id, action_id FROM announcements WHERE due_at <= ?"
                                   " ORDER BY action_id LIMIT 500", (_iso(now),)).fetchall()
                con.executemany("UPDATE announcements SET due_at = ? WHERE action_id = ?",
                                [(_iso(now + ANNOUNCE_GRACE), r[1]) for r in rows])
            taken = []
            for game_id, action_id in sorted((int(r[0]), int(r[1])) for r in rows):
                events = [event_from_dict(orjson.loads(e[0])) for e in con.execute(ACTION_EVENTS, (game_id, action_id))]
                taken.append((game_id, action_id, events))
            return taken

        return await self._transaction(work)

    async def announced(self, action_ids: Sequence[int]) -> None:
        """The clock's announcements of these actions are sent: out of the outbox."""
        if action_ids:
            await self._transaction(lambda con: con.executemany(
                "DELETE FROM announcements WHERE action_id = ?", [(action_id,) for action_id in action_ids]))

    async def action_events(self, game_id: int, action_id: int) -> list[Event]:
        """The live events of one action, in order (as `take_unannounced` reads them back): what the clock
        announces of a catch-up whose events it did not keep in memory."""
        rows = await self._fetchall(ACTION_EVENTS, (game_id, action_id))
        return [event_from_dict(orjson.loads(row[0])) for row in rows]

    async def choice_message(self, game_id: int, battle: int, message_id: int | None = None) -> int | None:
        """The message that offers a battle's choice; with `message_id`, record a new one. Returns the old one."""
        rows = await self._fetchall("SELECT message_id FROM choice_messages WHERE game_id = ? AND battle = ?",
                                    (game_id, battle))
        if message_id is not None:
            await self._transaction(lambda con: con.execute(
                "INSERT INTO choice_messages (game_id, battle, message_id) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id, battle) DO UPDATE SET message_id = excluded.message_id",
                (game_id, battle, message_id)))
        return int(rows[0]["message_id"]) if rows else None

    async def game(self, game_id: int) -> GameRow:
        """One game's row (live or not)."""
        rows = await self.games(live_only=False, game_id=game_id)
        if not rows:
            raise KeyError(f"no game {game_id}")
        return rows[0]

    async def set_front_end(self, game_id: int, *, status_message_id: int | None = None,
                            reminded_turn: int | None = None, remind_at: datetime | None | bool = False) -> None:
        """Record the Discord front-end's bookkeeping: the pinned status message, the last turn reminded, the
        next reminder (`remind_at`; None: no reminder pending; left alone when not given)."""
        changes: dict[str, Any] = {}
        if status_message_id is not None:
            changes["status_message_id"] = status_message_id
        if reminded_turn is not None:
            changes["reminded_turn"] = reminded_turn
        if remind_at is not False:
            changes["remind_at"] = _iso(remind_at) if isinstance(remind_at, datetime) else None
        if not changes:
            return

        def work(con: sqlite3.Connection) -> None:
            con.execute(f"UPDATE games SET {', '.join(f'{k} = ?' for k in changes)} WHERE id = ?",
                        (*changes.values(), game_id))

        await self._transaction(work)

    async def load(self, game_id: int) -> Any:
        """The game's current state, from its snapshot (one row, one round trip)."""
        return await self._read(self._load, game_id)

    async def events(self, game_id: int, include_undone: bool = False) -> list[LoggedEvent]:
        query = "SELECT id, action_id, data, undone FROM events WHERE game_id = ?"
        if not include_undone:
            query += " AND undone = 0"
        rows = await self._fetchall(query + " ORDER BY id", (game_id,))
        return [
            LoggedEvent(r["id"], r["action_id"], event_from_dict(orjson.loads(r["data"])), bool(r["undone"]))
            for r in rows
        ]

    async def replayed(self, game_id: int) -> Any:
        """The game's state rebuilt from its live events (what the snapshot must equal)."""
        return replay(e.event for e in await self.events(game_id))

    async def actions(self, game_id: int, limit: int = 20, include_undone: bool = True) -> list[ActionRow]:
        """The newest actions first."""
        query = "SELECT * FROM actions WHERE game_id = ?" + ("" if include_undone else " AND undone = 0")
        rows = await self._fetchall(query + " ORDER BY id DESC LIMIT ?", (game_id, limit))
        return [ActionRow(r["id"], r["actor"], r["command"], datetime.fromisoformat(r["at"]), bool(r["undone"]))
                for r in rows]

    async def rolls(self, game_id: int, nation: str | None = None, limit: int | None = None,
                    include_undone: bool = False, include_free: bool = True) -> list[RollRecord | FacesRecord]:
        """Rolls oldest first; with `limit`, the newest `limit` of them. Free rolls (/roll) are RollRecords
        with `free` set; `include_free=False` leaves them out (the export: they are no rule roll)."""
        query, params = "SELECT * FROM rolls WHERE game_id = ?", [game_id]
        if not include_free:
            query += " AND free IS NULL"
        if nation is not None:
            query += " AND nation = ?"
            params.append(nation)
        if not include_undone:
            query += " AND undone = 0"
        query += " ORDER BY id DESC" + (" LIMIT ?" if limit else "")
        if limit:
            params.append(limit)
        rows = await self._fetchall(query, params)
        return [_roll_record(r) for r in reversed(rows)]

    async def ledger_page(self, game_id: int, where: LedgerFilter, offset: int,
                          limit: int) -> tuple[list[tuple[RollRecord | FacesRecord, ReportMessage | None]], int]:
        """/log rolls: the live rolls matching `where`, newest first from `offset`, at most `limit` of them (the
        page given oldest first), each with the message that announced it when the front-end recorded one
        (migration 013), and how many match in all. One round trip."""
        clause, params = _ledger_where(game_id, where)

        def work(con: sqlite3.Connection) -> tuple[list[tuple[RollRecord | FacesRecord, ReportMessage | None]], int]:
            total = int(con.execute(f"SELECT COUNT(*) FROM rolls WHERE {clause}", params).fetchone()[0])
            rows = con.execute(
                "SELECT rolls.*, m.channel_id AS report_channel, m.message_id AS report_message FROM rolls"
                f" LEFT JOIN report_messages AS m ON m.action_id = rolls.action_id WHERE {clause}"
                " ORDER BY rolls.id DESC LIMIT ? OFFSET ?", (*params, limit, offset)).fetchall()
            return [(_roll_record(r), None if r["report_message"] is None
                     else ReportMessage(r["report_channel"], int(r["report_message"]))) for r in reversed(rows)], total

        return await self._read(work)

    async def ledger_chunk(self, game_id: int, after: int, limit: int) -> list[tuple[int, RollRecord | FacesRecord]]:
        """/log export: the game's live rolls (free ones included) after the row `after`, oldest first, at most
        `limit`, each with its row id (where the next chunk starts): the ledger read a bounded chunk at a time. The
        records are built in the database thread too (on the event loop, 5,000 of them held it ~90 ms)."""

        def work(con: sqlite3.Connection) -> list[tuple[int, RollRecord | FacesRecord]]:
            rows = con.execute("SELECT * FROM rolls WHERE game_id = ? AND undone = 0 AND id > ? ORDER BY id LIMIT ?",
                               (game_id, after, limit))
            return [(int(r["id"]), _roll_record(r)) for r in rows]

        return await self._read(work)

    async def actions_since(self, game_id: int, since: datetime, limit: int = 200,
                            inclusive: bool = False) -> tuple[list[LoggedAction], int]:
        """The game's live actions after `since` (at or after it: `inclusive`), oldest first, each with its live
        events: at most `limit` of them, and how many more there are. Two queries, one round trip."""

        def work(con: sqlite3.Connection) -> tuple[list[LoggedAction], int]:
            where = f"game_id = ? AND undone = 0 AND at {'>=' if inclusive else '>'} ?"
            params = (game_id, _iso(since))
            total = int(con.execute(f"SELECT COUNT(*) FROM actions WHERE {where}", params).fetchone()[0])
            rows = con.execute(f"SELECT * FROM actions WHERE {where} ORDER BY id LIMIT ?", (*params, limit)).fetchall()
            if not rows:
                return [], total
            ids = [r["id"] for r in rows]
            found: dict[int, list[Event]] = {i: [] for i in ids}
            for e in con.execute(f"SELECT action_id, data FROM events WHERE action_id IN ({','.join('?' * len(ids))})"
                                 " AND undone = 0 ORDER BY id", ids):
                found[e["action_id"]].append(event_from_dict(orjson.loads(e["data"])))
            logged = [LoggedAction(ActionRow(r["id"], r["actor"], r["command"], datetime.fromisoformat(r["at"]),
                                             bool(r["undone"])), found[r["id"]]) for r in rows]
            return logged, total - len(logged)

        return await self._read(work)

    async def action_history(self, game_id: int) -> list[LoggedAction]:
        """Every action of the game, undone ones too, oldest first, each with all its events (undone ones too), in
        order: what /log gm replays to find each GM act's before → after (`gmlog`). One round trip."""

        def work(con: sqlite3.Connection) -> list[LoggedAction]:
            found: dict[int, list[Event]] = {}
            for e in con.execute("SELECT action_id, data FROM events WHERE game_id = ? ORDER BY id", (game_id,)):
                found.setdefault(e["action_id"], []).append(event_from_dict(orjson.loads(e["data"])))
            rows = con.execute("SELECT * FROM actions WHERE game_id = ? ORDER BY id", (game_id,)).fetchall()
            return [LoggedAction(ActionRow(r["id"], r["actor"], r["command"], datetime.fromisoformat(r["at"]),
                                           bool(r["undone"])), found.get(r["id"], [])) for r in rows]

        return await self._read(work)

    async def free_rolls_since(self, game_id: int, since: datetime, until: datetime | None = None,
                               inclusive: bool = False, limit: int = 200) -> list[RollRecord]:
        """The game's free rolls (/roll) after `since` (and not after `until`), oldest first, at most `limit`."""
        query = f"SELECT * FROM rolls WHERE game_id = ? AND free IS NOT NULL AND at {'>=' if inclusive else '>'} ?"
        params: list[Any] = [game_id, _iso(since)]
        if until is not None:
            query += " AND at <= ?"
            params.append(_iso(until))
        rows = await self._fetchall(query + " ORDER BY id LIMIT ?", (*params, limit))
        return [record for record in map(_roll_record, rows) if isinstance(record, RollRecord)]

    async def logged_actions(self, game_id: int, after_id: int = 0, limit: int = 500) -> list[LoggedAction]:
        """The game's live actions of id above `after_id`, oldest first, at most `limit`, each with its live events
        (/log game reads a game's whole log a page at a time with it)."""

        def work(con: sqlite3.Connection) -> list[LoggedAction]:
            rows = con.execute("SELECT * FROM actions WHERE game_id = ? AND undone = 0 AND id > ? ORDER BY id LIMIT ?",
                               (game_id, after_id, limit)).fetchall()
            if not rows:
                return []
            ids = [r["id"] for r in rows]
            found: dict[int, list[Event]] = {i: [] for i in ids}
            for e in con.execute(f"SELECT action_id, data FROM events WHERE action_id IN ({','.join('?' * len(ids))})"
                                 " AND undone = 0 ORDER BY id", ids):
                found[e["action_id"]].append(event_from_dict(orjson.loads(e["data"])))
            return [LoggedAction(ActionRow(r["id"], r["actor"], r["command"], datetime.fromisoformat(r["at"]),
                                           bool(r["undone"])), found[r["id"]]) for r in rows]

        return await self._read(work)

    async def free_rolls_of_turn(self, game_id: int, turn: int) -> list[RollRecord]:
        """The game's free rolls (/roll) made in turn `turn`, oldest first."""
        rows = await self._fetchall("SELECT * FROM rolls WHERE game_id = ? AND free IS NOT NULL AND turn = ?"
                                    " ORDER BY id", (game_id, turn))
        return [record for record in map(_roll_record, rows) if isinstance(record, RollRecord)]

    async def history(self, game_id: int) -> list[HistoryEntry]:
        """The game's live stat history, oldest first (`engine.history`), built in the database thread: a long
        game's thousands of rows would otherwise hold the event loop."""

        def work(con: sqlite3.Connection) -> list[HistoryEntry]:
            rows = con.execute("SELECT turn, at, side, stat, value, mark FROM history"
                               " WHERE game_id = ? AND undone = 0 ORDER BY id", (game_id,))
            return [HistoryEntry(r[0], datetime.fromisoformat(r[1]), r[2], r[3],
                                 None if r[4] is None else orjson.loads(r[4]), r[5]) for r in rows]

        return await self._read(work)

    async def digest_mark(self, game_id: int) -> tuple[datetime | None, datetime]:
        """When the game's GM last made a digest (None: never), and when the game was created."""
        [row] = await self._fetchall("SELECT last_digest_at, created_at FROM games WHERE id = ?", (game_id,))
        mark = datetime.fromisoformat(row["last_digest_at"]) if row["last_digest_at"] else None
        return mark, datetime.fromisoformat(row["created_at"])

    async def set_digest_mark(self, game_id: int, moment: datetime) -> None:
        await self._transaction(lambda con: con.execute("UPDATE games SET last_digest_at = ? WHERE id = ?",
                                                        (_iso(moment), game_id)))

    # --- reminders by direct message (/remind me) ------------------------------------------------

    async def dm_reminders(self, game_id: int, player: str | None = None) -> list[DmReminder]:
        """The players of a game who want their reminders by DM (or the one `player`), in the order they opted in."""
        query, params = "SELECT * FROM dm_reminders WHERE game_id = ?", [game_id]
        if player is not None:
            query += " AND player = ?"
            params.append(player)
        rows = await self._fetchall(query + (" ORDER BY seq" if self.dialect == "postgresql" else " ORDER BY rowid"),
                                    params)
        return [DmReminder(int(r["game_id"]), r["player"], timedelta(minutes=int(r["before_minutes"])),
                           bool(r["failed"]), tuple(orjson.loads(r["sent"]))) for r in rows]

    async def set_dm_reminder(self, game_id: int, player: str, before: timedelta, sent: tuple[str, ...] = ()) -> None:
        """Turn a player's reminders by DM on (again: a past failure is forgotten), `before` a deadline; `sent`:
        the reminders standing now that they are not to be sent (they were announced already)."""
        # (SQLite's REPLACE gives the row a new rowid: a player who opts in again comes last; so does `seq`)
        query = ("INSERT INTO dm_reminders (game_id, player, before_minutes, failed, sent) VALUES (?, ?, ?, 0, ?)"
                 " ON CONFLICT (game_id, player) DO UPDATE SET before_minutes = excluded.before_minutes, failed = 0,"
                 " sent = excluded.sent, seq = nextval(pg_get_serial_sequence('dm_reminders', 'seq'))"
                 if self.dialect == "postgresql" else
                 "INSERT OR REPLACE INTO dm_reminders (game_id, player, before_minutes, failed, sent)"
                 " VALUES (?, ?, ?, 0, ?)")
        await self._transaction(lambda con: con.execute(
            query, (game_id, player, round(before.total_seconds() / 60), _json(list(sent)))))

    async def clear_dm_reminder(self, game_id: int, player: str) -> bool:
        """Turn a player's reminders by DM off; whether they were on."""
        cursor = await self._transaction(lambda con: con.execute(
            "DELETE FROM dm_reminders WHERE game_id = ? AND player = ?", (game_id, player)))
        return bool(cursor.rowcount)

    async def note_dm_reminders(self, game_id: int, noted: list[DmReminder]) -> None:
        """Record what the clock did with players' reminders by DM (the keys sent, a DM refused): one transaction.
        A player who turned them off meanwhile stays off."""
        await self._transaction(lambda con: con.executemany(
            "UPDATE dm_reminders SET failed = ?, sent = ? WHERE game_id = ? AND player = ?",
            [(int(r.failed), _json(list(r.sent)), game_id, r.player) for r in noted]))

    async def add_free_roll(self, game_id: int, actor: str, roll: FreeRoll, turn: int, now: datetime) -> None:
        """Log a free roll (/roll) in a game's ledger: a rolls row of no action, marked `free` (see migration
        009). It changes no state and is no action: the undo, the replay and the export never see it."""

        def work(con: sqlite3.Connection) -> None:
            con.execute(
                "INSERT INTO rolls (game_id, action_id, turn, nation, purpose, die, modifiers, total, target,"
                " comparison, success, forced, at, battle, unit, faces, sides, free)"
                " VALUES (?, NULL, ?, ?, ?, ?, '{}', ?, NULL, NULL, NULL, 0, ?, NULL, NULL, NULL, 0, ?)",
                (game_id, turn, actor, f"free roll {roll.expression}", roll.total, roll.total, _iso(now),
                 roll.breakdown))

        await self._transaction(work)

    async def note_report_message(self, action_ids: Sequence[int], channel_id: int | None, message_id: int) -> None:
        """Record the Discord message that announced these logged actions (migration 013); an action's first
        message stays."""
        if not action_ids:
            return
        await self._transaction(lambda con: con.executemany(
            "INSERT INTO report_messages (action_id, channel_id, message_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(action_id, channel_id, message_id) for action_id in action_ids]))

    # --- export and import ---------------------------------------------------------------------

    async def export(self, game_id: int) -> dict[str, Any]:
        """One game as the export format's JSON-ready dict."""
        state = await self.load(game_id)
        rules = ruleset_of(state)
        data = rules.state_to_dict(state)
        rolls = []
        for roll in await self.rolls(game_id, include_free=False):
            item = to_jsonable(roll)
            item.pop("free", None)
            if roll.at == datetime.min:
                item["at"] = None
            rolls.append(rules.roll_to_dict(item) if rules.roll_to_dict else item)
        data["rolls"] = rolls
        data["history"] = [entry_to_dict(e) for e in await self.history(game_id)]
        return data

    async def import_game(self, channel: str, guild_id: int | None, state: Any, rolls: list[dict[str, Any]],
                          actor: str, command: str, now: datetime, history: Sequence[HistoryEntry] = ()) -> int:
        """A new game from an export's state, rolls and stat history: one GameImported event, the rolls and the
        history as they were, then whatever of the state the history does not show yet (at the import)."""
        snapshot = ruleset_of(state).state_to_dict(state)

        def work(con: sqlite3.Connection) -> int:
            game_id = self._insert_game(con, channel, guild_id, state.gm, now)
            action_id = self._log(con, game_id, actor, command, now, [GameImported(snapshot)])
            for roll in rolls:
                self._insert_roll(con, game_id, None, roll)
            insert_history(con, game_id, None, history)
            record_history(con, game_id, action_id, state, (), last_point(history), now)
            self._write_snapshot(con, game_id, state)
            return game_id

        return await self._transaction(work)


def _page_version(row: Any) -> str:
    """A page's version from its row's (id, last action, last roll, ended)."""
    return f"{row[1]}.{row[2]}.{int(row[3])}"


def record_history(con: sqlite3.Connection, game_id: int, action_id: int | None, state: Any,
                   events: Sequence[Event], before: Point | None, at: datetime) -> Point | None:
    """One action's stat history: each value of `state` that differs from `before` (all of them without one)
    and the marks of its `events`, at the state's turn. Returns the state's point (None: its rule set keeps no
    history)."""
    rules = ruleset_of(state)
    if rules.history_point is None:
        return None
    after = rules.history_point(state)
    marks = [mark for event in events for mark in (rules.history_marks(event) if rules.history_marks else [])]
    insert_history(con, game_id, action_id, entries_of(before, after, marks, getattr(state, "turn", 0), at))
    return after


def insert_history(con: sqlite3.Connection, game_id: int, action_id: int | None,
                   entries: Sequence[HistoryEntry]) -> None:
    """Rows of the stat history (migration 012): values as JSON (a number or a word), a mark without one."""
    con.executemany(
        "INSERT INTO history (game_id, action_id, turn, at, side, stat, value, mark) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(game_id, action_id, e.turn, _iso(e.at), e.side, e.stat, None if e.value is None else _json(e.value),
          e.mark) for e in entries])


def _run_group(con: sqlite3.Connection, works: list[Callable[[sqlite3.Connection], Any]],
               errors: tuple[type[BaseException], ...]) -> list[tuple[bool, Any]]:
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
            if _fault_cause(err) is not None:
                raise
            con.execute("ROLLBACK TO command")
            outcomes.append((False, err))
        except Exception as err:
            con.execute("ROLLBACK TO command")
            outcomes.append((False, err))
        con.execute("RELEASE command")
    return outcomes


def _counting_changes(con: sqlite3.Connection, grown: bool, function: Callable[..., T],
                      *args: Any) -> tuple[T, bool]:
    """`function(con, *args)` and whether it inserted, updated or deleted a row (with `grown`: and made the
    database bigger). Runs in the database thread."""
    pages = con.execute("PRAGMA page_count").fetchone()[0] if grown else 0
    before = con.total_changes
    result = function(con, *args)
    changed = con.total_changes > before
    if changed and grown:
        changed = con.execute("PRAGMA page_count").fetchone()[0] > pages
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
        con.execute("COMMIT")
        return result
    except BaseException as err:
        if con.in_transaction:
            try:
                con.execute("ROLLBACK")
            except Exception as failed:  # e.g. "cannot rollback" after a disk I/O error: report the first error
                err.add_note(f"(the rollback failed too: {failed})")
        raise


def _configure(con: sqlite3.Connection, busy_timeout: float) -> None:
    """Every connection's settings (the busy timeout first, so that a locked database is waited for)."""
    con.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA foreign_keys = ON")


SQLITE_FULL = 13
# SQLite's primary result codes that mean the database, not the command, failed: what to tell the user.
_FAULTS = {
    5: "the database is locked by another program",  # SQLITE_BUSY
    6: "the database is locked by another program",  # SQLITE_LOCKED
    7: "out of memory",  # SQLITE_NOMEM
    8: "the database is read-only",  # SQLITE_READONLY
    10: "disk I/O error",  # SQLITE_IOERR
    11: "the database file is damaged",  # SQLITE_CORRUPT
    SQLITE_FULL: "the disk is full",
    14: "the database file cannot be opened",  # SQLITE_CANTOPEN
    15: "the database is locked by another program",  # SQLITE_PROTOCOL
    26: "the file is not a SQLite database",  # SQLITE_NOTADB
}


def _fault_cause(err: BaseException) -> str | None:
    """A short cause when `err` is a fault of the database (read-only, locked, full, I/O…), else None."""
    if not isinstance(err, sqlite3.Error):
        return postgres.fault_cause(err) if "psycopg" in type(err).__module__ else None
    code = getattr(err, "sqlite_errorcode", None)
    if not isinstance(err, sqlite3.Error) or code is None:
        return None
    return _FAULTS.get(code & 0xFF)


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


def _schema_version(con: sqlite3.Connection) -> int:
    """The database's schema version: SQLite's `user_version`; PostgreSQL's `referee_schema` table."""
    if not isinstance(con, postgres.Connection):
        return int(con.execute("PRAGMA user_version").fetchone()[0])
    con.execute("CREATE TABLE IF NOT EXISTS referee_schema (version INTEGER NOT NULL)")
    row = con.execute("SELECT MAX(version) FROM referee_schema").fetchone()
    return int(row[0] or 0)


def _apply_migration(con: sqlite3.Connection, number: int, path: Path) -> None:
    def work(con: sqlite3.Connection) -> None:
        if path.suffix == ".py":
            spec = importlib.util.spec_from_file_location(f"migration_{number:03d}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            module.migrate(con)
        else:
            for statement in _statements(path.read_text()):
                con.execute(statement)
        if isinstance(con, postgres.Connection):
            con.execute("DELETE FROM referee_schema")
            con.execute("INSERT INTO referee_schema (version) VALUES (?)", (number,))
        else:
            con.execute(f"PRAGMA user_version = {number}")

    _transaction(con, work)


def _statements(script: str) -> list[str]:
    """A migration script's statements (sqlite3 runs one at a time inside a transaction)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    if current.strip() and not all(part.strip().startswith("--") for part in current.strip().splitlines()):
        statements.append(current.strip())
    return statements


@dataclass(frozen=True)
class ReportMessage:
    """The Discord message that announced a logged action (migration 013): its channel (None: not known) and id."""

    channel_id: int | None
    message_id: int


@dataclass(frozen=True)
class LedgerFilter:
    """/log rolls' filters: one side's rolls (its name as stored), a purpose containing `purpose` (any case), a
    turn range, GM-entered dice only, and free rolls: "include", "only" or "exclude"."""

    who: str | None = None
    purpose: str | None = None
    turn_from: int | None = None
    turn_to: int | None = None
    gm_entered: bool = False
    free: str = "include"


def _ledger_where(game_id: int, where: LedgerFilter) -> tuple[str, list[Any]]:
    clause, params = ["game_id = ?", "undone = 0"], [game_id]
    if where.who is not None:
        clause.append("nation = ?")
        params.append(where.who)
    if where.purpose:
        clause.append("lower(purpose) LIKE ? ESCAPE '\\'")
        params.append("%" + re.sub(r"([%_\\])", r"\\\1", where.purpose.lower()) + "%")
    if where.turn_from is not None:
        clause.append("turn >= ?")
        params.append(where.turn_from)
    if where.turn_to is not None:
        clause.append("turn <= ?")
        params.append(where.turn_to)
    if where.gm_entered:
        clause.append("forced > 0")
    if where.free == "only":
        clause.append("free IS NOT NULL")
    elif where.free == "exclude":
        clause.append("free IS NULL")
    return " AND ".join(clause), params


def _roll_record(r: Any) -> RollRecord | FacesRecord:
    at = datetime.fromisoformat(r["at"]) if r["at"] else datetime.min
    if r["faces"] is not None:
        faces = json.loads(r["faces"])
        forced = [index < r["forced"] for index in range(len(faces))]  # entered dice come first
        return FacesRecord(player=r["nation"], purpose=r["purpose"], faces=faces, forced=forced, turn=r["turn"], at=at)
    return RollRecord(
        nation=r["nation"], purpose=r["purpose"], die=r["die"], modifiers=json.loads(r["modifiers"]),
        total=r["total"], target=r["target"], comparison=r["comparison"],
        success=None if r["success"] is None else bool(r["success"]), forced=bool(r["forced"]),
        turn=r["turn"], at=at, battle=r["battle"], unit=r["unit"],
        sides=0 if r["free"] is not None else r["sides"] or 10, free=r["free"],
    )


def migration_files(dialect: str = "sqlite") -> list[tuple[int, Path]]:
    """The numbered migrations (`NNN_name.sql` or `NNN_name.py`), in order. PostgreSQL's: its baseline
    (`postgresql/013_baseline.sql`, schema 13 at once), then the shared ones after it, each replaced by a file of
    the same number in `postgresql/` where there is one."""
    def numbered(folder: Path) -> dict[int, Path]:
        found = {}
        for path in [*folder.glob("*.sql"), *folder.glob("*.py")]:
            match = re.match(r"(\d+)_", path.name)
            if match:
                found[int(match.group(1))] = path
        return found

    shared = numbered(MIGRATIONS)
    if dialect == "postgresql":
        own = numbered(MIGRATIONS / "postgresql")
        baseline = min(own)
        shared = {n: path for n, path in shared.items() if n > baseline} | own
    return sorted(shared.items())
