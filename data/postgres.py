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
from collections.abc import Callable, Iterable, Sequence
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


def _row_factory(cursor: Any) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    if cursor.description is None:
        return tuple
    names = {column.name: index for index, column in enumerate(cursor.description)}
    kind = type("Row", (Row,), {"names": names, "__slots__": ()})
    return kind


_translated: dict[str, str] = {}


def translate(sql: str) -> str:
    """A query written for sqlite3, for psycopg (cached: the store's queries are few and fixed)."""
    done = _translated.get(sql)
    if done is None:
        done = sql.replace("?", "%s")
        if done.startswith("BEGIN IMMEDIATE"):
            done = "BEGIN"
        _translated[sql] = done
    return done


class Connection:
    """A psycopg connection with the sqlite3 surface `data.store` uses (autocommit: the store says BEGIN)."""

    def __init__(self, url: str, lock_timeout: float) -> None:
        import psycopg

        dsn, schema = split_schema(url)
        self.url = url
        self.schema = schema
        self.total_changes = 0  # rows inserted, updated or deleted (the store's sign that a write got through)
        self.row_factory = None  # (sqlite3's attribute: rows here are always `Row`s)
        self._pg = psycopg.connect(dsn, autocommit=True, application_name="referee", connect_timeout=10)
        try:
            self._pg.row_factory = _row_factory
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
        cursor = self._pg.execute(translate(sql), params or None)
        if cursor.rowcount > 0 and cursor.statusmessage and cursor.statusmessage.split()[0] in _WRITES:
            self.total_changes += cursor.rowcount
        return cursor

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any:
        rows = list(rows)
        with self._pg.cursor() as cursor:
            if rows:
                cursor.executemany(translate(sql), rows)
                self.total_changes += max(cursor.rowcount, 0) or len(rows)
            return cursor

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self._pg.info.transaction_status != TransactionStatus.IDLE

    def close(self) -> None:
        self._pg.close()


_WRITES = {"INSERT", "UPDATE", "DELETE"}


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
