"""The store's dialects: what SQLite and PostgreSQL do differently, each said once, in one object a store holds
(`SQLITE` or `POSTGRESQL`, a store's `_dialect`). The rest of the store speaks one SQL and asks its dialect where
the two differ: locking a row read in a transaction, taking rows no other process holds, handing out new ids,
an upsert, the order rows were inserted in, the schema version, which errors are the database's and which of
them mean the database (not the command) failed, a fresh connection.

(The rest is the connection's: `data.postgres.Connection` turns SQLite's `?` placeholders into `%s` and
`BEGIN IMMEDIATE` into `BEGIN`, so both backends run the same statements.)
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, ClassVar

import aiosqlite

from data import postgres

MIGRATION_LOCK = 0x7265_6665_7265_6531  # PostgreSQL's advisory lock key of the migrations ("referee1")
UNIQUE_VIOLATION = "23505"  # PostgreSQL's SQLSTATE for a second live game in a channel (the unique index)
SQLITE_BUSY = 5
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


@dataclass(frozen=True)
class Lease:
    """A lease on announcements taken or renewed now, in the forms each database's clock wants: SQLite's ends by the
    process's clock (`at`, now, and `until`, its end: ISO-8601 UTC), PostgreSQL's by the server's (`seconds`)."""

    at: str
    until: str
    seconds: float


class Dialect:
    """What one database does its own way. `SQLite` and `PostgreSQL` say it; the store asks `store._dialect`."""

    name: ClassVar[str]  # "sqlite" or "postgresql": the store's `dialect`, and `migration_files`' argument
    # What follows a SELECT in a transaction so that the rows it reads stay locked to other processes until the
    # transaction ends (a game's commands are serialised across processes)
    for_update: ClassVar[str]
    reconnects_to_read: ClassVar[bool]  # a fault's lost connection is renewed before a read too, not only a write
    backs_up_before_migrating: ClassVar[bool]  # a migration that changes stored data takes a backup first
    # the whole run of migrations holds a lock of the database's (`lock_migrations`); else each migration's own
    # transaction is enough (SQLite's BEGIN IMMEDIATE holds the file)
    locks_migrations: ClassVar[bool]
    insertion_order: ClassVar[str]  # the column that orders a table's rows as they were inserted (`dm_reminders`)
    full_disk: ClassVar[str | None]  # the fault of a full disk: it has passed once a write makes the database grow
    # Turn a player's reminders by DM on (`set_dm_reminder`): a new row, or the player's row renewed and last in order
    set_dm_reminder: ClassVar[str]

    def errors(self) -> tuple[type[BaseException], ...]:
        """The errors that come from the database (a fault, or a statement the database refused)."""
        raise NotImplementedError

    def shown(self, target: str) -> str:
        """The database's path or URL as logs may show it."""
        raise NotImplementedError

    def fault_cause(self, err: BaseException) -> str | None:
        """A short cause when `err` is a fault of the database (read-only, locked, full, I/O…), else None."""
        raise NotImplementedError

    def is_unique_violation(self, err: BaseException) -> bool:
        """Whether a database error is a second live game in a channel (the unique index refused it)."""
        raise NotImplementedError

    def size(self, con: Any) -> int:
        """How big the database is (in pages): a write during a full disk fault that makes it grow ends the fault."""
        raise NotImplementedError

    def reconnect(self, db: Any, old: Any, path: str, busy_timeout: float) -> None:
        """A fresh connection in place of the old one (runs in the database thread)."""
        raise NotImplementedError

    def lock_live_games(self, con: Any, channels: list[str]) -> None:
        """Lock the live games of these channels in id order, as every group commit does, so that two processes'
        groups never wait for each other in a circle (a deadlock would refuse both)."""

    def not_held(self, con: Any, game_ids: list[int]) -> list[int]:
        """Of these games, those no other process holds now (each then held until the transaction ends)."""
        return game_ids

    def new_action_ids(self, con: Any, count: int) -> list[int]:
        """`count` ids for actions that are inserted with their ids given (the quick catch-up's batch)."""
        raise NotImplementedError

    def take_reminders_due(self, con: Any, at: str) -> list[Any]:
        """(game id, server) rows of the live games whose front-end reminder is due by `at`, each taken off the
        index (`remind_at` cleared): by one process only."""
        raise NotImplementedError

    def take_announcements(self, con: Any, owner: str, lease: Lease, limit: int) -> list[Any]:
        """(game id, action id) rows of at most `limit` announcements (oldest first) whose lease has run out, or that
        are nobody's (owner ''), each claimed for `owner` with a new lease: by one process only."""
        raise NotImplementedError

    def hold_announcements(self, con: Any, owner: str, action_ids: list[int], lease: Lease) -> list[int]:
        """Of these announcements, claim or renew for `owner` those that are its own, are nobody's, are fresh from a
        commit (no owner yet) or whose lease has run out; returns the ids it holds now (a lost one is not among
        them, nor one already sent and deleted)."""
        raise NotImplementedError

    def schema_version(self, con: Any) -> int:
        """The database's schema version."""
        raise NotImplementedError

    def lock_migrations(self, con: Any, wait: float) -> None:
        """Hold the lock that serialises migrations across processes (waiting at most `wait` seconds for another
        process's migrations), when `locks_migrations`."""

    def unlock_migrations(self, con: Any) -> None:
        """Let go of `lock_migrations`' lock."""

    def set_schema_version(self, con: Any, number: int) -> None:
        """Record the schema version a migration brought (inside its transaction)."""
        raise NotImplementedError


