"""The store's PostgreSQL backend: a connection that speaks to `data.store` as a sqlite3 connection does.

`data.store` runs every transaction as one plain function in its database thread, on a sqlite3-shaped
connection (`execute`, `executemany`, rows readable by index and by name). `Connection` gives it that shape
over psycopg 3, so both backends share every query and every transaction; what differs is said where it
differs (`data.store.dialect`, the baseline schema in `migrations/postgresql/`). Here: `?`
placeholders become `%s`, `BEGIN IMMEDIATE` becomes `BEGIN`, a lock wait is bounded (`lock_timeout`, as
SQLite's busy timeout bounds it), and a PostgreSQL error that means the database failed (not the command)
gets its one-line cause. psycopg is imported only when a `postgresql://` database is opened.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import select
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

T = TypeVar("T")
SCHEMES = ("postgresql://", "postgres://")
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def is_url(target: object) -> bool:
    """Whether a database target names a PostgreSQL database (else it is a SQLite path)."""
    return isinstance(target, str) and target.startswith(SCHEMES)


def split_schema(url: str) -> tuple[str, str | None]:
    """The URL without our own `schema=` parameter, and that schema (several referees, or tests, may share one
    database, each in a schema of its own). Other parameters go to libpq as they are."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((value for key, value in query if key == "schema"), None)
    if schema is not None and not _SCHEMA_NAME.fullmatch(schema):
        raise ValueError(f"schema must be a plain lower-case name, not {schema!r}")
    rest = urlencode([(key, value) for key, value in query if key != "schema"])
    return urlunsplit(parts._replace(query=rest)), schema


