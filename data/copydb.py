"""`python bot.py --copy-db FROM TO`: every game, its log and its ledger copied from one database to another —
SQLite to PostgreSQL or back, or SQLite to SQLite, PostgreSQL to PostgreSQL.

Both databases are opened with `Store.open` (so both are migrated to the same schema). TO must hold no game
(a copy never merges into a live database) and must not be FROM. The tables are copied one after the other
in id order (their foreign keys point back), each a chunk of `CHUNK` rows at a time, with their ids, so the
copy is the source row for row: the log's ids, the ledger's, the stat history's, the messages the front-end
recorded, the clock's announcements not sent yet, and the order the players opted in to reminders by DM
(SQLite's rowid, PostgreSQL's `seq`). A table or column that `TABLES` does not name (a newer migration) is
refused rather than left behind.

FROM is read in one read transaction (one consistent moment of it, even with the bot running on it); TO is
written in one transaction, the chunks streamed in (at most one chunk is held in memory): the copy runs in
TO's database thread and asks FROM's thread, through the event loop, for each next chunk. Before it commits,
the copy is checked — every table has FROM's row count, and every game's snapshot equals the replay of its
live log — and anything that fails rolls the whole copy back: a failed copy leaves TO with no game. On
PostgreSQL each id's sequence is then set past the highest id copied, so new rows do not collide.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import orjson

from data import postgres
from data.store import Store, StoreUnavailable, stored_state
from engine.events import event_from_dict, replay
from engine.rulesets import ruleset, ruleset_of

CHUNK = 2000  # rows read and written at a time

Progress = Callable[[str, int, int], object]  # (table, rows copied of it so far, its rows in all)


@dataclass(frozen=True)
class Table:
    """A table as the copy sees it: its columns (the same on both backends), the columns that order it (its
    key: the chunks follow it), and the column of PostgreSQL's sequence, if any, to set past the copy."""

    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...] = ("id",)
    serial: str | None = "id"

    def key_of(self, dialect: str) -> tuple[str, ...]:
        return self.key

    def selected(self, dialect: str) -> tuple[str, ...]:
        return self.columns


@dataclass(frozen=True)
class OptInOrder(Table):
    """dm_reminders: its order is SQLite's rowid, which PostgreSQL keeps as the column `seq` (migration 011)."""

    def order_column(self, dialect: str) -> str:
        return "seq" if dialect == "postgresql" else "rowid"

    def key_of(self, dialect: str) -> tuple[str, ...]:
        return (self.order_column(dialect),)

    def selected(self, dialect: str) -> tuple[str, ...]:
        return (*self.columns, self.order_column(dialect))


# In the order they are copied: each table's foreign keys point to tables before it.
TABLES: tuple[Table, ...] = (
    Table("games", ("id", "channel", "guild_id", "ruleset", "gm", "ended", "created_at", "status_message_id",
                    "reminded_turn", "snapshot", "next_due", "remind_at", "last_digest_at", "snapshot_z", "clock",
                    "log_ahead")),
    Table("actions", ("id", "game_id", "actor", "command", "at", "undone")),
    Table("events", ("id", "game_id", "action_id", "kind", "data", "undone")),
    Table("rolls", ("id", "game_id", "action_id", "turn", "nation", "purpose", "die", "modifiers", "total", "target",
                    "comparison", "success", "forced", "at", "battle", "unit", "undone", "faces", "sides", "free",
                    "secret")),
    Table("history", ("id", "game_id", "action_id", "turn", "at", "side", "stat", "value", "mark", "undone")),
    Table("report_messages", ("action_id", "channel_id", "message_id"), key=("action_id",), serial=None),
    Table("announcements", ("action_id", "game_id", "due_at"), key=("action_id",), serial=None),
    Table("choice_messages", ("game_id", "battle", "message_id"), key=("game_id", "battle"), serial=None),
    Table("game_pages", ("game_id", "token", "created_at"), key=("game_id",), serial=None),
    OptInOrder("dm_reminders", ("game_id", "player", "before_minutes", "failed", "sent"), key=(), serial="seq"),
    Table("quiet_hours", ("player", "starts_minute", "ends_minute", "zone"), key=("player",), serial=None),
    Table("guild_settings", ("guild_id", "gm_role_id", "updated_at"), key=("guild_id",), serial=None),
    Table("command_sets", ("scope", "digest", "synced_at"), key=("scope",), serial=None),
)
TABLE_NAMES = tuple(table.name for table in TABLES)