class SQLite(Dialect):
    """SQLite through aiosqlite: one file, one writer at a time (`BEGIN IMMEDIATE` holds the whole database, so
    nothing else needs locking), the schema version in `PRAGMA user_version`."""

    name = "sqlite"
    for_update = ""  # BEGIN IMMEDIATE already holds the whole database
    reconnects_to_read = False
    backs_up_before_migrating = True
    locks_migrations = False
    insertion_order = "rowid"
    full_disk = _FAULTS[SQLITE_FULL]
    set_dm_reminder = ("INSERT OR REPLACE INTO dm_reminders (game_id, player, before_minutes, failed, sent)"
                       " VALUES (?, ?, ?, 0, ?)")

    def errors(self) -> tuple[type[BaseException], ...]:
        return (sqlite3.Error,)

    def shown(self, target: str) -> str:
        return target

    def fault_cause(self, err: BaseException) -> str | None:
        return _sqlite_fault(err)

    def is_unique_violation(self, err: BaseException) -> bool:
        return isinstance(err, sqlite3.IntegrityError)

    def size(self, con: sqlite3.Connection) -> int:
        return con.execute("PRAGMA page_count").fetchone()[0]

    def configure(self, con: sqlite3.Connection, busy_timeout: float) -> None:
        """Every connection's settings (`_configure`)."""
        _configure(con, busy_timeout)

    def reconnect(self, db: aiosqlite.Connection, old: sqlite3.Connection, path: str, busy_timeout: float) -> None:
        new = sqlite3.connect(path, isolation_level=None)
        try:
            self.configure(new, busy_timeout)
        except BaseException:
            new.close()
            raise
        new.row_factory = old.row_factory
        db._connection = new
        with contextlib.suppress(sqlite3.Error):
            old.close()

    def new_action_ids(self, con: sqlite3.Connection, count: int) -> list[int]:
        # one writer at a time (BEGIN IMMEDIATE)
        first = int(con.execute("SELECT COALESCE(MAX(id), 0) FROM actions").fetchone()[0]) + 1
        return list(range(first, first + count))

    def take_reminders_due(self, con: sqlite3.Connection, at: str) -> list[Any]:
        rows = con.execute("SELECT id, guild_id FROM games WHERE ended = 0 AND remind_at <= ?", (at,)).fetchall()
        con.executemany("UPDATE games SET remind_at = NULL WHERE id = ?", [(r[0],) for r in rows])
        return rows

    # The lease's end is `due_at`, by the process's clock (`Lease.at`, `Lease.until`): one process owns the file.
    def take_announcements(self, con: sqlite3.Connection, owner: str, lease: Lease, limit: int) -> list[Any]:
        rows = con.execute("SELECT game_id, action_id FROM announcements WHERE due_at <= ? OR owner = ''"
                           " ORDER BY action_id LIMIT ?", (lease.at, limit)).fetchall()
        con.executemany("UPDATE announcements SET owner = ?, due_at = ? WHERE action_id = ?",
                        [(owner, lease.until, r[1]) for r in rows])
        return rows

    def hold_announcements(self, con: sqlite3.Connection, owner: str, action_ids: list[int],
                           lease: Lease) -> list[int]:
        query = ("UPDATE announcements SET owner = ?, due_at = ? WHERE action_id = ?"
                 " AND (owner IS NULL OR owner = '' OR owner = ? OR due_at <= ?)")
        return [action_id for action_id in action_ids
                if con.execute(query, (owner, lease.until, action_id, owner, lease.at)).rowcount]

    def schema_version(self, con: sqlite3.Connection) -> int:
        return int(con.execute("PRAGMA user_version").fetchone()[0])

    def set_schema_version(self, con: sqlite3.Connection, number: int) -> None:
        con.execute(f"PRAGMA user_version = {number}")