def redacted(url: str) -> str:
    """The URL as it may be shown: without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class Row(tuple[Any, ...]):
    """A row readable as sqlite3.Row is: by index and by column name."""

    names: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self.names)


_row_kinds: dict[tuple[bytes | None, ...], type[Row]] = {}


def _row_factory(cursor: Any) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    result = cursor.pgresult
    if result is None or not result.nfields:
        return tuple
    # one class a list of column names (made once: the store's queries are few and fixed)
    key = tuple(result.fname(index) for index in range(result.nfields))
    kind = _row_kinds.get(key)
    if kind is None:
        names = {(name or b"").decode(): index for index, name in enumerate(key)}
        kind = _row_kinds[key] = type("Row", (Row,), {"names": names, "__slots__": ()})
    return kind


# What a statement is to `Connection`: it opens or ends a transaction, is a write whose answer nobody waits for (no
# RETURNING), or makes a savepoint (after which a transaction's statements are sent one by one), or anything else.
BEGIN, COMMIT, ROLLBACK, WRITE, SAVEPOINT, OTHER = range(6)
_WRITES = {"INSERT", "UPDATE", "DELETE"}
_WRITTEN = {word.encode() for word in _WRITES}  # (the first word of a write's command status)
_translated: dict[str, tuple[str, int]] = {}


def _kind_of(sql: str) -> int:
    words = sql.split(None, 2)
    first = words[0].upper() if words else ""
    if first == "BEGIN":
        return BEGIN
    if first in ("COMMIT", "END"):
        return COMMIT
    if first == "ROLLBACK":
        return ROLLBACK if len(words) == 1 else OTHER  # (ROLLBACK TO a savepoint: one of a savepoint's)
    if first == "SAVEPOINT":
        return SAVEPOINT
    if first in _WRITES and "RETURNING" not in sql.upper() and ";" not in sql.rstrip().rstrip(";"):
        return WRITE
    return OTHER


def _translation(sql: str) -> tuple[str, int]:
    done = _translated.get(sql)
    if done is None:
        text = sql.replace("?", "%s")
        if text.startswith("BEGIN IMMEDIATE"):
            text = "BEGIN"
        done = _translated[sql] = (text, _kind_of(text))
    return done


def translate(sql: str) -> str:
    """A query written for sqlite3, for psycopg (cached: the store's queries are few and fixed)."""
    return _translation(sql)[0]


class Result:
    """A statement's outcome with the surface of sqlite3's cursor that the store reads: `fetchone`, `fetchall`,
    iteration, `rowcount`. Its rows are read at once (the connection's one psycopg cursor runs the next statement);
    a write still waiting for the transaction's next round trip (`Connection`) is sent when any of it is read."""

    __slots__ = ("_rows", "_at", "_count", "_waiting_on")

    def __init__(self, rows: list[Any], count: int, waiting_on: Connection | None = None) -> None:
        self._rows = rows
        self._at = 0
        self._count = count
        self._waiting_on = waiting_on

    def _sent(self) -> None:
        if self._waiting_on is not None:
            self._waiting_on._send_queue()

    @property
    def rowcount(self) -> int:
        self._sent()
        return self._count

    def fetchone(self) -> Any:
        self._sent()
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchall(self) -> list[Any]:
        self._sent()
        rows, self._at = self._rows[self._at:], len(self._rows)
        return rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class Connection:
    """A psycopg connection with the sqlite3 surface `data.store` uses (autocommit: the store says BEGIN).

    Round trips: a transaction's BEGIN and its writes that return nothing (no RETURNING) wait, and go to the server
    with its next statement that does return something, or with its COMMIT, in one pipeline: a command's
    transaction is three round trips (BEGIN and the game's row; the action's id; the rest and COMMIT), not one a
    statement. A write's error then comes from the statement it went with, in the same transaction, which fails
    whole as it would have. Once a transaction makes a savepoint (a group of commands, a batch of games, each
    rolled back alone on an error) its statements go one by one, so that each error is its own command's."""

    def __init__(self, url: str, lock_timeout: float) -> None:
        import psycopg
        from psycopg.pq import ExecStatus, TransactionStatus

        dsn, schema = split_schema(url)
        self.url = url
        self.schema = schema
        self.total_changes = 0  # rows inserted, updated or deleted (the store's sign that a write got through)
        self.row_factory = None  # (sqlite3's attribute: rows here are always `Row`s)
        self._idle = TransactionStatus.IDLE
        self._tuples = ExecStatus.TUPLES_OK
        self._pg = psycopg.connect(dsn, autocommit=True, application_name="referee", connect_timeout=10)
        try:
            self._pg.row_factory = _row_factory
            self._cursor = self._pg.cursor()  # every statement's, one after another (its rows are read at once)
            self._spare: list[Any] = []  # cursors for the writes of a pipeline, used again
            self._begun = False  # BEGIN said and not sent yet
            self._waits = False  # in a transaction whose writes wait for its next round trip (until a savepoint)
            # the writes waiting: (query, its parameters or rows, executemany, their Result)
            self._queue: list[tuple[str, Any, bool, Result]] = []
            self._poll: select.poll | None = None  # (made on first use: `_heard`)
            self._pg.execute(f"SET lock_timeout = {int(lock_timeout * 1000)}")
            if schema is not None:
                try:
                    self._pg.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
                except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateSchema):
                    pass  # another process made it at the same moment (IF NOT EXISTS does not see that one)
                self._pg.execute(f'SET search_path TO "{schema}"')
        except BaseException:
            self._pg.close()
            raise

    def execute(self, sql: str, params: Sequence[Any] | None = ()) -> Any:
        text, kind = _translation(sql)
        if kind == WRITE and self._waits:
            return self._wait(text, params or None, False)
        if kind == BEGIN and not self._begun and self._pg.info.transaction_status == self._idle:
            self._begun = self._waits = True
            return Result([], -1)
        if kind == ROLLBACK or kind == COMMIT:
            self._waits = False
            if kind == ROLLBACK:
                self._drop_queue()
            if self._begun and not self._queue:  # nothing was sent: there is nothing to end
                self._begun = False
                return Result([], -1)
        elif kind == SAVEPOINT:
            self._waits = False
        return self._run(text, params or None, False)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any:
        rows = list(rows)
        if not rows:
            return Result([], 0)
        text, kind = _translation(sql)
        if kind == WRITE and self._waits:
            return self._wait(text, rows, True)
        return self._run(text, rows, True)

    @property
    def in_transaction(self) -> bool:
        return self._begun or self._pg.info.transaction_status != self._idle

    def close(self) -> None:
        self._pg.close()

    def _wait(self, text: str, params: Any, many: bool) -> Result:
        result = Result([], 0, self)
        self._queue.append((text, params, many, result))
        return result

    def _drop_queue(self) -> None:
        for *_, result in self._queue:
            result._waiting_on = None
        self._queue = []

    def _send_queue(self) -> None:
        """The waiting writes (and BEGIN) sent now: something of theirs is read."""
        if self._begun or self._queue:
            self._run(None, None, False)

    def _run(self, text: str | None, params: Any, many: bool) -> Result:
        """A statement, after BEGIN and the waiting writes if there are (all in one round trip); with no statement,
        those alone."""
        cursor = self._cursor
        if not self._begun and not self._queue:
            assert text is not None
            self._execute(cursor, text, params, many)
            return self._answer(cursor, many, len(params) if many else 0)
        begun, queue = self._begun, self._queue
        self._begun, self._queue = False, []
        if self._heard():  # (the server's last word, a FATAL say, is lost in a pipeline: it is read alone)
            self._one_by_one(begun, queue)
            if text is None:
                return Result([], -1)
            self._execute(cursor, text, params, many)
            return self._answer(cursor, many, len(params) if many else 0)
        cursors = [self._spare.pop() if self._spare else self._pg.cursor() for _ in queue]
        try:
            with self._pg.pipeline():
                if begun:
                    cursor.execute("BEGIN")
                for queued, (queued_text, queued_params, queued_many, _) in zip(cursors, queue, strict=True):
                    self._execute(queued, queued_text, queued_params, queued_many)
                if text is not None:
                    self._execute(cursor, text, params, many)
        except BaseException:
            for *_, result in queue:
                result._waiting_on = None
            raise
        finally:
            self._spare.extend(cursors)
        for queued, (_, queued_params, queued_many, result) in zip(cursors, queue, strict=True):
            result._waiting_on = None
            result._count = max(queued.rowcount, 0)
            if queued_many:
                result._count = result._count or len(queued_params)
            self.total_changes += result._count
        if text is None:
            return Result([], -1)
        return self._answer(cursor, many, len(params) if many else 0)

    def _heard(self) -> bool:
        """Whether the server has said something unasked (an error ending the session, a notice) or closed."""
        if self._poll is None:
            self._poll = select.poll()
            self._poll.register(self._pg.pgconn.socket, select.POLLIN)
        return bool(self._poll.poll(0))

    def _one_by_one(self, begun: bool, queue: list[tuple[str, Any, bool, Result]]) -> None:
        """BEGIN and the waiting writes, each in a round trip of its own."""
        try:
            if begun:
                self._cursor.execute("BEGIN")
            for text, params, many, result in queue:
                result._waiting_on = None
                self._execute(self._cursor, text, params, many)
                result._count = self._answer(self._cursor, many, len(params) if many else 0)._count
        finally:
            for *_, result in queue:
                result._waiting_on = None

    @staticmethod
    def _execute(cursor: Any, text: str, params: Any, many: bool) -> None:
        if many:
            cursor.executemany(text, params)
        else:
            cursor.execute(text, params)

    def _answer(self, cursor: Any, many: bool, count: int) -> Result:
        """What a statement run on `cursor` returned, read now; its rows changed counted in `total_changes`."""
        rowcount = cursor.rowcount
        if many:
            self.total_changes += max(rowcount, 0) or count
            return Result([], rowcount)
        result = cursor.pgresult
        rows = cursor.fetchall() if result is not None and result.status == self._tuples else []
        if rowcount > 0 and result is not None and (result.command_status or b"").split(b" ", 1)[0] in _WRITTEN:
            self.total_changes += rowcount
        return Result(rows, rowcount)