class CopyError(Exception):
    """A copy refused or failed; its message is one line (a PostgreSQL URL without its password), and TO holds
    no game."""


@dataclass(frozen=True)
class CopyResult:
    source: str  # as it may be shown
    dest: str
    counts: dict[str, int]  # rows of each table copied
    rulesets: int  # how many rule sets the games are of

    def line(self) -> str:
        c = self.counts
        return (f"copied {_many(c['games'], 'game')} ({_many(self.rulesets, 'rule set')}), "
                f"{_many(c['actions'], 'action')}, {_many(c['rolls'], 'roll')} from {self.source} to {self.dest}; "
                "every game replays")


def _many(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def shown(target: str) -> str:
    """A database as a message may name it: a PostgreSQL URL without its password."""
    return postgres.redacted(target) if postgres.is_url(target) else target


def _same(source: str, dest: str) -> bool:
    if postgres.is_url(source) or postgres.is_url(dest):
        return source == dest
    a, b = Path(source), Path(dest)
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


async def copy_database(source: str, dest: str, progress: Progress | None = None,
                        chunk: int = CHUNK) -> CopyResult:
    """Copy every game of the database `source` into `dest` (see the module); `progress(table, done, total)` is
    called after each chunk (from the database thread). Raises `CopyError` with one line."""
    if _same(source, dest):
        raise CopyError(f"FROM and TO are the same database ({shown(source)})")
    if not postgres.is_url(source) and not Path(source).is_file():
        raise CopyError(f"there is no database at {source}")
    try:
        src = await Store.open(source)
    except StoreUnavailable as err:
        raise CopyError(str(err)) from None
    try:
        try:
            dst = await Store.open(dest)
        except StoreUnavailable as err:
            raise CopyError(str(err)) from None
        try:
            return await _copy(src, dst, progress, chunk)
        finally:
            await dst.close()
    finally:
        await src.close()


async def _copy(src: Store, dst: Store, progress: Progress | None, chunk: int) -> CopyResult:
    names = f"{src.path} to {dst.path}"
    taken = CopyError(f"{dst.path} already holds games: a copy goes only into a database with none "
                      "(it never merges); give a new file or an empty database")
    if await _count(dst, "games"):
        raise taken
    for store in (src, dst):
        unknown = await store._read(_unknown_schema)
        if unknown:
            raise CopyError(f"{store.path} has {unknown} that the copy does not know: it would leave them behind "
                            "(data/copydb.py's TABLES lists what it copies)")
    await src._read(_begin_snapshot)
    try:
        counts = {table.name: await _count(src, table.name) for table in TABLES}
        if not counts["games"]:
            raise CopyError(f"{src.path} holds no games: nothing to copy")
        rulesets = len({row[0] for row in await src._fetchall("SELECT DISTINCT ruleset FROM games")})
        loop = asyncio.get_running_loop()

        def fetch(table: Table, after: Sequence[Any] | None) -> list[tuple[Any, ...]]:
            """The next chunk of FROM, asked of its thread from TO's (the event loop is free: it awaits TO)."""
            return asyncio.run_coroutine_threadsafe(
                src._read(_chunk, table, src.dialect, after, chunk), loop).result()

        def work(con: Any) -> None:
            if con.execute("SELECT COUNT(*) FROM games").fetchone()[0]:  # a game started there meanwhile
                raise taken
            for table in TABLES:
                _copy_table(con, src.dialect, dst.dialect, table, fetch, counts[table.name], progress)
            _check(con, counts)
            if dst.dialect == "postgresql":
                _set_sequences(con)

        try:
            await dst._transaction(work)
        except CopyError as err:
            if err is taken:
                raise
            raise CopyError(f"copying {names} failed, nothing was copied: {err}") from None
        except (sqlite3.Error, StoreUnavailable) as err:
            raise CopyError(f"copying {names} failed, nothing was copied: {_one_line(err)}") from None
        except Exception as err:
            if "psycopg" not in type(err).__module__:
                raise
            raise CopyError(f"copying {names} failed, nothing was copied: {_one_line(err)}") from None
    finally:
        await src._read(_end_snapshot)
    return CopyResult(src.path, dst.path, counts, rulesets)


def _one_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


async def _count(store: Store, table: str) -> int:
    return int((await store._fetchall(f"SELECT COUNT(*) FROM {table}"))[0][0])


# Left behind: PostgreSQL's schema version (SQLite's is `PRAGMA user_version`), and the commands' idempotency keys
# (migration 018: kept a day for retries of commands run against FROM; TO's commands start with none)
BOOKKEEPING = {"referee_schema", "command_keys"}
# Columns known and left behind: which process holds an announcement, and its lease, are FROM's processes' (migration
# 017); a copied announcement is fresh in TO, as a commit leaves it
NOT_COPIED = {"announcements": {"owner", "lease_until"}}


def _unknown_schema(con: Any) -> str:
    """The tables and columns of a database that `TABLES` does not name (a migration newer than the copy), in
    words; empty when it knows them all."""
    known = {table.name: set(table.columns) | NOT_COPIED.get(table.name, set()) for table in TABLES}
    if isinstance(con, sqlite3.Connection):
        names = [row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                               " AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        found = {name: {row[1] for row in con.execute(f'PRAGMA table_info("{name}")')} for name in names}
    else:
        found = {}
        for table, column in con.execute("SELECT table_name, column_name FROM information_schema.columns"
                                         " WHERE table_schema = current_schema() ORDER BY table_name"):
            found.setdefault(table, set()).add(column)
        found.get("dm_reminders", set()).discard("seq")  # (copied as the order: SQLite's rowid)
    tables = sorted(set(found) - set(known) - BOOKKEEPING)
    columns = sorted(f"{name}.{column}" for name, present in found.items() if name in known
                     for column in present - known[name])
    words = [f"the table{'s' if len(tables) > 1 else ''} {', '.join(tables)}"] if tables else []
    words += [f"the column{'s' if len(columns) > 1 else ''} {', '.join(columns)}"] if columns else []
    return " and ".join(words)


def _begin_snapshot(con: Any) -> None:
    """FROM is read in one read transaction: one moment of it, whatever a running bot commits meanwhile."""
    if isinstance(con, sqlite3.Connection):
        con.execute("BEGIN")  # deferred: WAL gives the transaction one snapshot from its first read
    else:
        con.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")


def _end_snapshot(con: Any) -> None:
    if con.in_transaction:
        con.execute("ROLLBACK")


def _chunk(con: Any, table: Table, dialect: str, after: Sequence[Any] | None, limit: int) -> list[tuple[Any, ...]]:
    """Up to `limit` rows of `table` after the key `after` (from the start: None), in key order, as tuples of
    its selected columns (the key's columns last, for dm_reminders whose key is not a column of both)."""
    key = table.key_of(dialect)
    columns = table.selected(dialect)
    query = f"SELECT {', '.join(columns)} FROM {table.name}"
    params: tuple[Any, ...] = ()
    if after is not None:
        query += (f" WHERE {key[0]} > ?" if len(key) == 1
                  else f" WHERE ({', '.join(key)}) > ({', '.join('?' * len(key))})")
        params = tuple(after)
    query += f" ORDER BY {', '.join(key)} LIMIT ?"
    return [tuple(row) for row in con.execute(query, (*params, limit)).fetchall()]


def _copy_table(con: Any, source_dialect: str, dialect: str, table: Table,
                fetch: Callable[[Table, Sequence[Any] | None], list[tuple[Any, ...]]], total: int,
                progress: Progress | None) -> None:
    """Stream one table from FROM into TO (inside TO's transaction), a chunk at a time. The rows come as FROM's
    selected columns and go in as TO's: the same columns in the same places (dm_reminders' order last)."""
    columns = table.selected(dialect)
    read = table.selected(source_dialect)
    key_at = [read.index(column) for column in table.key_of(source_dialect)]
    insert = f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    done, after = 0, None
    if progress is not None:
        progress(table.name, 0, total)
    while True:
        rows = fetch(table, after)
        if not rows:
            break
        con.executemany(insert, rows)
        done += len(rows)
        if progress is not None:
            progress(table.name, done, total)
        after = [rows[-1][i] for i in key_at]


def _check(con: Any, counts: dict[str, int]) -> None:
    """The copy as it is about to commit: each table has FROM's row count, and every game's snapshot equals the
    replay of its live log (one game's events at a time). Raises `CopyError` naming what differs."""
    for name, expected in counts.items():
        found = int(con.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0])
        if found != expected:
            raise CopyError(f"{name} has {found:,} rows, FROM has {expected:,}")
    game_ids = [int(row[0]) for row in con.execute("SELECT id FROM games ORDER BY id").fetchall()]
    for game_id in game_ids:
        channel, name, text, packed, ahead = con.execute(
            "SELECT channel, ruleset, snapshot, snapshot_z, log_ahead FROM games WHERE id = ?", (game_id,)).fetchone()
        try:
            rules = ruleset(name)
            state = stored_state(con, game_id, name, text, packed, int(ahead))  # (with its log-only rollovers)
            events = (event_from_dict(orjson.loads(row[0]), name) for row in con.execute(
                "SELECT data FROM events WHERE game_id = ? AND undone = 0 ORDER BY id", (game_id,)))
            replayed = replay(events)
            same = rules.state_to_dict(state) == ruleset_of(replayed).state_to_dict(replayed)
        except Exception as err:  # a snapshot or an event that does not read is a game that does not replay
            raise CopyError(f"game {game_id} ({channel}) does not replay: {type(err).__name__}: {err}") from None
        if not same:
            raise CopyError(f"game {game_id} ({channel}): its state is not the replay of its log")


def _set_sequences(con: Any) -> None:
    """PostgreSQL: each BIGSERIAL's sequence past the highest value copied (the next row gets the one after)."""
    for table in TABLES:
        if table.serial is not None:
            con.execute(f"SELECT setval(pg_get_serial_sequence('{table.name}', '{table.serial}'),"
                        f" (SELECT MAX({table.serial}) FROM {table.name}))")


# --- `python bot.py --copy-db FROM TO` -----------------------------------------------------------------

BAR = 20  # characters of the progress bar


class ProgressBar:
    """`copying rolls  12,000/40,000 [#####...............]`, redrawn in place on a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.width = 0

    def __call__(self, table: str, done: int, total: int) -> None:
        filled = BAR * done // total if total else BAR
        text = f"copying {table:<15} {done:,}/{total:,} [{'#' * filled}{'.' * (BAR - filled)}]"
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def clear(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


def copy_report(source: str, dest: str, stream: TextIO | None = None) -> tuple[int, str]:
    """`bot.py --copy-db FROM TO`: copy, with a progress bar on `stream` (stderr) when it is a terminal.
    Returns the exit status and the one line to print: 0 and what was copied, 1 and an `error:` line."""
    stream = sys.stderr if stream is None else stream
    bar = ProgressBar(stream) if stream.isatty() else None
    try:
        result = asyncio.run(copy_database(source, dest, bar))
    except (CopyError, StoreUnavailable) as err:
        return 1, f"error: {err}"
    except OSError as err:
        return 1, f"error: cannot copy {shown(source)} to {shown(dest)}: {err.strerror or err}"
    finally:
        if bar is not None:
            bar.clear()
    return 0, result.line()