class PostgreSQL(Dialect):
    """PostgreSQL through psycopg 3 (`data.postgres`): several processes may share the database, so a command
    locks its game's row (`FOR UPDATE`) and the clock's sweeps take only the rows no other process holds
    (`FOR UPDATE SKIP LOCKED`); ids come from sequences; the schema version is the `referee_schema` table."""

    name = "postgresql"
    for_update = " FOR UPDATE"
    reconnects_to_read = True  # a lost connection is no use for reading either
    backs_up_before_migrating = False
    locks_migrations = True
    insertion_order = "seq"
    full_disk = None
    set_dm_reminder = ("INSERT INTO dm_reminders (game_id, player, before_minutes, failed, sent) VALUES (?, ?, ?, 0, ?)"
                       " ON CONFLICT (game_id, player) DO UPDATE SET before_minutes = excluded.before_minutes,"
                       " failed = 0, sent = excluded.sent,"
                       " seq = nextval(pg_get_serial_sequence('dm_reminders', 'seq'))")

    def errors(self) -> tuple[type[BaseException], ...]:
        return (sqlite3.Error, *postgres.error_types())

    def shown(self, target: str) -> str:
        return postgres.redacted(target)

    def fault_cause(self, err: BaseException) -> str | None:
        if not isinstance(err, sqlite3.Error):
            return postgres.fault_cause(err) if "psycopg" in type(err).__module__ else None
        return _sqlite_fault(err)

    def is_unique_violation(self, err: BaseException) -> bool:
        return getattr(err, "sqlstate", None) == UNIQUE_VIOLATION

    def size(self, con: Any) -> int:
        raise NotImplementedError("PostgreSQL's full disk is the server's: no write of ours is its sign")

    def reconnect(self, db: postgres.Worker, old: Any, path: str, busy_timeout: float) -> None:
        db.reconnect()

    def lock_live_games(self, con: Any, channels: list[str]) -> None:
        con.execute("SELECT id FROM games WHERE channel = ANY(?) AND ended = 0 ORDER BY id FOR UPDATE",
                    (channels,)).fetchall()

    def not_held(self, con: Any, game_ids: list[int]) -> list[int]:
        if not game_ids:
            return game_ids
        held = {int(r[0]) for r in con.execute(
            "SELECT id FROM games WHERE id = ANY(?) ORDER BY id FOR UPDATE SKIP LOCKED", (game_ids,))}
        return [game_id for game_id in game_ids if game_id in held]

    def new_action_ids(self, con: Any, count: int) -> list[int]:
        # other processes insert actions too: the sequence hands out the ids
        return [int(r[0]) for r in con.execute(
            "SELECT nextval(pg_get_serial_sequence('actions', 'id')) FROM generate_series(1, ?)", (count,))]

    def take_reminders_due(self, con: Any, at: str) -> list[Any]:
        # each reminder taken by one process only
        return con.execute(
            "UPDATE games SET remind_at = NULL WHERE id IN (SELECT id FROM games WHERE ended = 0"
            " AND remind_at <= ? ORDER BY id FOR UPDATE SKIP LOCKED) RETURNING id, guild_id",
            (at,)).fetchall()

    # The lease's end is `lease_until`, by the server's clock (now()): the processes' clocks may disagree. A row
    # another transaction holds is skipped (SKIP LOCKED): that one is taking it, renewing it or deleting it (sent).
    def take_announcements(self, con: Any, owner: str, lease: Lease, limit: int) -> list[Any]:
        return con.execute(
            "UPDATE announcements SET owner = ?, lease_until = now() + ? * interval '1 second'"
            " WHERE action_id IN (SELECT action_id FROM announcements WHERE lease_until <= now() OR owner = ''"
            " ORDER BY action_id LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING game_id, action_id",
            (owner, lease.seconds, limit)).fetchall()

    def hold_announcements(self, con: Any, owner: str, action_ids: list[int], lease: Lease) -> list[int]:
        return [int(r[0]) for r in con.execute(
            "UPDATE announcements SET owner = ?, lease_until = now() + ? * interval '1 second'"
            " WHERE action_id IN (SELECT action_id FROM announcements WHERE action_id = ANY(?)"
            " AND (owner IS NULL OR owner = '' OR owner = ? OR lease_until <= now())"
            " ORDER BY action_id FOR UPDATE SKIP LOCKED) RETURNING action_id",
            (owner, lease.seconds, action_ids, owner)).fetchall()]

    def schema_version(self, con: Any) -> int:
        con.execute("CREATE TABLE IF NOT EXISTS referee_schema (version INTEGER NOT NULL)")
        row = con.execute("SELECT MAX(version) FROM referee_schema").fetchone()
        return int(row[0] or 0)

    def lock_migrations(self, con: Any, wait: float) -> None:
        # a session-level advisory lock (one key for every schema of the database), waited for longer than a
        # command waits for a row: another process's migrations may take a while
        before = con.execute("SHOW lock_timeout").fetchone()[0]
        con.execute("SELECT set_config('lock_timeout', ?, false)", (f"{int(wait * 1000)}ms",))
        try:
            con.execute("SELECT pg_advisory_lock(?)", (MIGRATION_LOCK,)).fetchone()
        finally:
            con.execute("SELECT set_config('lock_timeout', ?, false)", (before,))

    def unlock_migrations(self, con: Any) -> None:
        if con.in_transaction:  # (a failed migration's transaction is rolled back already; this is a safeguard)
            con.execute("ROLLBACK")
        con.execute("SELECT pg_advisory_unlock(?)", (MIGRATION_LOCK,)).fetchone()

    def set_schema_version(self, con: Any, number: int) -> None:
        con.execute("DELETE FROM referee_schema")
        con.execute("INSERT INTO referee_schema (version) VALUES (?)", (number,))


SQLITE = SQLite()
POSTGRESQL = PostgreSQL()


def _configure(con: sqlite3.Connection, busy_timeout: float) -> None:
    """Every connection's settings (the busy timeout first, so that a locked database is waited for)."""
    con.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
    _into_wal(con, busy_timeout)
    con.execute("PRAGMA foreign_keys = ON")


def _into_wal(con: sqlite3.Connection, busy_timeout: float) -> None:
    """WAL mode. Turning a new file into WAL while another connection opens it too can be refused at once
    ("database is locked": SQLite's busy handler is not asked then), so it is tried again until the busy timeout."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            con.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as err:
            if getattr(err, "sqlite_errorcode", 0) & 0xFF != SQLITE_BUSY or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _sqlite_fault(err: BaseException) -> str | None:
    """What a SQLite error's result code says of the database: a short cause when it is a fault, else None."""
    code = getattr(err, "sqlite_errorcode", None)
    if not isinstance(err, sqlite3.Error) or code is None:
        return None
    return _FAULTS.get(code & 0xFF)
