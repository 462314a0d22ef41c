"""Backups of a SQLite database, running or not: SQLite's online backup API (`sqlite3.Connection.backup`).

The copy is one consistent moment of the database: the source is read inside one read transaction, which in
WAL mode (the store's mode) is a snapshot that the bot's writers never wait for — they go on committing into
the WAL while the pages are copied, in steps, and the backup does not start over when they do. The copy is
written to a temporary file in the destination's folder, checked (`PRAGMA integrity_check`), switched to
journal_mode=DELETE (one self-contained file, no `-wal`/`-shm` beside it) and only then renamed into place: a
failed backup leaves nothing under the destination's name.

`backup_before_migration` is what the store calls before it migrates a database that has games in it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger("referee.backup")
BUSY_TIMEOUT = 5.0  # seconds to wait for a lock (a writer's checkpoint, a hot journal) before giving up
PAGES = 1024  # pages copied a step (4 MiB at SQLite's default page size)

Progress = Callable[[int, int, int], object]  # (status, remaining pages, total pages), after each step


class BackupError(Exception):
    """A backup that could not be made; its message is one line, and nothing was written."""


@dataclass(frozen=True)
class BackupResult:
    """A written backup: where, how many games it holds, its schema version (`PRAGMA user_version`), its size."""

    path: Path
    games: int
    schema: int
    size: int


def backup_sqlite(source: str | os.PathLike[str], dest: str | os.PathLike[str], *, pages: int = PAGES,
                  progress: Progress | None = None, overwrite: bool = False) -> BackupResult:
    """A consistent copy of the SQLite database `source` (the bot may be writing it) at `dest`.

    Copies `pages` pages a step; `progress(status, remaining, total)` is called after each step. Refuses (a
    `BackupError` with one line, nothing written) a missing source, one that is not a referee database, an
    existing destination (unless `overwrite`), a destination in a folder that does not exist."""
    source, dest = Path(source), Path(dest)
    if pages < 1:
        raise ValueError("pages must be at least 1")
    _check_paths(source, dest, overwrite)
    src = _open_source(source)
    try:
        temporary = _temporary_beside(dest)
        try:
            games, schema = _copy(src, source, temporary, pages, progress)
            _fsync(temporary)
            _put_in_place(temporary, dest, overwrite)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
    finally:
        src.close()
    _fsync_folder(dest.parent)
    return BackupResult(dest, games, schema, dest.stat().st_size)


def backup_before_migration(path: str | os.PathLike[str], version: int, number: int) -> Path | None:
    """Before migration `number` runs on the database at `path` (now at schema `version`): a backup of it
    beside it, `<name>.before-<number:03d>.bak` (with a timestamp added when that file exists already: an older
    backup is never overwritten). Returns its path; None when there is nothing to keep (a fresh database, no
    games, or not a file such as `:memory:`).

    Safe to call while the store's own connection is open (outside or inside its transaction: the copy is the
    last committed state). Raises `BackupError` when the copy cannot be made — then do not migrate."""
    database = Path(path)
    if version <= 0 or not database.is_file():
        return None
    if not _has_games(database):
        return None
    dest = database.with_name(f"{database.name}.before-{number:03d}.bak")
    if dest.exists():
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        dest = database.with_name(f"{database.name}.before-{number:03d}.{stamp}.bak")
        extra = 1
        while dest.exists():
            extra += 1
            dest = database.with_name(f"{database.name}.before-{number:03d}.{stamp}-{extra}.bak")
    result = backup_sqlite(database, dest)
    log.info("backed up %s (%d games, schema %d) to %s before migration %03d", database, result.games,
             result.schema, dest, number)
    return dest


# --- the steps -----------------------------------------------------------------------------------


def _check_paths(source: Path, dest: Path, overwrite: bool) -> None:
    if not source.exists():
        raise BackupError(f"{source} does not exist")
    if source.is_dir():
        raise BackupError(f"{source} is a folder, not a database file")
    if dest.is_dir():
        raise BackupError(f"{dest} is a folder; give the backup's file name (e.g. {dest / source.name})")
    if dest.exists():
        if not overwrite:
            raise BackupError(f"{dest} already exists; not overwritten")
        if os.path.samefile(source, dest):
            raise BackupError(f"{dest} is the database itself")
    folder = dest.parent.resolve() if str(dest.parent) else Path.cwd()
    if not folder.is_dir():
        raise BackupError(f"cannot write {dest}: there is no folder {folder}")


def _open_source(source: Path) -> sqlite3.Connection:
    """The source, opened to read only: `mode=rw` never creates a file (a read-only file opens read-only), and
    `query_only` refuses any write. (Not `mode=ro`: a read-only connection cannot recover a WAL a crashed
    writer left, and leaves `-wal`/`-shm` files behind when it is the last to close.)"""
    try:
        con = sqlite3.connect(f"{source.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None,
                              check_same_thread=False)
    except sqlite3.Error as err:
        raise BackupError(f"cannot open {source}: {err}") from None
    try:
        con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
        con.execute("PRAGMA query_only = ON")
        con.execute("SELECT COUNT(*) FROM sqlite_master").fetchall()
    except sqlite3.Error as err:
        con.close()
        raise BackupError(_read_failure(source, err)) from None
    return con


def _copy(src: sqlite3.Connection, source: Path, temporary: Path, pages: int,
          progress: Progress | None) -> tuple[int, int]:
    """The backup into `temporary`, checked and in journal_mode=DELETE; its games and schema version."""
    try:
        # One read transaction over every step: in WAL mode a snapshot (the copy is one moment, and a writer's
        # commit between two steps does not restart the backup); the writers are not blocked by it.
        src.execute("BEGIN")
        if not src.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'games'").fetchone()[0]:
            raise BackupError(f"{source} is not a referee database (it has no games table)")
        if src.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            # a rollback journal: a read lock held over the whole copy would stop a writer's commit; step
            # without it (a commit then restarts the backup, as SQLite's backup API does)
            src.execute("COMMIT")
    except sqlite3.Error as err:
        raise BackupError(_read_failure(source, err)) from None
    try:
        dst = sqlite3.connect(temporary, isolation_level=None)
    except sqlite3.Error as err:
        raise BackupError(f"cannot write {temporary.parent}: {err}") from None
    try:
        try:
            src.backup(dst, pages=pages, progress=progress)
        except sqlite3.Error as err:
            raise BackupError(_copy_failure(source, temporary, err)) from None
        finally:
            if src.in_transaction:
                src.execute("COMMIT")
        try:
            # the copy carries the source's WAL flag: one self-contained file instead (see the module's doc)
            dst.execute("PRAGMA journal_mode = DELETE").fetchall()
            problems = [row[0] for row in dst.execute("PRAGMA integrity_check").fetchall()]
            if problems != ["ok"]:
                raise BackupError(f"the copy of {source} failed its integrity check: {problems[0]}")
            games = dst.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            schema = dst.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.Error as err:
            raise BackupError(_copy_failure(source, temporary, err)) from None
    finally:
        dst.close()
    return games, schema


def _put_in_place(temporary: Path, dest: Path, overwrite: bool) -> None:
    """The finished copy under its name, in one step. Without `overwrite`, a hard link, which fails rather than
    replace a file that appeared meanwhile (a rename would replace it); then the temporary name goes."""
    if overwrite:
        os.replace(temporary, dest)
        return
    try:
        os.link(temporary, dest)
    except FileExistsError:
        raise BackupError(f"{dest} already exists; not overwritten") from None
    except OSError:  # a file system without hard links: check, then rename
        if dest.exists():
            raise BackupError(f"{dest} already exists; not overwritten") from None
        os.replace(temporary, dest)
    else:
        temporary.unlink()


def _has_games(database: Path) -> bool:
    """Whether the database has a games table with a row in it (read only; a fault is a `BackupError`)."""
    src = _open_source(database)
    try:
        has_table = src.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'games'")
        if not has_table.fetchone()[0]:
            return False
        return bool(src.execute("SELECT EXISTS (SELECT 1 FROM games)").fetchone()[0])
    except sqlite3.Error as err:
        raise BackupError(_read_failure(database, err)) from None
    finally:
        src.close()


def _temporary_beside(dest: Path) -> Path:
    """A new empty file in the destination's folder (so that the final rename stays on one file system)."""
    try:
        handle, name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".partial", dir=dest.parent.resolve())
    except OSError as err:
        raise BackupError(f"cannot write in folder {dest.parent.resolve()}: {err.strerror or err}") from None
    os.close(handle)
    return Path(name)


