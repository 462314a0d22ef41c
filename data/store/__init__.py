"""The store: the one package that speaks SQL. SQLite through aiosqlite (WAL) by default, PostgreSQL (psycopg 3,
`data.postgres`) when the database is a `postgresql://` URL; numbered migrations.

A game lives as a snapshot and a log. The snapshot is on the game's `games` row (`snapshot_z`): its state typed
(the rule set's own dataclass in msgspec's MessagePack, compressed, marked with the fingerprint of the class's
shape: `encoding.pack_state`), or, for a rule set that names no state class, its export format without the rolls
(zlib-compressed JSON). Rows written before keep their older form (compressed JSON; before migration 015, JSON text
in `snapshot`) until their game is next written; a typed row of another shape gives way to the replay of the log.
The game's next due time is beside it (`next_due`, the clock's index); the log is `actions`, `events` and `rolls`.
The snapshot always equals the replay of the log's live events (as the export format sees them).

Every write is one transaction and one round trip to the database thread: the work runs there as one
plain function (`_transaction`), so a command's rolls, state change and log entry commit together or not
at all. `run_game` goes further: it loads a game, runs the engine on it (the referee's `plan`) and commits
what the plan returns, all in that one call.

Several processes may share one PostgreSQL database: a command locks its game's row for its transaction (so a
game's commands are serialised across processes, not only within one), and the clock's catch-up takes only the
due games no other process holds (`FOR UPDATE SKIP LOCKED`), so nothing due is applied twice.

The store is this package, one module per part, and `Store` is made of the parts:

- `connection`: opening a database, the database thread, reads, writes and transactions, group commit, faults;
- `dialect`: what SQLite and PostgreSQL do differently, in one object (`SQLITE`, `POSTGRESQL`) a store asks;
- `schema`: the numbered migrations, and the backup before one that changes stored data;
- `games`: creating, running, saving, listing, exporting and importing games;
- `ledger`: the log written and read back — actions, events, rolls, the stat history, the digest mark;
- `frontend`: the front-ends' bookkeeping — reminders, the outbox of announcements, messages, the page token;
- `guilds`: each Discord server's own settings (its GM role, /server gmrole);
- `encoding`: how values are written into rows (times, JSON, snapshots typed or as documents, events).

Everything other code uses is imported from here, `data.store`. (A test that patches a module's global patches it
where it is used: `data.store.schema.MIGRATIONS`, `data.store.dialect._configure`.)
"""

from __future__ import annotations

from data.store.connection import (
    BUSY_TIMEOUT,
    CLOSE_TIMEOUT,
    PAUSE_BEFORE_COMMIT,
    SHUTTING_DOWN,
    Connection,
    StoreUnavailable,
    _transaction,
    open_failure,
)
from data.store.encoding import _iso, _json, event_json, pack_snapshot, snapshot_document
from data.store.frontend import (
    ANNOUNCE_GRACE,
    ANNOUNCE_LEASE,
    OUTBOX_IF_DISCORD,
    OUTBOX_INSERT,
    OUTBOX_PAGE,
    PAGE_TOKEN,
    PAGE_TOKEN_BYTES,
    PAGE_VERSION,
    DmReminder,
    FrontEnd,
    QuietHours,
)
from data.store.games import (
    GAME_MOVED_ON,
    MAX_LOG_AHEAD,
    ChannelTaken,
    Entry,
    GameMovedOn,
    GameRow,
    Games,
    ListedGame,
    NoLiveGame,
    Plan,
    Quick,
    stored_state,
)
from data.store.guilds import Guilds
from data.store.ledger import (
    ACTION_EVENTS,
    ActionRow,
    Ledger,
    LedgerFilter,
    LoggedAction,
    LoggedEvent,
    ReportMessage,
    insert_history,
    record_history,
)
from data.store.schema import MIGRATIONS, Schema, migration_files


class Store(Games, Ledger, FrontEnd, Guilds, Schema, Connection):
    """Open with `await Store.open(path)`; close with `await store.close()` (idempotent, safe to call twice at
    once: it waits, bounded, for the operations in flight and refuses new ones)."""


__all__ = [
    "ACTION_EVENTS", "ANNOUNCE_GRACE", "ANNOUNCE_LEASE", "BUSY_TIMEOUT", "CLOSE_TIMEOUT", "GAME_MOVED_ON",
    "MIGRATIONS", "OUTBOX_IF_DISCORD", "OUTBOX_INSERT", "OUTBOX_PAGE", "PAGE_TOKEN", "PAGE_TOKEN_BYTES", "PAGE_VERSION",
    "PAUSE_BEFORE_COMMIT",
    "SHUTTING_DOWN", "ActionRow", "ChannelTaken", "DmReminder", "Entry", "GameMovedOn", "GameRow", "LedgerFilter",
    "ListedGame", "LoggedAction", "LoggedEvent", "NoLiveGame", "Plan", "Quick", "QuietHours", "ReportMessage", "Store",
    "StoreUnavailable", "_iso", "_json", "_transaction", "event_json", "insert_history", "migration_files",
    "MAX_LOG_AHEAD", "open_failure", "pack_snapshot", "record_history", "snapshot_document", "stored_state",
]
