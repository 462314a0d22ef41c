"""The store's schema: the numbered migrations (`data/migrations/`, PostgreSQL's own in `postgresql/`), each
applied once in a transaction of its own, and the backup of a SQLite database taken before a migration that
changes stored data.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import re
import sqlite3
from pathlib import Path

from data.store.connection import StoreUnavailable, _transaction
from data.store.dialect import Dialect
from data.store.part import Part

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
MIGRATION_WAIT = 300.0  # seconds a process waits for another's migrations (PostgreSQL's lock) before it gives up
log = logging.getLogger("referee.store")


class Schema(Part):
    """The store's part that migrates its database."""

    async def migrate(self) -> int:
        """Apply every numbered migration newer than the database; returns the schema version.

        A migration is an `NNN_name.sql` script or an `NNN_name.py` module whose `migrate(connection)`
        runs; each runs in a transaction of its own with the new version number, which reads the version again
        first: several processes opening one database at once apply each migration once. On SQLite that
        transaction (`BEGIN IMMEDIATE`) holds the file; on PostgreSQL the whole run holds the dialect's migration
        lock (an advisory lock), the version read again once it is held.
        """
        files = migration_files(self.dialect)
        if self._dialect.locks_migrations:
            return await self._write(_migrate_locked, self._dialect, files)
        version = await self._read(self._dialect.schema_version)
        if all(number <= version for number, _ in files):
            return version
        # Another process opening the file may be migrating it: its migrations are waited for (as PostgreSQL's
        # lock is), not refused after a command's busy timeout.
        await self._read(_wait_for_locks, MIGRATION_WAIT)
        try:
            for number, path in files:
                if number <= version:
                    continue
                if self._dialect.backs_up_before_migrating and version and path.suffix == ".py":
                    version = await self._read(self._dialect.schema_version)  # (another process may have migrated)
                    if number <= version:
                        continue
                    await self._backup_before(version, number, path)
                version = await self._write(_apply_migration, self._dialect, number, path)
        finally:
            await self._read(_wait_for_locks, self.busy_timeout)
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


def _wait_for_locks(con: sqlite3.Connection, seconds: float) -> None:
    """How long SQLite waits for another connection's lock before it refuses (runs in the database thread)."""
    con.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")


def _migrate_locked(con: sqlite3.Connection, dialect: Dialect, files: list[tuple[int, Path]]) -> int:
    """Every migration newer than the database, under the dialect's migration lock (PostgreSQL: held by this
    connection's session, released at the end whatever happened). Runs in the database thread."""
    dialect.lock_migrations(con, MIGRATION_WAIT)
    try:
        version = dialect.schema_version(con)  # (read once the lock is held: another process may have migrated)
        for number, path in files:
            if number > version:
                version = _apply_migration(con, dialect, number, path)
    except BaseException:
        with contextlib.suppress(Exception):  # (a lost connection has let go of it already: the first error counts)
            dialect.unlock_migrations(con)
        raise
    dialect.unlock_migrations(con)
    return version


def _apply_migration(con: sqlite3.Connection, dialect: Dialect, number: int, path: Path) -> int:
    """Migration `number` in a transaction of its own, unless the database (read again in that transaction) has it
    already; returns the schema version."""
    def work(con: sqlite3.Connection) -> int:
        version = dialect.schema_version(con)
        if version >= number:
            return version  # another process applied it since this one read the version
        if path.suffix == ".py":
            spec = importlib.util.spec_from_file_location(f"migration_{number:03d}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            module.migrate(con)
        else:
            for statement in _statements(path.read_text()):
                con.execute(statement)
        dialect.set_schema_version(con, number)
        return number

    return _transaction(con, work)


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