def _fsync(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable (where the platform can open a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder if str(folder) else ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _code(err: sqlite3.Error) -> int:
    return (getattr(err, "sqlite_errorcode", 0) or 0) & 0xFF


def _read_failure(source: Path, err: sqlite3.Error) -> str:
    code = _code(err)
    if code in (11, 26):  # SQLITE_CORRUPT, SQLITE_NOTADB
        return f"{source} is not a SQLite database"
    if code in (5, 6):
        return f"{source} is locked by another program; try again"
    return f"cannot read {source}: {err}"


def _copy_failure(source: Path, temporary: Path, err: sqlite3.Error) -> str:
    code = _code(err)
    if code == 13:
        return f"cannot write the backup of {source}: the disk is full"
    if code in (11, 26):
        return f"cannot back up {source}: the database file is damaged"
    if code in (5, 6):
        return f"cannot back up {source}: it stayed locked by another program; try again"
    return f"cannot back up {source}: {err}"


# --- `python bot.py --backup PATH` ---------------------------------------------------------------

PG_DUMP = 'pg_dump --format=custom --file={dest} "$REFEREE_DB"'


def backup_report(database: str, dest: str) -> tuple[int, str]:
    """`bot.py --backup`: back up the configured database to `dest`. Returns the exit status and the one line
    to print — 0 and what was written; 1 and an `error:` line; 2 for a PostgreSQL database (pg_dump's job)."""
    if database.startswith(("postgresql://", "postgres://")):  # the URL itself is never printed (a password)
        return 2, ("error: the database is PostgreSQL; --backup copies a SQLite file. Back it up with pg_dump: "
                   + PG_DUMP.format(dest=shlex.quote(dest)))
    try:
        result = backup_sqlite(database, dest)
    except BackupError as err:
        return 1, f"error: {err}"
    except OSError as err:
        return 1, f"error: cannot back up {database}: {err.strerror or err}"
    games = f"{result.games} game" + ("" if result.games == 1 else "s")
    return 0, f"backed up {database} ({games}, schema {result.schema}) to {dest}"