class Worker:
    """The database thread of a PostgreSQL store, shaped as aiosqlite's connection is to `data.store`:
    `_execute(function)` runs `function()` in the one thread, `_conn` is the connection it uses."""

    def __init__(self, url: str, lock_timeout: float) -> None:
        self.url = url
        self.lock_timeout = lock_timeout
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="referee-postgres")
        self._connection: Connection | None = None

    async def open(self) -> Worker:
        self._connection = await self._execute(lambda: Connection(self.url, self.lock_timeout))
        return self

    @property
    def _conn(self) -> Connection:
        assert self._connection is not None
        return self._connection

    async def _execute(self, function: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, function)

    def reconnect(self) -> None:
        """A fresh connection in place of the old one (runs in the database thread)."""
        old = self._connection
        self._connection = Connection(self.url, self.lock_timeout)
        if old is not None:
            try:
                old.close()
            except Exception:
                pass

    async def close(self) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await self._execute(connection.close)
        self._pool.shutdown(wait=False)


# SQLSTATE classes and codes that mean the database, not the command, failed: what to tell the user.
_FAULT_CLASSES = {
    "08": "the database server cannot be reached",
    "53": "the database server is out of disk space or memory",
    "57": "the database server is shutting down or restarting",
    "58": "the database server had an I/O error",
    "XX": "the database server had an internal error",
}
_FAULT_CODES = {
    "25006": "the database is read-only",
    "42501": "the database user may not write there",
    "55P03": "the game is locked by another referee process",  # lock_timeout
    "40001": "the database was busy",  # serialization failure
    "40P01": "the database was busy",  # deadlock detected
    "3D000": "the database does not exist",
    "28000": "the database refused the user",
    "28P01": "the database refused the password",
}


def fault_cause(err: BaseException) -> str | None:
    """A short cause when a psycopg error is a fault of the database server or connection, else None."""
    import psycopg

    if not isinstance(err, psycopg.Error):
        return None
    code = getattr(err, "sqlstate", None)
    if code is None:  # no answer from the server at all: the connection failed or is closed
        return "the database server cannot be reached" if isinstance(
            err, psycopg.OperationalError | psycopg.InterfaceError) else None
    return _FAULT_CODES.get(code) or _FAULT_CLASSES.get(code[:2])


def error_types() -> tuple[type[BaseException], ...]:
    import psycopg

    return (psycopg.Error,)
